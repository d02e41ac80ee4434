//! Unit tests of `alerts`.

use super::*;
use crate::error::ConfigErrorCode;
use crate::schema::json;

#[test]
fn default_config_is_the_seed() {
    let config = AlertConfig::default();
    assert_eq!(config.window_ms, 60_000);
    assert_eq!(config.retry_rate_warning, 0.20);
    assert_eq!(config.exhausted_rate_critical, 0.05);
    assert_eq!(config.min_requests, 20);
    assert_eq!(config.validate(), Ok(()));
}

#[test]
fn validate_names_the_field() {
    let bad = AlertConfig {
        window_ms: 999,
        ..AlertConfig::default()
    };
    let err = bad.validate().unwrap_err();
    assert_eq!(err.code(), ConfigErrorCode::OutOfRange);
    assert_eq!(err.field(), "window_ms");

    let bad = AlertConfig {
        retry_rate_warning: f64::NAN,
        ..AlertConfig::default()
    };
    assert_eq!(bad.validate().unwrap_err().field(), "retry_rate_warning");

    let bad = AlertConfig {
        exhausted_rate_critical: 1.5,
        ..AlertConfig::default()
    };
    assert_eq!(
        bad.validate().unwrap_err().field(),
        "exhausted_rate_critical"
    );

    let bad = AlertConfig {
        window_ms: 86_400_001,
        ..AlertConfig::default()
    };
    assert!(bad.validate().is_err());
    let edge = AlertConfig {
        window_ms: 1_000,
        retry_rate_warning: 0.0,
        exhausted_rate_critical: 1.0,
        min_requests: 0,
    };
    assert_eq!(edge.validate(), Ok(()));
}

#[test]
fn config_json_rejects_unknown_fields_and_fills_defaults() {
    let config: AlertConfig = json::read(r#"{"min_requests":5}"#).unwrap();
    assert_eq!(
        config,
        AlertConfig {
            min_requests: 5,
            ..AlertConfig::default()
        }
    );
    assert!(json::read::<AlertConfig>(r#"{"window":5}"#).is_err());
}

#[test]
fn codes_round_trip() {
    for level in [AlertLevel::Ok, AlertLevel::Warning, AlertLevel::Critical] {
        assert_eq!(AlertLevel::from_code(level.code()), Some(level));
        #[cfg(feature = "serde")]
        assert_eq!(
            serde_json::to_string(&level).unwrap(),
            format!("\"{}\"", level.code())
        );
    }
    for rule in AlertRule::ALL {
        assert_eq!(AlertRule::from_code(rule.code()), Some(rule));
        #[cfg(feature = "serde")]
        assert_eq!(
            serde_json::to_string(&rule).unwrap(),
            format!("\"{}\"", rule.code())
        );
    }
    assert_eq!(AlertLevel::from_code("OK"), None);
    assert_eq!(AlertRule::from_code("open"), None);
}

#[test]
fn event_json_is_tagged_by_kind() {
    let event = RecordEvent::AlertChanged {
        rule: AlertRule::CircuitOpen,
        from: AlertLevel::Ok,
        to: AlertLevel::Critical,
        value: 2.0,
        threshold: 1.0,
        at: Instant::from_millis(7),
    };
    let json = json::text(&event);
    assert_eq!(
        json,
        r#"{"kind":"alert_changed","rule":"circuit_open","from":"ok","to":"critical","value":2.0,"threshold":1.0,"at":7}"#
    );
    assert_eq!(json::read::<RecordEvent>(&json).unwrap(), event);
}

#[test]
fn strict_threshold_and_floor() {
    let config = AlertConfig {
        min_requests: 10,
        ..AlertConfig::default()
    };
    let mut ev = AlertEvaluator::new(config);
    // 10 attempts, 2 retries: exactly 20 %, not above it.
    ev.record(
        Instant::from_millis(0),
        &WindowCounts {
            attempts: 10,
            retry_attempts: 2,
            ..WindowCounts::default()
        },
    );
    ev.evaluate(Instant::from_millis(0), BreakerGauge::Closed);
    assert_eq!(ev.poll_event(), None);
    // One more retry attempt: 3 / 11 > 20 %. Attempts alone do not
    // re-read the window inside the same bucket...
    ev.record(
        Instant::from_millis(1),
        &WindowCounts {
            attempts: 1,
            retry_attempts: 1,
            ..WindowCounts::default()
        },
    );
    ev.evaluate(Instant::from_millis(1), BreakerGauge::Closed);
    assert_eq!(ev.poll_event(), None);
    // ...the next bucket (5 s for a minute's window) does.
    ev.evaluate(Instant::from_millis(5_000), BreakerGauge::Closed);
    let Some(RecordEvent::AlertChanged { rule, from, to, .. }) = ev.poll_event() else {
        panic!("expected an event");
    };
    assert_eq!(
        (rule, from, to),
        (AlertRule::RetryRate, AlertLevel::Ok, AlertLevel::Warning)
    );
    // Re-evaluating without change queues nothing.
    ev.evaluate(Instant::from_millis(2), BreakerGauge::Closed);
    assert_eq!(ev.poll_event(), None);
}

#[test]
fn below_floor_never_alerts() {
    let mut ev = AlertEvaluator::new(AlertConfig::default());
    ev.record(
        Instant::from_millis(0),
        &WindowCounts {
            attempts: 19,
            retry_attempts: 19,
            finished: 19,
            exhausted: 19,
        },
    );
    ev.evaluate(Instant::from_millis(0), BreakerGauge::Closed);
    assert_eq!(ev.poll_event(), None);
    assert!(ev.alerts().iter().all(|a| a.level == AlertLevel::Ok));
    assert_eq!(ev.alerts()[0].value, 1.0);
}

#[test]
fn half_open_does_not_page() {
    let mut ev = AlertEvaluator::new(AlertConfig::default());
    ev.evaluate(Instant::from_millis(0), BreakerGauge::HalfOpen);
    assert_eq!(ev.poll_event(), None);
    ev.evaluate(Instant::from_millis(1), BreakerGauge::Open);
    assert!(matches!(
        ev.poll_event(),
        Some(RecordEvent::AlertChanged { rule: AlertRule::CircuitOpen, value, .. }) if value == 2.0
    ));
}

#[test]
fn queue_is_bounded_and_drops_oldest() {
    let mut ev = AlertEvaluator::new(AlertConfig::default());
    for i in 0..100u64 {
        let state = if i % 2 == 0 {
            BreakerGauge::Open
        } else {
            BreakerGauge::Closed
        };
        ev.evaluate(Instant::from_millis(i), state);
    }
    assert_eq!(ev.pending_events(), EVENT_QUEUE_CAPACITY);
    assert_eq!(ev.dropped_events(), 100 - EVENT_QUEUE_CAPACITY as u64);
    let Some(RecordEvent::AlertChanged { at, .. }) = ev.poll_event() else {
        panic!("expected an event");
    };
    assert_eq!(at, Instant::from_millis(100 - EVENT_QUEUE_CAPACITY as u64));
}
