use super::*;
use crate::error::ConfigErrorCode;
use crate::schema::json;

fn rate_rule(window: Window, rate: f64, min: u32, compare: Compare) -> BreakerConfig {
    BreakerConfig {
        trip: TripRule::FailureRate {
            window,
            failure_rate: rate,
            minimum_throughput: min,
            compare,
            slow_call: None,
        },
        ..BreakerConfig::default()
    }
}

fn err_field(c: &BreakerConfig) -> (ConfigErrorCode, String) {
    let e = c.validate().unwrap_err();
    (e.code(), e.field().to_owned())
}

#[test]
fn defaults_are_the_seed() {
    let c: BreakerConfig = json::read("{}").unwrap();
    assert_eq!(c, BreakerConfig::default());
    assert_eq!(
        c.trip,
        TripRule::ConsecutiveFailures {
            threshold: 5,
            compare: Compare::Ge
        }
    );
    assert_eq!(c.cooldown_ms, 60_000);
    assert_eq!(
        c.half_open,
        HalfOpenConfig {
            max_probes: 1,
            success_threshold: 2
        }
    );
    c.validate().unwrap();
}

#[test]
fn json_shape() {
    let v = json::value(&BreakerConfig::default());
    assert_eq!(
        v,
        serde_json::json!({
            "trip": {"kind": "consecutive_failures", "threshold": 5, "compare": "ge"},
            "cooldown_ms": 60000,
            "half_open": {"max_probes": 1, "success_threshold": 2}
        })
    );
    let c: BreakerConfig = json::read(
        &serde_json::json!({
            "trip": {"kind": "failure_rate", "window": {"kind": "time", "duration_ms": 10000,
                "buckets": 10}, "failure_rate": 0.5, "minimum_throughput": 5,
                "slow_call": {"duration_ms": 4000, "rate": 1}}
        })
        .to_string(),
    )
    .unwrap();
    c.validate().unwrap();
    assert_eq!(
        c.trip.window(),
        Some(&Window::Time {
            duration_ms: 10_000,
            buckets: 10
        })
    );
    assert_eq!(c.trip.slow_call().map(|s| s.duration_ms), Some(4000));
    let back: BreakerConfig = json::read(&json::text(&c)).unwrap();
    assert_eq!(back, c);
}

#[test]
fn unknown_fields_are_rejected() {
    for text in [
        r#"{"cooldown":5}"#,
        r#"{"trip":{"kind":"consecutive_failures","treshold":3}}"#,
        r#"{"trip":{"kind":"failure_rate","window":{"kind":"count","size":5,"x":1},"failure_rate":0.5,"minimum_throughput":1}}"#,
        r#"{"half_open":{"max_probes":1,"probes":2}}"#,
        r#"{"trip":{"kind":"nope"}}"#,
        r#"{"trip":{"kind":"consecutive_failures","compare":">="}}"#,
    ] {
        let value = crate::schema::Value::from_json(text).unwrap();
        let read = crate::schema::decode::<BreakerConfig>(&value, crate::schema::Dialect::RUST);
        assert!(read.is_err(), "{text}");
    }
}

#[test]
fn compare_codes() {
    for c in [Compare::Ge, Compare::Gt] {
        assert_eq!(Compare::from_code(c.code()), Some(c));
    }
    assert_eq!(Compare::from_code(">="), None);
    assert!(Compare::Ge.holds(5, 5));
    assert!(!Compare::Gt.holds(5, 5));
    assert!(Compare::Gt.holds(6, 5));
}

#[test]
fn validation_names_fields() {
    let c = BreakerConfig {
        trip: TripRule::ConsecutiveFailures {
            threshold: 0,
            compare: Compare::Gt,
        },
        ..BreakerConfig::default()
    };
    assert_eq!(
        err_field(&c),
        (ConfigErrorCode::OutOfRange, "trip.threshold".to_owned())
    );
    let e = c.validate().unwrap_err();
    assert_eq!(e.field(), "trip.threshold");

    let mut c = BreakerConfig::default();
    c.half_open.max_probes = 0;
    assert_eq!(err_field(&c).1, "half_open.max_probes");
    let mut c = BreakerConfig::default();
    c.half_open.success_threshold = 0;
    assert_eq!(err_field(&c).1, "half_open.success_threshold");
    let mut c = BreakerConfig {
        cooldown_ms: MAX_MS + 1,
        ..BreakerConfig::default()
    };
    assert_eq!(err_field(&c).1, "cooldown_ms");
    c.cooldown_ms = 0;
    c.validate().unwrap();

    let count = Window::Count { size: 10 };
    assert_eq!(
        err_field(&rate_rule(count, 0.0, 5, Compare::Ge)).1,
        "trip.failure_rate"
    );
    rate_rule(count, 0.0, 5, Compare::Gt).validate().unwrap();
    rate_rule(count, 1.0, 5, Compare::Ge).validate().unwrap();
    assert!(rate_rule(count, 1.0, 5, Compare::Gt).validate().is_err());
    assert!(rate_rule(count, f64::NAN, 5, Compare::Ge)
        .validate()
        .is_err());
    assert!(rate_rule(count, 1.5, 5, Compare::Ge).validate().is_err());
    assert_eq!(
        err_field(&rate_rule(count, 0.5, 0, Compare::Ge)).1,
        "trip.minimum_throughput"
    );
    assert_eq!(
        err_field(&rate_rule(count, 0.5, 11, Compare::Ge)),
        (
            ConfigErrorCode::Inconsistent,
            "trip.minimum_throughput".to_owned()
        )
    );
    assert_eq!(
        err_field(&rate_rule(Window::Count { size: 0 }, 0.5, 1, Compare::Ge)).1,
        "trip.window.size"
    );
    assert!(rate_rule(
        Window::Count {
            size: MAX_COUNT_WINDOW + 1
        },
        0.5,
        1,
        Compare::Ge
    )
    .validate()
    .is_err());

    let time = |duration_ms, buckets| Window::Time {
        duration_ms,
        buckets,
    };
    rate_rule(time(10_000, 10), 0.5, 100, Compare::Ge)
        .validate()
        .unwrap();
    assert_eq!(
        err_field(&rate_rule(time(0, 1), 0.5, 1, Compare::Ge)).1,
        "trip.window.duration_ms"
    );
    assert_eq!(
        err_field(&rate_rule(time(1000, 0), 0.5, 1, Compare::Ge)).1,
        "trip.window.buckets"
    );
    assert_eq!(
        err_field(&rate_rule(time(1000, 3), 0.5, 1, Compare::Ge)),
        (
            ConfigErrorCode::Inconsistent,
            "trip.window.buckets".to_owned()
        )
    );
    assert!(
        rate_rule(time(1_000_000, MAX_TIME_BUCKETS + 1), 0.5, 1, Compare::Ge)
            .validate()
            .is_err()
    );

    let mut c = rate_rule(count, 0.5, 5, Compare::Ge);
    if let TripRule::FailureRate { slow_call, .. } = &mut c.trip {
        *slow_call = Some(SlowCall {
            duration_ms: 0,
            rate: 0.5,
        });
    }
    assert_eq!(err_field(&c).1, "trip.slow_call.duration_ms");
    if let TripRule::FailureRate { slow_call, .. } = &mut c.trip {
        *slow_call = Some(SlowCall {
            duration_ms: 10,
            rate: 0.0,
        });
    }
    assert_eq!(err_field(&c).1, "trip.slow_call.rate");
}
