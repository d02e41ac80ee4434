//! Config validation is total: any text or any JSON shape gives a config or
//! an error with a stable code, never a panic, and a config that validates
//! always builds a policy.

use proptest::prelude::*;
use serde_json::{json, Value};
use stoic_core::{Config, Policy};

/// Field paths a config knows, so generated documents reach deep validation.
const KEYS: [&str; 16] = [
    "version",
    "seed",
    "max_attempts",
    "backoff",
    "timeouts",
    "hints",
    "classify",
    "observation",
    "breaker",
    "budget",
    "alerts",
    "max_scopes",
    "log_records",
    "strategy",
    "base_ms",
    "cap_ms",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        "[a-z_]{0,12}".prop_map(Value::from),
        Just(json!("full_jitter")),
        Just(json!("consecutive_failures")),
    ]
}

fn document() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            proptest::collection::vec((0..KEYS.len(), inner), 0..6).prop_map(|fields| {
                let mut map = serde_json::Map::new();
                for (k, v) in fields {
                    map.insert(KEYS[k].to_owned(), v);
                }
                Value::Object(map)
            }),
        ]
    })
}

proptest! {
    #[test]
    fn any_text_is_a_config_or_a_coded_error(text in ".{0,200}") {
        if let Err(e) = Config::from_json(&text) {
            prop_assert!(!e.code().as_str().is_empty());
        }
    }

    #[test]
    fn any_shape_is_a_config_or_a_coded_error(doc in document(), seed in any::<u64>()) {
        let mut doc = doc;
        if let Value::Object(map) = &mut doc {
            map.entry("seed").or_insert(json!(seed));
        }
        match Config::from_json(&doc.to_string()) {
            Ok(config) => prop_assert!(Policy::new(config).is_ok()),
            Err(e) => prop_assert!(!e.code().as_str().is_empty()),
        }
    }
}
