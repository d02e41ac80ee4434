//! Property test of measuring: whatever calls a measuring policy sees
//! (outcomes, cancellations, breakers, budgets, time moving both ways), the
//! metric points it queues, summed per metric and scope, equal its metrics
//! snapshot; each decision note matches a retry or an end.
#![cfg(feature = "measure")]

use std::collections::BTreeMap;

use proptest::prelude::*;
use stoic_core::record::METRICS;
use stoic_core::{Call, CallSpec, Config, Event, Instant, NetworkErrorKind, Outcome, Policy};

const SCOPES: [&str; 3] = ["", "api", "billing"];
const STATUSES: [u16; 6] = [200, 404, 429, 500, 503, 504];

#[derive(Clone, Debug)]
enum Op {
    Start { scope: usize, idempotent: bool },
    Attempt(usize),
    Status(usize, usize),
    Network(usize, usize),
    Cancel(usize),
    Wait(u64),
    Poll,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..SCOPES.len(), any::<bool>())
            .prop_map(|(scope, idempotent)| Op::Start { scope, idempotent }),
        (0..8usize).prop_map(Op::Attempt),
        (0..8usize, 0..STATUSES.len()).prop_map(|(c, s)| Op::Status(c, s)),
        (0..8usize, 0..NetworkErrorKind::ALL.len()).prop_map(|(c, k)| Op::Network(c, k)),
        (0..8usize).prop_map(Op::Cancel),
        (0..3_000u64).prop_map(Op::Wait),
        Just(Op::Poll),
    ]
}

/// Sums of the points seen, per (metric, scope): (points, total value).
type Tally = BTreeMap<(String, String), (u64, f64)>;

fn drain(policy: &mut Policy, tally: &mut Tally, notes: &mut u64) {
    while let Some(event) = policy.poll_event() {
        match event {
            Event::Metric(point) => {
                let key = (point.metric.to_owned(), point.attributes.scope.clone());
                let entry = tally.entry(key).or_default();
                entry.0 += 1;
                entry.1 += point.value;
            }
            Event::Decision(note) => {
                // Only a stop can come before the first attempt (a breaker
                // open at admission, a cancellation).
                assert!(
                    note.attempt >= 1 || note.name == "stoic.gave_up",
                    "{note:?}"
                );
                if note.name != "stoic.retry" {
                    assert_eq!(note.delay_ms, 0, "{note:?}");
                }
                *notes += 1;
            }
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn points_add_up_to_the_snapshot(ops in proptest::collection::vec(op(), 0..200)) {
        let config = Config::from_json(
            r#"{"seed": 7, "max_attempts": 3, "breaker": {"trip": {"kind": "consecutive_failures", "threshold": 3, "compare": "ge"}, "cooldown_ms": 1000}}"#,
        ).unwrap();
        let mut policy = Policy::new(config).unwrap();
        policy.set_measuring(true);
        let mut calls: Vec<Call> = Vec::new();
        let mut now = 0u64;
        let mut tally = Tally::new();
        let mut notes = 0u64;
        for op in ops {
            let t = Instant::from_millis(now);
            match op {
                Op::Start { scope, idempotent } => {
                    let spec = CallSpec::new("op").in_scope(SCOPES[scope]).idempotent(idempotent);
                    calls.push(policy.start(t, spec));
                }
                Op::Attempt(i) => {
                    if let Some(call) = calls.get_mut(i) {
                        let _ = policy.before_attempt(t, call);
                    }
                }
                Op::Status(i, s) => {
                    if let Some(call) = calls.get_mut(i) {
                        let _ = policy.on_outcome(t, call, Outcome::status(STATUSES[s]));
                    }
                }
                Op::Network(i, k) => {
                    if let Some(call) = calls.get_mut(i) {
                        let _ = policy.on_outcome(t, call, Outcome::network(NetworkErrorKind::ALL[k]));
                    }
                }
                Op::Cancel(i) => {
                    if let Some(call) = calls.get_mut(i) {
                        let _ = policy.cancel(t, call);
                    }
                }
                Op::Wait(ms) => now += ms,
                Op::Poll => drain(&mut policy, &mut tally, &mut notes),
            }
        }
        drain(&mut policy, &mut tally, &mut notes);
        for (scope, snapshot) in policy.metrics() {
            for spec in &METRICS {
                let (points, sum) = tally
                    .get(&(spec.otel_name.to_owned(), scope.clone()))
                    .copied()
                    .unwrap_or_default();
                match spec.field {
                    "circuit_breaker_state" => prop_assert_eq!(points, 0),
                    "retry_duration" => {
                        prop_assert_eq!(points, snapshot.retry_duration.count);
                        let ms = snapshot.retry_duration.sum_ms as f64;
                        prop_assert!((sum * 1000.0 - ms).abs() < 1e-6 * ms.max(1.0));
                    }
                    _ => {
                        let want = (spec.value)(&snapshot);
                        prop_assert_eq!(points, want, "{} in {:?}", spec.field, scope);
                        prop_assert!((sum - want as f64).abs() < 1e-9);
                    }
                }
            }
        }
        // Every retry is a note, and so is every end after a retry or a stop.
        let retries: u64 = policy.metrics().values().map(|s| s.retry_total).sum();
        prop_assert!(notes >= retries);
    }
}
