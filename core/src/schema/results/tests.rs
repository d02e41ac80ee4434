//! Every result is written as JSON text the same as its tree, in every
//! dialect, and (with the `serde` feature) its Rust dialect is serde's JSON;
//! every value a host hands back reads back the same in every dialect.

use std::sync::Arc;

use crate::backoff::Strategy;
use crate::breaker::{
    BreakerState, BreakerStateCode, Permit, RejectReason, Rejected, Transition, TransitionReason,
    WindowCounts,
};
use crate::budget::{
    BudgetEvent, BudgetKind, BudgetStatus, GrpcStatus, RatioStatus, RetryTicket, RunCapStatus,
    TokenBucketStatus,
};
use crate::classify::{Class, NetworkErrorKind};
use crate::decision::{
    Admission, AttemptPlan, Decision, DelaySource, Done, GiveUp, Matched, Retry, StopReason,
};
use crate::event::Event;
use crate::hints::{HintSource, ServerHint};
use crate::record::{
    Alert, AlertLevel, AlertRule, BreakerGauge, HistogramSnapshot, LogError, LogOutcome, LogRecord,
    MetricsSnapshot, RecordEvent,
};
use crate::schema::{decode, emit, emit_json, encode, Dialect, Emit, Section};
use crate::server_idempotency::{EntryState, Refusal, ServerDecision, StoredEntry};
use crate::state::RestoreReport;
use crate::time::Instant;

/// What a result written here is: something the schema writes and, with
/// the `serde` feature, something serde writes too.
#[cfg(feature = "serde")]
trait Written: Emit + serde::Serialize {}
#[cfg(feature = "serde")]
impl<T: Emit + serde::Serialize> Written for T {}
#[cfg(not(feature = "serde"))]
trait Written: Emit {}
#[cfg(not(feature = "serde"))]
impl<T: Emit> Written for T {}

/// The schema's JSON text (and, with the `serde` feature, serde's JSON in
/// the Rust dialect) of `item`.
fn same_as_serde<T: Written>(item: &T) {
    #[cfg(feature = "serde")]
    {
        let ours = json(&emit(item, Dialect::RUST));
        let theirs = serde_json::to_value(item).unwrap();
        assert_eq!(ours, theirs);
    }
    // The JSON writer writes the tree's text, in every dialect.
    for dialect in [Dialect::RUST, Dialect::JS, Dialect::PYTHON] {
        assert_eq!(
            emit_json(item, dialect),
            emit(item, dialect).to_json_text(),
            "{dialect:?}"
        );
    }
}

/// A written value as serde_json reads its text.
fn json(value: &crate::schema::Value) -> serde_json::Value {
    serde_json::from_str(&value.to_json_text()).unwrap()
}

fn round_trips<T: Section + PartialEq + std::fmt::Debug>(item: &T) {
    for dialect in [Dialect::RUST, Dialect::JS, Dialect::PYTHON] {
        let back: T = decode(&encode(item, dialect), dialect).unwrap();
        assert_eq!(&back, item, "{dialect:?}");
    }
}

fn give_up() -> GiveUp {
    GiveUp {
        reason: StopReason::AttemptsExhausted,
        attempts: 3,
        total_ms: 1234,
        matched: Some(Matched::Status {
            status: 503,
            overridden: false,
        }),
        class: Some(Class::Transient),
        retry_at: Some(Instant::from_millis(99)),
        observation: "text".to_owned(),
        was_retryable: true,
    }
}

#[test]
fn decisions_and_admissions() {
    same_as_serde(&Admission::Proceed(AttemptPlan {
        attempt: 1,
        max_attempts: 3,
        timeout_ms: Some(10),
        connect_timeout_ms: None,
        remaining_ms: Some(5),
        idempotency_key: Some(Arc::from("k")),
    }));
    same_as_serde(&Admission::Reject(give_up()));
    let mut bare = give_up();
    bare.matched = None;
    bare.class = None;
    bare.retry_at = None;
    same_as_serde(&Decision::GiveUp(bare));
    same_as_serde(&Decision::Done(Done {
        attempts: 1,
        total_ms: 2,
    }));
    for source in [
        DelaySource::Backoff(Strategy::FullJitter),
        DelaySource::Hint(HintSource::RetryAfter),
    ] {
        same_as_serde(&Decision::Retry(Retry {
            delay_ms: 7,
            attempt: 1,
            matched: Matched::Network(NetworkErrorKind::ConnectRefused),
            class: Class::Transient,
            source,
            backoff_ms: 9,
        }));
    }
}

#[test]
fn events_and_records() {
    let record = LogRecord {
        timestamp: "t".to_owned(),
        operation: "op".to_owned(),
        attempt: "1/3".to_owned(),
        delay_ms: 5,
        error: Some(LogError {
            code: "c".to_owned(),
            message: "m".to_owned(),
        }),
        strategy: "s".to_owned(),
        outcome: LogOutcome::Success,
        total_duration_ms: 6,
    };
    same_as_serde(&record);
    let events = [
        Event::BreakerTransition {
            scope: "a".to_owned(),
            from: BreakerStateCode::Closed,
            to: BreakerStateCode::Open,
            at: Instant::from_millis(1),
            reason: TransitionReason::ConsecutiveFailures,
        },
        Event::BudgetExhausted {
            scope: "a".to_owned(),
            budget: BudgetKind::Ratio,
            at: Instant::from_millis(2),
            message: "Retry budget exceeded",
        },
        Event::AlertChanged {
            scope: "a".to_owned(),
            rule: AlertRule::RetryRate,
            from: AlertLevel::Ok,
            to: AlertLevel::Warning,
            value: 0.5,
            threshold: 0.25,
            at: Instant::from_millis(3),
        },
        Event::Log {
            scope: "a".to_owned(),
            record,
        },
    ];
    events.iter().for_each(same_as_serde);
    same_as_serde(&Alert {
        level: AlertLevel::Critical,
        rule: AlertRule::CircuitOpen,
        value: 1.0,
        threshold: 1.0,
        at: Instant::from_millis(4),
    });
    same_as_serde(&RecordEvent::AlertChanged {
        rule: AlertRule::ExhaustedRate,
        from: AlertLevel::Ok,
        to: AlertLevel::Critical,
        value: 0.75,
        threshold: 0.5,
        at: Instant::from_millis(5),
    });
    let snapshot = MetricsSnapshot {
        as_of_ms: 10,
        calls_total: 1,
        attempts_total: 2,
        retry_total: 3,
        retry_attempts_total: 4,
        retry_success: 5,
        retry_exhausted: 6,
        gave_up_total: 7,
        retry_duration: HistogramSnapshot {
            counts: [1; crate::record::RETRY_DURATION_BUCKETS],
            sum_ms: 250,
            count: 13,
        },
        circuit_breaker_state: BreakerGauge::Open,
    };
    same_as_serde(&snapshot);
    round_trips(&snapshot);
}

#[test]
fn breaker_and_budget_parts() {
    for state in [
        BreakerState::Closed {
            consecutive_failures: 2,
        },
        BreakerState::Open {
            since: Instant::from_millis(1),
            until: Instant::from_millis(2),
        },
        BreakerState::HalfOpen {
            probes_in_flight: 1,
            successes: 0,
        },
    ] {
        same_as_serde(&state);
    }
    let permit = Permit {
        generation: 3,
        id: 9,
        probe: true,
    };
    same_as_serde(&permit);
    round_trips(&permit);
    same_as_serde(&Rejected {
        reason: RejectReason::HalfOpenFull,
        retry_at: None,
    });
    same_as_serde(&Transition {
        from: BreakerStateCode::Open,
        to: BreakerStateCode::HalfOpen,
        at: Instant::from_millis(5),
        reason: TransitionReason::CooldownElapsed,
    });
    same_as_serde(&WindowCounts {
        calls: 1,
        failures: 2,
        slow: 3,
    });
    for ticket in [
        RetryTicket {
            id: 4,
            token_cost: Some(5),
            floor_slot: Some(Instant::from_millis(7)),
        },
        RetryTicket {
            id: 0,
            token_cost: None,
            floor_slot: None,
        },
    ] {
        same_as_serde(&ticket);
        round_trips(&ticket);
    }
    same_as_serde(&BudgetEvent::Exhausted {
        budget: BudgetKind::RunCap,
        at: Instant::from_millis(8),
    });
    same_as_serde(&BudgetStatus {
        ratio: Some(RatioStatus {
            requests: 1,
            retries: 2,
            max_retries: 3,
        }),
        run_cap: Some(RunCapStatus {
            used: 1,
            max_retries: 2,
        }),
        token_bucket: Some(TokenBucketStatus {
            tokens: 1,
            capacity: 2,
        }),
        grpc: Some(GrpcStatus {
            milli_tokens: 1,
            max_milli_tokens: 2,
            retry_allowed: true,
        }),
    });
    same_as_serde(&BudgetStatus {
        ratio: None,
        run_cap: None,
        token_bucket: None,
        grpc: None,
    });
}

#[test]
fn server_parts() {
    for hint in [
        ServerHint::Delay {
            delay_ms: 1500,
            source: HintSource::RetryAfter,
        },
        ServerHint::Bounded {
            hint_ms: 20,
            source: HintSource::RateLimit,
        },
        ServerHint::DoNotRetry {
            source: HintSource::XAmzRetryAfter,
        },
    ] {
        same_as_serde(&hint);
        round_trips(&hint);
    }
    let entry = StoredEntry::in_flight("fp", 1_700_000_000_000);
    let done = entry.completed(1_700_000_000_500, 201);
    for e in [&entry, &done] {
        same_as_serde(e);
        round_trips(e);
    }
    assert!(matches!(done.state, EntryState::Completed { .. }));
    same_as_serde(&ServerDecision::Proceed {
        record: Some(entry),
        replaces: true,
    });
    same_as_serde(&ServerDecision::Proceed {
        record: None,
        replaces: false,
    });
    same_as_serde(&ServerDecision::Replay { status: 200 });
    same_as_serde(&ServerDecision::refuse(Refusal::KeyInUse, Some(2)));
    same_as_serde(&ServerDecision::refuse(Refusal::KeyMissing, None));
    same_as_serde(&RestoreReport {
        restored: 2,
        reset: vec!["a".to_owned()],
    });
}

#[test]
fn python_writes_seconds_and_javascript_camel_case() {
    let hint = ServerHint::Delay {
        delay_ms: 1500,
        source: HintSource::RetryAfter,
    };
    assert_eq!(
        json(&emit(&hint, Dialect::PYTHON)),
        serde_json::json!({"kind": "delay", "delay": 1.5, "source": "retry_after"})
    );
    assert_eq!(
        json(&emit(&hint, Dialect::JS)),
        serde_json::json!({"kind": "delay", "delayMs": 1500, "source": "retry_after"})
    );
    let rejected = Rejected {
        reason: RejectReason::CircuitOpen,
        retry_at: Some(Instant::from_millis(2500)),
    };
    assert_eq!(
        json(&emit(&rejected, Dialect::PYTHON)),
        serde_json::json!({"reason": "circuit_open", "retry_at": 2.5})
    );
    assert_eq!(
        json(&emit(&rejected, Dialect::JS)),
        serde_json::json!({"reason": "circuit_open", "retryAt": 2500})
    );
}

#[test]
fn handed_back_values_are_checked() {
    use crate::error::ConfigErrorCode;
    use crate::schema::Value;
    let partial = Value::Map(vec![("calls_total".to_owned(), Value::Int(1))]);
    let error = decode::<MetricsSnapshot>(&partial, Dialect::RUST).unwrap_err();
    assert_eq!(error.code(), ConfigErrorCode::Required);
    let entry = StoredEntry::in_flight("fp", 1).completed(2, 99);
    let error = decode::<StoredEntry>(&encode(&entry, Dialect::JS), Dialect::JS).unwrap_err();
    assert_eq!(
        (error.code(), error.field()),
        (ConfigErrorCode::OutOfRange, "state.status")
    );
}

/// Measured calls' events (metric points and decisions, their attributes
/// written straight into the JSON text) read the same as their trees, in
/// every dialect: success, a retried 503 with a hint, a give-up.
#[cfg(feature = "measure")]
#[test]
fn measured_events_write_the_text_of_their_tree() {
    use crate::call::CallSpec;
    use crate::config::Config;
    use crate::outcome::Outcome;
    use crate::policy::Policy;

    let mut policy = Policy::new(Config {
        seed: Some(3),
        ..Config::default()
    })
    .unwrap();
    policy.set_measuring(true);
    let at = Instant::from_millis;
    let hint = ServerHint::Delay {
        delay_ms: 1500,
        source: HintSource::RetryAfter,
    };
    let outcomes = [
        vec![Outcome::success()],
        vec![
            Outcome::status(503).with_hint(Some(hint)),
            Outcome::success(),
        ],
        vec![Outcome::status(404).with_detail("no \"such\"\norder é")],
    ];
    let mut seen = 0;
    for (i, steps) in outcomes.into_iter().enumerate() {
        let t = 10_000 * i as u64;
        let mut call = policy.start(at(t), CallSpec::new("GET /orders").idempotent(true));
        for (n, outcome) in steps.into_iter().enumerate() {
            let now = at(t + 2_000 * n as u64);
            let _ = policy.before_attempt(now, &mut call);
            let _ = policy.on_outcome(now, &mut call, outcome);
        }
        while let Some(event) = policy.poll_event() {
            for dialect in [Dialect::RUST, Dialect::JS, Dialect::PYTHON] {
                assert_eq!(
                    emit_json(&event, dialect),
                    emit(&event, dialect).to_json_text(),
                    "{dialect:?}"
                );
            }
            seen += 1;
        }
    }
    assert!(seen >= 6, "{seen} events");
}
