//! The default retry budget against the two workloads it must tell apart,
//! in virtual time: healthy sequential batch work (every job must pass) and
//! a storm of concurrent callers against a dead service (attempts per first
//! attempt stay near 1). The same two scenarios run in the JS and Python
//! suites through their bindings.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use stoic_core::{Admission, CallSpec, Config, Decision, Instant, Method, Outcome, Policy};

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

/// 40 jobs, one after another, each failing with a 503 twice and then
/// succeeding: all 40 succeed with the defaults (tenacity's result).
#[test]
fn sequential_batch_work_passes() {
    let mut policy = Policy::new(Config::with_seed(7)).unwrap();
    let mut now = 0u64;
    let mut succeeded = 0;
    for _job in 0..40 {
        let mut call = policy.start(at(now), CallSpec::new("job"));
        let mut failures_left = 2;
        loop {
            match policy.before_attempt(at(now), &mut call) {
                Admission::Proceed(_) => {}
                Admission::Reject(g) => panic!("admission refused: {g:?}"),
            }
            now += 20;
            let outcome = if failures_left > 0 {
                failures_left -= 1;
                Outcome::status(503)
            } else {
                Outcome::success()
            };
            match policy.on_outcome(at(now), &mut call, outcome) {
                Decision::Done(_) => {
                    succeeded += 1;
                    break;
                }
                Decision::Retry(r) => now += r.delay_ms,
                Decision::GiveUp(g) => {
                    panic!("job gave up: {} ({})", g.reason.code(), g.observation)
                }
            }
        }
    }
    assert_eq!(succeeded, 40);
}

/// Attempts per first attempt when `callers` callers run calls back to back
/// for a minute against a server that answers 503 to everything (20 ms per
/// attempt, 100 ms between one caller's calls).
fn storm_amplification(config: Config, callers: u64) -> f64 {
    let mut policy = Policy::new(config).unwrap();
    let mut calls: Vec<stoic_core::Call> = (0..callers)
        .map(|_| policy.start(at(0), CallSpec::http("get", Method::Get).in_scope("api")))
        .collect();
    // (when, caller): the caller's next step is an admission at `when`.
    let mut queue: BinaryHeap<Reverse<(u64, usize)>> =
        (0..calls.len()).map(|i| Reverse((0, i))).collect();
    let (mut attempts, mut first_attempts) = (0u64, 0u64);
    while let Some(Reverse((now, i))) = queue.pop() {
        if now > 60_000 {
            break;
        }
        let call = &mut calls[i];
        let next = match policy.before_attempt(at(now), call) {
            Admission::Proceed(plan) => {
                attempts += 1;
                if plan.attempt == 1 {
                    first_attempts += 1;
                }
                match policy.on_outcome(at(now + 20), call, Outcome::status(503)) {
                    Decision::Retry(r) => now + 20 + r.delay_ms,
                    Decision::Done(_) | Decision::GiveUp(_) => {
                        *call = policy.start(
                            at(now + 120),
                            CallSpec::http("get", Method::Get).in_scope("api"),
                        );
                        now + 120
                    }
                }
            }
            Admission::Reject(_) => {
                *call = policy.start(
                    at(now + 100),
                    CallSpec::http("get", Method::Get).in_scope("api"),
                );
                now + 100
            }
        };
        queue.push(Reverse((next, i)));
    }
    attempts as f64 / first_attempts.max(1) as f64
}

/// 50 concurrent callers against an always-503 server: at most 1.2 attempts
/// per first attempt over a minute, with the defaults, and with the budget
/// alone (breaker off), so the bound does not rest on the breaker.
#[test]
fn a_storm_of_concurrent_callers_is_held_near_one_attempt_per_call() {
    let with_defaults = storm_amplification(Config::with_seed(3), 50);
    assert!(with_defaults <= 1.2, "defaults: {with_defaults}");
    let budget_alone = storm_amplification(
        Config {
            breaker: None,
            ..Config::with_seed(3)
        },
        50,
    );
    assert!(budget_alone <= 1.2, "budget alone: {budget_alone}");
    eprintln!("amplification: defaults {with_defaults:.3}, budget alone {budget_alone:.3}");
}
