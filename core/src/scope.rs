//! A scope: the shared state of one service (host name, API) inside a policy.
//!
//! Every call names a scope; its breaker, retry budget and metrics are the
//! ones all calls to that service share. The number of scopes is bounded by
//! `max_scopes`: past it, new names share one overflow scope, so a caller
//! that puts request ids in scope names cannot grow memory without limit.

use serde::{Deserialize, Serialize};

use crate::breaker::{Breaker, BreakerStateCode};
use crate::budget::{BudgetEvent, RetryBudget};
use crate::event::{Event, EventQueue};
use crate::record::{BreakerGauge, Metrics, RecordEvent};
use crate::time::Instant;

/// The scope calls use when they name none.
pub const DEFAULT_SCOPE: &str = "default";

/// The scope that takes every new name once `max_scopes` is reached.
pub const OVERFLOW_SCOPE: &str = "_overflow";

/// One service's shared state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScopeState {
    /// The circuit breaker, if the config enables one.
    pub breaker: Option<Breaker>,
    /// The retry budgets.
    pub budget: RetryBudget,
    /// Counters, histogram, gauge and alert windows.
    pub metrics: Metrics,
}

impl ScopeState {
    /// Moves every queued breaker, budget and alert event into `queue`,
    /// updating the breaker gauge and alert levels first.
    pub(crate) fn flush_events(&mut self, name: &str, now: Instant, queue: &mut EventQueue) {
        if let Some(breaker) = self.breaker.as_mut() {
            while let Some(t) = breaker.poll_transition() {
                queue.push(Event::BreakerTransition {
                    scope: name.to_owned(),
                    from: t.from,
                    to: t.to,
                    at: t.at,
                    reason: t.reason,
                });
            }
            self.metrics.set_breaker(match breaker.state().code() {
                BreakerStateCode::Closed => BreakerGauge::Closed,
                BreakerStateCode::HalfOpen => BreakerGauge::HalfOpen,
                BreakerStateCode::Open => BreakerGauge::Open,
            });
        }
        while let Some(event) = self.budget.poll_event() {
            match event {
                BudgetEvent::Exhausted { budget, at } => queue.push(Event::BudgetExhausted {
                    scope: name.to_owned(),
                    budget,
                    at,
                    message: "Retry budget exceeded",
                }),
            }
        }
        self.metrics.evaluate(now);
        while let Some(event) = self.metrics.poll_event() {
            match event {
                RecordEvent::AlertChanged {
                    rule,
                    from,
                    to,
                    value,
                    threshold,
                    at,
                } => {
                    queue.push(Event::AlertChanged {
                        scope: name.to_owned(),
                        rule,
                        from,
                        to,
                        value,
                        threshold,
                        at,
                    });
                }
            }
        }
    }
}
