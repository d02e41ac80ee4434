//! The schema in each dialect: spelling, units, every problem reported,
//! messages in the caller's terms, and write-then-read round trips.

use super::*;
use crate::error::ConfigErrorCode;
use crate::Config;

fn doc(json: &str) -> Value {
    Value::from_json(json).unwrap()
}

fn problems(json: &str, dialect: Dialect) -> Vec<(ConfigErrorCode, String, String)> {
    let error = decode::<Config>(&doc(json), dialect).unwrap_err();
    error
        .problems()
        .map(|p| (p.code(), p.field().to_owned(), p.message().to_owned()))
        .collect()
}

#[test]
fn each_dialect_spells_keys_and_units_its_own_way() {
    let rust = decode::<Config>(
        &doc(r#"{"seed": 1, "backoff": {"base_ms": 250}}"#),
        Dialect::RUST,
    );
    let js = decode::<Config>(
        &doc(r#"{"seed": 1, "backoff": {"baseMs": 250}}"#),
        Dialect::JS,
    );
    let py = decode::<Config>(
        &doc(r#"{"seed": 1, "backoff": {"base": 0.25}}"#),
        Dialect::PYTHON,
    );
    for config in [rust, js, py] {
        assert_eq!(config.unwrap().backoff.base_ms, 250);
    }
    let js_snake = decode::<Config>(&doc(r#"{"seed": 1, "max_attempts": 2}"#), Dialect::JS);
    assert_eq!(
        js_snake.unwrap().max_attempts,
        2,
        "JS also takes the core's spelling"
    );
}

#[test]
fn every_problem_is_reported_with_its_own_field() {
    let found = problems(
        r#"{"seed": 1, "max_attempts": "5", "timeouts": {"raed_ms": 5}, "hints": {"respect": 1}}"#,
        Dialect::RUST,
    );
    let fields: Vec<&str> = found.iter().map(|(_, f, _)| f.as_str()).collect();
    assert_eq!(
        fields,
        ["max_attempts", "timeouts.raed_ms", "hints.respect"]
    );
    assert_eq!(found[0].0, ConfigErrorCode::WrongType);
    assert_eq!(found[1].0, ConfigErrorCode::UnknownField);
    assert!(
        found[1].2.contains("did you mean `read_ms`?"),
        "{}",
        found[1].2
    );
}

#[test]
fn suggestions_are_spellings_the_caller_may_use() {
    let js = problems(r#"{"seed": 1, "maxAtempts": 3}"#, Dialect::JS);
    assert_eq!(js[0].1, "maxAtempts");
    assert!(
        js[0].2.contains("did you mean `maxAttempts`?"),
        "{}",
        js[0].2
    );
    let kind = problems(
        r#"{"seed": 1, "breaker": {"trip": {"kind": "consecutiveFailures"}}}"#,
        Dialect::JS,
    );
    assert_eq!(kind[0].0, ConfigErrorCode::InvalidValue);
    assert!(
        kind[0].2.contains("\"consecutive_failures\""),
        "codes stay data: {}",
        kind[0].2
    );
    let py = problems(
        r#"{"seed": 1, "timeouts": {"read_ms": 5}}"#,
        Dialect::PYTHON,
    );
    assert_eq!(py[0].1, "timeouts.read_ms");
    assert!(py[0].2.contains("write `read`"), "{}", py[0].2);
}

#[test]
fn python_messages_speak_seconds_and_no_rust_types() {
    let cap = problems(
        r#"{"seed": 1, "backoff": {"base": 10, "cap": 1}}"#,
        Dialect::PYTHON,
    );
    assert_eq!(cap[0].1, "backoff.cap");
    assert_eq!(cap[0].2, "must be at least `base` (10 s), got 1 s");
    let negative = problems(r#"{"seed": 1, "backoff": {"base": -1}}"#, Dialect::PYTHON);
    assert_eq!(negative[0].0, ConfigErrorCode::OutOfRange);
    assert!(!negative[0].2.contains("u64") && !negative[0].2.contains("-1000"));
    let tiny = problems(r#"{"seed": 1, "backoff": {"base": 1e-9}}"#, Dialect::PYTHON);
    assert_eq!(
        tiny[0].0,
        ConfigErrorCode::OutOfRange,
        "1e-9 s is not silently 0"
    );
    let huge = problems(r#"{"seed": 1, "max_attempts": 1e30}"#, Dialect::PYTHON);
    assert_eq!(huge[0].0, ConfigErrorCode::OutOfRange);
    let js = problems(r#"{"seed": 1, "maxAttempts": 1.5}"#, Dialect::JS);
    assert_eq!(js[0].0, ConfigErrorCode::WrongType);
    assert!(!js[0].2.contains("u32"), "{}", js[0].2);
    let text = problems(r#"{"seed": 1, "backoff": "fast"}"#, Dialect::JS);
    assert_eq!(text[0].2, "expected an object, got text");
}

#[test]
fn only_an_object_is_a_config() {
    for text in ["[1, 2]", "7", "\"x\"", "null"] {
        let e = Config::from_json(text).unwrap_err();
        assert_eq!(e.code(), ConfigErrorCode::WrongType, "{text}");
    }
    assert_eq!(
        Config::from_json("").unwrap_err().code(),
        ConfigErrorCode::InvalidJson
    );
}

#[test]
fn written_configs_read_back_the_same_in_every_dialect() {
    let mut config = Config::with_seed(u64::MAX);
    config.breaker = Some(crate::breaker::BreakerConfig {
        trip: crate::breaker::TripRule::FailureRate {
            window: crate::breaker::Window::Time {
                duration_ms: 10_000,
                buckets: 10,
            },
            failure_rate: 0.5,
            minimum_throughput: 5,
            compare: crate::breaker::Compare::Gt,
            slow_call: Some(crate::breaker::SlowCall {
                duration_ms: 1_500,
                rate: 0.25,
            }),
        },
        ..Default::default()
    });
    config.classify.status.insert(404, crate::Class::Transient);
    config.classify.network.insert(
        crate::NetworkErrorKind::ResetAfterSend,
        crate::Class::Transient,
    );
    config.timeouts.total_ms = None;
    config.budget.grpc = Some(crate::budget::GrpcThrottleConfig::default());
    for dialect in [Dialect::RUST, Dialect::JS, Dialect::PYTHON] {
        let written = encode(&config, dialect);
        assert_eq!(
            decode::<Config>(&written, dialect).unwrap(),
            config,
            "{dialect:?}"
        );
    }
    let js = encode(&config, Dialect::JS);
    let Value::Map(entries) = &js else { panic!() };
    let classify = &entries.iter().find(|(k, _)| k == "classify").unwrap().1;
    let Value::Map(classify) = classify else {
        panic!()
    };
    let network = &classify.iter().find(|(k, _)| k == "network").unwrap().1;
    assert_eq!(
        network,
        &Value::Map(vec![(
            "reset_after_send".into(),
            Value::Text("transient".into())
        )]),
        "data keys are not respelled"
    );
}

#[test]
fn rules_inside_a_tagged_section_name_their_own_field() {
    let rate = problems(
        r#"{"seed": 1, "breaker": {"trip": {"kind": "failure_rate", "window": {"kind": "count", "size": 0}, "failure_rate": 2, "minimum_throughput": 1}}}"#,
        Dialect::RUST,
    );
    let fields: Vec<&str> = rate.iter().map(|(_, f, _)| f.as_str()).collect();
    assert_eq!(
        fields,
        ["breaker.trip.failure_rate", "breaker.trip.window.size"]
    );
    let missing = problems(
        r#"{"seed": 1, "breaker": {"trip": {"kind": "failure_rate", "threshold": 3}}}"#,
        Dialect::JS,
    );
    let fields: Vec<&str> = missing.iter().map(|(_, f, _)| f.as_str()).collect();
    // The key that does not belong leads (it is what the caller wrote
    // wrong), then the keys the kind needs, in order.
    assert_eq!(
        fields,
        [
            "breaker.trip.threshold",
            "breaker.trip.window",
            "breaker.trip.failureRate",
            "breaker.trip.minimumThroughput",
        ]
    );
}

#[test]
fn a_misspelt_key_leads_over_the_key_it_was_meant_to_be() {
    let found = problems(
        r#"{"seed": 1, "breaker": {"trip": {"kind": "failure_rate", "windw": {"kind": "count", "size": 10}, "failure_rate": 0.5, "minimum_throughput": 5}}}"#,
        Dialect::JS,
    );
    let first = found
        .first()
        .map(|(code, field, _)| (*code, field.as_str()));
    assert_eq!(
        first,
        Some((ConfigErrorCode::UnknownField, "breaker.trip.windw"))
    );
    // A missing key with no unknown one beside it is the error.
    let found = problems(
        r#"{"seed": 1, "breaker": {"trip": {"kind": "failure_rate"}}}"#,
        Dialect::JS,
    );
    let first = found
        .first()
        .map(|(code, field, _)| (*code, field.as_str()));
    assert_eq!(
        first,
        Some((ConfigErrorCode::Required, "breaker.trip.window"))
    );
}

#[test]
fn a_rust_built_config_is_checked_by_the_same_rules() {
    let mut config = Config::with_seed(1);
    config.max_attempts = 0;
    config.backoff.cap_ms = 1;
    let e = config.validate().unwrap_err();
    let fields: Vec<&str> = e.problems().map(ConfigError::field).collect();
    assert_eq!(fields, ["max_attempts", "backoff.cap_ms"]);
    assert_eq!(
        e.text(),
        "max_attempts: must be from 1 to 1000, got 0; backoff.cap_ms: must be at least `base_ms` (1000 ms), got 1 ms"
    );
}

#[test]
fn json_documents_keep_integers_exact_and_refuse_duplicates() {
    assert_eq!(
        Value::from_json(r#"{"seed": 18446744073709551615}"#).unwrap(),
        Value::Map(vec![("seed".to_owned(), Value::Int(i128::from(u64::MAX)))])
    );
    assert_eq!(
        Value::from_json("[1e3, 1.5, -2]").unwrap(),
        Value::List(vec![
            Value::Float(1000.0),
            Value::Float(1.5),
            Value::Int(-2)
        ])
    );
    let twice = Value::from_json(r#"{"seed": 1, "seed": 2}"#).unwrap_err();
    assert_eq!(twice.code(), crate::error::ConfigErrorCode::InvalidJson);
    assert!(Value::from_json("{").is_err());
}

#[test]
fn json_text_writes_every_value_exactly() {
    let value = Value::Map(vec![
        ("zero".into(), Value::Int(0)),
        ("max".into(), Value::Int(i128::from(u64::MAX))),
        ("negative".into(), Value::Int(-42)),
        ("huge".into(), Value::Int(i128::from(u64::MAX) * 10)),
        ("float".into(), Value::Float(1.0)),
        ("small".into(), Value::Float(1e-7)),
        ("nan".into(), Value::Float(f64::NAN)),
        ("text \"q\"".into(), Value::Text("a\nb\\c\u{1} café".into())),
        (
            "list".into(),
            Value::List(vec![Value::Null, Value::Bool(true)]),
        ),
    ]);
    assert_eq!(
        value.to_json_text(),
        concat!(
            r#"{"zero":0,"max":18446744073709551615,"negative":-42,"#,
            r#""huge":184467440737095516150,"float":1.0,"small":1e-7,"nan":null,"#,
            r#""text \"q\"":"a\nb\\c\u0001 café","list":[null,true]}"#
        )
    );
}

#[test]
fn range_messages_name_the_bounds_in_the_callers_units() {
    let rust = problems(
        r#"{"seed": 1, "max_attempts": 0, "max_scopes": 0,
            "backoff": {"base_ms": 700000000, "multiplier": 1e9},
            "hints": {"max_delay_ms": 3000000000},
            "observation": {"max_excerpt_chars": 1000000000},
            "breaker": {"half_open": {"max_probes": 0},
                        "trip": {"kind": "failure_rate", "failure_rate": 0.5, "minimum_throughput": 0,
                                 "window": {"kind": "time", "duration_ms": 0, "buckets": 0}}},
            "budget": {"ratio": {"ratio": 2000, "min_retries_per_sec": -1,
                                 "min_concurrent_retries": 1000000, "buckets": 0, "window_ms": 0},
                       "token_bucket": {"retry_cost": 0}},
            "alerts": {"window_ms": 1, "retry_rate_warning": 2}}"#,
        Dialect::RUST,
    );
    let written: Vec<String> = rust.iter().map(|p| format!("{} | {}", p.1, p.2)).collect();
    let expected = [
        "max_attempts | must be from 1 to 1000, got 0",
        "backoff.base_ms | must be at most 604800000 ms (7 days), got 700000000 ms",
        "backoff.cap_ms | must be at least `base_ms` (700000000 ms), got 30000 ms",
        "backoff.multiplier | must be a number from 1 to 1000, got 1000000000",
        "hints.max_delay_ms | must be at most 2592000000 ms (30 days), got 3000000000 ms",
        "observation.max_excerpt_chars | must be at most 100000, got 1000000000",
        "breaker.trip.minimum_throughput | must be at least 1",
        "breaker.trip.window.duration_ms | must be from 1 ms to 9007199254740991 ms, got 0 ms",
        "breaker.trip.window.buckets | must be from 1 to 1000, got 0",
        "breaker.half_open.max_probes | must be at least 1",
        "budget.ratio.ratio | must be from 0 to 1000, got 2000",
        "budget.ratio.min_retries_per_sec | must be from 0 to 1000000, got -1",
        "budget.ratio.min_concurrent_retries | must be from 0 to 1000, got 1000000",
        "budget.ratio.buckets | must be from 1 to 1000, got 0",
        "budget.ratio.window_ms | must be from 1 ms to 86400000 ms, got 0 ms",
        "budget.token_bucket.retry_cost | must be at least 1 (a free retry is never limited; disable the bucket instead)",
        "alerts.window_ms | must be from 1000 ms to 86400000 ms, got 1 ms",
        "alerts.retry_rate_warning | must be a fraction from 0 to 1, got 2",
        "max_scopes | must be from 1 to 100000, got 0",
    ];
    assert_eq!(written, expected);
    let python = problems(
        r#"{"seed": 1, "backoff": {"base": 700000}, "alerts": {"window": 0.5}}"#,
        Dialect::PYTHON,
    );
    let written: Vec<String> = python
        .iter()
        .map(|p| format!("{} | {}", p.1, p.2))
        .collect();
    assert_eq!(
        written,
        [
            "backoff.base | must be at most 604800 s (7 days), got 700000 s",
            "backoff.cap | must be at least `base` (700000 s), got 30 s",
            "alerts.window | must be from 1 s to 86400 s, got 0.5 s",
        ]
    );
}
