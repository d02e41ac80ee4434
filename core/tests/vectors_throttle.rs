//! Runs `tests/vectors/core_only/throttle.json`: the client-side throttle
//! (`stoic_core::load_control::Throttle`) in virtual time, and its
//! settings' config errors.
//!
//! The file sits in `core_only/` until a binding exposes the throttle: the
//! JavaScript and Python suites run every file of `tests/vectors/` and fail
//! on a kind they have no runner for.

#![cfg(feature = "load_control")]

#[path = "support/vectors.rs"]
mod vectors;

use serde_json::{json, Map, Value};
use stoic_core::load_control::{Throttle, ThrottleConfig};
use stoic_core::{Class, Instant};

const FILE: &str = "core_only/throttle.json";

fn check(here: &str, actual: &Value, expect: Option<&Value>) {
    for (key, want) in expect.and_then(Value::as_object).into_iter().flatten() {
        assert_eq!(&actual[key], want, "{here}: field `{key}` of {actual}");
    }
}

struct Runner {
    throttle: Throttle,
    steps_run: usize,
}

impl Runner {
    /// Runs `steps` from `base` ms; returns each admit's answer
    /// (`admitted` / `rejected`) for a repeat block's tally.
    fn run(&mut self, steps: &[Value], base: u64, at: &str) -> Vec<&'static str> {
        let mut kinds = Vec::new();
        for (index, step) in steps.iter().enumerate() {
            let here = format!("{at}[{index}]");
            let t = base + step["t_ms"].as_u64().unwrap_or(0);
            if let Some(times) = step["repeat"].as_u64() {
                let every = step["every_ms"].as_u64().unwrap_or(0);
                let inner = step["steps"].as_array().unwrap();
                let mut all = Vec::new();
                for i in 0..times {
                    all.extend(self.run(inner, t + i * every, &format!("{here}#{i}")));
                }
                if let Some(want) = step.get("expect_tally") {
                    let mut got = Map::new();
                    for kind in &all {
                        let n = got.get(*kind).and_then(Value::as_u64).unwrap_or(0);
                        got.insert((*kind).to_owned(), json!(n + 1));
                    }
                    assert_eq!(&Value::Object(got), want, "{here}: tally");
                }
                kinds.extend(all);
            } else {
                kinds.extend(self.step(step, t, &here));
            }
        }
        kinds
    }

    fn step(&mut self, step: &Value, t: u64, here: &str) -> Option<&'static str> {
        self.steps_run += 1;
        let now = Instant::from_millis(t);
        let (actual, kind) = match step["op"].as_str().unwrap() {
            "admit" => {
                let before = self.throttle.status(now);
                let answer = self.throttle.try_admit(now);
                let kind = if answer.is_ok() {
                    "admitted"
                } else {
                    "rejected"
                };
                let mut out = json!({
                    "admitted": answer.is_ok(),
                    "probability_ppm": before.rejection_ppm,
                    "requests": before.requests,
                    "accepts": before.accepts,
                });
                if let Err(throttled) = answer {
                    assert_eq!(throttled.probability_ppm, before.rejection_ppm, "{here}");
                    assert_eq!(throttled.requests, before.requests, "{here}");
                    out["code"] = json!(throttled.code());
                }
                (out, Some(kind))
            }
            "request" => {
                self.throttle.count_request(now);
                (Value::Null, None)
            }
            "outcome" => {
                let code = step["class"].as_str().unwrap();
                let class = Class::ALL.into_iter().find(|c| c.code() == code).unwrap();
                let accepted = self.throttle.on_outcome(now, class);
                (json!({ "accepted": accepted }), None)
            }
            "status" => {
                let s = self.throttle.status(now);
                let out = json!({
                    "requests": s.requests,
                    "accepts": s.accepts,
                    "rejection_ppm": s.rejection_ppm,
                });
                (out, None)
            }
            other => panic!("{here}: unknown op {other}"),
        };
        check(here, &actual, step.get("expect"));
        kind
    }
}

#[test]
fn throttle_scenarios() {
    let doc = vectors::load(FILE, "throttle");
    let mut total = 0;
    for scenario in doc["scenarios"].as_array().unwrap() {
        let id = scenario["id"].as_str().unwrap();
        let config = ThrottleConfig::from_json(&scenario["config"].to_string())
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let seed = scenario["seed"].as_u64().unwrap();
        let mut runner = Runner {
            throttle: Throttle::new(config, seed).unwrap(),
            steps_run: 0,
        };
        runner.run(scenario["steps"].as_array().unwrap(), 0, id);
        total += runner.steps_run;
    }
    assert!(total >= 300, "only {total} steps ran");
}

#[test]
fn throttle_config_errors() {
    let doc = vectors::load(FILE, "throttle");
    let cases = vectors::run_section_cases::<ThrottleConfig>(&doc, "throttle");
    assert!(cases >= 8, "only {cases} config errors");
}
