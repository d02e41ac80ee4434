//! Runs `tests/vectors/breaker_scenarios.json` (the wire shape is described in
//! the file's `description`). Every scenario runs twice: once on one breaker,
//! once restoring the breaker from a JSON snapshot before every step, which
//! must not change a single observable.

#[path = "support/vectors.rs"]
mod vectors;

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};
use stoic_core::breaker::{Breaker, BreakerConfig, BreakerState, Permit};
use stoic_core::Instant;

fn load() -> Value {
    vectors::load("breaker_scenarios.json", "breaker")
}

fn scenarios(doc: &Value) -> &Vec<Value> {
    doc["scenarios"].as_array().expect("scenarios array")
}

/// What one step produced, for the checks in `expect`.
#[derive(Default)]
struct Seen {
    admitted: Option<bool>,
    rejection: Option<Value>,
    counted: Option<bool>,
}

fn instant_json(i: Option<Instant>) -> Value {
    i.map_or(Value::Null, |i| json!(i.as_millis()))
}

fn run(scenario: &Value, restore_every_step: bool) {
    let id = scenario["id"].as_str().expect("id");
    let config: BreakerConfig =
        vectors::read(&scenario["config"]).unwrap_or_else(|e| panic!("{id}: config: {e}"));
    config.validate().unwrap_or_else(|e| panic!("{id}: {e}"));
    let mut breaker = Breaker::new(config);
    let mut permits: BTreeMap<String, Permit> = BTreeMap::new();

    for (n, step) in scenario["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .enumerate()
    {
        let ctx = format!("{id} step {n} {step}");
        if restore_every_step {
            let text = stoic_core::state::write_snapshot(&breaker);
            breaker = stoic_core::state::read_snapshot(&text)
                .unwrap_or_else(|e| panic!("{ctx}: restore: {e}"));
        }
        let now = Instant::from_millis(step["t_ms"].as_u64().expect("t_ms"));
        let op = step["op"].as_str().expect("op");
        let repeat = step
            .get("repeat")
            .map_or(1, |r| r.as_u64().expect("repeat"));
        let duration = step
            .get("duration_ms")
            .map_or(0, |d| d.as_u64().expect("duration_ms"));
        let name = step.get("permit").and_then(Value::as_str);
        let named = |permits: &BTreeMap<String, Permit>| -> Permit {
            *permits
                .get(name.expect("permit name"))
                .unwrap_or_else(|| panic!("{ctx}: no permit"))
        };
        let mut seen = Seen::default();
        for _ in 0..repeat {
            seen = Seen::default();
            match op {
                "acquire" | "call_success" | "call_failure" => match breaker.try_acquire(now) {
                    Ok(permit) => {
                        seen.admitted = Some(true);
                        if let Some(name) = name {
                            permits.insert(name.to_owned(), permit);
                        }
                        if op == "call_success" {
                            seen.counted = Some(breaker.on_success(now, permit, duration));
                        } else if op == "call_failure" {
                            seen.counted = Some(breaker.on_failure(now, permit, duration));
                        }
                    }
                    Err(rejected) => {
                        seen.admitted = Some(false);
                        seen.rejection = Some(json!({
                            "reason": rejected.reason.code(),
                            "retry_at_ms": instant_json(rejected.retry_at),
                        }));
                    }
                },
                "success" => {
                    seen.counted = Some(breaker.on_success(now, named(&permits), duration));
                }
                "failure" => {
                    seen.counted = Some(breaker.on_failure(now, named(&permits), duration));
                }
                "release" => seen.counted = Some(breaker.release(named(&permits))),
                "observe" => {}
                other => panic!("{ctx}: unknown op {other}"),
            }
        }
        let drained: Vec<Value> = std::iter::from_fn(|| breaker.poll_transition())
            .map(|t| {
                json!({"from": t.from.code(), "to": t.to.code(), "at_ms": t.at.as_millis(),
                       "reason": t.reason.code()})
            })
            .collect();
        let Some(expect) = step.get("expect") else {
            continue;
        };
        check(
            &ctx,
            expect.as_object().expect("expect object"),
            &breaker,
            now,
            &seen,
            drained,
        );
    }
}

fn check(
    ctx: &str,
    expect: &Map<String, Value>,
    breaker: &Breaker,
    now: Instant,
    seen: &Seen,
    drained: Vec<Value>,
) {
    for (key, want) in expect {
        let got = match key.as_str() {
            "admitted" => json!(seen.admitted.expect("no acquire in this step")),
            "counted" => json!(seen.counted.expect("no report in this step")),
            "reject_reason" => seen.rejection.as_ref().expect("not rejected")["reason"].clone(),
            "retry_at_ms" => seen.rejection.as_ref().expect("not rejected")["retry_at_ms"].clone(),
            "state" => {
                assert_eq!(breaker.state_at(now), breaker.state().code(), "{ctx}");
                json!(breaker.state_at(now).code())
            }
            "consecutive_failures" => match breaker.state() {
                BreakerState::Closed {
                    consecutive_failures,
                } => json!(consecutive_failures),
                other => panic!("{ctx}: {key} expected, state is {other:?}"),
            },
            "probes_in_flight" | "successes" => match breaker.state() {
                BreakerState::HalfOpen {
                    probes_in_flight,
                    successes,
                } => {
                    json!(if key == "successes" {
                        successes
                    } else {
                        probes_in_flight
                    })
                }
                other => panic!("{ctx}: {key} expected, state is {other:?}"),
            },
            "window" => vectors::wire(&breaker.window_counts(now).expect("no window")),
            "next_timeout_ms" => instant_json(breaker.next_timeout()),
            "transitions" => Value::Array(drained.clone()),
            other => panic!("{ctx}: unknown expect key {other}"),
        };
        assert_eq!(&got, want, "{ctx}: {key}");
    }
}

#[test]
fn every_scenario_passes() {
    let doc = load();
    for s in scenarios(&doc) {
        run(s, false);
    }
}

#[test]
fn every_scenario_passes_with_a_snapshot_restore_before_each_step() {
    let doc = load();
    for s in scenarios(&doc) {
        run(s, true);
    }
}

#[test]
fn file_shape_and_upstream_coverage() {
    let doc = load();
    assert_eq!(doc["kind"], "breaker");
    for key in ["description", "source", "license"] {
        assert!(doc[key].as_str().is_some_and(|s| !s.is_empty()), "{key}");
    }
    let mut ids = Vec::new();
    for s in scenarios(&doc) {
        let id = s["id"].as_str().expect("id").to_owned();
        assert!(
            s["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{id}: source"
        );
        assert!(s["description"].as_str().is_some(), "{id}: description");
        assert!(
            !s["steps"].as_array().expect("steps").is_empty(),
            "{id}: steps"
        );
        for key in s.as_object().unwrap().keys() {
            let known = [
                "id",
                "source",
                "description",
                "deviation",
                "config",
                "steps",
            ];
            assert!(known.contains(&key.as_str()), "{id}: unknown key {key}");
        }
        assert!(!ids.contains(&id), "duplicate id {id}");
        ids.push(id);
    }
    // The ten upstream scenarios of /work/shared/vectors/breaker_scenarios.md
    // and the seed's own must all stay represented.
    for required in [
        "gobreaker_default",
        "gobreaker_custom",
        "pybreaker_trip_and_recover",
        "pybreaker_failed_trial",
        "pybreaker_success_threshold",
        "pybreaker_success_threshold_failure",
        "resilience4j_open_on_rate",
        "resilience4j_open_to_half_open",
        "resilience4j_half_open_permits",
        "resilience4j_half_open_failures",
        "resilience4j_half_open_mostly_successes",
        "resilience4j_half_open_slow",
        "resilience4j_half_open_max_wait",
        "cockatiel_consecutive",
        "cockatiel_backoff",
        "cockatiel_half_open_dedupe",
        "cockatiel_count_at_threshold",
        "cockatiel_count_above_threshold",
        "polly_advanced_rate_equal",
        "polly_rolling_health",
        "polly_controller",
        "seed_defaults",
        "seed_half_open_failure_reopens",
        "compare_ge",
        "compare_gt",
        "count_window_slides",
        "time_window_bucket_expiry",
        "slow_calls",
        "stale_generation_ignored",
    ] {
        assert!(
            ids.iter().any(|id| id == required),
            "missing scenario {required}"
        );
    }
}

#[test]
fn configs_round_trip_through_json() {
    let doc = load();
    for s in scenarios(&doc) {
        let config: BreakerConfig = vectors::read(&s["config"]).unwrap();
        let back: BreakerConfig = vectors::read(&vectors::wire(&config)).unwrap();
        assert_eq!(back, config, "{}", s["id"]);
    }
}
