//! Per-scope retry metrics (seed 001 "Retry Metrics to Track").

use serde::{Deserialize, Serialize};

use super::alerts::{Alert, AlertConfig, AlertEvaluator, RecordEvent};
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// Some attempt succeeded.
    Success,
    /// Every allowed attempt was used and the last one failed.
    Exhausted,
    /// The call stopped early: not retryable, deadline, breaker, budget.
    GaveUp,
}

impl CallOutcome {
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
        match code {
            "success" => Some(CallOutcome::Success),
            "exhausted" => Some(CallOutcome::Exhausted),
            "gave_up" => Some(CallOutcome::GaveUp),
            _ => None,
        }
    }
}

/// What the policy knows about a call when it finishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallSummary {
    /// Retries the call made (attempts after the first).
    pub retries: u32,
    /// How it ended.
    pub outcome: CallOutcome,
    /// Monotonic ms from the call's start to its end, delays included.
    pub duration_ms: u64,
}

/// The `circuit_breaker_state` gauge.
///
/// Serialized as its gauge value, the number a metrics backend stores:
/// `0` closed, `1` half_open, `2` open. The order is by badness, so
/// `max_over_time` and "value > 1" mean what they look like.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(try_from = "u8", into = "u8")]
pub enum BreakerGauge {
    /// Calls flow (gauge 0). The state of a scope with no breaker.
    #[default]
    Closed,
    /// Probing after a cool-down (gauge 1).
    HalfOpen,
    /// Calls are rejected (gauge 2).
    Open,
}

impl BreakerGauge {
    /// The gauge value: 0 closed, 1 half_open, 2 open.
    #[must_use]
    pub const fn value(self) -> u8 {
        match self {
            BreakerGauge::Closed => 0,
            BreakerGauge::HalfOpen => 1,
            BreakerGauge::Open => 2,
        }
    }

    /// The state with gauge value `value`, if any.
    #[must_use]
    pub const fn from_value(value: u8) -> Option<Self> {
        match value {
            0 => Some(BreakerGauge::Closed),
            1 => Some(BreakerGauge::HalfOpen),
            2 => Some(BreakerGauge::Open),
            _ => None,
        }
    }

    /// The stable snake_case code (the breaker's state name).
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            BreakerGauge::Closed => "closed",
            BreakerGauge::HalfOpen => "half_open",
            BreakerGauge::Open => "open",
        }
    }

    /// The state named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "closed" => Some(BreakerGauge::Closed),
            "half_open" => Some(BreakerGauge::HalfOpen),
            "open" => Some(BreakerGauge::Open),
            _ => None,
        }
    }
}

impl From<BreakerGauge> for u8 {
    fn from(state: BreakerGauge) -> u8 {
        state.value()
    }
}

impl TryFrom<u8> for BreakerGauge {
    type Error = String;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        BreakerGauge::from_value(value)
            .ok_or_else(|| format!("circuit_breaker_state must be 0, 1 or 2, got {value}"))
    }
}

/// The `retry_duration` histogram: time spent in retry loops, i.e. the
/// duration of each call that retried at least once.
///
/// `counts` are **per bucket**, not cumulative: `counts[i]` counts durations
/// `d` with `RETRY_DURATION_BOUNDS_MS[i-1] < d <= RETRY_DURATION_BOUNDS_MS[i]`
/// (Prometheus' `le` bounds), and the last entry counts `d > 120 000`.
/// Per-bucket counts merge by plain addition and cannot disagree with each
/// other; [`HistogramSnapshot::cumulative`] gives the Prometheus form.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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

/// What a host exports for one scope: plain data, serde-friendly, mergeable.
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
/// The whole state is serde-friendly so a host can save and restore it. All
/// of it is integers except the `f64` values inside pending events: drain
/// [`Metrics::poll_event`] before saving if the JSON reader is not exact
/// for doubles (serde_json is exact only with its `float_roundtrip` feature).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    clamp: MonotonicClamp,
    totals: MetricsSnapshot,
    alerts: AlertEvaluator,
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
mod tests {
    use super::*;

    fn t(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    fn finished(retries: u32, outcome: CallOutcome, duration_ms: u64) -> CallSummary {
        CallSummary {
            retries,
            outcome,
            duration_ms,
        }
    }

    #[test]
    fn bucket_bounds_are_inclusive() {
        assert_eq!(HistogramSnapshot::bucket_index(0), 0);
        assert_eq!(HistogramSnapshot::bucket_index(10), 0);
        assert_eq!(HistogramSnapshot::bucket_index(11), 1);
        assert_eq!(HistogramSnapshot::bucket_index(120_000), 11);
        assert_eq!(HistogramSnapshot::bucket_index(120_001), 12);
        assert_eq!(HistogramSnapshot::bucket_index(u64::MAX), 12);
    }

    #[test]
    fn counters_follow_the_seed_definitions() {
        let mut m = Metrics::default();
        // Call 1: succeeds first time.
        m.on_attempt(t(0), false);
        m.on_call_finished(t(5), finished(0, CallOutcome::Success, 5));
        // Call 2: one retry, then success.
        m.on_attempt(t(10), false);
        m.on_retry_scheduled(t(20));
        m.on_attempt(t(120), true);
        m.on_call_finished(t(130), finished(1, CallOutcome::Success, 120));
        // Call 3: exhausted after two retries.
        m.on_attempt(t(200), false);
        m.on_retry_scheduled(t(210));
        m.on_attempt(t(300), true);
        m.on_retry_scheduled(t(310));
        m.on_attempt(t(500), true);
        m.on_call_finished(t(505), finished(2, CallOutcome::Exhausted, 305));
        // Call 4: gives up at once (not retryable).
        m.on_attempt(t(600), false);
        m.on_call_finished(t(601), finished(0, CallOutcome::GaveUp, 1));

        let s = m.snapshot();
        assert_eq!(s.as_of_ms, 601);
        assert_eq!(s.calls_total, 4);
        assert_eq!(s.attempts_total, 7);
        assert_eq!(s.retry_total, 3);
        assert_eq!(s.retry_attempts_total, 3);
        assert_eq!(s.retry_success, 1);
        assert_eq!(s.retry_exhausted, 1);
        assert_eq!(s.gave_up_total, 1);
        assert_eq!(s.retry_duration.count, 2);
        assert_eq!(s.retry_duration.sum_ms, 425);
        assert_eq!(s.retry_duration.counts[3], 1); // 120 -> le 250
        assert_eq!(s.retry_duration.counts[4], 1); // 305 -> le 500
        assert_eq!(s.retry_duration.cumulative()[12], 2);
        assert_eq!(s.retry_duration.cumulative()[2], 0);
        assert_eq!(s.retry_duration.cumulative()[3], 1);
    }

    #[test]
    fn breaker_state_codes_and_gauge() {
        let mut m = Metrics::default();
        assert_eq!(m.breaker_state(), BreakerGauge::Closed);
        assert!(m.set_breaker_state("open"));
        assert_eq!(m.snapshot().circuit_breaker_state.value(), 2);
        assert!(m.set_breaker_state("half_open"));
        assert_eq!(m.snapshot().circuit_breaker_state.value(), 1);
        assert!(!m.set_breaker_state("OPEN"));
        assert_eq!(m.breaker_state(), BreakerGauge::HalfOpen);
        for state in [
            BreakerGauge::Closed,
            BreakerGauge::HalfOpen,
            BreakerGauge::Open,
        ] {
            assert_eq!(BreakerGauge::from_code(state.code()), Some(state));
            assert_eq!(BreakerGauge::from_value(state.value()), Some(state));
            assert_eq!(
                serde_json::to_string(&state).unwrap(),
                state.value().to_string()
            );
        }
        assert!(serde_json::from_str::<BreakerGauge>("3").is_err());
        assert!(serde_json::from_str::<BreakerGauge>("\"open\"").is_err());
    }

    #[test]
    fn counters_saturate() {
        let mut s = MetricsSnapshot {
            attempts_total: u64::MAX - 1,
            retry_duration: HistogramSnapshot {
                sum_ms: u64::MAX - 1,
                ..HistogramSnapshot::default()
            },
            ..MetricsSnapshot::default()
        };
        let other = s;
        s.merge(&other);
        assert_eq!(s.attempts_total, u64::MAX);
        assert_eq!(s.retry_duration.sum_ms, u64::MAX);
        let mut h = HistogramSnapshot {
            sum_ms: u64::MAX,
            ..HistogramSnapshot::default()
        };
        h.observe(u64::MAX);
        assert_eq!((h.sum_ms, h.count, h.counts[12]), (u64::MAX, 1, 1));
    }

    #[test]
    fn merge_adds_counters_and_takes_newer_gauge() {
        let mut a = Metrics::default();
        a.on_attempt(t(100), false);
        a.on_retry_scheduled(t(110));
        a.on_attempt(t(200), true);
        a.on_call_finished(t(200), finished(1, CallOutcome::Success, 100));
        a.set_breaker(BreakerGauge::Open);
        let mut b = Metrics::default();
        b.on_attempt(t(50), false);
        b.on_call_finished(t(60), finished(1, CallOutcome::Exhausted, 20_000));
        b.set_breaker(BreakerGauge::HalfOpen);

        let mut merged = a.snapshot();
        merged.merge(&b.snapshot());
        assert_eq!(merged.as_of_ms, 200);
        assert_eq!(merged.circuit_breaker_state, BreakerGauge::Open); // a is newer
        assert_eq!(merged.attempts_total, 3);
        assert_eq!(merged.calls_total, 2);
        assert_eq!(merged.retry_duration.count, 2);
        assert_eq!(merged.retry_duration.sum_ms, 20_100);

        let mut other_way = b.snapshot();
        other_way.merge(&a.snapshot());
        assert_eq!(other_way, merged);
    }

    #[test]
    fn snapshot_round_trips_exactly() {
        let mut m = Metrics::default();
        m.on_attempt(t(1), false);
        m.on_retry_scheduled(t(2));
        m.on_attempt(t(3), true);
        m.on_call_finished(t(4), finished(1, CallOutcome::Success, 3));
        m.set_breaker(BreakerGauge::HalfOpen);
        let snapshot = m.snapshot();
        let json = serde_json::to_string(&snapshot).unwrap();
        let back: MetricsSnapshot = serde_json::from_str(&json).unwrap();
        assert_eq!(back, snapshot);
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
    }

    #[test]
    fn whole_metrics_state_round_trips() {
        let mut m = Metrics::default();
        m.on_attempt(t(1), false);
        m.set_breaker(BreakerGauge::Open);
        m.evaluate(t(2));
        let json = serde_json::to_string(&m).unwrap();
        let mut back: Metrics = serde_json::from_str(&json).unwrap();
        assert_eq!(back, m);
        assert!(back.poll_event().is_some());
    }

    #[test]
    fn time_going_backwards_is_clamped() {
        let mut m = Metrics::default();
        m.on_attempt(t(1_000), false);
        m.on_attempt(t(10), false);
        assert_eq!(m.snapshot().as_of_ms, 1_000);
        m.set_breaker(BreakerGauge::Open);
        m.evaluate(t(5));
        match m.poll_event() {
            Some(RecordEvent::AlertChanged { at, .. }) => assert_eq!(at, t(1_000)),
            other => panic!("unexpected {other:?}"),
        }
    }
}
