//! The alert rules of "Implementing Smart Retry Logic for Transient Errors",
//! section 7, evaluated over a sliding window.
//!
//! ```text
//! IF retry_rate > 20% of requests      -> Warning
//! IF retry_exhausted_rate > 5%         -> Critical
//! IF circuit_breaker_state == OPEN     -> Critical
//! ```
//!
//! The core does not page anyone: it reports a [`RecordEvent::AlertChanged`]
//! when a rule's level changes and the host routes it. Reporting changes
//! rather than levels keeps the event stream quiet while nothing changes,
//! and the queue bounded however often the policy evaluates.

use std::collections::VecDeque;

use super::gauge::BreakerGauge;
use super::window::{Window, WindowCounts};
use crate::error::ConfigError;
use crate::time::Instant;

/// How many unread events the queue keeps. When full, the oldest event is
/// dropped (and counted): the newest level is what the host must act on, and
/// a dropped change is visible because the next event's `from` no longer
/// matches the last `to` the host saw. Three rules change at most three
/// times per evaluation, so a host that drains after each call never loses one.
pub const EVENT_QUEUE_CAPACITY: usize = 32;

/// Whether this build evaluates alerts (the `alerts` feature; the browser's
/// client engine leaves them out: its rules never fire there, and a config
/// that sets `alerts` is refused with `not_in_build`).
const ALERTS: bool = cfg!(feature = "alerts");

/// Thresholds and window for the alert rules.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct AlertConfig {
    /// Length of the sliding window in ms (default 60 000: "per minute").
    /// Counted in [`super::WINDOW_BUCKETS`] buckets, so the window is exact to
    /// within `window_ms / 12`. Allowed: 1 000 ..= 86 400 000.
    pub window_ms: u64,
    /// `retry_rate` (retry attempts / attempts in the window) strictly above
    /// this raises a warning. Default 0.20. Allowed: 0.0 ..= 1.0.
    pub retry_rate_warning: f64,
    /// `exhausted_rate` (exhausted calls / finished calls in the window)
    /// strictly above this raises a critical alert. Default 0.05.
    /// Allowed: 0.0 ..= 1.0.
    pub exhausted_rate_critical: f64,
    /// A rate only alerts when its denominator in the window (attempts for
    /// `retry_rate`, finished calls for `exhausted_rate`) is at least this.
    /// Default 20. Why: on thin traffic a rate is noise; one retry in two
    /// calls is a 50 % retry rate and not an incident. 0 disables the floor.
    pub min_requests: u32,
}

impl Default for AlertConfig {
    fn default() -> Self {
        AlertConfig {
            window_ms: 60_000,
            retry_rate_warning: 0.20,
            exhausted_rate_critical: 0.05,
            min_requests: 20,
        }
    }
}

impl AlertConfig {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }
}

/// How bad a rule currently is. Ordered by severity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum AlertLevel {
    /// The rule does not fire.
    #[default]
    Ok,
    /// Worth a look (retry rate high).
    Warning,
    /// Act now (calls exhausting their attempts, breaker open).
    Critical,
}

impl AlertLevel {
    /// Every level, for reading codes.
    pub const ALL: [AlertLevel; 3] = [AlertLevel::Ok, AlertLevel::Warning, AlertLevel::Critical];

    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            AlertLevel::Ok => "ok",
            AlertLevel::Warning => "warning",
            AlertLevel::Critical => "critical",
        }
    }

    /// The level named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "ok" => Some(AlertLevel::Ok),
            "warning" => Some(AlertLevel::Warning),
            "critical" => Some(AlertLevel::Critical),
            _ => None,
        }
    }
}

/// The three rules of "Implementing Smart Retry Logic for Transient Errors".
/// Every rule fires when `value > threshold` (strict, as the seed writes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum AlertRule {
    /// Retry attempts / attempts in the window; fires `warning`.
    RetryRate,
    /// Exhausted calls / finished calls in the window; fires `critical`.
    ExhaustedRate,
    /// The breaker gauge (0 closed, 1 half_open, 2 open) against a threshold
    /// of 1, i.e. `state == open`; fires `critical`. A half-open breaker is
    /// already recovering, so it does not page.
    CircuitOpen,
}

impl AlertRule {
    /// All rules, in the fixed order used by [`super::Metrics::alerts`].
    pub const ALL: [AlertRule; 3] = [
        AlertRule::RetryRate,
        AlertRule::ExhaustedRate,
        AlertRule::CircuitOpen,
    ];

    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            AlertRule::RetryRate => "retry_rate",
            AlertRule::ExhaustedRate => "exhausted_rate",
            AlertRule::CircuitOpen => "circuit_open",
        }
    }

    /// The rule named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "retry_rate" => Some(AlertRule::RetryRate),
            "exhausted_rate" => Some(AlertRule::ExhaustedRate),
            "circuit_open" => Some(AlertRule::CircuitOpen),
            _ => None,
        }
    }

    /// The level the rule raises when it fires.
    #[must_use]
    pub const fn firing_level(self) -> AlertLevel {
        match self {
            AlertRule::RetryRate => AlertLevel::Warning,
            AlertRule::ExhaustedRate | AlertRule::CircuitOpen => AlertLevel::Critical,
        }
    }
}

/// A rule's state as of its last evaluation.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Alert {
    /// Current level.
    pub level: AlertLevel,
    /// Which rule.
    pub rule: AlertRule,
    /// The measured value (a rate in 0..=1, or the breaker gauge).
    pub value: f64,
    /// The configured threshold; the rule fires when `value > threshold`.
    pub threshold: f64,
    /// When it was evaluated.
    pub at: Instant,
}

/// Side information queued for the host and drained with
/// [`super::Metrics::poll_event`]. Serialized with a `kind` tag
/// (`{"kind":"alert_changed","rule":"retry_rate",...}`) like every value the
/// bindings hand out.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
#[non_exhaustive]
pub enum RecordEvent {
    /// A rule's level changed at `at`.
    AlertChanged {
        /// Which rule.
        rule: AlertRule,
        /// The level before.
        from: AlertLevel,
        /// The level now.
        to: AlertLevel,
        /// The value that caused the change.
        value: f64,
        /// The threshold it was compared with.
        threshold: f64,
        /// When the change was observed.
        at: Instant,
    },
}

/// One rule's last evaluation, kept as integers so that a saved state
/// restores exactly; [`Alert::value`] is derived from it on demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RuleState {
    pub(super) rule: AlertRule,
    pub(super) level: AlertLevel,
    /// Rate numerator, or the breaker gauge for `circuit_open`.
    pub(super) numerator: u64,
    /// Rate denominator, or 1 for `circuit_open`.
    pub(super) denominator: u64,
    pub(super) at: Instant,
}

/// The evaluator: window counts, last levels, pending events.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AlertEvaluator {
    pub(super) config: AlertConfig,
    pub(super) window: Window,
    /// What the last evaluation saw: its window bucket and breaker gauge.
    /// Evaluating is skipped while both are unchanged and no call ended
    /// exhausted since, which keeps it off the per-call hot path: an
    /// exhausted call (the critical rule) is judged at once, the breaker the
    /// moment it moves, and every other change at the next window bucket
    /// (5 s for the default minute).
    pub(super) last_seen: Option<(u64, BreakerGauge)>,
    pub(super) exhausted_since: bool,
    pub(super) rules: [RuleState; 3],
    pub(super) events: VecDeque<RecordEvent>,
    pub(super) dropped_events: u64,
}

/// `numerator / denominator`, 0 for an empty window (no traffic is no
/// alert, and never NaN).
fn ratio(numerator: u64, denominator: u64) -> f64 {
    if denominator == 0 {
        0.0
    } else {
        numerator as f64 / denominator as f64
    }
}

impl AlertEvaluator {
    pub(crate) fn new(config: AlertConfig) -> Self {
        let rules = AlertRule::ALL.map(|rule| RuleState {
            rule,
            level: AlertLevel::Ok,
            numerator: 0,
            denominator: 0,
            at: Instant::ZERO,
        });
        AlertEvaluator {
            config,
            window: Window::new(config.window_ms),
            last_seen: None,
            exhausted_since: false,
            rules,
            events: VecDeque::new(),
            dropped_events: 0,
        }
    }

    pub(crate) fn config(&self) -> &AlertConfig {
        &self.config
    }

    pub(crate) fn record(&mut self, now: Instant, delta: &WindowCounts) {
        if !ALERTS {
            return;
        }
        self.window.add(now, delta);
        self.exhausted_since |= delta.exhausted > 0;
    }

    /// Re-evaluates every rule at `now` and queues a change event for each
    /// rule whose level moved.
    pub(crate) fn evaluate(&mut self, now: Instant, breaker: BreakerGauge) {
        if !ALERTS {
            return;
        }
        let seen = (self.window.bucket(now), breaker);
        if !self.exhausted_since && self.last_seen == Some(seen) {
            return;
        }
        self.last_seen = Some(seen);
        self.exhausted_since = false;
        let counts = self.window.totals(now);
        let floor = u64::from(self.config.min_requests);
        for state in &mut self.rules {
            let (numerator, denominator, enough) = match state.rule {
                AlertRule::RetryRate => (
                    counts.retry_attempts,
                    counts.attempts,
                    counts.attempts >= floor,
                ),
                AlertRule::ExhaustedRate => {
                    (counts.exhausted, counts.finished, counts.finished >= floor)
                }
                // A breaker state is not a rate: no floor applies.
                AlertRule::CircuitOpen => (u64::from(breaker.value()), 1, true),
            };
            let value = ratio(numerator, denominator);
            let threshold = threshold(&self.config, state.rule);
            let level = if enough && value > threshold {
                state.rule.firing_level()
            } else {
                AlertLevel::Ok
            };
            if level != state.level {
                let event = RecordEvent::AlertChanged {
                    rule: state.rule,
                    from: state.level,
                    to: level,
                    value,
                    threshold,
                    at: now,
                };
                push_bounded(&mut self.events, &mut self.dropped_events, event);
            }
            *state = RuleState {
                rule: state.rule,
                level,
                numerator,
                denominator,
                at: now,
            };
        }
    }

    pub(crate) fn poll_event(&mut self) -> Option<RecordEvent> {
        self.events.pop_front()
    }

    pub(crate) fn pending_events(&self) -> usize {
        self.events.len()
    }

    pub(crate) fn dropped_events(&self) -> u64 {
        self.dropped_events
    }

    pub(crate) fn alerts(&self) -> [Alert; 3] {
        self.rules.map(|state| Alert {
            level: state.level,
            rule: state.rule,
            value: ratio(state.numerator, state.denominator),
            threshold: threshold(&self.config, state.rule),
            at: state.at,
        })
    }
}

/// Appends `event`, dropping (and counting) the oldest events first if the
/// queue is full.
fn push_bounded(events: &mut VecDeque<RecordEvent>, dropped: &mut u64, event: RecordEvent) {
    while events.len() >= EVENT_QUEUE_CAPACITY {
        events.pop_front();
        *dropped = dropped.saturating_add(1);
    }
    events.push_back(event);
}

fn threshold(config: &AlertConfig, rule: AlertRule) -> f64 {
    match rule {
        AlertRule::RetryRate => config.retry_rate_warning,
        AlertRule::ExhaustedRate => config.exhausted_rate_critical,
        AlertRule::CircuitOpen => f64::from(BreakerGauge::HalfOpen.value()),
    }
}

#[cfg(test)]
mod tests;
