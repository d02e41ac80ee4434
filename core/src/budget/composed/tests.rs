//! Unit tests of `composed`.

use super::*;

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

fn parse(json: &str) -> RetryBudgetConfig {
    crate::schema::json::shape(json)
}

#[test]
fn config_defaults_absent_null_and_empty() {
    assert_eq!(parse("{}"), RetryBudgetConfig::default());
    assert_eq!(parse(r#"{"ratio":{}}"#), RetryBudgetConfig::default());
    let off = parse(r#"{"ratio":null}"#);
    assert_eq!(off.ratio, None);
    let all = parse(
        r#"{"run_cap":{"max_retries":100},"token_bucket":{"profile":"aws_standard"},"grpc":{}}"#,
    );
    assert!(all.ratio.is_some() && all.run_cap.is_some());
    assert!(all.token_bucket.is_some() && all.grpc.is_some());
    assert!(crate::schema::json::read::<RetryBudgetConfig>(r#"{"ratios":{}}"#).is_err());
    // Round trip keeps "off" distinct from "absent".
    for config in [off, all, RetryBudgetConfig::default()] {
        let json = crate::schema::json::text(&config);
        assert_eq!(parse(&json), config);
    }
}

#[test]
fn validation_prefixes_fields() {
    let error = RetryBudget::new(parse(r#"{"ratio":{"ratio":-1}}"#)).unwrap_err();
    assert_eq!(error.field(), "ratio.ratio");
    let error = parse(r#"{"grpc":{"max_tokens":0}}"#)
        .validate()
        .unwrap_err();
    assert_eq!(error.field(), "grpc.max_tokens");
    let error = RetryBudget::new(parse(r#"{"token_bucket":{"retry_cost":0}}"#)).unwrap_err();
    assert_eq!(error.field(), "token_bucket.retry_cost");
}

#[test]
fn all_budgets_must_agree_and_refusal_consumes_nothing() {
    let config = parse(
        r#"{"ratio":{"ratio":0,"min_retries_per_sec":0.1},"run_cap":{"max_retries":10},
            "token_bucket":{"capacity":5}}"#,
    );
    let mut budget = RetryBudget::new(config).unwrap();
    let ticket = budget.try_retry(at(0), RetryCost::Normal).unwrap();
    assert_eq!(ticket.token_cost, Some(5));
    let before = budget.clone();
    let refusal = budget.try_retry(at(10), RetryCost::Normal).unwrap_err();
    assert_eq!(refusal.code(), "token_bucket");
    assert_eq!(budget.ratio, before.ratio);
    assert_eq!(budget.run_cap, before.run_cap);
    assert_eq!(budget.clamp, before.clamp);
    assert_eq!(budget.status(at(10)).ratio.unwrap().retries, 1);
    assert_eq!(budget.status(at(10)).run_cap.unwrap().used, 1);
}

#[test]
fn first_refusing_budget_is_named_and_each_reports_once() {
    let config = parse(
        r#"{"ratio":{"ratio":0,"min_retries_per_sec":0,"min_concurrent_retries":0},"run_cap":{"max_retries":0}}"#,
    );
    let mut budget = RetryBudget::new(config).unwrap();
    for t in [5, 6, 7] {
        assert_eq!(
            budget
                .try_retry(at(t), RetryCost::Normal)
                .unwrap_err()
                .code(),
            "ratio"
        );
    }
    let events: Vec<_> = std::iter::from_fn(|| budget.poll_event()).collect();
    assert_eq!(
        events,
        vec![
            BudgetEvent::Exhausted {
                budget: BudgetKind::Ratio,
                at: at(5)
            },
            BudgetEvent::Exhausted {
                budget: BudgetKind::RunCap,
                at: at(5)
            },
        ]
    );
    assert_eq!(events[0].message(), "Retry budget exceeded");
    let json = crate::schema::json::text(&events[0]);
    assert_eq!(
        json,
        r#"{"kind":"budget_exhausted","budget":"ratio","at":5}"#
    );
}

#[test]
fn event_rearms_after_an_allowed_retry() {
    let mut budget = RetryBudget::new(parse(r#"{"token_bucket":{"capacity":5}}"#)).unwrap();
    let ticket = budget.try_retry(at(0), RetryCost::Normal).unwrap();
    assert!(budget.try_retry(at(1), RetryCost::Normal).is_err());
    assert!(budget.try_retry(at(2), RetryCost::Normal).is_err());
    budget.on_attempt_success(at(3), Some(ticket));
    assert!(budget.try_retry(at(4), RetryCost::Normal).is_ok());
    assert!(budget.try_retry(at(5), RetryCost::Normal).is_err());
    let times: Vec<u64> = std::iter::from_fn(|| budget.poll_event())
        .map(|BudgetEvent::Exhausted { at, .. }| at.as_millis())
        .collect();
    assert_eq!(times, vec![1, 5]);
}

#[test]
fn event_queue_is_bounded_and_drops_oldest() {
    let config = parse(r#"{"ratio":null,"token_bucket":{"capacity":5}}"#);
    let mut budget = RetryBudget::new(config).unwrap();
    let mut held = budget.try_retry(at(0), RetryCost::Normal).unwrap();
    for t in 1..=40 {
        assert!(budget.try_retry(at(t), RetryCost::Normal).is_err());
        budget.on_attempt_success(at(t), Some(held));
        held = budget.try_retry(at(t), RetryCost::Normal).unwrap();
    }
    let times: Vec<u64> = std::iter::from_fn(|| budget.poll_event())
        .map(|BudgetEvent::Exhausted { at, .. }| at.as_millis())
        .collect();
    assert_eq!(times, (25..=40).collect::<Vec<u64>>());
    assert_eq!(times.len(), EVENT_QUEUE_CAPACITY);
    assert_eq!(budget.dropped_events(), 24);
}

#[test]
fn grpc_counts_failures_not_retries() {
    let mut budget = RetryBudget::new(parse(
        r#"{"ratio":null,"grpc":{"max_tokens":4,"token_ratio":1.6}}"#,
    ))
    .unwrap();
    budget.on_attempt_failure(at(0));
    let ticket = budget.try_retry(at(0), RetryCost::Normal).unwrap();
    assert_eq!(ticket.token_cost, None);
    assert_eq!(budget.grpc().unwrap().milli_tokens(), 3000);
    budget.on_attempt_failure(at(0));
    assert_eq!(
        budget
            .try_retry(at(0), RetryCost::Normal)
            .unwrap_err()
            .code(),
        "grpc"
    );
}

#[test]
fn no_budgets_always_allow() {
    let mut budget = RetryBudget::new(parse(r#"{"ratio":null}"#)).unwrap();
    assert!(budget.enabled().is_empty());
    for _ in 0..1000 {
        assert!(budget.try_retry(at(0), RetryCost::Timeout).is_ok());
    }
}

#[test]
fn reconfigure_carries_state_and_rejects_bad_config() {
    let mut budget = RetryBudget::new(parse(
        r#"{"ratio":null,"grpc":{"max_tokens":4,"token_ratio":1}}"#,
    ))
    .unwrap();
    budget.on_attempt_failure(at(0));
    let before = budget.clone();
    assert!(budget
        .reconfigure(parse(r#"{"grpc":{"max_tokens":0}}"#))
        .is_err());
    assert_eq!(budget, before);
    budget
        .reconfigure(parse(
            r#"{"ratio":null,"run_cap":{"max_retries":1},"grpc":{"max_tokens":10,"token_ratio":3}}"#,
        ))
        .unwrap();
    assert_eq!(budget.grpc().unwrap().milli_tokens(), 7500);
    assert_eq!(budget.enabled(), vec![BudgetKind::RunCap, BudgetKind::Grpc]);
}

#[test]
fn snapshot_round_trips_exactly() {
    let config = parse(
        r#"{"run_cap":{"max_retries":3},"token_bucket":{"profile":"aws_2026"},
            "grpc":{"max_tokens":7,"token_ratio":0.333}}"#,
    );
    let mut budget = RetryBudget::new(config).unwrap();
    budget.on_first_attempt(at(100));
    budget.on_attempt_failure(at(120));
    let ticket = budget.try_retry(at(130), RetryCost::Throttling).unwrap();
    budget.on_attempt_success(at(150), Some(ticket));
    for t in 0..5 {
        let _ = budget.try_retry(at(200 + t), RetryCost::Normal);
    }
    let json = crate::state::write_snapshot(&budget);
    let back: RetryBudget = crate::state::read_snapshot(&json).unwrap();
    assert_eq!(back, budget);
    assert_eq!(crate::state::write_snapshot(&back), json);
}

#[test]
fn a_ticket_ends_once() {
    let config = parse(r#"{"ratio":null,"token_bucket":{"capacity":20}}"#);
    let mut budget = RetryBudget::new(config).unwrap();
    let tickets: Vec<RetryTicket> = (0..4)
        .map(|_| budget.try_retry(at(0), RetryCost::Normal).unwrap())
        .collect();
    let tokens = |b: &RetryBudget| b.status(at(1)).token_bucket.unwrap().tokens;
    assert_eq!(tokens(&budget), 0);
    budget.on_attempt_success(at(1), tickets.first().copied());
    assert_eq!(tokens(&budget), 5);
    // The same ticket again, and one never issued: no refund.
    budget.on_attempt_success(at(1), tickets.first().copied());
    let forged = RetryTicket {
        id: 99,
        token_cost: Some(5),
        floor_slot: None,
    };
    budget.on_attempt_success(at(1), Some(forged));
    assert_eq!(tokens(&budget), 5);
    assert!(budget.release(tickets[1]));
    assert!(!budget.release(tickets[1]));
}
