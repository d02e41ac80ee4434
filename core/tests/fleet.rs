//! Processes sharing one scope through the fleet exchange (`stoic_core::fleet`),
//! against an always-failing service in virtual time: one retry floor for the
//! fleet instead of one per process.

use std::collections::BTreeMap;

use stoic_core::fleet::{FleetHealth, FleetView, ScopeView, Tally};
use stoic_core::{Admission, CallSpec, Decision, Instant, Outcome, Policy};

/// No breaker (every call reaches the service); a ratio budget whose only
/// allowance is its floor: one retry per second over a 10 s window, so
/// 10 retries per window, per process alone or for the fleet when shared.
fn policy() -> Policy {
    Policy::from_json(
        r#"{"seed": 1, "max_attempts": 3, "breaker": null,
            "backoff": {"strategy": "constant", "base_ms": 10, "cap_ms": 10},
            "budget": {"ratio": {"ratio": 0.0, "min_retries_per_sec": 1.0, "min_concurrent_retries": 0,
                                 "window_ms": 10000, "buckets": 10}}}"#,
    )
    .unwrap()
}

/// One call that fails every attempt: how many attempts it made.
fn failing_call(policy: &mut Policy, now: u64) -> u64 {
    let mut call = policy.start(
        Instant::from_millis(now),
        CallSpec::new("api").idempotent(true),
    );
    let mut attempts = 0;
    let mut at = now;
    loop {
        match policy.before_attempt(Instant::from_millis(at), &mut call) {
            Admission::Proceed(_) => attempts += 1,
            Admission::Reject(_) => return attempts,
        }
        match policy.on_outcome(
            Instant::from_millis(at + 1),
            &mut call,
            Outcome::status(503),
        ) {
            Decision::Retry(retry) => at += 1 + retry.delay_ms,
            _ => return attempts,
        }
    }
}

/// The store: counts per bucket, each process's last sequence number.
#[derive(Default)]
struct Store {
    buckets: BTreeMap<u64, Tally>,
    applied: BTreeMap<usize, u64>,
}

impl Store {
    fn exchange(&mut self, process: usize, policy: &mut Policy, now: u64) {
        let delta = policy.fleet_export(Instant::from_millis(now), 1_700_000_000_000 + now);
        let last = self.applied.entry(process).or_insert(0);
        if delta.seq > *last {
            *last = delta.seq;
            for scope in &delta.scopes {
                for (bucket, tally) in &scope.buckets {
                    let slot = self.buckets.entry(*bucket).or_default();
                    *slot = slot.plus(*tally);
                }
            }
        }
        let view = FleetView {
            seq: delta.seq,
            scopes: vec![ScopeView {
                scope: "api".to_owned(),
                bucket_ms: 1000,
                buckets: self.buckets.iter().map(|(b, t)| (*b, *t)).collect(),
                open_until: None,
                closed_until: None,
                lease: false,
            }],
        };
        policy.fleet_apply(Instant::from_millis(now), &view);
    }
}

/// Four processes, 50 calls each in one 10 s window: attempts made.
fn run(shared: bool) -> u64 {
    let mut processes: Vec<Policy> = (0..4).map(|_| policy()).collect();
    let mut store = Store::default();
    let mut attempts = 0;
    if shared {
        // The adapters attach with an exchange before the first call.
        for (process, policy) in processes.iter_mut().enumerate() {
            store.exchange(process, policy, 0);
        }
    }
    for round in 0..50u64 {
        for (process, policy) in processes.iter_mut().enumerate() {
            let now = round * 100 + process as u64 * 20;
            attempts += failing_call(policy, now);
            if shared {
                store.exchange(process, policy, now + 50);
            }
        }
    }
    if shared {
        for policy in &processes {
            assert_eq!(
                policy.fleet_health(Instant::from_millis(5_000)),
                FleetHealth::Live
            );
        }
    }
    attempts
}

#[test]
fn a_shared_budget_holds_one_floor_for_the_fleet() {
    let first_attempts = 4 * 50;
    let alone = run(false) - first_attempts;
    let shared = run(true) - first_attempts;
    // Alone, each process spends its own floor of 10 retries in the window.
    assert_eq!(alone, 40);
    // Shared, the fleet spends one floor, plus what the view's lag lets
    // through: a process decides on the others' counts as of its own last
    // exchange, so the other three's calls since (two retries each at
    // most) can overshoot once.
    assert!(
        (10..=16).contains(&shared),
        "the fleet retried {shared} times"
    );
}

#[test]
fn a_policy_never_attached_counts_nothing_for_a_fleet() {
    let mut p = policy();
    assert_eq!(
        p.fleet_health(Instant::from_millis(0)),
        FleetHealth::Detached
    );
    failing_call(&mut p, 0);
    let delta = p.fleet_export(Instant::from_millis(10), 1_000);
    assert!(
        delta.is_empty(),
        "calls before the first export are not shared"
    );
}

#[test]
fn the_view_going_live_and_stale_is_an_event() {
    use stoic_core::Event;
    let mut p = policy();
    let mut store = Store::default();
    store.exchange(0, &mut p, 0);
    p.fleet_failed(Instant::from_millis(3_000)); // not stale yet
    p.fleet_failed(Instant::from_millis(6_000));
    store.exchange(0, &mut p, 7_000);
    let changes: Vec<(String, String)> = std::iter::from_fn(|| p.poll_event())
        .filter_map(|event| match event {
            Event::FleetHealth { from, to, .. } => {
                Some((from.code().to_owned(), to.code().to_owned()))
            }
            _ => None,
        })
        .collect();
    let expected = [("detached", "live"), ("live", "stale"), ("stale", "live")];
    assert_eq!(changes, expected.map(|(a, b)| (a.to_owned(), b.to_owned())));
}

/// A breaker that opens on one failure for a second, one probe to close.
fn breaker_policy() -> Policy {
    Policy::from_json(
        r#"{"seed": 1, "max_attempts": 1,
            "breaker": {"trip": {"kind": "consecutive_failures", "threshold": 1},
                        "cooldown_ms": 1000, "half_open": {"max_probes": 1, "success_threshold": 1}}}"#,
    )
    .unwrap()
}

const STORE_ORIGIN: u64 = 1_700_000_000_000;

/// An exchange with a store that keeps the breaker open until
/// `open_until` (this process's ms) and grants no lease.
fn exchange_open(
    policy: &mut Policy,
    now: u64,
    open_until: Option<u64>,
) -> stoic_core::fleet::FleetDelta {
    let delta = policy.fleet_export(Instant::from_millis(now), STORE_ORIGIN + now);
    let view = FleetView {
        seq: delta.seq,
        scopes: vec![ScopeView {
            scope: "api".to_owned(),
            // The scope's buckets, as the store keeps them: the budget's.
            bucket_ms: delta.scopes.first().map_or(1000, |s| s.bucket_ms),
            buckets: Vec::new(),
            open_until: open_until.map(|until| STORE_ORIGIN + until),
            closed_until: None,
            lease: false,
        }],
    };
    policy.fleet_apply(Instant::from_millis(now), &view);
    delta
}

#[test]
fn a_failed_exchange_holds_news_back_until_a_view_comes() {
    let mut p = breaker_policy();
    exchange_open(&mut p, 0, None);
    assert!(!p.fleet_has_news());
    failing_call(&mut p, 10); // trips the breaker: news
    assert!(p.fleet_has_news());
    // The store is down (its clock could not even be read): no export.
    p.fleet_failed(Instant::from_millis(20));
    assert!(
        !p.fleet_has_news(),
        "a failing store is not asked again at once"
    );
    failing_call(&mut p, 2_000); // no view yet: probes alone, and reopens
    p.fleet_failed(Instant::from_millis(2_050));
    assert!(!p.fleet_has_news());
    // The interval's exchange reaches the store: the trip goes out then.
    let delta = exchange_open(&mut p, 3_000, Some(4_000));
    let facts = delta.scopes[0].breaker.unwrap();
    assert!(facts.opened_until.is_some(), "{delta:?}");
    assert!(!p.fleet_has_news(), "{delta:?}");
}

#[test]
fn only_a_process_with_a_call_to_make_asks_for_the_probe_lease() {
    let mut p = breaker_policy();
    exchange_open(&mut p, 0, None);
    failing_call(&mut p, 10); // open until 1011
    exchange_open(&mut p, 20, Some(1_011));
    assert!(!p.fleet_has_news());
    // The cooldown has elapsed, and this process has no call to make.
    let idle = exchange_open(&mut p, 1_500, Some(1_011));
    assert!(!idle.scopes[0].breaker.unwrap().wants_probe, "{idle:?}");
    assert!(!p.fleet_has_news());
    // A call wants to go out: refused (no lease), and the lease is asked for at once.
    assert_eq!(failing_call(&mut p, 1_600), 0);
    assert!(p.fleet_has_news());
    let asking = exchange_open(&mut p, 1_650, Some(1_011));
    assert!(asking.scopes[0].breaker.unwrap().wants_probe, "{asking:?}");
    assert!(!p.fleet_has_news(), "asked once, not at every look");
}
