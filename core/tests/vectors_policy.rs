//! Runs every `kind: "policy"` file in `tests/vectors/` through the public
//! API. The JavaScript and Python suites run the same files through their
//! bindings, so a decision that differs between languages fails somewhere.

#[path = "support/vectors.rs"]
mod vectors;

use std::collections::BTreeMap;

use serde_json::{json, Value};
use stoic_core::hints::server_hint;
use stoic_core::{
    Admission, Call, CallSpec, CallStep, Class, Config, Decision, Instant, Method,
    NetworkErrorKind, Outcome, Policy, PolicyState, WallClock,
};

fn policy_files() -> Vec<(String, Value)> {
    vectors::all_of_kind("policy")
}

fn spec_of(v: &Value) -> (String, String, Option<Method>, Option<bool>, Option<String>) {
    (
        v["scope"].as_str().unwrap_or_default().to_owned(),
        v["operation"].as_str().unwrap_or_default().to_owned(),
        v["method"].as_str().map(Method::parse),
        v["idempotent"].as_bool(),
        v["idempotency_key"].as_str().map(str::to_owned),
    )
}

fn outcome_kind(v: &Value) -> Outcome<'static> {
    if let Some(status) = v["status"].as_u64() {
        Outcome::status(u16::try_from(status).unwrap())
    } else if let Some(kind) = v["network"].as_str() {
        Outcome::network(NetworkErrorKind::from_code(kind).unwrap())
    } else if let Some(class) = v["rejected"].as_str() {
        Outcome::rejected(Class::from_code(class).unwrap())
    } else if let Some(class) = v["raised"].as_str() {
        Outcome::raised(Class::from_code(class).unwrap())
    } else if v["success"] == json!(true) {
        Outcome::success()
    } else {
        panic!("unknown outcome {v}")
    }
}

fn check(context: &str, actual: &Value, step: &Value) {
    if let Some(expect) = step["expect"].as_object() {
        for (key, want) in expect {
            assert_eq!(&actual[key], want, "{context}: field `{key}` of {actual}");
        }
    }
    if let Some(parts) = step["observation_contains"].as_array() {
        let text = actual["observation"].as_str().unwrap_or_default();
        for part in parts {
            assert!(
                text.contains(part.as_str().unwrap()),
                "{context}: observation {text:?} lacks {part}"
            );
        }
    }
}

fn run_scenario(file: &str, scenario: &Value) {
    let id = scenario["id"].as_str().unwrap();
    let config: Config = Config::from_json(&scenario["config"].to_string()).unwrap();
    let mut policy = Policy::new(config).unwrap();
    let mut calls: BTreeMap<String, Call> = BTreeMap::new();
    for (i, step) in scenario["steps"].as_array().unwrap().iter().enumerate() {
        let context = format!("{file} {id} step {i}");
        let now = Instant::from_millis(step["t_ms"].as_u64().unwrap_or(0));
        let name = step["call"].as_str().unwrap_or_default().to_owned();
        match step["op"].as_str().unwrap() {
            "start" => {
                let (scope, operation, method, idempotent, key) = spec_of(&step["spec"]);
                let mut spec = match method {
                    Some(m) => CallSpec::http(&operation, m),
                    None => CallSpec::new(&operation),
                };
                spec = spec.in_scope(&scope);
                if let Some(flag) = idempotent {
                    spec = spec.idempotent(flag);
                }
                if let Some(key) = key.as_deref() {
                    spec = spec.with_key(key);
                }
                let per_call = &step["spec"];
                let overrides = (per_call.get("max_attempts").is_some()
                    || per_call.get("backoff").is_some())
                .then(|| {
                    let attempts = per_call["max_attempts"]
                        .as_u64()
                        .map(|n| u32::try_from(n).unwrap());
                    let backoff = per_call.get("backoff").map(|b| vectors::read(b).unwrap());
                    policy.overrides(attempts, backoff).unwrap()
                });
                if let Some(overrides) = overrides.as_ref() {
                    spec = spec.with_overrides(overrides);
                }
                let call = policy.start(now, spec);
                calls.insert(name, call);
            }
            "before_attempt" => {
                let call = calls.get_mut(&name).unwrap();
                let admission: Admission = policy.before_attempt(now, call);
                check(&context, &vectors::wire(&admission), step);
            }
            "outcome" => {
                let call = calls.get_mut(&name).unwrap();
                let o = &step["outcome"];
                let headers: Vec<(String, String)> = o["headers"]
                    .as_array()
                    .map(|hs| {
                        hs.iter()
                            .map(|h| {
                                (
                                    h[0].as_str().unwrap().to_owned(),
                                    h[1].as_str().unwrap().to_owned(),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                let wall = o["wall_now_unix_ms"]
                    .as_u64()
                    .map(WallClock::from_unix_millis);
                let hint = server_hint(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())), wall);
                let detail = o["detail"].as_str().map(str::to_owned);
                let mut outcome = outcome_kind(o).with_hint(hint);
                if let Some(d) = detail.as_deref() {
                    outcome = outcome.with_detail(d);
                }
                // A host checks the step and the outcome first (the bindings
                // do): either refused, the policy never sees the outcome.
                let checked = call
                    .check_step(CallStep::Outcome)
                    .and_then(|()| outcome.check());
                if let Some(code) = step["expect_error"].as_str() {
                    let error = checked.expect_err(&context);
                    assert_eq!(error.code().as_str(), code, "{context}");
                    continue;
                }
                checked.unwrap_or_else(|e| panic!("{context}: {e}"));
                let decision: Decision = policy.on_outcome(now, call, outcome);
                check(&context, &vectors::wire(&decision), step);
            }
            "cancel" => {
                let call = calls.get_mut(&name).unwrap();
                let give_up = policy.cancel(now, call);
                let mut value = vectors::wire(&give_up);
                value["kind"] = json!("give_up");
                check(&context, &value, step);
            }
            "drain" => policy.drain(),
            #[cfg(feature = "measure")]
            "set_measuring" => policy.set_measuring(step["on"].as_bool().unwrap()),
            "set_wall_clock" => {
                let wall = WallClock::from_unix_millis(step["wall_unix_ms"].as_u64().unwrap());
                policy.set_wall_clock(now, wall);
            }
            "events" => {
                let filter: Vec<&str> = step["filter"]
                    .as_array()
                    .map(|f| f.iter().map(|k| k.as_str().unwrap()).collect())
                    .unwrap_or_default();
                let mut events = Vec::new();
                while let Some(event) = policy.poll_event() {
                    if filter.is_empty() || filter.contains(&event.code()) {
                        events.push(vectors::wire(&event));
                    }
                }
                let expect = step["expect"].as_array().unwrap();
                assert_eq!(events.len(), expect.len(), "{context}: events {events:?}");
                for (event, want) in events.iter().zip(expect) {
                    check(&context, event, &json!({ "expect": want }));
                }
            }
            "breaker_state" => {
                let state = policy.breaker_state(step["scope"].as_str().unwrap_or_default());
                let state = state.map(|s| s.code());
                check(&context, &json!({ "state": state }), step);
            }
            "metrics" => {
                let scope = step["scope"].as_str().unwrap_or("default");
                let metrics = policy.metrics();
                check(&context, &vectors::wire(metrics.get(scope).unwrap()), step);
            }
            "budget_status" => {
                let status = policy.budget_status(now, step["scope"].as_str().unwrap_or_default());
                let status = status.as_ref().map_or(Value::Null, |s| vectors::wire(s));
                check(&context, &status, step);
            }
            "next_timeout" => {
                let at = policy.next_timeout().map(Instant::as_millis);
                check(&context, &json!({ "at": at }), step);
            }
            "snapshot_restore" => {
                // A new process: same config, state restored from JSON text.
                assert!(
                    calls.values().all(Call::is_finished),
                    "{context}: calls still open"
                );
                let text = policy.snapshot_state().to_json();
                let config: Config = Config::from_json(&scenario["config"].to_string()).unwrap();
                policy = Policy::new(config).unwrap();
                let report = policy
                    .restore_state(PolicyState::from_json(&text).unwrap())
                    .unwrap();
                assert!(report.reset.is_empty(), "{context}: {report:?}");
                calls.clear();
            }
            other => panic!("{context}: unknown op {other}"),
        }
    }
}

#[test]
fn policy_vectors() {
    let files = policy_files();
    assert!(
        !files.is_empty(),
        "no policy vectors found in {}",
        vectors::VECTORS
    );
    let mut scenarios = 0;
    for (file, doc) in &files {
        for scenario in doc["scenarios"].as_array().unwrap() {
            run_scenario(file, scenario);
            scenarios += 1;
        }
    }
    assert!(scenarios >= 10, "only {scenarios} scenarios ran");
}
