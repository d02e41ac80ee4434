//! Events: side information the host drains with [`crate::Policy::poll_event`].
//!
//! Decisions are return values; everything else that happened while making
//! them (a breaker changed state, a budget refused, an alert level moved, a
//! log record was written) is queued here, so the core never calls back into
//! the host. The queue is bounded: when it is full the oldest event is
//! dropped and counted, because the newest state is what a host must act on.

use std::collections::VecDeque;

use crate::breaker::{BreakerStateCode, TransitionReason};
use crate::budget::BudgetKind;
use crate::fleet::FleetHealth;
use crate::record::{AlertLevel, AlertRule, LogRecord};
#[cfg(feature = "measure")]
use crate::record::{DecisionNote, MetricPoint};
use crate::time::Instant;

/// The text of every [`Event::BudgetExhausted`] (the log line of "Implementing
/// Smart Retry Logic for Transient Errors").
pub const BUDGET_EXHAUSTED_MESSAGE: &str = "Retry budget exceeded";

/// The text of every [`Event::NestedRetries`].
pub const NESTED_RETRIES_MESSAGE: &str = "a layer above retried this request, so its retries and stoic's multiply: turn that layer's retries off (a model SDK's max_retries=0 / maxRetries: 0)";

/// The most events kept unread.
pub const EVENT_QUEUE_LIMIT: usize = 4096;

/// Something the host may want to log, export or alert on.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Event {
    /// A scope's circuit breaker changed state.
    BreakerTransition {
        /// The scope (service) whose breaker moved.
        scope: String,
        /// The state left.
        from: BreakerStateCode,
        /// The state entered.
        to: BreakerStateCode,
        /// When.
        at: Instant,
        /// Why.
        reason: TransitionReason,
    },
    /// A retry budget refused a retry; hosts log it as "Retry budget exceeded".
    BudgetExhausted {
        /// The scope.
        scope: String,
        /// Which budget said no.
        budget: BudgetKind,
        /// When.
        at: Instant,
        /// Always "Retry budget exceeded" (the log line of "Implementing Smart
        /// Retry Logic for Transient Errors").
        message: &'static str,
    },
    /// An alert rule's level changed ("Implementing Smart Retry Logic for
    /// Transient Errors", section 7).
    AlertChanged {
        /// The scope.
        scope: String,
        /// Which rule.
        rule: AlertRule,
        /// The level before.
        from: AlertLevel,
        /// The level now.
        to: AlertLevel,
        /// The measured value.
        value: f64,
        /// The threshold it crossed.
        threshold: f64,
        /// When.
        at: Instant,
    },
    /// A log record for one decision (only when `log_records` is on).
    Log {
        /// The scope.
        scope: String,
        /// The record, in the format of "Implementing Smart Retry Logic for
        /// Transient Errors".
        record: LogRecord,
    },
    /// Whether decisions see the fleet (`crate::fleet`) changed: `live`
    /// once an exchange succeeded, `stale` once none did for longer than
    /// the bound (decisions fall back to this process's own state), `live`
    /// again when the store answers.
    FleetHealth {
        /// The health before.
        from: FleetHealth,
        /// The health now.
        to: FleetHealth,
        /// When.
        at: Instant,
    },
    /// A request reached stoic already retried by a layer above it (a model
    /// SDK's own retries: `x-stainless-retry-count` above 0): the two
    /// layers' retries multiply. Once per call that arrived so marked.
    NestedRetries {
        /// The scope.
        scope: String,
        /// The call's operation.
        operation: String,
        /// Which retry of the layer above this request was.
        retries_above: u32,
        /// When.
        at: Instant,
        /// What to do about it ([`NESTED_RETRIES_MESSAGE`]).
        message: &'static str,
    },
    /// A point of a catalogue metric, with the call's operation, outcome
    /// and reason as attributes (only while measuring:
    /// [`crate::Policy::set_measuring`]).
    #[cfg(feature = "measure")]
    Metric(MetricPoint),
    /// A retry or a stop, for a span event (only while measuring).
    #[cfg(feature = "measure")]
    Decision(DecisionNote),
}

impl Event {
    /// The event's code: `breaker_transition`, `budget_exhausted`,
    /// `alert_changed`, `log`, `fleet_health`, `nested_retries`, `metric` or
    /// `decision`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Event::BreakerTransition { .. } => "breaker_transition",
            Event::BudgetExhausted { .. } => "budget_exhausted",
            Event::AlertChanged { .. } => "alert_changed",
            Event::Log { .. } => "log",
            Event::FleetHealth { .. } => "fleet_health",
            Event::NestedRetries { .. } => "nested_retries",
            #[cfg(feature = "measure")]
            Event::Metric(_) => "metric",
            #[cfg(feature = "measure")]
            Event::Decision(_) => "decision",
        }
    }
}

/// The bounded queue behind [`crate::Policy::poll_event`].
#[derive(Clone, Debug, Default)]
pub(crate) struct EventQueue {
    events: VecDeque<Event>,
    dropped: u64,
}

impl EventQueue {
    pub(crate) fn push(&mut self, event: Event) {
        if self.events.len() >= EVENT_QUEUE_LIMIT {
            self.events.pop_front();
            self.dropped = self.dropped.saturating_add(1);
        }
        self.events.push_back(event);
    }

    pub(crate) fn pop(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }

    pub(crate) const fn dropped(&self) -> u64 {
        self.dropped
    }
}
