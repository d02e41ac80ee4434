//! Runs `tests/vectors/server_idempotency.json`: the server-side half of the
//! idempotency-key contract.

#[path = "support/vectors.rs"]
mod vectors;

use stoic_core::server_idempotency::{decide, fingerprint, ServerIdempotencyConfig, StoredEntry};

#[test]
fn server_decisions() {
    let doc = vectors::load("server_idempotency.json", "server_idempotency");
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    for case in cases {
        let config: ServerIdempotencyConfig = match case.get("config") {
            Some(c) => vectors::read(c).unwrap(),
            None => ServerIdempotencyConfig::default(),
        };
        let stored: Option<StoredEntry> =
            (!case["stored"].is_null()).then(|| vectors::read(&case["stored"]).unwrap());
        let decision = decide(
            &config,
            case["now_unix_ms"].as_u64().unwrap(),
            case["key"].as_str(),
            case["fingerprint"].as_str().unwrap(),
            stored.as_ref(),
        );
        assert_eq!(
            vectors::wire(&decision),
            case["expected"],
            "{}",
            case["name"]
        );
    }
    for case in doc["fingerprint_cases"].as_array().unwrap() {
        assert_eq!(
            fingerprint(case["body"].as_str().unwrap()).unwrap(),
            case["expected"].as_str().unwrap()
        );
    }
}
