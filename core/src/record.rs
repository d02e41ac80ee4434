//! The record of each decision: a structured log line, metrics, alerts.
//!
//! "Implementing Smart Retry Logic for Transient Errors", section 7
//! ("Monitoring and Observability"), asks for three things, and each lives
//! in its own submodule:
//!
//! - [`LogRecord`]: one JSON line per retry decision, with exactly the seed's
//!   fields (`timestamp`, `operation`, `attempt`, `delay_ms`, `error`,
//!   `strategy`, `outcome`, `total_duration_ms`) in that order.
//! - [`Metrics`]: the per-scope counters (`retry_total`, `retry_success`,
//!   `retry_exhausted`, ...), the `retry_duration` histogram and the
//!   `circuit_breaker_state` gauge, exported as a plain-data
//!   [`MetricsSnapshot`] that merges across scopes.
//! - Alerts: the seed's three rules (retry rate, exhausted rate, breaker open)
//!   evaluated over a sliding window fed by the same [`Metrics`] calls, and
//!   reported as [`RecordEvent::AlertChanged`] only when a level changes.
//!
//! [`METRICS`] names every metric of a snapshot for exporters (Prometheus,
//! OpenTelemetry): one table, so every language publishes the same names,
//! units and histogram buckets.
//!
//! [`MetricPoint`] and [`DecisionNote`] hand the same counts out one call
//! at a time, with the operation, outcome and reason, for exporters that
//! aggregate themselves (OpenTelemetry) and for span events.
//!
//! Everything here is sans-IO: the policy passes `now` (monotonic) and, for
//! log timestamps only, a [`crate::WallClock`]; it gets plain data back. The
//! types know nothing of the policy, so they can be unit-tested and reused by
//! hosts that only want the log format.

mod alerts;
mod catalogue;
mod gauge;
mod log;
#[cfg(feature = "measure")]
mod measure;
mod metrics;
mod snapshot;
mod window;

pub use alerts::{Alert, AlertConfig, AlertLevel, AlertRule, RecordEvent, EVENT_QUEUE_CAPACITY};
#[cfg(feature = "measure")]
pub(crate) use catalogue::metric;
pub use catalogue::{
    metric_points, MetricKind, MetricPoints, MetricSpec, METRICS, SCOPE_ATTRIBUTE,
};
pub use gauge::BreakerGauge;
pub use log::{LogError, LogOutcome, LogRecord};
#[cfg(feature = "measure")]
pub use measure::{AttributeValue, Attributes, DecisionNote, MetricPoint};
pub use metrics::{
    CallOutcome, CallSummary, HistogramSnapshot, Metrics, MetricsSnapshot,
    RETRY_DURATION_BOUNDS_MS, RETRY_DURATION_BUCKETS,
};
pub use window::WINDOW_BUCKETS;
