//! The decision path: what one retry costs the host in CPU.
//!
//! `before_attempt` + `on_outcome` for a transient failure is the hot path of
//! every retry loop; the target on the project's 2-core machine is under
//! 100 ns per decision, with and without a breaker and a budget in the way.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use stoic_core::breaker::{Breaker, BreakerConfig};
use stoic_core::{Admission, CallSpec, Decision, Instant, Method, Outcome, Policy};

/// Breaker and budget present but never in the way, so every iteration
/// walks the full retry path. Calls make up to 5 attempts (the default), and
/// the clock moves 1 ms per decision, as in a busy service: the host's
/// sleeps cost it no CPU, so they are not simulated.
fn policy(shared_state: bool) -> Policy {
    let text = if shared_state {
        r#"{"seed": 7, "max_attempts": 5, "timeouts": {"total_ms": null},
            "breaker": {"trip": {"kind": "consecutive_failures", "threshold": 4000000000}},
            "budget": {"ratio": {"ratio": 1000.0, "min_retries_per_sec": 1000.0}}}"#
    } else {
        r#"{"seed": 7, "max_attempts": 5, "timeouts": {"total_ms": null},
            "breaker": null, "budget": {"ratio": null}}"#
    };
    Policy::from_json(text).unwrap()
}

fn retry_decision(c: &mut Criterion, name: &str, shared_state: bool) {
    let mut policy = policy(shared_state);
    let mut now = 0u64;
    let mut call = policy.start(Instant::ZERO, CallSpec::http("op", Method::Get));
    c.bench_function(name, |b| {
        b.iter(|| {
            now += 1;
            if call.attempts() >= 4 {
                call = policy.start(Instant::from_millis(now), CallSpec::http("op", Method::Get));
            }
            let admission = policy.before_attempt(Instant::from_millis(now), &mut call);
            assert!(matches!(admission, Admission::Proceed(_)));
            let decision =
                policy.on_outcome(Instant::from_millis(now), &mut call, Outcome::status(503));
            assert!(
                matches!(decision, Decision::Retry(_)),
                "left the retry path: {decision:?}"
            );
            let _ = black_box(decision);
        });
    });
}

fn retry_core_only(c: &mut Criterion) {
    retry_decision(c, "retry decision (before_attempt + on_outcome 503)", false);
}

fn retry_with_breaker_and_budget(c: &mut Criterion) {
    retry_decision(c, "retry decision with breaker + ratio budget", true);
}

fn success_first_time(c: &mut Criterion) {
    let mut policy = policy(true);
    let mut now = 0u64;
    c.bench_function("start + before_attempt + on_outcome 200", |b| {
        b.iter(|| {
            now += 1;
            let t = Instant::from_millis(now);
            let mut call = policy.start(t, CallSpec::http("op", Method::Get));
            let admission = policy.before_attempt(t, &mut call);
            black_box(matches!(admission, Admission::Proceed(_)));
            let _ = black_box(policy.on_outcome(t, &mut call, Outcome::status(200)));
        });
    });
}

fn breaker_admission_closed(c: &mut Criterion) {
    let mut breaker = Breaker::new(BreakerConfig::default());
    let mut now = 0u64;
    c.bench_function(
        "breaker admission when closed (try_acquire + on_success)",
        |b| {
            b.iter(|| {
                now += 1;
                let t = Instant::from_millis(now);
                let permit = breaker.try_acquire(t).unwrap();
                black_box(breaker.on_success(t, permit, 1));
            });
        },
    );
}

criterion_group!(
    benches,
    retry_core_only,
    retry_with_breaker_and_budget,
    success_first_time,
    breaker_admission_closed
);
criterion_main!(benches);
