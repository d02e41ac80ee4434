//! The decision path: what one retry costs the host in CPU.
//!
//! `before_attempt` + `on_outcome` for a transient failure is the hot path of
//! every retry loop; the target on the project's 2-core machine is under
//! 100 ns per decision.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use stoic_core::{Admission, CallSpec, Config, Decision, Instant, Method, Outcome, Policy};

fn policy() -> Policy {
    let mut config = Config::with_seed(7);
    config.max_attempts = 1_000;
    config.timeouts.total_ms = None;
    Policy::new(config).unwrap()
}

fn retry_decision(c: &mut Criterion) {
    let mut policy = policy();
    let mut call = policy.start(Instant::ZERO, CallSpec::http("op", Method::Get));
    let mut now = 0u64;
    c.bench_function("before_attempt + on_outcome(503) -> retry", |b| {
        b.iter(|| {
            if call.attempts() >= 999 {
                call = policy.start(Instant::from_millis(now), CallSpec::http("op", Method::Get));
            }
            let admission = policy.before_attempt(Instant::from_millis(now), &mut call);
            black_box(matches!(admission, Admission::Proceed(_)));
            let decision =
                policy.on_outcome(Instant::from_millis(now), &mut call, Outcome::status(503));
            if let Decision::Retry(r) = &decision {
                now += r.delay_ms;
            }
            let _ = black_box(decision);
        });
    });
}

fn success_first_time(c: &mut Criterion) {
    let mut policy = policy();
    let mut now = 0u64;
    c.bench_function("start + before_attempt + on_outcome(200)", |b| {
        b.iter(|| {
            now += 1;
            let mut call =
                policy.start(Instant::from_millis(now), CallSpec::http("op", Method::Get));
            let admission = policy.before_attempt(Instant::from_millis(now), &mut call);
            black_box(matches!(admission, Admission::Proceed(_)));
            let _ = black_box(policy.on_outcome(
                Instant::from_millis(now),
                &mut call,
                Outcome::status(200),
            ));
        });
    });
}

criterion_group!(benches, retry_decision, success_first_time);
criterion_main!(benches);
