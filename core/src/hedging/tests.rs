//! Hedged calls through the policy: what the shared vectors
//! (`tests/vectors/hedging.json`) cannot say in their shape.

use proptest::prelude::*;

use super::{HedgeDelay, HedgeStep, HedgedCall, HedgingConfig};
use crate::schema::{Dialect, Value};
use crate::{Admission, CallSpec, Decision, Instant, Method, Outcome, Policy};

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

fn fixed(after_ms: u64, max_hedges: u32) -> HedgingConfig {
    HedgingConfig {
        max_hedges,
        delay: HedgeDelay::Fixed { after_ms },
    }
}

fn policy(config: &str) -> Policy {
    Policy::from_json(config).unwrap()
}

fn get() -> CallSpec<'static> {
    CallSpec::http("read", Method::Get).in_scope("api")
}

fn sends(step: &HedgeStep) -> Option<u32> {
    match step {
        HedgeStep::Send(plan) => Some(plan.attempt),
        _ => None,
    }
}

#[test]
fn hedges_and_retries_draw_on_one_budget() {
    // One floor slot and no ratio: one extra attempt at a time, hedge or retry.
    let mut policy = policy(
        r#"{"seed": 1, "budget": {"ratio": {"ratio": 0, "min_retries_per_sec": 0, "min_concurrent_retries": 1}}}"#,
    );
    let mut hedged = policy.start_hedged(at(0), get(), &fixed(50, 1)).unwrap();
    assert_eq!(sends(&policy.hedge_poll(at(0), &mut hedged)), Some(1));
    assert_eq!(sends(&policy.hedge_poll(at(50), &mut hedged)), Some(2));

    // The hedge holds the slot: a plain call's retry is refused.
    let mut plain = policy.start(at(60), get());
    assert!(matches!(
        policy.before_attempt(at(60), &mut plain),
        Admission::Proceed(_)
    ));
    match policy.on_outcome(at(61), &mut plain, Outcome::status(503)) {
        Decision::GiveUp(g) => assert_eq!(g.reason.code(), "budget_exhausted"),
        other => panic!("{other:?}"),
    }

    // The first copy wins; the cancelled hedge gives its slot back.
    let step = policy.hedge_outcome(at(70), &mut hedged, 1, Outcome::success());
    assert_eq!(step.cancel().bits(), 0b10);
    let mut plain = policy.start(at(80), get());
    let _ = policy.before_attempt(at(80), &mut plain);
    assert!(matches!(
        policy.on_outcome(at(81), &mut plain, Outcome::status(503)),
        Decision::Retry(_)
    ));
}

#[test]
fn a_refused_start_changes_nothing() {
    let mut policy = policy(r#"{"seed": 1}"#);
    let bad = fixed(50, 9);
    let error = policy.start_hedged(at(0), get(), &bad).unwrap_err();
    assert_eq!(
        (error.code().as_str(), error.field()),
        ("out_of_range", "max_hedges")
    );
    let post = CallSpec::http("create", Method::Post);
    let error = policy.start_hedged(at(0), post, &fixed(50, 1)).unwrap_err();
    assert_eq!(
        (error.code().as_str(), error.field()),
        ("not_idempotent", "idempotent")
    );
    assert!(error.message().contains("idempotency key"));
    // Neither refusal used a call id or drew from the policy's seed.
    let mut fresh = Policy::from_json(r#"{"seed": 1}"#).unwrap();
    let call = policy.start(at(0), get());
    assert_eq!(call.id(), fresh.start(at(0), get()).id());
}

#[test]
fn python_writes_the_fixed_delay_in_seconds() {
    let value = Value::from_json(r#"{"delay": {"kind": "fixed", "after": 0.05}}"#).unwrap();
    let config = HedgingConfig::from_value(&value, Dialect::PYTHON).unwrap();
    assert_eq!(config.delay, HedgeDelay::Fixed { after_ms: 50 });
    let value = Value::from_json(r#"{"delay": {"kind": "fixed", "after": 0}}"#).unwrap();
    let error = HedgingConfig::from_value(&value, Dialect::PYTHON).unwrap_err();
    assert_eq!(error.field(), "delay.after");
    assert!(error.message().contains("0.001 s"), "{}", error.message());
    assert_eq!(
        HedgingConfig::from_value(&config.to_value(Dialect::PYTHON), Dialect::PYTHON).unwrap(),
        config
    );
}

#[test]
fn an_outcome_for_a_copy_not_in_flight_changes_nothing() {
    let mut policy = policy(r#"{"seed": 1}"#);
    let mut hedged = policy.start_hedged(at(0), get(), &fixed(50, 1)).unwrap();
    let _ = policy.hedge_poll(at(0), &mut hedged);
    for copy in [0, 2, 9] {
        let step = policy.hedge_outcome(at(10), &mut hedged, copy, Outcome::status(503));
        assert_eq!(
            step,
            HedgeStep::Wait {
                until: Some(at(50))
            },
            "copy {copy}"
        );
    }
    assert_eq!(hedged.call().attempts(), 1);
    assert_eq!(hedged.in_flight().bits(), 0b1);
}

#[test]
fn abandoning_a_hedged_call_frees_the_half_open_probe() {
    let mut policy = policy(
        r#"{"seed": 1, "breaker": {"trip": {"kind": "consecutive_failures", "threshold": 1}, "cooldown_ms": 100}}"#,
    );
    let mut first = policy.start_hedged(at(0), get(), &fixed(50, 1)).unwrap();
    let _ = policy.hedge_poll(at(0), &mut first);
    let _ = policy.hedge_outcome(at(1), &mut first, 1, Outcome::status(503));
    // Half-open after the cooldown: the probe goes out, then is abandoned.
    let mut probe = policy.start_hedged(at(200), get(), &fixed(50, 1)).unwrap();
    assert_eq!(sends(&policy.hedge_poll(at(200), &mut probe)), Some(1));
    let mut other = policy.start_hedged(at(201), get(), &fixed(50, 1)).unwrap();
    assert!(matches!(
        policy.hedge_poll(at(201), &mut other),
        HedgeStep::GiveUp { .. }
    ));
    policy.hedge_abandon(&mut probe);
    assert!(probe.is_finished());
    let mut next = policy.start_hedged(at(202), get(), &fixed(50, 1)).unwrap();
    assert_eq!(sends(&policy.hedge_poll(at(202), &mut next)), Some(1));
}

#[test]
fn hedges_count_as_extra_attempts_in_the_metrics() {
    let mut policy = policy(r#"{"seed": 1}"#);
    let mut hedged = policy.start_hedged(at(0), get(), &fixed(50, 1)).unwrap();
    let _ = policy.hedge_poll(at(0), &mut hedged);
    let _ = policy.hedge_poll(at(50), &mut hedged);
    let _ = policy.hedge_outcome(at(60), &mut hedged, 2, Outcome::success());
    let totals = policy.metrics_total();
    assert_eq!(
        (
            totals.attempts_total,
            totals.retry_attempts_total,
            totals.calls_total
        ),
        (2, 1, 1)
    );
}

/// What a host may do to a hedged call at a given moment.
#[derive(Clone, Debug)]
enum Act {
    Poll,
    Outcome { copy: u32, status: u16 },
    Cancel,
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        4 => Just(Act::Poll),
        4 => (0u32..7, prop::sample::select(vec![200u16, 400, 429, 500, 503])).prop_map(|(copy, status)| Act::Outcome { copy, status }),
        1 => Just(Act::Cancel),
    ]
}

fn run(policy: &mut Policy, hedged: &mut HedgedCall, now: Instant, act: &Act) -> HedgeStep {
    match act {
        Act::Poll => policy.hedge_poll(now, hedged),
        Act::Outcome { copy, status } => {
            policy.hedge_outcome(now, hedged, *copy, Outcome::status(*status))
        }
        Act::Cancel => policy.hedge_cancel(now, hedged),
    }
}

proptest! {
    /// Whatever a host does in whatever order: copies never exceed the
    /// limit, each is sent once, a finished call answers the same way
    /// again, the cancel set holds only copies that were in flight, and
    /// the budget counts exactly one extra attempt per hedge.
    #[test]
    fn any_sequence_keeps_the_machine_consistent(
        max_hedges in 1u32..=4,
        after_ms in 1u64..100,
        acts in prop::collection::vec((0u64..60, act()), 1..40),
    ) {
        let mut policy = policy(r#"{"seed": 3, "breaker": null}"#);
        let mut hedged = policy.start_hedged(at(0), get(), &fixed(after_ms, max_hedges)).unwrap();
        let mut now = 0;
        let mut sent = 0;
        let mut end: Option<HedgeStep> = None;
        for (dt, act) in &acts {
            now += dt;
            let in_flight = hedged.in_flight();
            let step = run(&mut policy, &mut hedged, at(now), act);
            if let Some(copy) = sends(&step) {
                sent += 1;
                prop_assert_eq!(copy, sent);
            }
            prop_assert!(hedged.sent() <= max_hedges + 1);
            match (&end, &step) {
                (Some(end), step) => prop_assert_eq!(end, step),
                (None, HedgeStep::Done { cancel, .. } | HedgeStep::GiveUp { cancel, .. }) => {
                    prop_assert_eq!(cancel.bits() & !in_flight.bits(), 0);
                    prop_assert!(hedged.in_flight().is_empty());
                    prop_assert_eq!(hedged.next_timeout(), None);
                    end = Some(step.clone());
                }
                (None, _) => {}
            }
        }
        let ratio = policy.budget_status(at(now), "api").unwrap().ratio.unwrap();
        prop_assert_eq!(ratio.retries, u64::from(sent.saturating_sub(1)));
    }
}

/// While measuring, each hedge is a `stoic.hedge` span event naming the copy
/// and how long the call waited before it; the first copy is none.
#[cfg(feature = "measure")]
#[test]
fn a_hedge_is_a_span_event_while_measuring() {
    use crate::record::AttributeValue;
    use crate::Event;

    let mut policy = policy(r#"{"seed": 1}"#);
    policy.set_measuring(true);
    let mut hedged = policy.start_hedged(at(0), get(), &fixed(50, 2)).unwrap();
    assert_eq!(sends(&policy.hedge_poll(at(0), &mut hedged)), Some(1));
    assert_eq!(sends(&policy.hedge_poll(at(50), &mut hedged)), Some(2));
    // Copy 2 fails: copy 3 goes at once, 20 ms after copy 2.
    let step = policy.hedge_outcome(at(70), &mut hedged, 2, Outcome::status(503));
    assert_eq!(sends(&step), Some(3));
    let hedges: Vec<(u32, u64, Option<String>)> = std::iter::from_fn(|| policy.poll_event())
        .filter_map(|event| match event {
            Event::Decision(note) if note.name == "stoic.hedge" => {
                let operation = note
                    .entries()
                    .find_map(|(name, value)| match (name, value) {
                        ("operation", AttributeValue::Text(text)) => Some(text.to_owned()),
                        _ => None,
                    });
                Some((note.attempt, note.delay_ms, operation))
            }
            _ => None,
        })
        .collect();
    let read = Some("read".to_owned());
    assert_eq!(hedges, vec![(2, 50, read.clone()), (3, 20, read)]);
}
