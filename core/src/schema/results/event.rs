//! Policy events and log records.

use crate::event::Event;
#[cfg(feature = "measure")]
use crate::record::AttributeValue;
use crate::record::{LogError, LogRecord};
use crate::schema::{Emit, Out};

use super::records::alert_changed;

impl Emit for Event {
    fn emit(&self, o: &mut Out) {
        o.code("kind", self.code());
        match self {
            Event::BreakerTransition {
                scope,
                from,
                to,
                at,
                reason,
            } => {
                o.text("scope", scope);
                o.code("from", from.code());
                o.code("to", to.code());
                o.instant("at", *at);
                o.code("reason", reason.code());
            }
            Event::BudgetExhausted {
                scope,
                budget,
                at,
                message,
            } => {
                o.text("scope", scope);
                o.code("budget", budget.code());
                o.instant("at", *at);
                o.text("message", message);
            }
            Event::AlertChanged {
                scope,
                rule,
                from,
                to,
                value,
                threshold,
                at,
            } => {
                o.text("scope", scope);
                alert_changed(o, *rule, [*from, *to], [*value, *threshold], *at);
            }
            Event::Log { scope, record } => {
                o.text("scope", scope);
                o.section("record", record);
            }
            Event::FleetHealth { from, to, at } => {
                o.code("from", from.code());
                o.code("to", to.code());
                o.instant("at", *at);
            }
            Event::NestedRetries {
                scope,
                operation,
                retries_above,
                at,
                message,
            } => {
                o.text("scope", scope);
                o.text("operation", operation);
                o.uint("retries_above", u64::from(*retries_above));
                o.instant("at", *at);
                o.text("message", message);
            }
            #[cfg(feature = "measure")]
            Event::Metric(point) => {
                o.text("metric", point.metric);
                o.float("value", point.value);
                let entries = point
                    .attributes
                    .entries()
                    .map(|(n, v)| (n, AttributeValue::Text(v)));
                o.attributes("attributes", entries);
            }
            #[cfg(feature = "measure")]
            Event::Decision(note) => {
                o.text("name", note.name);
                o.attributes("attributes", note.entries());
            }
        }
    }
}

impl Emit for LogError {
    fn emit(&self, o: &mut Out) {
        o.text("code", &self.code);
        o.text("message", &self.message);
    }
}

impl Emit for LogRecord {
    fn emit(&self, o: &mut Out) {
        o.text("timestamp", &self.timestamp);
        o.text("operation", &self.operation);
        o.text("attempt", &self.attempt);
        o.duration("delay", self.delay_ms);
        o.opt_section("error", self.error.as_ref());
        o.text("strategy", &self.strategy);
        o.code("outcome", self.outcome.code());
        o.duration("total_duration", self.total_duration_ms);
    }
}
