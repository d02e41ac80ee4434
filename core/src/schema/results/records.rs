//! Metrics snapshots (handed out and merged back), alerts and their events.

use crate::error::ConfigErrorCode;
use crate::record::{
    Alert, AlertLevel, AlertRule, BreakerGauge, HistogramSnapshot, MetricsSnapshot, RecordEvent,
    RETRY_DURATION_BUCKETS,
};
use crate::schema::{Check, Emit, Fields, Out, Section, Seg};
use crate::time::Instant;

/// Why every field of a snapshot handed back is required: a partial one is
/// not a snapshot the core wrote, and zeros would merge in silently.
const AS_WRITTEN: &str = "(a metrics snapshot as the core wrote it)";

impl Section for HistogramSnapshot {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        for (name, duration) in [("counts", false), ("sum", true), ("count", false)] {
            f.require(name, duration, AS_WRITTEN);
        }
        let got = f.u64s("counts");
        let mut counts = [0; RETRY_DURATION_BUCKETS];
        if got.len() == RETRY_DURATION_BUCKETS {
            counts.copy_from_slice(&got);
        } else if f.has("counts", false) {
            f.check().fail_at(
                Seg::field("counts"),
                ConfigErrorCode::InvalidValue,
                format!(
                    "expected {RETRY_DURATION_BUCKETS} bucket counts, got {}",
                    got.len()
                ),
            );
        }
        HistogramSnapshot {
            counts,
            sum_ms: f.duration("sum", 0),
            count: f.u64("count", 0),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uints("counts", self.counts);
        o.duration("sum", self.sum_ms);
        o.uint("count", self.count);
    }

    fn check(&self, _: &mut Check) {}
}

impl Section for MetricsSnapshot {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let fields = [
            ("as_of", true),
            ("calls_total", false),
            ("attempts_total", false),
            ("retry_total", false),
            ("retry_attempts_total", false),
            ("retry_success", false),
            ("retry_exhausted", false),
            ("gave_up_total", false),
            ("retry_duration", false),
            ("circuit_breaker_state", false),
        ];
        for (name, duration) in fields {
            f.require(name, duration, AS_WRITTEN);
        }
        let gauge = f.u64("circuit_breaker_state", 0);
        let circuit_breaker_state = u8::try_from(gauge)
            .ok()
            .and_then(BreakerGauge::from_value)
            .unwrap_or_else(|| {
                f.check().fail_at(
                    Seg::field("circuit_breaker_state"),
                    ConfigErrorCode::InvalidValue,
                    format!("must be 0 (closed), 1 (half open) or 2 (open), got {gauge}"),
                );
                BreakerGauge::Closed
            });
        MetricsSnapshot {
            as_of_ms: f.duration("as_of", 0),
            calls_total: f.u64("calls_total", 0),
            attempts_total: f.u64("attempts_total", 0),
            retry_total: f.u64("retry_total", 0),
            retry_attempts_total: f.u64("retry_attempts_total", 0),
            retry_success: f.u64("retry_success", 0),
            retry_exhausted: f.u64("retry_exhausted", 0),
            gave_up_total: f.u64("gave_up_total", 0),
            retry_duration: f.section("retry_duration", HistogramSnapshot::default()),
            circuit_breaker_state,
        }
    }

    fn write(&self, o: &mut Out) {
        o.duration("as_of", self.as_of_ms);
        o.uint("calls_total", self.calls_total);
        o.uint("attempts_total", self.attempts_total);
        o.uint("retry_total", self.retry_total);
        o.uint("retry_attempts_total", self.retry_attempts_total);
        o.uint("retry_success", self.retry_success);
        o.uint("retry_exhausted", self.retry_exhausted);
        o.uint("gave_up_total", self.gave_up_total);
        o.section("retry_duration", &self.retry_duration);
        o.uint("circuit_breaker_state", self.circuit_breaker_state.value());
    }

    fn check(&self, _: &mut Check) {}
}

impl Emit for Alert {
    fn emit(&self, o: &mut Out) {
        o.code("level", self.level.code());
        o.code("rule", self.rule.code());
        o.float("value", self.value);
        o.float("threshold", self.threshold);
        o.instant("at", self.at);
    }
}

/// Handed out, and kept queued in the metrics' snapshot.
impl Section for RecordEvent {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let names = ["kind", "rule", "from", "to", "value", "threshold", "at"];
        f.require_all(&names, crate::state::AS_WRITTEN);
        // The one kind there is: read so that another is named as wrong.
        f.code("kind", (), &[()], |()| "alert_changed");
        let level = |l: &AlertLevel| l.code();
        RecordEvent::AlertChanged {
            rule: f.code("rule", AlertRule::RetryRate, &AlertRule::ALL, |r| r.code()),
            from: f.code("from", AlertLevel::Ok, &AlertLevel::ALL, level),
            to: f.code("to", AlertLevel::Ok, &AlertLevel::ALL, level),
            value: f.float("value", 0.0),
            threshold: f.float("threshold", 0.0),
            at: f.instant("at", Instant::ZERO),
        }
    }

    fn write(&self, o: &mut Out) {
        match *self {
            RecordEvent::AlertChanged {
                rule,
                from,
                to,
                value,
                threshold,
                at,
            } => {
                o.code("kind", "alert_changed");
                alert_changed(o, rule, [from, to], [value, threshold], at);
            }
        }
    }

    fn check(&self, _: &mut Check) {}
}

/// An alert level change's fields, as both a policy event and a standalone
/// `Metrics` event write them: the levels `[from, to]`, `[value, threshold]`.
pub(super) fn alert_changed(
    o: &mut Out,
    rule: AlertRule,
    [from, to]: [AlertLevel; 2],
    [value, threshold]: [f64; 2],
    at: Instant,
) {
    o.code("rule", rule.code());
    o.code("from", from.code());
    o.code("to", to.code());
    o.float("value", value);
    o.float("threshold", threshold);
    o.instant("at", at);
}
