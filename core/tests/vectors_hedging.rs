//! Runs `tests/vectors/hedging.json` through the public API: hedged calls
//! in virtual time (timings, budget interplay, pushback, cancel sets) and
//! the hedging settings' config errors. The JavaScript and Python suites run
//! the same file; the component, which has no hedged calls yet, skips it
//! (`applies_to`).

#[path = "support/vectors.rs"]
mod vectors;

use std::collections::BTreeMap;

use serde_json::{json, Value};
use stoic_core::hedging::{HedgeStep, HedgedCall, HedgingConfig};
use stoic_core::hints::server_hint;
use stoic_core::{CallSpec, Class, Config, Instant, Method, NetworkErrorKind, Outcome, Policy};

const FILE: &str = "hedging.json";

fn load() -> Value {
    vectors::load(FILE, "hedging")
}

fn hedging_of(value: &Value) -> HedgingConfig {
    let text = if value.is_null() {
        "{}".to_owned()
    } else {
        value.to_string()
    };
    HedgingConfig::from_json(&text).unwrap_or_else(|e| panic!("{value}: {e}"))
}

fn ms(at: Option<Instant>) -> Value {
    at.map_or(Value::Null, |at| json!(at.as_millis()))
}

/// A step as the vectors write it, with the call's state after it.
fn wire(step: &HedgeStep, call: &HedgedCall) -> Value {
    let mut out = match step {
        HedgeStep::Send(plan) => json!({
            "kind": "send",
            "copy": plan.attempt,
            "max_copies": plan.max_attempts,
            "timeout_ms": plan.timeout_ms,
            "connect_timeout_ms": plan.connect_timeout_ms,
            "remaining_ms": plan.remaining_ms,
            "idempotency_key": plan.idempotency_key.as_deref(),
        }),
        HedgeStep::Wait { until } => json!({"kind": "wait", "until_ms": ms(*until)}),
        HedgeStep::Done {
            done,
            winner,
            cancel,
        } => json!({
            "kind": "done",
            "winner": winner,
            "cancel": cancel.iter().collect::<Vec<_>>(),
            "attempts": done.attempts,
            "total_ms": done.total_ms,
        }),
        HedgeStep::GiveUp { give_up, cancel } => json!({
            "kind": "give_up",
            "reason": give_up.reason.code(),
            "cancel": cancel.iter().collect::<Vec<_>>(),
            "attempts": give_up.attempts,
            "total_ms": give_up.total_ms,
            "matched": give_up.matched.map(|m| m.code()),
            "class": give_up.class.map(Class::code),
            "retry_at_ms": ms(give_up.retry_at),
            "was_retryable": give_up.was_retryable,
            "observation": give_up.observation,
        }),
    };
    out["next_timeout_ms"] = ms(call.next_timeout());
    out["in_flight"] = json!(call.in_flight().iter().collect::<Vec<_>>());
    out
}

fn outcome_of(o: &Value) -> Outcome<'static> {
    if let Some(status) = o["status"].as_u64() {
        Outcome::status(u16::try_from(status).unwrap())
    } else if let Some(kind) = o["network"].as_str() {
        Outcome::network(NetworkErrorKind::from_code(kind).unwrap())
    } else if o["success"] == json!(true) {
        Outcome::success()
    } else {
        panic!("unknown outcome {o}")
    }
}

fn check(context: &str, actual: &Value, expect: Option<&Value>) {
    let Some(expect) = expect.and_then(Value::as_object) else {
        return;
    };
    for (key, want) in expect {
        if key == "observation_contains" {
            let text = actual["observation"].as_str().unwrap_or_default();
            assert!(
                text.contains(want.as_str().unwrap()),
                "{context}: {text:?} lacks {want}"
            );
        } else {
            assert_eq!(&actual[key], want, "{context}: field `{key}` of {actual}");
        }
    }
}

struct Runner {
    policy: Policy,
    hedging: HedgingConfig,
    calls: BTreeMap<String, HedgedCall>,
    steps_run: usize,
}

impl Runner {
    /// Runs `steps`; returns the kind of each step's answer, for a repeat
    /// block's tally.
    fn run(&mut self, steps: &[Value], at: &str, round: Option<u64>) -> Vec<String> {
        let mut kinds = Vec::new();
        for (index, step) in steps.iter().enumerate() {
            let here = format!("{at}[{index}]");
            if let Some(times) = step.get("repeat").and_then(Value::as_u64) {
                let inner = step["steps"].as_array().unwrap();
                let mut all = Vec::new();
                for i in 0..times {
                    all.extend(self.run(inner, &format!("{here}#{i}"), Some(i)));
                }
                if let Some(want) = step.get("expect_kinds").and_then(Value::as_object) {
                    let mut got = serde_json::Map::new();
                    for kind in &all {
                        let n = got.get(kind).and_then(Value::as_u64).unwrap_or(0);
                        got.insert(kind.clone(), json!(n + 1));
                    }
                    assert_eq!(&got, want, "{here}: kinds of the repeated steps");
                }
                kinds.extend(all);
            } else if let Some(kind) = self.step(step, &here, round) {
                kinds.push(kind);
            }
        }
        kinds
    }

    fn step(&mut self, step: &Value, here: &str, round: Option<u64>) -> Option<String> {
        self.steps_run += 1;
        let now = Instant::from_millis(step["t_ms"].as_u64().unwrap_or(0));
        let name = step["call"]
            .as_str()
            .unwrap_or_default()
            .replace("{i}", &round.map(|i| i.to_string()).unwrap_or_default());
        let policy = &mut self.policy;
        let answer = match step["op"].as_str().unwrap() {
            "start" => {
                let spec = &step["spec"];
                let operation = spec["operation"].as_str().unwrap_or("op");
                let mut call = match spec["method"].as_str() {
                    Some(method) => CallSpec::http(operation, Method::parse(method)),
                    None => CallSpec::new(operation),
                };
                call = call.in_scope(spec["scope"].as_str().unwrap_or_default());
                if let Some(flag) = spec["idempotent"].as_bool() {
                    call = call.idempotent(flag);
                }
                if let Some(key) = spec["idempotency_key"].as_str() {
                    call = call.with_key(key);
                }
                let hedging = step.get("hedging").map_or(self.hedging, hedging_of);
                match policy.start_hedged(now, call, &hedging) {
                    Ok(hedged) => {
                        assert!(step.get("expect_error").is_none(), "{here}: started");
                        self.calls.insert(name, hedged);
                    }
                    Err(error) => {
                        let got = json!({"code": error.code().as_str(), "field": error.field()});
                        assert_eq!(Some(&got), step.get("expect_error"), "{here}: {error}");
                    }
                }
                None
            }
            "poll" | "outcome" | "cancel" => {
                let call = self
                    .calls
                    .get_mut(&name)
                    .unwrap_or_else(|| panic!("{here}: no call {name}"));
                let answer = match step["op"].as_str() {
                    Some("poll") => policy.hedge_poll(now, call),
                    Some("cancel") => policy.hedge_cancel(now, call),
                    _ => {
                        let o = &step["outcome"];
                        let headers: Vec<(String, String)> = o["headers"]
                            .as_object()
                            .map(|hs| {
                                hs.iter()
                                    .map(|(n, v)| (n.clone(), v.as_str().unwrap().to_owned()))
                                    .collect()
                            })
                            .unwrap_or_default();
                        let hint = server_hint(
                            headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
                            None,
                        );
                        let copy = u32::try_from(step["copy"].as_u64().unwrap()).unwrap();
                        policy.hedge_outcome(now, call, copy, outcome_of(o).with_hint(hint))
                    }
                };
                let actual = wire(&answer, call);
                check(here, &actual, step.get("expect"));
                Some(answer.kind().to_owned())
            }
            "drain" => {
                policy.drain();
                None
            }
            "scope" => {
                let scope = step["scope"].as_str().unwrap_or_default();
                let ratio = policy
                    .budget_status(now, scope)
                    .and_then(|status| status.ratio)
                    .map_or(
                        Value::Null,
                        |r| json!({"requests": r.requests, "retries": r.retries}),
                    );
                let actual = json!({
                    "latency_samples": policy.latency_samples(scope),
                    "hedge_delay_ms": policy.hedge_delay_ms(scope, &self.hedging),
                    "ratio": ratio,
                    "breaker": policy.breaker_state(scope).map(|s| s.code()),
                });
                check(here, &actual, step.get("expect"));
                None
            }
            other => panic!("{here}: unknown op {other}"),
        };
        // Every step drains the events; a step that lists the breaker's and
        // the budget's checks them.
        let events: Vec<&'static str> = std::iter::from_fn(|| policy.poll_event())
            .map(|event| event.code())
            .filter(|code| ["breaker_transition", "budget_exhausted"].contains(code))
            .collect();
        if let Some(want) = step.get("events") {
            assert_eq!(&json!(events), want, "{here}: events");
        }
        answer
    }
}

#[test]
fn hedging_scenarios() {
    let doc = load();
    let mut total = 0;
    for scenario in doc["scenarios"].as_array().unwrap() {
        let id = scenario["id"].as_str().unwrap();
        let config = Config::from_json(&scenario["config"].to_string())
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut runner = Runner {
            policy: Policy::new(config).unwrap(),
            hedging: hedging_of(&scenario["hedging"]),
            calls: BTreeMap::new(),
            steps_run: 0,
        };
        runner.run(scenario["steps"].as_array().unwrap(), id, None);
        total += runner.steps_run;
    }
    assert!(total >= 100, "only {total} steps ran");
}

#[test]
fn hedging_config_errors() {
    let doc = load();
    let cases = vectors::run_section_cases::<HedgingConfig>(&doc, "hedging");
    assert!(cases >= 8, "only {cases} config errors");
}
