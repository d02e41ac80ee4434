//! Runs `tests/vectors/config_errors.json` through the core in every
//! dialect: each invalid config is rejected with its code and its field in
//! that dialect's spelling (and, for `problems` cases, every problem in
//! order). The JS and Python suites run the same file through the bindings.

#[path = "support/vectors.rs"]
mod vectors;

use stoic_core::schema::{Dialect, Value};
use stoic_core::Config;

#[test]
fn every_invalid_config_names_its_field_in_every_dialect() {
    let doc = vectors::load("config_errors.json", "config_errors");
    let cases = doc["cases"].as_array().expect("cases");
    assert!(cases.len() >= 30, "too few cases: {}", cases.len());
    let mut runs = 0;
    for case in cases {
        let name = case["name"].as_str().expect("name");
        for (dialect, label) in [
            (Dialect::RUST, "rust"),
            (Dialect::JS, "js"),
            (Dialect::PYTHON, "python"),
        ] {
            let Some(config) = case["config"].get(label) else {
                continue;
            };
            let e =
                Config::from_value(&Value::from_json(&config.to_string()).expect(name), dialect)
                    .expect_err(name);
            let want = (
                case["code"].as_str().expect("code"),
                case["field"][label].as_str().expect("field"),
            );
            assert_eq!(
                (e.code().as_str(), e.field()),
                want,
                "{name} ({label}): {e}"
            );
            if let Some(all) = case.get("problems") {
                let got: Vec<(String, String)> = e
                    .problems()
                    .map(|p| (p.code().as_str().to_owned(), p.field().to_owned()))
                    .collect();
                let want: Vec<(String, String)> = all[label]
                    .as_array()
                    .expect("problems")
                    .iter()
                    .map(|p| {
                        (
                            p[0].as_str().unwrap().to_owned(),
                            p[1].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect();
                assert_eq!(got, want, "{name} ({label})");
            }
            runs += 1;
        }
        if let Some(rust) = case["config"].get("rust") {
            let e = Config::from_json(&rust.to_string()).expect_err(name);
            assert_eq!(
                e.field(),
                case["field"]["rust"].as_str().unwrap(),
                "{name} (JSON text)"
            );
        }
    }
    assert!(runs >= 90, "too few runs: {runs}");
}
