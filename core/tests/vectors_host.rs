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

#[test]
fn the_library_tables_fetch_refusals_and_defaults_match_the_vectors() {
    use stoic_core::host::{is_failure_status, FETCH_REFUSALS, HTTP_DEFAULTS, PYTHON_LIBRARIES};
    let doc = vectors::load("host.json", "host");
    let libraries = doc["python_libraries"]
        .as_array()
        .expect("python_libraries");
    assert_eq!(
        libraries.len(),
        PYTHON_LIBRARIES.len(),
        "every library is pinned"
    );
    for (case, lib) in libraries.iter().zip(PYTHON_LIBRARIES) {
        assert_eq!(case["library"], lib.library);
        assert_eq!(
            case["modules"],
            serde_json::json!(lib.modules),
            "{}",
            lib.library
        );
        let classes: Vec<(&str, &str)> = lib.classes.iter().map(|(n, m)| (*n, m.code())).collect();
        assert_eq!(
            case["classes"],
            serde_json::json!(classes),
            "{}",
            lib.library
        );
        let chain: Vec<(&str, &str)> = lib.chain.iter().map(|(n, k)| (*n, k.code())).collect();
        assert_eq!(case["chain"], serde_json::json!(chain), "{}", lib.library);
    }
    assert_eq!(doc["fetch_refusals"], serde_json::json!(FETCH_REFUSALS));
    for status in statuses(&doc["failure_status"]["yes"]) {
        assert!(is_failure_status(status), "{status}");
    }
    for status in statuses(&doc["failure_status"]["no"]) {
        assert!(!is_failure_status(status), "{status}");
    }
    assert_eq!(doc["http_defaults"]["keys"], HTTP_DEFAULTS.auto_keys);
    assert_eq!(
        doc["http_defaults"]["server_deduplicates"],
        HTTP_DEFAULTS.server_deduplicates
    );
}
