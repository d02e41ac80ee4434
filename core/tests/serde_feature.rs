//! The `serde` feature's JSON is the schema's Rust dialect: for configs, the
//! parts of a policy's state snapshot, decisions, events and records, what
//! serde writes equals what `stoic_core::schema::emit_json` writes (the one
//! wire form the bindings use), and what serde reads back is the same value.
//! Run with `cargo test -p stoic-core --features serde`.
#![cfg(feature = "serde")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use stoic_core::breaker::{Breaker, BreakerConfig};
use stoic_core::budget::{RetryBudget, RetryBudgetConfig};
use stoic_core::hints::{HintSource, ServerHint};
use stoic_core::record::{AlertConfig, LogOutcome, LogRecord};
use stoic_core::schema::{emit_json, Dialect, Emit};
use stoic_core::server_idempotency::{decide, ServerIdempotencyConfig, StoredEntry};
use stoic_core::{CallSpec, Config, Instant, Outcome, Policy, WallClock};

/// serde's JSON of `item` and the schema's Rust dialect, compared as JSON
/// values (key order aside).
fn same<T: Emit + serde::Serialize>(item: &T) -> Value {
    let schema: Value = serde_json::from_str(&emit_json(item, Dialect::RUST)).unwrap();
    let serde = serde_json::to_value(item).unwrap();
    assert_eq!(serde, schema, "serde's JSON and the schema's differ");
    serde
}

/// As [`same`], and serde reads the schema's text back to the same value.
fn same_both_ways<T>(item: &T)
where
    T: Emit + serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    same(item);
    let back: T = serde_json::from_str(&emit_json(item, Dialect::RUST)).unwrap();
    assert_eq!(&back, item);
}

fn rich_config() -> Config {
    Config::from_json(
        r#"{
            "seed": 7,
            "max_attempts": 4,
            "backoff": {"strategy": "equal_jitter", "base_ms": 50, "cap_ms": 2000, "multiplier": 1.5},
            "timeouts": {"total_ms": 30000},
            "breaker": {"trip": {"kind": "failure_rate",
                "window": {"kind": "time", "duration_ms": 10000, "buckets": 10},
                "failure_rate": 0.5, "minimum_throughput": 5,
                "slow_call": {"duration_ms": 4000, "rate": 0.8}},
                "cooldown_ms": 5000},
            "budget": {"run_cap": {"max_retries": 10},
                "token_bucket": {"profile": "aws_standard", "capacity": 40},
                "grpc": {}},
            "classify": {"status": {"404": "transient"}, "network": {"read_timeout": "transient"}}
        }"#,
    )
    .unwrap()
}

#[test]
fn configs() {
    for config in [Config::default(), Config::with_seed(3), rich_config()] {
        same_both_ways(&config);
        same_both_ways(&config.backoff);
        same_both_ways(&config.budget);
        same_both_ways(&config.alerts);
        if let Some(breaker) = &config.breaker {
            same_both_ways(breaker);
        }
    }
    same_both_ways(&BreakerConfig::default());
    same_both_ways(&RetryBudgetConfig::default());
    same_both_ways(&AlertConfig::default());
    same_both_ways(&ServerIdempotencyConfig::default());
}

/// A policy run through retries, a give-up, a breaker opening and a
/// cancellation: every admission, decision, event and the state's parts.
#[test]
fn decisions_events_records_and_state() {
    let mut policy = Policy::new(rich_config()).unwrap();
    #[cfg(feature = "measure")]
    policy.set_measuring(true);
    policy.set_wall_clock(
        Instant::ZERO,
        WallClock::from_unix_millis(1_700_000_000_000),
    );
    let hint = ServerHint::Delay {
        delay_ms: 1500,
        source: HintSource::RetryAfter,
    };
    let runs = [
        vec![Outcome::success()],
        vec![
            Outcome::status(503).with_hint(Some(hint)),
            Outcome::status(500),
            Outcome::success(),
        ],
        vec![Outcome::status(422).with_detail("no \"such\" order é")],
        vec![Outcome::status(503); 4],
        vec![Outcome::status(500); 4],
    ];
    let (mut admissions, mut decisions, mut events) = (0, 0, 0);
    for (i, outcomes) in runs.into_iter().enumerate() {
        let t = 60_000 * i as u64;
        let scope = if i % 2 == 0 { "api" } else { "billing" };
        let spec = CallSpec {
            scope,
            ..CallSpec::new("GET /orders").idempotent(true)
        };
        let mut call = policy.start(Instant::from_millis(t), spec);
        for (n, outcome) in outcomes.into_iter().enumerate() {
            let now = Instant::from_millis(t + 3_000 * n as u64);
            same(&policy.before_attempt(now, &mut call));
            same(&policy.on_outcome(now, &mut call, outcome));
            admissions += 1;
            decisions += 1;
        }
        if !call.is_finished() {
            same(&policy.cancel(Instant::from_millis(t + 50_000), &mut call));
        }
        while let Some(event) = policy.poll_event() {
            same(&event);
            events += 1;
        }
    }
    assert!(
        admissions >= 10 && decisions >= 10 && events >= 10,
        "{events} events"
    );

    // The parts of a state snapshot that have a serde form.
    let now = Instant::from_millis(400_000);
    for (_, metrics) in &policy.metrics() {
        same_both_ways(metrics);
    }
    same_both_ways(&policy.metrics_total());
    for scope in ["api", "billing"] {
        if let Some(status) = policy.budget_status(now, scope) {
            same(&status);
        }
    }
    let state = policy.snapshot_state();
    let mut restored = Policy::new(rich_config()).unwrap();
    same(&restored.restore_state(state).unwrap());
}

#[test]
fn breaker_budget_server_and_log_parts() {
    let mut breaker = Breaker::new(rich_config().breaker.unwrap());
    let mut budget = RetryBudget::new(rich_config().budget).unwrap();
    for ms in 0..12 {
        let now = Instant::from_millis(ms * 100);
        match breaker.try_acquire(now) {
            Ok(permit) => {
                same_both_ways(&permit);
                breaker.on_failure(now, permit, 5_000);
            }
            Err(rejected) => {
                same_both_ways(&rejected);
            }
        }
        same_both_ways(breaker.state());
        if let Some(counts) = breaker.window_counts(now) {
            same_both_ways(&counts);
        }
        while let Some(transition) = breaker.poll_transition() {
            same_both_ways(&transition);
        }
        budget.on_first_attempt(now);
        if let Ok(ticket) = budget.try_retry(now, stoic_core::budget::RetryCost::Timeout) {
            same_both_ways(&ticket);
        }
        while let Some(event) = budget.poll_event() {
            same_both_ways(&event);
        }
        same(&budget.status(now));
    }

    let config = ServerIdempotencyConfig::default();
    let entry = StoredEntry::in_flight("fp", 1_000);
    same_both_ways(&entry);
    same_both_ways(&entry.clone().completed(2_000, 201));
    for stored in [None, Some(&entry)] {
        for key in [None, Some("order-1"), Some("")] {
            same(&decide(&config, 1_500, key, "fp", stored));
            same(&decide(&config, 1_500, key, "other", stored));
        }
    }
    for hint in [
        ServerHint::Delay {
            delay_ms: 1,
            source: HintSource::XAmzRetryAfter,
        },
        ServerHint::Bounded {
            hint_ms: 7,
            source: HintSource::RateLimitReset,
        },
    ] {
        same_both_ways(&hint);
    }

    for outcome in [LogOutcome::Retry, LogOutcome::GaveUp] {
        let record = LogRecord::new(
            WallClock::from_unix_millis(1_700_000_000_123),
            "GET /orders \"é\"",
            2,
            5,
            250,
            Some(("status_503", "Service Unavailable")),
            "full_jitter",
            outcome,
            1_234,
        );
        assert_eq!(
            same(&record),
            serde_json::from_str::<Value>(&record.to_json_line()).unwrap()
        );
    }
}
