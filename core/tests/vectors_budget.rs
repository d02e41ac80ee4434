//! Runs `tests/vectors/budget.json` (shared with the JS and Python suites).

#[path = "support/vectors.rs"]
mod vectors;

use std::collections::BTreeMap;

use serde_json::{json, Value};
use stoic_core::budget::{RetryBudget, RetryBudgetConfig, RetryCost, RetryTicket};
use stoic_core::Instant;

fn load() -> Value {
    vectors::load("budget.json", "budget")
}

const EXPECT_KEYS: [&str; 8] = [
    "allowed",
    "refused_by",
    "cost",
    "tokens",
    "grpc_milli_tokens",
    "run_cap_used",
    "ratio",
    "events",
];

struct Runner {
    budget: RetryBudget,
    tickets: BTreeMap<String, RetryTicket>,
    /// The ticket each call's last `success_after_retry` ended.
    ended: BTreeMap<String, RetryTicket>,
    steps_run: usize,
}

impl Runner {
    fn run(&mut self, steps: &[Value], at: &str) {
        for (index, step) in steps.iter().enumerate() {
            let here = format!("{at}[{index}]");
            if let Some(times) = step.get("repeat") {
                let inner = step["steps"].as_array().unwrap();
                for round in 0..times.as_u64().unwrap() {
                    self.run(inner, &format!("{here}#{round}"));
                }
            } else {
                self.step(step, &here);
            }
        }
    }

    fn step(&mut self, step: &Value, here: &str) {
        self.steps_run += 1;
        let now = Instant::from_millis(step["t_ms"].as_u64().unwrap());
        let call = step
            .get("call")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let op = step["op"].as_str().unwrap();
        let retry = |kind| (true, Some(kind));
        let (is_retry, kind) = match op {
            "retry" => retry(RetryCost::Normal),
            "retry_timeout" => retry(RetryCost::Timeout),
            "retry_throttling" => retry(RetryCost::Throttling),
            _ => (false, None),
        };
        let mut outcome = None;
        match (op, kind) {
            (_, Some(kind)) => {
                let result = self.budget.try_retry(now, kind);
                if let Ok(ticket) = result {
                    self.tickets.insert(call, ticket);
                }
                outcome = Some(result);
            }
            ("first_attempt", None) => {
                self.tickets.remove(&call);
                self.budget.on_first_attempt(now);
            }
            ("failure", None) => self.budget.on_attempt_failure(now),
            ("success", None) => self.budget.on_attempt_success(now, None),
            ("success_after_retry", None) => {
                let ticket = self.tickets.remove(&call);
                assert!(
                    ticket.is_some(),
                    "{here}: success_after_retry without a ticket"
                );
                self.budget.on_attempt_success(now, ticket);
                if let Some(ticket) = ticket {
                    self.ended.insert(call, ticket);
                }
            }
            ("success_after_retry_again", None) => {
                let ticket = self.ended.get(&call).copied();
                assert!(ticket.is_some(), "{here}: nothing ended to hand back again");
                self.budget.on_attempt_success(now, ticket);
            }
            ("reconfigure", None) => {
                let config: RetryBudgetConfig = vectors::read(&step["config"]).unwrap();
                self.budget
                    .reconfigure(config)
                    .unwrap_or_else(|e| panic!("{here}: {e}"));
            }
            (other, None) => panic!("{here}: unknown op {other}"),
        }
        let events: Vec<Value> = std::iter::from_fn(|| self.budget.poll_event())
            .map(|event| vectors::wire(&event))
            .collect();

        // Every intermediate state survives a snapshot round trip.
        let snapshot = stoic_core::state::write_snapshot(&self.budget);
        let restored: RetryBudget = stoic_core::state::read_snapshot(&snapshot).unwrap();
        assert_eq!(restored, self.budget, "{here}: snapshot round trip");

        let Some(expect) = step.get("expect").and_then(Value::as_object) else {
            return;
        };
        let status = self.budget.status(now);
        for (key, want) in expect {
            assert!(
                EXPECT_KEYS.contains(&key.as_str()),
                "{here}: unknown expect key {key}"
            );
            let got = match key.as_str() {
                "allowed" => {
                    assert!(is_retry, "{here}: `allowed` on a non-retry op");
                    json!(outcome.unwrap().is_ok())
                }
                "refused_by" => json!(outcome.unwrap().err().map(|refusal| refusal.code())),
                "cost" => json!(outcome.unwrap().ok().and_then(|ticket| ticket.token_cost)),
                "tokens" => json!(status.token_bucket.map(|bucket| bucket.tokens)),
                "grpc_milli_tokens" => json!(status.grpc.map(|grpc| grpc.milli_tokens)),
                "run_cap_used" => json!(status.run_cap.map(|cap| cap.used)),
                "ratio" => status
                    .ratio
                    .as_ref()
                    .map_or(Value::Null, |r| vectors::wire(r)),
                "events" => Value::Array(events.clone()),
                _ => unreachable!(),
            };
            assert_eq!(&got, want, "{here}: {key}");
        }
    }
}

#[test]
fn scenarios() {
    let doc = load();
    assert_eq!(doc["kind"], "budget");
    for key in ["description", "source", "license", "not_covered"] {
        assert!(doc.get(key).is_some(), "missing top-level {key}");
    }
    let scenarios = doc["scenarios"].as_array().unwrap();
    assert!(scenarios.len() >= 40, "only {} scenarios", scenarios.len());
    let mut total_steps = 0;
    for scenario in scenarios {
        let id = scenario["id"].as_str().unwrap();
        assert!(
            scenario["source"].as_str().is_some_and(|s| !s.is_empty()),
            "{id}: source"
        );
        let config: RetryBudgetConfig =
            vectors::read(&scenario["config"]).unwrap_or_else(|e| panic!("{id}: config: {e}"));
        let budget = RetryBudget::new(config).unwrap_or_else(|e| panic!("{id}: {e}"));
        let mut runner = Runner {
            budget,
            tickets: BTreeMap::new(),
            ended: BTreeMap::new(),
            steps_run: 0,
        };
        runner.run(scenario["steps"].as_array().unwrap(), id);
        assert!(runner.steps_run > 0, "{id}: no steps");
        total_steps += runner.steps_run;
    }
    // The functional AWS scenario alone expands to 300+ steps.
    assert!(total_steps > 1000, "only {total_steps} steps ran");
}

#[test]
fn config_errors() {
    let doc = load();
    let cases = doc["config_errors"].as_array().unwrap();
    assert!(!cases.is_empty());
    for case in cases {
        // Read and checked as a policy's config would be (fields start at `budget`).
        let doc = serde_json::json!({"seed": 1, "budget": case["config"]});
        let value = stoic_core::schema::Value::from_json(&doc.to_string()).unwrap();
        let error = stoic_core::Config::from_value(&value, stoic_core::schema::Dialect::RUST)
            .expect_err(&case.to_string());
        assert_eq!(error.code().as_str(), case["code"], "{case}");
        assert_eq!(error.field(), case["field"], "{case}");
    }
}

#[test]
fn every_upstream_sequence_is_present() {
    // The upstream tests named in aws_standard_retry.md that are about budgets.
    let doc = load();
    let sources: Vec<String> = doc["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source"].as_str().unwrap().to_owned())
        .collect();
    for test in [
        "TestRetryQuota",
        "test_cant_exceed_max_capacity",
        "test_noop_if_at_max_capacity",
        "test_cant_go_below_zero",
        "test_can_acquire_quota_non_timeout_error",
        "test_can_acquire_quota_for_timeout_error",
        "test_can_release_quota_based_on_context_value_on_success",
        "test_dont_release_quota_if_all_retries_failed",
        "test_can_release_default_quota_if_not_in_context",
        "test_acquire_quota_fails",
        "test_quota_reached_adds_retry_metadata",
        "test_single_failed_request_does_not_give_back_quota",
        "test_can_exhaust_default_retry_quota",
        "test_dynamodb_base_backoff_and_increased_retries",
        "test_can_acquire_quota_for_throttling_error",
        "test_can_release_quota_when_succeed_after_throttling_error",
        "test_x_amz_retry_after_header_is_honored",
        "test_standard_retry_eventually_succeeds",
        "test_standard_retry_fails_due_to_max_attempts",
        "test_retry_quota_exhausted_after_single_retry",
        "test_retry_quota_prevents_retries_when_quota_zero",
        "test_retry_quota_stops_retries_when_exhausted",
        "test_retry_quota_recovers_after_successful_responses",
        "test_retry_quota_shared_across_concurrent_operations",
        "test_retry_quota_handles_timeout_errors",
        "TEST(ServerRetryThrottleData, Basic)",
        "TEST(ServerRetryThrottleData, Replacement)",
    ] {
        assert!(
            sources.iter().any(|s| s.contains(test)),
            "no scenario for {test}"
        );
    }
}
