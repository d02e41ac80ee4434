//! Runs `tests/vectors/agent_runs.json`: the tool reasons of every stop
//! reason, and agent runs driven on the engine directly (a policy, a run's
//! quota that every call joins, the tool reason of each give-up). The
//! JavaScript and Python suites run the same file through their `Run`.

#[path = "support/vectors.rs"]
mod vectors;

use serde_json::Value;
use stoic_core::agent::ToolReason;
use stoic_core::hints::server_hint;
use stoic_core::key::idempotency_key;
use stoic_core::{
    Admission, CallSpec, Config, Decision, Event, Instant, NetworkErrorKind, Outcome, Policy,
    RunQuota,
};

#[test]
fn tool_reasons() {
    let doc = vectors::load("agent_runs.json", "agent_run");
    let applies: Vec<&str> = doc["applies_to"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(applies.contains(&"rust"));
    for case in doc["tool_reasons"].as_array().unwrap() {
        let stop = case["stop_reason"].as_str().unwrap();
        let found = ToolReason::of_code(stop).map(ToolReason::code);
        assert_eq!(found, case["tool_reason"].as_str(), "{stop}");
    }
}

#[test]
fn retries_above() {
    let doc = vectors::load("agent_runs.json", "agent_run");
    let mut policy = Policy::new(Config::with_seed(1)).unwrap();
    let call = policy.start(
        Instant::from_millis(0),
        CallSpec::new("chat").in_scope("api"),
    );
    for case in doc["retries_above"].as_array().unwrap() {
        let value = case["value"].as_str().unwrap();
        let found = stoic_core::host::retries_above(value);
        assert_eq!(found.map(u64::from), case["expected"].as_u64(), "{value:?}");
        if let Some(n) = found {
            policy.note_nested_retries(Instant::from_millis(5), &call, n);
            match policy.poll_event() {
                Some(Event::NestedRetries {
                    scope,
                    operation,
                    retries_above,
                    ..
                }) => assert_eq!(
                    (scope.as_str(), operation.as_str(), retries_above),
                    ("api", "chat", n)
                ),
                other => panic!("{value:?}: {other:?}"),
            }
        }
    }
}

#[test]
fn event_streams() {
    let doc = vectors::load("agent_runs.json", "agent_run");
    for case in doc["event_streams"].as_array().unwrap() {
        let content_type = case["content_type"].as_str().unwrap();
        assert_eq!(
            stoic_core::host::is_event_stream(content_type),
            case["expected"].as_bool().unwrap(),
            "{content_type:?}"
        );
    }
}

/// What one tool call ended with.
struct Ended {
    ok: bool,
    attempts: u32,
    reason: Option<&'static str>,
    observation: String,
}

fn outcome_of(step: &Value) -> Option<Outcome<'static>> {
    if let Some(status) = step["status"].as_u64() {
        let headers: Vec<(String, String)> = step["headers"]
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|pair| {
                        (
                            pair[0].as_str().unwrap().to_owned(),
                            pair[1].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let hint = server_hint(headers.iter().map(|(n, v)| (n.as_str(), v.as_str())), None);
        return Some(Outcome::status(u16::try_from(status).unwrap()).with_hint(hint));
    }
    if let Some(kind) = step["network"].as_str() {
        return Some(Outcome::network(NetworkErrorKind::from_code(kind).unwrap()));
    }
    assert!(step.get("value").is_some(), "unknown attempt {step}");
    None
}

fn run_call(policy: &mut Policy, run: &RunQuota, t: &mut u64, key: &str, call: &Value) -> Ended {
    let dedupe = call["server_deduplicates"].as_bool().unwrap();
    let mut spec = CallSpec::new("tool").idempotent(call["idempotent"].as_bool().unwrap());
    if dedupe {
        spec = spec.with_key(key);
    }
    let mut engine_call = policy.start(Instant::from_millis(*t), spec);
    engine_call.join_run(run);
    let mut attempts = call["attempts"].as_array().unwrap().iter();
    loop {
        match policy.before_attempt(Instant::from_millis(*t), &mut engine_call) {
            Admission::Proceed(_) => {}
            Admission::Reject(give_up) => {
                return Ended {
                    ok: false,
                    attempts: give_up.attempts,
                    reason: Some(ToolReason::of(give_up.reason).code()),
                    observation: give_up.observation,
                }
            }
        }
        let step = attempts.next().expect("the script ran out of attempts");
        *t += 1;
        let outcome = outcome_of(step).unwrap_or_else(Outcome::success);
        match policy.on_outcome(Instant::from_millis(*t), &mut engine_call, outcome) {
            Decision::Done(done) => {
                return Ended {
                    ok: true,
                    attempts: done.attempts,
                    reason: None,
                    observation: String::new(),
                }
            }
            Decision::Retry(retry) => *t += retry.delay_ms,
            Decision::GiveUp(give_up) => {
                return Ended {
                    ok: false,
                    attempts: give_up.attempts,
                    reason: Some(ToolReason::of(give_up.reason).code()),
                    observation: give_up.observation,
                }
            }
        }
    }
}

#[test]
fn agent_run_scenarios() {
    let doc = vectors::load("agent_runs.json", "agent_run");
    let scenarios = doc["scenarios"].as_array().unwrap();
    assert!(!scenarios.is_empty());
    for scenario in scenarios {
        let id = scenario["id"].as_str().unwrap();
        let config = Config::from_json(&scenario["config"].to_string()).unwrap();
        let mut policy = Policy::new(config).unwrap();
        let run_id = scenario["run"]["run_id"].as_str().unwrap();
        let max = u32::try_from(scenario["run"]["max_retries"].as_u64().unwrap()).unwrap();
        let run = RunQuota::new(max);
        let mut t = 0u64;
        for call in scenario["calls"].as_array().unwrap() {
            let step = call["step"].as_str().unwrap();
            let key = idempotency_key(run_id, step, &call["args"].to_string()).unwrap();
            let ended = run_call(&mut policy, &run, &mut t, &key, call);
            let expect = &call["expect"];
            let at = format!("{id} {step}");
            assert_eq!(ended.ok, expect["ok"].as_bool().unwrap(), "{at}: ok");
            assert_eq!(
                u64::from(ended.attempts),
                expect["attempts"].as_u64().unwrap(),
                "{at}: attempts"
            );
            assert_eq!(ended.reason, expect["reason"].as_str(), "{at}: reason");
            assert_eq!(
                u64::from(run.used()),
                expect["run_used"].as_u64().unwrap(),
                "{at}: run_used"
            );
            for text in expect["observation_contains"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let text = text.as_str().unwrap();
                assert!(
                    ended.observation.contains(text),
                    "{at}: {text:?} not in {:?}",
                    ended.observation
                );
            }
        }
    }
}
