//! Per-scope retry metrics ("Implementing Smart Retry Logic for Transient
//! Errors", "Retry Metrics to Track").

use super::alerts::{Alert, AlertConfig, AlertEvaluator, RecordEvent};
use super::gauge::BreakerGauge;
use super::window::WindowCounts;
use crate::time::{Instant, MonotonicClamp};

/// Upper bounds (inclusive, in ms) of the `retry_duration` histogram buckets;
/// a last, unbounded `+Inf` bucket follows. Fixed rather than configurable so
/// that snapshots from every host, language and version merge bucket by
/// bucket. They span a quick single retry (10 ms) to a long retry loop
/// (2 min), the range the seed's 1 s base / 30 s cap backoff produces.
pub const RETRY_DURATION_BOUNDS_MS: [u64; 12] = [
    10, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 120_000,
];

/// Number of histogram buckets: one per bound plus `+Inf`.
pub const RETRY_DURATION_BUCKETS: usize = RETRY_DURATION_BOUNDS_MS.len() + 1;

/// How a logical call ended, as the metrics count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum CallOutcome {
    /// Some attempt succeeded.
    Success,
    /// Every allowed attempt was used and the last one failed.
    Exhausted,
    /// The call stopped early: not retryable, deadline, breaker, budget.
    GaveUp,
}

impl CallOutcome {
    /// Every outcome, in code order.
    pub const ALL: [CallOutcome; 3] = [
        CallOutcome::Success,
        CallOutcome::Exhausted,
        CallOutcome::GaveUp,
    ];

    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            CallOutcome::Success => "success",
            CallOutcome::Exhausted => "exhausted",
            CallOutcome::GaveUp => "gave_up",
        }
    }

    /// The outcome named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        CallOutcome::ALL
            .into_iter()
            .find(|outcome| outcome.code() == code)
    }
}

/// What the policy knows about a call when it finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CallSummary {
    /// Retries the call made (attempts after the first).
    pub retries: u32,
    /// How it ended.
    pub outcome: CallOutcome,
    /// Monotonic ms from the call's start to its end, delays included.
    pub duration_ms: u64,
}

/// The `retry_duration` histogram: time spent in retry loops, i.e. the
/// duration of each call that retried at least once.
///
/// `counts` are **per bucket**, not cumulative: `counts[i]` counts durations
/// `d` with `RETRY_DURATION_BOUNDS_MS[i-1] < d <= RETRY_DURATION_BOUNDS_MS[i]`
/// (Prometheus' `le` bounds), and the last entry counts `d > 120 000`.
/// Per-bucket counts merge by plain addition and cannot disagree with each
/// other; [`HistogramSnapshot::cumulative`] gives the Prometheus form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct HistogramSnapshot {
    /// Per-bucket counts, bounds [`RETRY_DURATION_BOUNDS_MS`] then `+Inf`.
    pub counts: [u64; RETRY_DURATION_BUCKETS],
    /// Sum of the observed durations in ms (saturating).
    pub sum_ms: u64,
    /// Number of observations (the sum of `counts`, saturating).
    pub count: u64,
}

impl HistogramSnapshot {
    /// Index of the bucket `duration_ms` falls in.
    #[must_use]
    pub fn bucket_index(duration_ms: u64) -> usize {
        RETRY_DURATION_BOUNDS_MS.partition_point(|&bound| bound < duration_ms)
    }

    /// Records one duration.
    pub fn observe(&mut self, duration_ms: u64) {
        if let Some(count) = self.counts.get_mut(Self::bucket_index(duration_ms)) {
            *count = count.saturating_add(1);
        }
        self.sum_ms = self.sum_ms.saturating_add(duration_ms);
        self.count = self.count.saturating_add(1);
    }

    /// Adds `other` bucket by bucket.
    pub fn merge(&mut self, other: &HistogramSnapshot) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine = mine.saturating_add(*theirs);
        }
        self.sum_ms = self.sum_ms.saturating_add(other.sum_ms);
        self.count = self.count.saturating_add(other.count);
    }

    /// Cumulative counts (`le` buckets as Prometheus exports them); the last
    /// entry is the `+Inf` bucket and equals `count` for a consistent
    /// histogram.
    #[must_use]
    pub fn cumulative(&self) -> [u64; RETRY_DURATION_BUCKETS] {
        let mut running = 0u64;
        self.counts.map(|count| {
            running = running.saturating_add(count);
            running
        })
    }
}

/// What a host exports for one scope: plain data, mergeable.
///
/// Counters never decrease and saturate at `u64::MAX` instead of wrapping.
///
/// Merging ([`MetricsSnapshot::merge`]): counters, histogram buckets, sum and
/// count add (saturating); the gauge `circuit_breaker_state` is not additive,
/// so it takes the value of the newer snapshot by `as_of_ms` (on a tie,
/// `other`, the snapshot being merged in); `as_of_ms` becomes the later of
/// the two. `as_of_ms` is a monotonic reading, so "newer" is only meaningful
/// between snapshots taken on the same host clock; across hosts, export the
/// gauge per scope instead of merging it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct MetricsSnapshot {
    /// The latest monotonic `now` the scope had seen when the snapshot was
    /// taken (ms since the host's origin).
    pub as_of_ms: u64,
    /// Calls finished, whatever the outcome.
    pub calls_total: u64,
    /// Attempts sent (first attempts and retries).
    pub attempts_total: u64,
    /// Retries scheduled (seed: `retry_total`).
    pub retry_total: u64,
    /// Attempts that were retries (attempt 2 and later); with
    /// `attempts_total` it reproduces the `retry_rate` alert's ratio.
    pub retry_attempts_total: u64,
    /// Calls that succeeded after at least one retry (seed: `retry_success`).
    pub retry_success: u64,
    /// Calls that failed after using all their attempts (seed:
    /// `retry_exhausted`).
    pub retry_exhausted: u64,
    /// Calls that stopped before using all their attempts.
    pub gave_up_total: u64,
    /// Duration of calls that retried at least once (seed: `retry_duration`).
    pub retry_duration: HistogramSnapshot,
    /// Current breaker state (seed: `circuit_breaker_state`), 0/1/2.
    pub circuit_breaker_state: BreakerGauge,
}

impl MetricsSnapshot {
    /// Folds `other` into `self` (see the type docs for the rules).
    pub fn merge(&mut self, other: &MetricsSnapshot) {
        if other.as_of_ms >= self.as_of_ms {
            self.circuit_breaker_state = other.circuit_breaker_state;
        }
        self.as_of_ms = self.as_of_ms.max(other.as_of_ms);
        let pairs = [
            (&mut self.calls_total, other.calls_total),
            (&mut self.attempts_total, other.attempts_total),
            (&mut self.retry_total, other.retry_total),
            (&mut self.retry_attempts_total, other.retry_attempts_total),
            (&mut self.retry_success, other.retry_success),
            (&mut self.retry_exhausted, other.retry_exhausted),
            (&mut self.gave_up_total, other.gave_up_total),
        ];
        for (mine, theirs) in pairs {
            *mine = mine.saturating_add(theirs);
        }
        self.retry_duration.merge(&other.retry_duration);
    }
}

/// Metrics and alert evaluation for one scope (a service, an operation
/// class: whatever the policy groups by).
///
/// The policy reports what happened; `Metrics` counts it and feeds the alert
/// window from the same calls, so the counters and the alerts cannot drift
/// apart. Every `now` passes through a monotonic clamp: a reading earlier
/// than one already seen counts as that one. Memory is fixed: counters, a
/// 13-bucket histogram, a 12-bucket window and an event queue of at most
/// [`super::EVENT_QUEUE_CAPACITY`].
///
/// The whole state is a snapshot (`crate::state::write_snapshot`) so a host
/// can save and restore it. All of it is integers except the `f64` values
/// inside pending events: drain [`Metrics::poll_event`] before saving if the
/// JSON reader is not exact for doubles.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    pub(super) clamp: MonotonicClamp,
    pub(super) totals: MetricsSnapshot,
    pub(super) alerts: AlertEvaluator,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new(AlertConfig::default())
    }
}

impl Metrics {
    /// Fresh metrics with alert thresholds `config`. Validate `config` with
    /// [`AlertConfig::validate`] when the policy is built; an unvalidated
    /// config cannot make this type panic, only alert oddly.
    #[must_use]
    pub fn new(config: AlertConfig) -> Self {
        Metrics {
            clamp: MonotonicClamp::new(),
            totals: MetricsSnapshot::default(),
            alerts: AlertEvaluator::new(config),
        }
    }

    /// The alert config in use.
    #[must_use]
    pub fn alert_config(&self) -> &AlertConfig {
        self.alerts.config()
    }

    /// An attempt is being sent. `is_retry` is false for a call's first
    /// attempt and true for every later one.
    pub fn on_attempt(&mut self, now: Instant, is_retry: bool) {
        let now = self.clamp.observe(now);
        let t = &mut self.totals;
        t.attempts_total = t.attempts_total.saturating_add(1);
        if is_retry {
            t.retry_attempts_total = t.retry_attempts_total.saturating_add(1);
        }
        let delta = WindowCounts {
            attempts: 1,
            retry_attempts: u64::from(is_retry),
            ..WindowCounts::default()
        };
        self.alerts.record(now, &delta);
    }

    /// The policy decided to retry (counted in `retry_total`).
    pub fn on_retry_scheduled(&mut self, now: Instant) {
        self.clamp.observe(now);
        self.totals.retry_total = self.totals.retry_total.saturating_add(1);
    }

    /// A logical call finished.
    pub fn on_call_finished(&mut self, now: Instant, summary: CallSummary) {
        let now = self.clamp.observe(now);
        let t = &mut self.totals;
        t.calls_total = t.calls_total.saturating_add(1);
        let retried = summary.retries > 0;
        match summary.outcome {
            CallOutcome::Success => {
                if retried {
                    t.retry_success = t.retry_success.saturating_add(1);
                }
            }
            CallOutcome::Exhausted => t.retry_exhausted = t.retry_exhausted.saturating_add(1),
            CallOutcome::GaveUp => t.gave_up_total = t.gave_up_total.saturating_add(1),
        }
        if retried {
            t.retry_duration.observe(summary.duration_ms);
        }
        let delta = WindowCounts {
            finished: 1,
            exhausted: u64::from(summary.outcome == CallOutcome::Exhausted),
            ..WindowCounts::default()
        };
        self.alerts.record(now, &delta);
    }

    /// Sets the breaker gauge from a state code (`"closed"`, `"half_open"`,
    /// `"open"`). Returns false, and changes nothing, for any other string.
    /// The `circuit_open` alert follows at the next [`Metrics::evaluate`].
    pub fn set_breaker_state(&mut self, state: &str) -> bool {
        match BreakerGauge::from_code(state) {
            Some(gauge) => {
                self.totals.circuit_breaker_state = gauge;
                true
            }
            None => false,
        }
    }

    /// Sets the breaker gauge.
    pub fn set_breaker(&mut self, state: BreakerGauge) {
        self.totals.circuit_breaker_state = state;
    }

    /// The breaker gauge.
    #[must_use]
    pub fn breaker_state(&self) -> BreakerGauge {
        self.totals.circuit_breaker_state
    }

    /// Re-evaluates the alert rules over the window ending at `now`, queuing
    /// a [`RecordEvent::AlertChanged`] for each rule whose level changed.
    /// It only re-reads the window when a call ended exhausted since the last
    /// evaluation, the window moved to a new bucket or the breaker gauge
    /// changed, so the policy calls it after every decision at little cost.
    pub fn evaluate(&mut self, now: Instant) {
        let now = self.clamp.observe(now);
        self.alerts.evaluate(now, self.totals.circuit_breaker_state);
    }

    /// The next queued event, oldest first.
    pub fn poll_event(&mut self) -> Option<RecordEvent> {
        self.alerts.poll_event()
    }

    /// Events waiting in the queue.
    #[must_use]
    pub fn pending_events(&self) -> usize {
        self.alerts.pending_events()
    }

    /// Events dropped because the queue was full (the host did not drain).
    #[must_use]
    pub fn dropped_events(&self) -> u64 {
        self.alerts.dropped_events()
    }

    /// Each rule's state as of the last [`Metrics::evaluate`], in
    /// [`super::AlertRule::ALL`] order.
    #[must_use]
    pub fn alerts(&self) -> [Alert; 3] {
        self.alerts.alerts()
    }

    /// The counters, histogram and gauge, for export.
    #[must_use]
    pub fn snapshot(&self) -> MetricsSnapshot {
        MetricsSnapshot {
            as_of_ms: self.clamp.latest().as_millis(),
            ..self.totals
        }
    }
}

#[cfg(test)]
mod tests;
