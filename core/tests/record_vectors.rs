//! Runs `tests/vectors/records.json`: log lines, metrics scenarios with
//! alert events, and snapshot merges. The JS and Python suites run the same
//! file through the bindings.

// Test helpers live outside #[test] fns, where clippy's test allowances do
// not reach; a panic is how a test helper reports a broken vector.

#[path = "support/vectors.rs"]
mod vectors;

use serde_json::Value;
use stoic_core::record::{
    AlertConfig, CallOutcome, CallSummary, LogOutcome, LogRecord, Metrics, MetricsSnapshot,
    RecordEvent,
};
use stoic_core::{Instant, WallClock};

fn load() -> Value {
    vectors::load("records.json", "records")
}

fn u64_of(v: &Value, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn log_cases() {
    let doc = load();
    let cases = doc["log_cases"].as_array().unwrap();
    assert!(cases.len() >= 5);
    for case in cases {
        let name = str_of(case, "name");
        let input = &case["input"];
        let error = match &input["error"] {
            Value::Null => None,
            e => Some((str_of(e, "code"), str_of(e, "message"))),
        };
        let record = LogRecord::new(
            WallClock::from_unix_millis(u64_of(input, "wall_now_unix_ms")),
            str_of(input, "operation"),
            u32::try_from(u64_of(input, "attempt")).unwrap(),
            u32::try_from(u64_of(input, "max_attempts")).unwrap(),
            u64_of(input, "delay_ms"),
            error,
            str_of(input, "strategy"),
            LogOutcome::from_code(str_of(input, "outcome")).unwrap(),
            u64_of(input, "total_duration_ms"),
        );
        let line = record.to_json_line();
        assert_eq!(line, str_of(case, "expected_json_line"), "{name}");
        assert_eq!(
            record.to_string(),
            str_of(case, "expected_display"),
            "{name}"
        );
        // The line is the schema's Rust dialect, as the bindings write it.
        let written: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(written, vectors::wire(&record), "{name}");
    }
}

fn event_matches(actual: &RecordEvent, expected: &Value) -> bool {
    let expected: RecordEvent = vectors::read(expected).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12;
    match (actual, &expected) {
        (
            RecordEvent::AlertChanged {
                rule,
                from,
                to,
                value,
                threshold,
                at,
            },
            RecordEvent::AlertChanged {
                rule: e_rule,
                from: e_from,
                to: e_to,
                value: e_value,
                threshold: e_threshold,
                at: e_at,
            },
        ) => {
            rule == e_rule
                && from == e_from
                && to == e_to
                && at == e_at
                && close(*value, *e_value)
                && close(*threshold, *e_threshold)
        }
        _ => false,
    }
}

#[test]
fn metrics_scenarios() {
    let doc = load();
    let scenarios = doc["metrics_scenarios"].as_array().unwrap();
    assert!(scenarios.len() >= 4);
    for scenario in scenarios {
        let name = str_of(scenario, "name");
        let config: AlertConfig = vectors::read(&scenario["alert_config"]).unwrap();
        config.validate().unwrap();
        let mut metrics = Metrics::new(config);
        let mut events = Vec::new();
        for step in scenario["steps"].as_array().unwrap() {
            let now = Instant::from_millis(u64_of(step, "t_ms"));
            match str_of(step, "op") {
                "attempt" => metrics.on_attempt(now, step["is_retry"].as_bool().unwrap()),
                "retry_scheduled" => metrics.on_retry_scheduled(now),
                "call_finished" => metrics.on_call_finished(
                    now,
                    CallSummary {
                        retries: u32::try_from(u64_of(step, "retries")).unwrap(),
                        outcome: CallOutcome::from_code(str_of(step, "outcome")).unwrap(),
                        duration_ms: u64_of(step, "duration_ms"),
                    },
                ),
                "breaker_state" => {
                    let state = str_of(step, "state");
                    let known = metrics.set_breaker_state(state);
                    assert_eq!(
                        known,
                        ["closed", "half_open", "open"].contains(&state),
                        "{name}"
                    );
                }
                "evaluate" => metrics.evaluate(now),
                other => panic!("{name}: unknown op {other}"),
            }
            while let Some(event) = metrics.poll_event() {
                events.push(event);
            }
        }
        let expected_snapshot: MetricsSnapshot =
            vectors::read(&scenario["expected_snapshot"]).unwrap();
        assert_eq!(metrics.snapshot(), expected_snapshot, "{name}");
        assert_eq!(
            vectors::wire(&metrics.snapshot()),
            scenario["expected_snapshot"],
            "{name}: snapshot JSON shape"
        );
        let expected_events = scenario["expected_alert_events"].as_array().unwrap();
        assert_eq!(events.len(), expected_events.len(), "{name}: {events:?}");
        for (actual, expected) in events.iter().zip(expected_events) {
            assert!(
                event_matches(actual, expected),
                "{name}: {actual:?} != {expected}"
            );
        }
    }
}

#[test]
fn merge_cases() {
    let doc = load();
    let cases = doc["merge_cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let name = str_of(case, "name");
        let mut a: MetricsSnapshot = vectors::read(&case["a"]).unwrap();
        let b: MetricsSnapshot = vectors::read(&case["b"]).unwrap();
        let expected: MetricsSnapshot = vectors::read(&case["expected"]).unwrap();
        a.merge(&b);
        assert_eq!(a, expected, "{name}");
    }
}

#[test]
fn catalogue_cases() {
    use stoic_core::record::metric_points;
    use stoic_core::SortedMap;

    let doc = load();
    let cases = doc["catalogue_cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        let name = str_of(case, "name");
        let scopes: SortedMap<String, MetricsSnapshot> = case["metrics"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(scope, snapshot)| (scope.clone(), vectors::read(snapshot).unwrap()))
            .collect();
        let got: Vec<Value> = metric_points(&scopes)
            .map(|metric| vectors::wire(&metric))
            .collect();
        assert_eq!(Value::Array(got), case["expected"], "{name}");
    }
}
