//! Runs the shared Retry-After / HTTP-date / server-hint vectors
//! (`tests/vectors/retry_after.json`, `tests/vectors/server_hints.json`).
//!
//! Every failing case is collected and reported together, so one run shows
//! every disagreement rather than the first.

// Helpers outside `#[test]` functions are test code too: a malformed vector
// file should stop the run loudly.

#[path = "support/vectors.rs"]
mod vectors;

use serde_json::Value;
use stoic_core::hints::{parse_retry_after, server_hint, HintSource, ServerHint};
use stoic_core::httpdate::parse_http_date_at;
use stoic_core::WallClock;

fn opt_u64(v: &Value, key: &str) -> Option<u64> {
    match &v[key] {
        Value::Null => None,
        n => Some(
            n.as_u64()
                .unwrap_or_else(|| panic!("{key} is not a u64 in {v}")),
        ),
    }
}

fn cases<'a>(doc: &'a Value, key: &str) -> &'a [Value] {
    let list = doc[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} array"));
    assert!(!list.is_empty(), "{key} is empty");
    list
}

fn check_header(doc: &Value, kind: &str) {
    assert_eq!(doc["kind"], kind);
    for key in ["description", "source", "license"] {
        assert!(
            doc[key].as_str().is_some_and(|s| !s.is_empty()),
            "missing {key}"
        );
    }
    assert!(!doc["decisions"].as_array().unwrap().is_empty());
}

fn report(failures: &[String], total: usize) {
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn retry_after_cases() {
    let doc = vectors::load("retry_after.json", "retry_after");
    check_header(&doc, "retry_after");
    let list = cases(&doc, "cases");
    let mut failures = Vec::new();
    for case in list {
        let input = case["input"].as_str().unwrap();
        let now = case["now_unix_ms"].as_u64().unwrap();
        let expected = opt_u64(case, "expected_ms");
        let got = parse_retry_after(input, now);
        if got != expected {
            failures.push(format!(
                "{input:?} at {now}: got {got:?}, expected {expected:?}"
            ));
        }
        if let Some(max) = opt_u64(case, "policy_max_ms") {
            let clamped = got.map(|ms| ms.min(max));
            if clamped != opt_u64(case, "expected_clamped_ms") {
                failures.push(format!("{input:?}: clamped to {max} gives {clamped:?}"));
            }
        }
        if case["saturates"] == true && got != Some(u64::MAX) {
            failures.push(format!("{input:?}: should saturate, got {got:?}"));
        }
    }
    report(&failures, list.len());
}

#[test]
fn http_date_cases() {
    let doc = vectors::load("retry_after.json", "retry_after");
    let list = cases(&doc, "http_date_cases");
    let mut failures = Vec::new();
    for case in list {
        let input = case["input"].as_str().unwrap();
        let now = opt_u64(case, "now_unix_s");
        let expected = opt_u64(case, "expected_unix_s");
        let got = parse_http_date_at(input, now);
        if got != expected {
            failures.push(format!(
                "{input:?} (now {now:?}): got {got:?}, expected {expected:?}"
            ));
        }
    }
    report(&failures, list.len());
}

fn expected_hint(expected: &Value) -> Option<ServerHint> {
    let source = || {
        let code = expected["source"].as_str().unwrap();
        HintSource::from_code(code).unwrap_or_else(|| panic!("unknown source {code}"))
    };
    match expected["kind"].as_str().unwrap() {
        "none" => None,
        "delay" => Some(ServerHint::Delay {
            delay_ms: opt_u64(expected, "delay_ms").unwrap(),
            source: source(),
        }),
        "bounded" => Some(ServerHint::Bounded {
            hint_ms: opt_u64(expected, "hint_ms").unwrap(),
            source: source(),
        }),
        "do_not_retry" => Some(ServerHint::DoNotRetry { source: source() }),
        other => panic!("unknown kind {other}"),
    }
}

#[test]
fn server_hint_cases() {
    let doc = vectors::load("server_hints.json", "server_hint");
    check_header(&doc, "server_hint");
    let list = cases(&doc, "cases");
    let mut failures = Vec::new();
    for case in list {
        let description = case["description"].as_str().unwrap();
        let headers: Vec<(&str, &str)> = case["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pair| (pair[0].as_str().unwrap(), pair[1].as_str().unwrap()))
            .collect();
        let wall_now = opt_u64(case, "wall_now_unix_ms").map(WallClock::from_unix_millis);
        let backoff = case["backoff_ms"].as_u64().unwrap();
        let expected = &case["expected"];
        let got = server_hint(headers.iter().copied(), wall_now);
        let want = expected_hint(expected);
        if got != want {
            failures.push(format!("{description}: got {got:?}, expected {want:?}"));
            continue;
        }
        if let Some(hint) = got {
            let delay = hint.delay_with_backoff(backoff);
            if delay != opt_u64(expected, "delay_ms") {
                failures.push(format!(
                    "{description}: delay_with_backoff({backoff}) = {delay:?}"
                ));
            }
            // The wire shape of a hint is the vector's shape (minus delay_ms for bounded).
            let json = vectors::wire(&hint);
            assert_eq!(json["kind"], expected["kind"], "{description}");
            assert_eq!(json["source"], expected["source"], "{description}");
        }
        let effective = got.map_or(Some(backoff), |h| h.delay_with_backoff(backoff));
        if effective != opt_u64(case, "effective_delay_ms") {
            failures.push(format!("{description}: effective delay {effective:?}"));
        }
    }
    report(&failures, list.len());
}
