//! The metric catalogue: every metric a scope's [`MetricsSnapshot`] holds,
//! with the names, kind, unit and description an exporter publishes it
//! under, and the histogram's bucket bounds.
//!
//! Exporters in every language (Prometheus, OpenTelemetry) read this table
//! from the core instead of keeping their own, so a dashboard built on one
//! language's metrics works for every other's, and a bucket bound changed
//! here changes everywhere.
//!
//! [`MetricsSnapshot`]: super::MetricsSnapshot

use crate::sorted::SortedMap;

use super::metrics::{MetricsSnapshot, RETRY_DURATION_BOUNDS_MS};
use crate::schema::{Emit, Out, Value};

/// How a metric behaves, which decides the instrument an exporter uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricKind {
    /// Only ever grows (a Prometheus counter, an OpenTelemetry counter).
    Counter,
    /// Observations counted into buckets, with their sum and count.
    Histogram,
    /// A current value that can go up and down.
    Gauge,
}

impl MetricKind {
    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            MetricKind::Counter => "counter",
            MetricKind::Histogram => "histogram",
            MetricKind::Gauge => "gauge",
        }
    }
}

/// One metric of a scope's snapshot, as exporters publish it.
#[derive(Clone, Copy, Debug)]
pub struct MetricSpec {
    /// The snapshot's field (the seed's name where it has one).
    pub field: &'static str,
    /// The OpenTelemetry instrument name (dotted, lowercase, no unit or
    /// `_total` suffix: OpenTelemetry's naming rules).
    pub otel_name: &'static str,
    /// The Prometheus metric name (`_total` on counters, the base unit as
    /// a suffix: Prometheus' naming conventions).
    pub prometheus_name: &'static str,
    /// Counter, histogram or gauge.
    pub kind: MetricKind,
    /// The unit exporters report in (UCUM, as OpenTelemetry takes it):
    /// `s` for durations, whatever unit the snapshot holds them in (ms in
    /// JavaScript, seconds in Python), `{call}`-style annotations for counts.
    pub unit: &'static str,
    /// One line for a metric's help text.
    pub description: &'static str,
    /// The value in a snapshot (a histogram's: its count).
    pub value: fn(&MetricsSnapshot) -> u64,
}

/// The attribute (Prometheus label) every metric carries, and its only
/// one: the scope (a service or host) the snapshot belongs to. Snapshots
/// are kept per scope, not per operation or outcome, so that their memory
/// is fixed.
pub const SCOPE_ATTRIBUTE: &str = "scope";

/// The OpenTelemetry names of the metrics a measuring policy hands out
/// points of (`policy/measure.rs`), named once for the table and for it.
pub(crate) mod metric {
    pub(crate) const CALLS: &str = "stoic.calls";
    pub(crate) const ATTEMPTS: &str = "stoic.attempts";
    pub(crate) const RETRIES: &str = "stoic.retries";
    pub(crate) const RETRY_ATTEMPTS: &str = "stoic.retry.attempts";
    pub(crate) const RETRY_SUCCESS: &str = "stoic.retry.successes";
    pub(crate) const RETRY_EXHAUSTED: &str = "stoic.retry.exhausted";
    pub(crate) const GAVE_UP: &str = "stoic.gave_up";
    pub(crate) const RETRY_DURATION: &str = "stoic.retry.duration";
}

/// Every metric of [`super::MetricsSnapshot`] but its `as_of` reading, in
/// the snapshot's order.
pub const METRICS: [MetricSpec; 9] = [
    counter(
        "calls_total",
        |s| s.calls_total,
        metric::CALLS,
        "stoic_calls_total",
        "{call}",
        "Calls finished, whatever the outcome.",
    ),
    counter(
        "attempts_total",
        |s| s.attempts_total,
        metric::ATTEMPTS,
        "stoic_attempts_total",
        "{attempt}",
        "Attempts sent: first attempts and retries.",
    ),
    counter(
        "retry_total",
        |s| s.retry_total,
        metric::RETRIES,
        "stoic_retry_total",
        "{retry}",
        "Retries scheduled.",
    ),
    counter(
        "retry_attempts_total",
        |s| s.retry_attempts_total,
        metric::RETRY_ATTEMPTS,
        "stoic_retry_attempts_total",
        "{attempt}",
        "Attempts that were retries (attempt 2 and later).",
    ),
    counter(
        "retry_success",
        |s| s.retry_success,
        metric::RETRY_SUCCESS,
        "stoic_retry_success_total",
        "{call}",
        "Calls that succeeded after at least one retry.",
    ),
    counter(
        "retry_exhausted",
        |s| s.retry_exhausted,
        metric::RETRY_EXHAUSTED,
        "stoic_retry_exhausted_total",
        "{call}",
        "Calls that failed after using all their attempts.",
    ),
    counter(
        "gave_up_total",
        |s| s.gave_up_total,
        metric::GAVE_UP,
        "stoic_gave_up_total",
        "{call}",
        "Calls that stopped before using all their attempts (not retryable, deadline, breaker, budget).",
    ),
    MetricSpec {
        field: "retry_duration",
        otel_name: metric::RETRY_DURATION,
        prometheus_name: "stoic_retry_duration_seconds",
        kind: MetricKind::Histogram,
        unit: "s",
        description: "Duration of calls that retried at least once, delays included.",
        value: |s| s.retry_duration.count,
    },
    MetricSpec {
        field: "circuit_breaker_state",
        otel_name: "stoic.circuit_breaker.state",
        prometheus_name: "stoic_circuit_breaker_state",
        kind: MetricKind::Gauge,
        unit: "1",
        description: "The scope's circuit breaker: 0 closed, 1 half open, 2 open.",
        value: |s| u64::from(s.circuit_breaker_state.value()),
    },
];

const fn counter(
    field: &'static str,
    value: fn(&MetricsSnapshot) -> u64,
    otel_name: &'static str,
    prometheus_name: &'static str,
    unit: &'static str,
    description: &'static str,
) -> MetricSpec {
    MetricSpec {
        field,
        otel_name,
        prometheus_name,
        kind: MetricKind::Counter,
        unit,
        description,
        value,
    }
}

/// A metric of the catalogue with its points: one per scope of `scopes`
/// (none for the catalogue alone). Written in the units exporters publish
/// in, the same in every dialect: histogram bounds and sums in seconds
/// (`bounds_seconds`, `sum_seconds`), buckets cumulative (Prometheus' `le`
/// form, `+Inf` last), so that an exporter only hands the points on.
#[derive(Clone, Copy, Debug)]
pub struct MetricPoints<'a> {
    /// The metric.
    pub spec: &'static MetricSpec,
    /// Each scope's snapshot, as [`crate::Policy::metrics`] gives them.
    pub scopes: &'a SortedMap<String, MetricsSnapshot>,
}

/// Every metric of the catalogue with its points in `scopes`, in the
/// catalogue's order.
pub fn metric_points(
    scopes: &SortedMap<String, MetricsSnapshot>,
) -> impl Iterator<Item = MetricPoints<'_>> {
    METRICS
        .iter()
        .map(move |spec| MetricPoints { spec, scopes })
}

impl Emit for MetricPoints<'_> {
    fn emit(&self, o: &mut Out) {
        let spec = self.spec;
        o.text("field", spec.field);
        o.text("otel_name", spec.otel_name);
        o.text("prometheus_name", spec.prometheus_name);
        o.code("kind", spec.kind.code());
        o.text("unit", spec.unit);
        o.text("description", spec.description);
        o.value(
            "attributes",
            Value::List(vec![Value::Text(SCOPE_ATTRIBUTE.into())]),
        );
        if spec.kind == MetricKind::Histogram {
            let bounds = RETRY_DURATION_BOUNDS_MS.iter().map(|&ms| seconds(ms));
            o.value("bounds_seconds", Value::List(bounds.collect()));
        }
        let points = self
            .scopes
            .iter()
            .map(|(scope, snapshot)| {
                o.object(&Point {
                    spec,
                    scope,
                    snapshot,
                })
            })
            .collect();
        o.list("points", points);
    }
}

/// One scope's value of one metric.
struct Point<'a> {
    spec: &'static MetricSpec,
    scope: &'a str,
    snapshot: &'a MetricsSnapshot,
}

impl Emit for Point<'_> {
    fn emit(&self, o: &mut Out) {
        let attributes = vec![(SCOPE_ATTRIBUTE.to_owned(), Value::Text(self.scope.into()))];
        o.table("attributes", attributes);
        if self.spec.kind == MetricKind::Histogram {
            let histogram = &self.snapshot.retry_duration;
            o.uints("buckets", histogram.cumulative());
            o.value("sum_seconds", seconds(histogram.sum_ms));
            o.uint("count", histogram.count);
        } else {
            o.uint("value", (self.spec.value)(self.snapshot));
        }
    }
}

/// Milliseconds as the seconds exporters publish (exact below 2^53 ms).
#[allow(clippy::cast_precision_loss)]
fn seconds(ms: u64) -> Value {
    Value::Float(ms as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::{MetricKind, METRICS};
    use crate::record::MetricsSnapshot;
    use crate::schema::{emit, Dialect, Value};

    #[test]
    fn every_metric_is_a_field_of_the_snapshot_in_its_order() {
        let snapshot = emit(&MetricsSnapshot::default(), Dialect::RUST);
        let Value::Map(fields) = snapshot else {
            panic!("a snapshot is an object")
        };
        let names: Vec<&str> = fields
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| *k != "as_of_ms")
            .collect();
        let catalogued: Vec<&str> = METRICS.iter().map(|m| m.field).collect();
        assert_eq!(names, catalogued);
    }

    #[test]
    fn names_follow_each_systems_rules() {
        for metric in METRICS {
            let otel = metric.otel_name;
            assert!(
                otel.starts_with("stoic.") && !otel.ends_with("_total"),
                "{otel}"
            );
            assert!(otel
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '.' || c == '_'));
            let prom = metric.prometheus_name;
            assert!(prom.starts_with("stoic_"), "{prom}");
            assert_eq!(
                prom.ends_with("_total"),
                metric.kind == MetricKind::Counter,
                "{prom}"
            );
            if metric.unit == "s" {
                assert!(prom.ends_with("_seconds"), "{prom}");
            }
        }
    }
}
