//! Runs `tests/vectors/backoff.json`, the backoff vectors the JS and Python
//! suites also run through the bindings.

#[path = "support/vectors.rs"]
mod vectors;

use std::collections::BTreeSet;

use serde_json::Value;
use stoic_core::backoff::{BackoffSpec, SeededBackoff};

fn load() -> Value {
    vectors::load("backoff.json", "backoff")
}

fn spec_of(case: &Value) -> BackoffSpec {
    let spec = &case["spec"];
    // Every case spells out every field, so the file does not depend on defaults.
    for key in ["strategy", "base_ms", "cap_ms", "multiplier"] {
        assert!(
            spec.get(key).is_some(),
            "{}: spec lacks {key}",
            case["name"]
        );
    }
    vectors::shape(spec)
}

fn array<'a>(case: &'a Value, key: &str) -> &'a Vec<Value> {
    case[key]
        .as_array()
        .unwrap_or_else(|| panic!("{}: `{key}` is not an array", case["name"]))
}

#[test]
fn backoff_cases() {
    let doc = load();
    let cases = array(&doc, "cases");
    assert!(cases.len() >= 20, "too few cases: {}", cases.len());
    let mut names = BTreeSet::new();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        assert!(names.insert(name), "duplicate case name {name}");
        let spec = spec_of(case);
        let seed = case["seed"].as_u64().unwrap();
        assert!(seed < 1 << 53, "{name}: seed not exact in a JS number");
        let retries: Vec<u32> = array(case, "retries")
            .iter()
            .map(|r| u32::try_from(r.as_u64().unwrap()).unwrap())
            .collect();
        let expected: Vec<u64> = array(case, "expected_ms")
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(retries.len(), expected.len(), "{name}");

        let mut backoff = SeededBackoff::new(spec, seed)
            .unwrap_or_else(|e| panic!("{name}: valid spec rejected: {e}"));
        let got: Vec<u64> = retries.iter().map(|&k| backoff.delay_ms(k)).collect();
        assert_eq!(got, expected, "{name}");
        assert!(got.iter().all(|&d| d <= spec.cap_ms), "{name}");
        if !spec.strategy.is_jittered() {
            let ceilings: Vec<u64> = retries.iter().map(|&k| spec.ceiling_ms(k)).collect();
            assert_eq!(
                ceilings, expected,
                "{name}: plain strategies return the ceiling"
            );
        }
    }
}

#[test]
fn backoff_invalid_cases() {
    let doc = load();
    let cases = array(&doc, "invalid_cases");
    assert!(cases.len() >= 5, "too few invalid cases: {}", cases.len());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let spec = spec_of(case);
        let code = case["code"].as_str().unwrap();
        let field = case["field"].as_str().unwrap();
        let err = SeededBackoff::new(spec, 0).expect_err(name);
        assert_eq!((err.code().as_str(), err.field()), (code, field), "{name}");
        let mut config = stoic_core::Config::with_seed(0);
        config.backoff = spec;
        let nested = config.validate().expect_err(name);
        assert_eq!(nested.field(), format!("backoff.{field}"), "{name}");
    }
}
