//! Runs `tests/vectors/config_errors.json`: each invalid config is rejected
//! with its code and field, by `Config::from_json` (the field read off the
//! parse position) and by `deserialize_part` + validation (the field tracked
//! through the deserializer) alike. The JS and Python suites run the same
//! file through the bindings.

#[path = "support/vectors.rs"]
mod vectors;

use stoic_core::config::deserialize_part;
use stoic_core::Config;

#[test]
fn every_invalid_config_names_its_field() {
    let doc = vectors::load("config_errors.json", "config_errors");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 20, "too few cases: {}", cases.len());
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let want = (
            case["code"].as_str().expect("code"),
            case["field"].as_str().expect("field"),
        );
        let text = case["config"].to_string();
        let e = Config::from_json(&text).expect_err(name);
        assert_eq!((e.code().as_str(), e.field()), want, "{name}: {e}");
        let tracked = deserialize_part::<Config, _>(&case["config"])
            .and_then(|config| config.validate().map(|()| config))
            .expect_err(name);
        assert_eq!(
            (tracked.code().as_str(), tracked.field()),
            want,
            "{name} (tracked): {tracked}"
        );
    }
}
