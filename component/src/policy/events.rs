//! The core's events (and the records inside them) as WIT values.

use stoic_core::breaker::Transition;
use stoic_core::record::{AttributeValue, LogRecord};
use stoic_core::{Event, Instant};

use crate::bindings::exports::stoic::engine::policy as wit;
use crate::convert::breaker_state;

pub(super) fn event(event: Event) -> wit::Event {
    match event {
        Event::BreakerTransition {
            scope,
            from,
            to,
            at,
            reason,
        } => wit::Event::BreakerTransition(wit::BreakerTransition {
            scope,
            from: breaker_state(from),
            to: breaker_state(to),
            at: at.as_millis(),
            reason: reason.code().to_owned(),
        }),
        Event::BudgetExhausted {
            scope,
            budget,
            at,
            message,
        } => wit::Event::BudgetExhausted(wit::BudgetExhausted {
            scope,
            budget: budget.code().to_owned(),
            at: at.as_millis(),
            message: message.to_owned(),
        }),
        Event::AlertChanged {
            scope,
            rule,
            from,
            to,
            value,
            threshold,
            at,
        } => wit::Event::AlertChanged(wit::AlertChanged {
            scope,
            rule: rule.code().to_owned(),
            from: from.code().to_owned(),
            to: to.code().to_owned(),
            value,
            threshold,
            at: at.as_millis(),
        }),
        Event::Log { scope, record } => wit::Event::Log(wit::LogEvent {
            scope,
            record: log_record(&record),
        }),
        Event::FleetHealth { from, to, at } => wit::Event::FleetHealth(wit::FleetHealthChange {
            from: from.code().to_owned(),
            to: to.code().to_owned(),
            at: at.as_millis(),
        }),
        Event::NestedRetries {
            scope,
            operation,
            retries_above,
            at,
            message,
        } => wit::Event::NestedRetries(wit::NestedRetries {
            scope,
            operation,
            retries_above,
            at: at.as_millis(),
            message: message.to_owned(),
        }),
        Event::Metric(point) => wit::Event::Metric(wit::MetricPoint {
            metric: point.metric.to_owned(),
            value: point.value,
            attributes: attributes(
                point
                    .attributes
                    .entries()
                    .map(|(name, value)| (name, AttributeValue::Text(value))),
            ),
        }),
        Event::Decision(note) => wit::Event::Decision(wit::DecisionNote {
            name: note.name.to_owned(),
            attributes: attributes(note.entries()),
        }),
    }
}

/// OpenTelemetry attributes as WIT key-values.
fn attributes<'a>(
    entries: impl Iterator<Item = (&'static str, AttributeValue<'a>)>,
) -> Vec<(String, wit::AttributeValue)> {
    entries
        .map(|(name, value)| {
            let value = match value {
                AttributeValue::Text(text) => wit::AttributeValue::Text(text.to_owned()),
                AttributeValue::Int(n) => wit::AttributeValue::Int(n),
                AttributeValue::Float(x) => wit::AttributeValue::Float(x),
            };
            (name.to_owned(), value)
        })
        .collect()
}

/// A breaker transition with no scope (a standalone breaker's).
pub(crate) fn transition(t: Transition) -> wit::BreakerTransition {
    wit::BreakerTransition {
        scope: String::new(),
        from: breaker_state(t.from),
        to: breaker_state(t.to),
        at: Instant::as_millis(t.at),
        reason: t.reason.code().to_owned(),
    }
}

/// A log record: its fields, its JSON line and its seed-001 text.
pub(crate) fn log_record(record: &LogRecord) -> wit::LogRecord {
    wit::LogRecord {
        timestamp: record.timestamp.clone(),
        operation: record.operation.clone(),
        attempt: record.attempt.clone(),
        delay_ms: record.delay_ms,
        error: record.error.as_ref().map(|e| wit::LogError {
            code: e.code.clone(),
            message: e.message.clone(),
        }),
        strategy: record.strategy.clone(),
        outcome: record.outcome.code().to_owned(),
        total_duration_ms: record.total_duration_ms,
        line: record.to_json_line(),
        text: record.to_string(),
    }
}
