//! A scope: the shared state of one service (host name, API) inside a policy.
//!
//! Every call belongs to a scope; its breaker, retry budget and metrics are
//! the ones all calls to that service share. The number of scopes is bounded
//! by `max_scopes`: past it, new names share one overflow scope, so a caller
//! that puts request ids in scope names cannot grow memory without limit.
//!
//! **Which scope a call gets** ([`scope_of`]). Sharing a breaker is a claim
//! that the calls hit one service: one failing dependency must not make an
//! unrelated call fail fast with `circuit_open` without being sent. So a
//! default never couples calls the caller did not group:
//!
//! - a call that names a scope gets it (HTTP wrappers name the URL's host);
//! - a call that names only its operation gets a scope of that name (each
//!   decorated Python function, each named `retry()`);
//! - an anonymous call (no scope, no operation) goes to the [`DEFAULT_SCOPE`],
//!   which keeps a retry budget and metrics but **no breaker**: the engine
//!   cannot know which anonymous calls share a service, so it does not trip
//!   one on their behalf.
//!
//! The [`OVERFLOW_SCOPE`] has no breaker either: the names that overflow
//! into it are unrelated services, and one of them failing must not fail
//! the others fast. Its budget still bounds their retries together.

use crate::breaker::{Breaker, BreakerStateCode};
use crate::budget::{BudgetEvent, RetryBudget};
use crate::event::{Event, EventQueue};
use crate::record::{BreakerGauge, Metrics, RecordEvent};
use crate::time::Instant;
use crate::Config;

/// The scope calls use when they name none.
pub const DEFAULT_SCOPE: &str = "default";

/// The scope that takes every new name once `max_scopes` is reached.
pub const OVERFLOW_SCOPE: &str = "_overflow";

/// The operation name of a call that names none (records and logs).
pub const DEFAULT_OPERATION: &str = "call";

/// The scope name a call with `scope` and `operation` belongs to (empty
/// strings are "not given"): the scope, else the operation, else the
/// breaker-less [`DEFAULT_SCOPE`].
#[must_use]
pub fn scope_of<'a>(scope: &'a str, operation: &'a str) -> &'a str {
    match (scope.is_empty(), operation.is_empty()) {
        (false, _) => scope,
        (true, false) => operation,
        (true, true) => DEFAULT_SCOPE,
    }
}

/// Whether calls in scope `name` may share a circuit breaker: every scope
/// but the anonymous default and the overflow scope (see the module docs).
#[must_use]
pub fn has_breaker(name: &str) -> bool {
    name != DEFAULT_SCOPE && name != OVERFLOW_SCOPE
}

/// One service's shared state.
#[derive(Clone, Debug, PartialEq)]
pub struct ScopeState {
    /// The circuit breaker, if the config enables one.
    pub breaker: Option<Breaker>,
    /// The retry budgets.
    pub budget: RetryBudget,
    /// Counters, histogram, gauge and alert windows.
    pub metrics: Metrics,
}

impl ScopeState {
    /// A new scope's state under `config`, which the policy validated when
    /// it was built; `breaker` is whether the scope may have one
    /// ([`has_breaker`]).
    pub(crate) fn fresh(config: &Config, breaker: bool) -> ScopeState {
        ScopeState {
            breaker: config.breaker.clone().filter(|_| breaker).map(Breaker::new),
            budget: RetryBudget::new_unchecked(config.budget),
            metrics: Metrics::new(config.alerts),
        }
    }

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
                    message: crate::event::BUDGET_EXHAUSTED_MESSAGE,
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
