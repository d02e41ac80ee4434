//! Runs `tests/vectors/host.json`: the host policy both runtimes read from
//! the core. The JS and Python suites run the same file through their
//! bindings and their runtimes' error translation.

#[path = "support/vectors.rs"]
mod vectors;

use serde_json::Value;
use stoic_core::host::{
    http_plan, network_kind_of, validates, wants_excerpt, HttpRequest, DEFAULT_OPERATION,
    ERROR_CODES, KEY_FORM, KEY_HEADER, UNKNOWN_ERROR_CLASS,
};
use stoic_core::Policy;

fn statuses(v: &Value) -> Vec<u16> {
    v.as_array()
        .expect("statuses")
        .iter()
        .map(|s| u16::try_from(s.as_u64().expect("status")).expect("u16"))
        .collect()
}

#[test]
fn the_host_policy_matches_the_vectors() {
    let doc = vectors::load("host.json", "host");
    let codes = doc["error_codes"].as_object().expect("error_codes");
    assert_eq!(codes.len(), ERROR_CODES.len(), "every code is pinned");
    for (name, kind) in codes {
        let got = network_kind_of(name).map(|k| k.code());
        assert_eq!(got, kind.as_str(), "{name}");
    }
    assert_eq!(doc["unknown_error_class"], UNKNOWN_ERROR_CLASS.code());
    assert_eq!(doc["key_header"], KEY_HEADER);
    assert_eq!(doc["key_form"], KEY_FORM);
    assert_eq!(doc["default_operation"], DEFAULT_OPERATION);
    for (table, rule) in [
        ("excerpt", wants_excerpt as fn(u16) -> bool),
        ("validate", validates as fn(u16) -> bool),
    ] {
        for status in statuses(&doc[table]["yes"]) {
            assert!(rule(status), "{table} {status}");
        }
        for status in statuses(&doc[table]["no"]) {
            assert!(!rule(status), "{table} {status}");
        }
    }
    let plans = doc["http_plans"].as_array().expect("http_plans");
    for case in plans {
        let r = &case["request"];
        let text = |k: &str| r[k].as_str().expect(k);
        let flag = |k: &str| r[k].as_bool().expect(k);
        let key = r["caller_key"].as_str();
        let plan = http_plan(&HttpRequest {
            method: text("method"),
            host: text("host"),
            path: text("path"),
            caller_key: key,
            server_deduplicates: flag("server_deduplicates"),
            auto_keys: flag("auto_keys"),
        });
        let got = serde_json::json!({
            "operation": plan.operation,
            "scope": plan.scope,
            "safe_to_repeat": plan.safe_to_repeat,
            "auto_key": plan.auto_key,
            "trust_key": plan.trust_key,
        });
        assert_eq!(got, case["expect"], "{}", case["name"]);
    }
}

#[test]
fn the_statuses_whose_headers_a_policy_reads_match_the_vectors() {
    let doc = vectors::load("host.json", "host");
    for case in doc["reads_hints"].as_array().expect("reads_hints") {
        let name = case["name"].as_str().expect("name");
        // The core takes its jitter seed from the host; bindings draw one.
        let mut config = case["config"].clone();
        config["seed"] = serde_json::json!(1);
        let policy = Policy::from_json(&config.to_string()).expect(name);
        for status in statuses(&case["yes"]) {
            assert!(policy.reads_hints(status), "{name}: {status}");
        }
        for status in statuses(&case["no"]) {
            assert!(!policy.reads_hints(status), "{name}: {status}");
        }
    }
}
