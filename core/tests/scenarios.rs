//! Virtual-time scenarios through the public API: each test walks calls
//! through `Policy` with a hand-moved clock and checks every decision.

use stoic_core::hints::{HintSource, ServerHint};
use stoic_core::{
    Admission, CallSpec, Class, Config, Decision, Instant, Method, NetworkErrorKind, Outcome,
    Policy, StopReason,
};

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// Exponential backoff without jitter, so delays are exact.
fn policy(extra: &str) -> Policy {
    let text = format!(
        r#"{{"seed": 1, "backoff": {{"strategy": "exponential", "base_ms": 100, "cap_ms": 1000, "multiplier": 2.0}}{extra}}}"#
    );
    Policy::from_json(&text).unwrap()
}

fn proceed(policy: &mut Policy, now: u64, call: &mut stoic_core::Call) -> stoic_core::AttemptPlan {
    match policy.before_attempt(at(now), call) {
        Admission::Proceed(plan) => plan,
        Admission::Reject(g) => panic!("rejected: {g:?}"),
    }
}

fn retry_delay(decision: Decision) -> u64 {
    match decision {
        Decision::Retry(r) => r.delay_ms,
        other => panic!("expected a retry, got {other:?}"),
    }
}

fn give_up(decision: Decision) -> stoic_core::GiveUp {
    match decision {
        Decision::GiveUp(g) => g,
        other => panic!("expected a give-up, got {other:?}"),
    }
}

#[test]
fn transient_failures_are_retried_until_success() {
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::http("get", Method::Get));
    assert_eq!(proceed(&mut p, 0, &mut call).attempt, 1);
    assert_eq!(
        retry_delay(p.on_outcome(at(10), &mut call, Outcome::status(503))),
        100
    );
    assert_eq!(proceed(&mut p, 110, &mut call).attempt, 2);
    let d = p.on_outcome(
        at(120),
        &mut call,
        Outcome::network(NetworkErrorKind::ConnectRefused),
    );
    assert_eq!(retry_delay(d), 200);
    assert_eq!(proceed(&mut p, 320, &mut call).attempt, 3);
    match p.on_outcome(at(330), &mut call, Outcome::status(200)) {
        Decision::Done(done) => {
            assert_eq!(done.attempts, 3);
            assert_eq!(done.total_ms, 330);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn retry_decisions_explain_themselves() {
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::http("get", Method::Get));
    let _ = proceed(&mut p, 0, &mut call);
    match p.on_outcome(at(5), &mut call, Outcome::status(503)) {
        Decision::Retry(r) => {
            assert_eq!(r.matched.code(), "status_503");
            assert_eq!(r.class, Class::Transient);
            assert_eq!(r.source.code(), "exponential");
            assert_eq!(r.attempt, 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn deterministic_failures_end_with_an_observation() {
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::http("create", Method::Post));
    let _ = proceed(&mut p, 0, &mut call);
    let g = give_up(p.on_outcome(
        at(30),
        &mut call,
        Outcome::status(422).with_detail(r#"{"error": "qty must be positive"}"#),
    ));
    assert_eq!(g.reason, StopReason::NotRetryable);
    assert_eq!(g.reason.code(), "not_retryable");
    assert_eq!(g.attempts, 1);
    assert_eq!(g.class, Some(Class::Deterministic));
    assert!(
        g.observation.starts_with("HTTP 422 Unprocessable Content"),
        "{}",
        g.observation
    );
    assert!(g.observation.contains("qty must be positive"));
    assert!(g.observation.contains("Change the request"));
}

#[test]
fn ambiguous_failures_are_retried_only_when_safe() {
    let read_timeout = Outcome::network(NetworkErrorKind::ReadTimeout);
    // POST without a key: may have been applied, not repeated.
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::http("charge", Method::Post));
    let _ = proceed(&mut p, 0, &mut call);
    let g = give_up(p.on_outcome(at(1), &mut call, read_timeout));
    assert_eq!(g.reason, StopReason::NotIdempotent);
    assert!(g.observation.contains("may already have been applied"));
    // POST with a key: the server deduplicates, so it is retried.
    let mut call = p.start(
        at(0),
        CallSpec::http("charge", Method::Post).with_key("k-1"),
    );
    let _ = proceed(&mut p, 0, &mut call);
    assert_eq!(
        retry_delay(p.on_outcome(at(1), &mut call, read_timeout)),
        100
    );
    // PUT is idempotent by method.
    let mut call = p.start(at(0), CallSpec::http("put", Method::Put));
    let _ = proceed(&mut p, 0, &mut call);
    assert_eq!(
        retry_delay(p.on_outcome(at(1), &mut call, read_timeout)),
        100
    );
    // A reset before sending is transient whatever the method.
    let mut call = p.start(at(0), CallSpec::http("charge", Method::Post));
    let _ = proceed(&mut p, 0, &mut call);
    let reset = Outcome::network(NetworkErrorKind::ResetBeforeSend);
    assert_eq!(retry_delay(p.on_outcome(at(1), &mut call, reset)), 100);
    // "never" turns ambiguous retries off even with a key.
    let mut p = policy(r#", "classify": {"ambiguous": "never"}"#);
    let mut call = p.start(at(0), CallSpec::http("charge", Method::Put).with_key("k"));
    let _ = proceed(&mut p, 0, &mut call);
    assert_eq!(
        give_up(p.on_outcome(at(1), &mut call, read_timeout)).reason,
        StopReason::NotIdempotent
    );
}

#[test]
fn attempts_are_capped() {
    let mut p = policy(r#", "max_attempts": 3"#);
    let mut call = p.start(at(0), CallSpec::new("op"));
    let mut now = 0;
    for expected in [100, 200] {
        let _ = proceed(&mut p, now, &mut call);
        let delay = retry_delay(p.on_outcome(at(now), &mut call, Outcome::status(503)));
        assert_eq!(delay, expected);
        now += delay;
    }
    let _ = proceed(&mut p, now, &mut call);
    let g = give_up(p.on_outcome(at(now), &mut call, Outcome::status(503)));
    assert_eq!(g.reason, StopReason::AttemptsExhausted);
    assert_eq!(g.attempts, 3);
    assert!(
        g.observation.contains("Gave up after 3 attempts"),
        "{}",
        g.observation
    );
}

#[test]
fn no_retry_is_scheduled_past_the_deadline() {
    let mut p = Policy::from_json(
        r#"{"seed": 1, "timeouts": {"total_ms": 1000},
            "backoff": {"strategy": "exponential", "base_ms": 600, "cap_ms": 5000}}"#,
    )
    .unwrap();
    let mut call = p.start(at(0), CallSpec::new("op"));
    let plan = proceed(&mut p, 0, &mut call);
    assert_eq!(plan.timeout_ms, Some(1000)); // min(read 30 s, 1 s left)
    assert_eq!(
        retry_delay(p.on_outcome(at(100), &mut call, Outcome::status(503))),
        600
    );
    let plan = proceed(&mut p, 700, &mut call);
    assert_eq!(plan.timeout_ms, Some(300));
    assert_eq!(plan.remaining_ms, Some(300));
    let g = give_up(p.on_outcome(at(800), &mut call, Outcome::status(503)));
    assert_eq!(g.reason, StopReason::DeadlineExceeded);
    assert_eq!(g.total_ms, 800);
    // An attempt asked for after the deadline is rejected.
    let mut call = p.start(at(2_000), CallSpec::new("op"));
    let _ = proceed(&mut p, 2_000, &mut call);
    let _ = p.on_outcome(at(2_500), &mut call, Outcome::status(503));
    match p.before_attempt(at(3_000), &mut call) {
        Admission::Reject(g) => assert_eq!(g.reason, StopReason::DeadlineExceeded),
        other => panic!("{other:?}"),
    }
}

#[test]
fn server_hints_win_and_a_hint_past_the_deadline_ends_the_call() {
    let hint = |ms| {
        Some(ServerHint::Delay {
            delay_ms: ms,
            source: HintSource::RetryAfter,
        })
    };
    let mut p = policy(r#", "timeouts": {"total_ms": 10000}"#);
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    match p.on_outcome(
        at(0),
        &mut call,
        Outcome::status(429).with_hint(hint(3_000)),
    ) {
        Decision::Retry(r) => {
            assert_eq!(r.delay_ms, 3_000);
            assert_eq!(r.source.code(), "retry_after");
            assert_eq!(r.backoff_ms, 100);
        }
        other => panic!("{other:?}"),
    }
    let _ = proceed(&mut p, 3_000, &mut call);
    let g = give_up(p.on_outcome(
        at(3_000),
        &mut call,
        Outcome::status(429).with_hint(hint(60_000)),
    ));
    assert_eq!(g.reason, StopReason::RetryAfterExceedsDeadline);
    assert_eq!(g.retry_at, Some(at(63_000)));
    // A refusal from the server ends the call.
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    let refuse = Some(ServerHint::DoNotRetry {
        source: HintSource::GrpcRetryPushbackMs,
    });
    let g = give_up(p.on_outcome(at(0), &mut call, Outcome::status(503).with_hint(refuse)));
    assert_eq!(g.reason, StopReason::ServerRefusedRetry);
}

#[test]
fn hints_are_clamped_and_can_be_ignored() {
    let hint = Some(ServerHint::Delay {
        delay_ms: 50_000,
        source: HintSource::RetryAfter,
    });
    let mut p = policy(r#", "hints": {"max_delay_ms": 2000}"#);
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    assert_eq!(
        retry_delay(p.on_outcome(at(0), &mut call, Outcome::status(503).with_hint(hint))),
        2_000
    );
    let mut p = policy(r#", "hints": {"respect": false}"#);
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    assert_eq!(
        retry_delay(p.on_outcome(at(0), &mut call, Outcome::status(503).with_hint(hint))),
        100
    );
}

#[test]
fn the_key_is_the_same_on_every_attempt() {
    let mut p = policy("");
    let mut call = p.start(
        at(0),
        CallSpec::http("create", Method::Post).with_key("run:step:abc"),
    );
    let mut now = 0;
    for _ in 0..3 {
        let plan = proceed(&mut p, now, &mut call);
        assert_eq!(plan.idempotency_key.as_deref(), Some("run:step:abc"));
        now += retry_delay(p.on_outcome(at(now), &mut call, Outcome::status(503)));
    }
}

#[test]
fn host_validated_results_are_classified_by_the_host() {
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    let d = p.on_outcome(
        at(0),
        &mut call,
        Outcome::rejected(Class::Transient).with_detail("error body"),
    );
    match d {
        Decision::Retry(r) => assert_eq!(r.matched.code(), "rejected_transient"),
        other => panic!("{other:?}"),
    }
    let _ = proceed(&mut p, 100, &mut call);
    let g = give_up(p.on_outcome(
        at(100),
        &mut call,
        Outcome::rejected(Class::Deterministic).with_detail("stale data: version 3 < 5"),
    ));
    assert_eq!(g.reason, StopReason::NotRetryable);
    assert!(
        g.observation.contains("stale data: version 3 < 5"),
        "{}",
        g.observation
    );
}

#[test]
fn draining_stops_new_retries_and_attempts() {
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    p.drain();
    assert!(p.is_draining());
    let g = give_up(p.on_outcome(at(5), &mut call, Outcome::status(503)));
    assert_eq!(g.reason, StopReason::ShuttingDown);
    // An in-flight attempt that succeeds is still a success.
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    p.drain();
    assert!(matches!(
        p.on_outcome(at(5), &mut call, Outcome::success()),
        Decision::Done(_)
    ));
    let mut fresh = p.start(at(6), CallSpec::new("op"));
    match p.before_attempt(at(6), &mut fresh) {
        Admission::Reject(g) => assert_eq!(g.reason, StopReason::ShuttingDown),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cancel_ends_the_call_and_finished_calls_repeat_their_answer() {
    let mut p = policy("");
    let mut call = p.start(at(0), CallSpec::new("op"));
    let _ = proceed(&mut p, 0, &mut call);
    let _ = p.on_outcome(at(5), &mut call, Outcome::status(503));
    let g = p.cancel(at(50), &mut call);
    assert_eq!(g.reason, StopReason::Cancelled);
    assert!(call.is_finished());
    assert_eq!(
        give_up(p.on_outcome(at(60), &mut call, Outcome::success())).reason,
        StopReason::Cancelled
    );
    match p.before_attempt(at(70), &mut call) {
        Admission::Reject(g) => assert_eq!(g.reason, StopReason::Cancelled),
        other => panic!("{other:?}"),
    }
}

#[test]
fn misuse_is_harmless() {
    let mut p = policy(r#", "max_attempts": 2"#);
    let mut call = p.start(at(100), CallSpec::new("op"));
    // Outcomes without before_attempt still count as attempts.
    let _ = retry_delay(p.on_outcome(at(100), &mut call, Outcome::status(503)));
    let g = give_up(p.on_outcome(at(100), &mut call, Outcome::status(503)));
    assert_eq!((g.reason, g.attempts), (StopReason::AttemptsExhausted, 2));
    // Time that runs backwards is clamped: durations never underflow.
    let mut call = p.start(at(1_000), CallSpec::new("op"));
    let _ = proceed(&mut p, 10, &mut call);
    match p.on_outcome(at(5), &mut call, Outcome::success()) {
        Decision::Done(d) => assert_eq!(d.total_ms, 0),
        other => panic!("{other:?}"),
    }
}

#[test]
fn same_seed_same_decisions() {
    let run = |seed: u64| -> Vec<u64> {
        // Breaker and budget off: this test is about the jitter stream alone.
        let mut config = Config::with_seed(seed);
        config.breaker = None;
        config.budget.ratio = None;
        let mut p = Policy::new(config).unwrap();
        let mut delays = Vec::new();
        for _ in 0..3 {
            let mut call = p.start(at(0), CallSpec::new("op"));
            let mut now = 0;
            for _ in 0..4 {
                let _ = proceed(&mut p, now, &mut call);
                let d = retry_delay(p.on_outcome(at(now), &mut call, Outcome::status(503)));
                delays.push(d);
                now += d;
            }
        }
        delays
    };
    assert_eq!(run(42), run(42));
    assert_ne!(run(42), run(43));
}
