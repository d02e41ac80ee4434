//! The snapshot format is a contract: a snapshot written by an earlier
//! build must restore, and this build must write the same document. The
//! fixtures in `fixtures/` were written by the last build whose snapshots
//! went through serde (the format this codec took over); each must read,
//! and write back to the same JSON value.

use stoic_core::{
    Admission, CallSpec, Decision, Instant, Method, NetworkErrorKind, Outcome, Policy, PolicyState,
};

/// Drives a policy with every part on through traffic that leaves state in
/// each of them: breakers in every state, budgets spent, alerts raised.
fn busy_policy(config: &str) -> Policy {
    let mut policy = Policy::from_json(config).unwrap();
    let mut t = 1_000_u64;
    for i in 0..40_u64 {
        let scope = ["api", "db", "cache"][(i % 3) as usize];
        let spec = CallSpec::http(
            "op",
            if i % 4 == 0 {
                Method::Post
            } else {
                Method::Get
            },
        )
        .in_scope(scope);
        let mut call = policy.start(Instant::from_millis(t), spec);
        for attempt in 0..3_u64 {
            t += 7 + attempt;
            if !matches!(
                policy.before_attempt(Instant::from_millis(t), &mut call),
                Admission::Proceed(_)
            ) {
                break;
            }
            t += 3;
            let healthy = scope == "db" && i % 7 != 0;
            let outcome = match (i + attempt) % 5 {
                _ if healthy => Outcome::success(),
                0 => Outcome::success(),
                1 => Outcome::status(503),
                2 => Outcome::network(NetworkErrorKind::ConnectRefused),
                3 => Outcome::status(429),
                _ => Outcome::status(500),
            };
            match policy.on_outcome(Instant::from_millis(t), &mut call, outcome) {
                Decision::Retry(r) => t += r.delay_ms.min(50),
                _ => break,
            }
        }
        t += 11;
    }
    // A closed breaker with calls in its window.
    t += 2_000;
    for i in 0..5_u64 {
        let mut call = policy.start(Instant::from_millis(t), CallSpec::new("op").in_scope("db"));
        let _ = policy.before_attempt(Instant::from_millis(t), &mut call);
        let outcome = if i != 3 {
            Outcome::success()
        } else {
            Outcome::status(503)
        };
        let _ = policy.on_outcome(Instant::from_millis(t + 2), &mut call, outcome);
        t += 5;
    }
    // A probe left in flight: a half-open breaker with an open permit.
    t += 1_000;
    let mut probe = policy.start(Instant::from_millis(t), CallSpec::new("op").in_scope("api"));
    let _ = policy.before_attempt(Instant::from_millis(t), &mut probe);
    policy
}

const COUNT_WINDOW: &str = r#"{"seed": 7, "max_attempts": 3,
 "breaker": {"trip": {"kind": "failure_rate", "window": {"kind": "count", "size": 10}, "failure_rate": 0.5, "minimum_throughput": 4}, "cooldown_ms": 500, "half_open": {"max_probes": 2, "success_threshold": 2}},
 "budget": {"ratio": {"ratio": 0.2, "window_ms": 10000, "buckets": 10, "min_retries_per_sec": 0.5, "min_concurrent_retries": 1},
            "run_cap": {"max_retries": 30}, "token_bucket": {"profile": "aws_standard"}, "grpc": {"max_tokens": 10, "token_ratio": 0.1}},
 "alerts": {"window_ms": 60000, "retry_rate_warning": 0.1, "exhausted_rate_critical": 0.05, "min_requests": 5}}"#;

const TIME_WINDOW: &str = r#"{"seed": 9, "max_attempts": 3,
 "breaker": {"trip": {"kind": "failure_rate", "window": {"kind": "time", "duration_ms": 2000, "buckets": 4}, "failure_rate": 0.3, "minimum_throughput": 3, "slow_call": {"duration_ms": 5, "rate": 0.9}}, "cooldown_ms": 300},
 "budget": {"token_bucket": {"profile": "aws_2026", "capacity": 20}}}"#;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("STOIC_WRITE_FIXTURES").is_some() {
        let config = if name.contains("count") {
            COUNT_WINDOW
        } else {
            TIME_WINDOW
        };
        let text = busy_policy(config).snapshot_state().to_json();
        std::fs::write(&path, format!("{text}\n")).unwrap();
    }
    std::fs::read_to_string(&path).unwrap()
}

#[test]
fn fixtures_are_written() {
    for name in [
        "snapshot_v1_count_window.json",
        "snapshot_v1_time_window.json",
    ] {
        assert!(fixture(name).starts_with('{'));
    }
}

#[test]
fn an_earlier_builds_snapshot_reads_and_writes_back_the_same() {
    for name in [
        "snapshot_v1_count_window.json",
        "snapshot_v1_time_window.json",
    ] {
        let text = fixture(name);
        let state = PolicyState::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let written: serde_json::Value = serde_json::from_str(&state.to_json()).unwrap();
        let expected: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(written, expected, "{name}");
    }
}

/// A policy after `script`: each step is (scope, outcome, pause).
fn scripted_policy(config: &str, script: &[(u8, u8, u8)]) -> Policy {
    let mut policy = Policy::from_json(config).unwrap();
    let mut t = 0_u64;
    let mut open = Vec::new();
    for &(scope, outcome, pause) in script {
        let scope = ["api", "db", ""][usize::from(scope % 3)];
        let spec = CallSpec::http("op", Method::Get).in_scope(scope);
        let mut call = policy.start(Instant::from_millis(t), spec);
        if matches!(
            policy.before_attempt(Instant::from_millis(t), &mut call),
            Admission::Proceed(_)
        ) {
            t += u64::from(pause);
            let outcome = match outcome % 6 {
                0 | 1 => Outcome::success(),
                2 => Outcome::status(503),
                3 => Outcome::status(429),
                4 => Outcome::network(NetworkErrorKind::ReadTimeout),
                // Left in flight: an open permit and ticket in the snapshot.
                _ => {
                    open.push(call);
                    continue;
                }
            };
            let _ = policy.on_outcome(Instant::from_millis(t), &mut call, outcome);
        }
        t += u64::from(pause) * 10;
    }
    policy
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A snapshot reads back to the state it was taken of, and writes back
    /// to the same text, whatever state traffic made.
    #[test]
    fn every_state_round_trips(
        time_window in proptest::bool::ANY,
        script in proptest::collection::vec((0_u8..3, 0_u8..6, 0_u8..200), 0..120),
    ) {
        let config = if time_window { TIME_WINDOW } else { COUNT_WINDOW };
        let policy = scripted_policy(config, &script);
        let state = policy.snapshot_state();
        let text = state.to_json();
        proptest::prop_assert_eq!(policy.snapshot_json(), text.clone());
        let back = PolicyState::from_json(&text).unwrap();
        proptest::prop_assert_eq!(back.to_json(), text);
        proptest::prop_assert_eq!(back, state);
    }
}
