//! Runs `tests/vectors/fleet_exchange.json` (shared with the JS and Python
//! suites): a policy's fleet exports and how it takes views back.

#[path = "support/vectors.rs"]
mod vectors;

use serde_json::Value;
use stoic_core::{Admission, CallSpec, Decision, Instant, Outcome, Policy};

fn at(ms: &Value) -> Instant {
    Instant::from_millis(ms.as_u64().unwrap())
}

/// One call whose attempts get `statuses` in turn: the attempts made.
fn call(policy: &mut Policy, now: u64, scope: &str, statuses: &[Value]) -> u64 {
    let mut call = policy.start(
        Instant::from_millis(now),
        CallSpec::new(scope).idempotent(true),
    );
    let (mut t, mut attempts) = (now, 0);
    for status in statuses {
        match policy.before_attempt(Instant::from_millis(t), &mut call) {
            Admission::Proceed(_) => attempts += 1,
            Admission::Reject(_) => break,
        }
        let status = u16::try_from(status.as_u64().unwrap()).unwrap();
        match policy.on_outcome(
            Instant::from_millis(t + 1),
            &mut call,
            Outcome::status(status),
        ) {
            Decision::Retry(retry) => t += 1 + retry.delay_ms,
            _ => break,
        }
    }
    attempts
}

#[test]
fn fleet_exchange_vectors() {
    let doc = vectors::load("fleet_exchange.json", "fleet_exchange");
    let mut steps_run = 0;
    for scenario in doc["scenarios"].as_array().unwrap() {
        let name = scenario["name"].as_str().unwrap();
        let mut policy = Policy::from_json(&scenario["config"].to_string()).unwrap();
        for (index, step) in scenario["steps"].as_array().unwrap().iter().enumerate() {
            let here = format!("{name}[{index}]");
            match step["op"].as_str().unwrap() {
                "call" => {
                    let made = call(
                        &mut policy,
                        step["now"].as_u64().unwrap(),
                        step["scope"].as_str().unwrap(),
                        step["statuses"].as_array().unwrap(),
                    );
                    assert_eq!(made, step["attempts"].as_u64().unwrap(), "{here}");
                }
                "export" => {
                    let delta = policy
                        .fleet_export(at(&step["now"]), step["store_now_ms"].as_u64().unwrap());
                    assert_eq!(delta.seq, step["seq"].as_u64().unwrap(), "{here}: seq");
                    let got: serde_json::Map<String, Value> = delta
                        .scope_texts()
                        .into_iter()
                        .map(|(scope, text)| (scope, serde_json::from_str(&text).unwrap()))
                        .collect();
                    assert_eq!(Value::Object(got), step["scopes"], "{here}: scopes");
                }
                "apply" => {
                    let replies: Vec<String> = step["replies"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(Value::to_string)
                        .collect();
                    let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
                    policy
                        .fleet_apply_replies(at(&step["now"]), &replies)
                        .unwrap();
                }
                "budget_status" => {
                    let status = policy
                        .budget_status(at(&step["now"]), step["scope"].as_str().unwrap())
                        .unwrap();
                    let ratio = status.ratio.unwrap();
                    assert_eq!(
                        (ratio.requests, ratio.retries),
                        (
                            step["requests"].as_u64().unwrap(),
                            step["retries"].as_u64().unwrap()
                        ),
                        "{here}"
                    );
                }
                "breaker_state" => {
                    let state = policy
                        .breaker_state(step["scope"].as_str().unwrap())
                        .unwrap();
                    assert_eq!(state.code(), step["state"].as_str().unwrap(), "{here}");
                }
                other => panic!("{here}: unknown op {other}"),
            }
            steps_run += 1;
        }
    }
    assert!(steps_run > 10);
}
