//! `stoic.parts.Metrics`, `LogRecord` and metrics merging: the record
//! module of the core on its own.

use std::sync::{Mutex, MutexGuard, PoisonError};
use stoic_core::SortedMap;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stoic_core::record::{
    self, metric_points, CallOutcome, CallSummary, LogOutcome, MetricsSnapshot, RecordEvent,
};

use crate::document::{data_of, py_emit, section_of};
use crate::errors::{usage_error, usage_error_at};
use crate::ints::count;
use crate::seconds::Secs;
use crate::text::LossyText;
use stoic_core::schema::not_one_of;

/// Metrics and alert rules for one scope: `Metrics(**config)` takes the
/// `alerts` section of the engine config.
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct Metrics {
    inner: Mutex<record::Metrics>,
}

impl Metrics {
    fn lock(&self) -> MutexGuard<'_, record::Metrics> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl Metrics {
    #[new]
    #[pyo3(signature = (**config))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let config: record::AlertConfig = section_of(py, config)?;
        Ok(Metrics {
            inner: Mutex::new(record::Metrics::new(config)),
        })
    }

    /// An attempt went out (`is_retry`: not the first of its call).
    fn on_attempt(&self, now: Secs, is_retry: bool) -> PyResult<()> {
        let now = now.instant("now")?;
        self.lock().on_attempt(now, is_retry);
        Ok(())
    }

    /// A retry was scheduled.
    fn on_retry_scheduled(&self, now: Secs) -> PyResult<()> {
        let now = now.instant("now")?;
        self.lock().on_retry_scheduled(now);
        Ok(())
    }

    /// A call ended (`outcome`: `success`, `exhausted`, `gave_up`;
    /// `duration` in seconds).
    fn on_call_finished(
        &self,
        now: Secs,
        retries: &Bound<'_, PyAny>,
        outcome: LossyText,
        duration: Secs,
    ) -> PyResult<()> {
        let retries = count(retries, "retries")?;
        let outcome = CallOutcome::from_code(&outcome.0).ok_or_else(|| {
            let codes = CallOutcome::ALL.map(CallOutcome::code);
            usage_error_at(
                "invalid_value",
                "outcome",
                not_one_of("outcome", &outcome.0, codes),
            )
        })?;
        let summary = CallSummary {
            retries,
            outcome,
            duration_ms: duration.ms("duration")?,
        };
        let now = now.instant("now")?;
        self.lock().on_call_finished(now, summary);
        Ok(())
    }

    /// Sets the breaker gauge by state code; False for an unknown code.
    fn set_breaker_state(&self, state: LossyText) -> bool {
        self.lock().set_breaker_state(&state.0)
    }

    /// Evaluates the alert rules at `now`.
    fn evaluate(&self, now: Secs) -> PyResult<()> {
        let now = now.instant("now")?;
        self.lock().evaluate(now);
        Ok(())
    }

    /// Every queued alert event, oldest first.
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let drained: Vec<RecordEvent> = {
            let mut metrics = self.lock();
            std::iter::from_fn(|| metrics.poll_event()).collect()
        };
        let list = PyList::empty(py);
        for event in &drained {
            list.append(py_emit(py, event)?)?;
        }
        Ok(list)
    }

    /// The counters, histogram and gauge as a dict.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let snapshot = self.lock().snapshot();
        py_emit(py, &snapshot)
    }
}

/// Two metrics snapshots (dicts from `snapshot()` or `Policy.metrics()`)
/// added together: counters and buckets sum, the gauge is the newer one.
#[pyfunction]
pub(crate) fn merge_metrics<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let parse = |obj: &Bound<'py, PyAny>| -> PyResult<MetricsSnapshot> { data_of(py, obj) };
    let mut merged = parse(a)?;
    merged.merge(&parse(b)?);
    py_emit(py, &merged)
}

/// The metric catalogue: every metric of a scope's snapshot with the names,
/// kind, unit, description and bucket bounds exporters publish it under
/// (`stoic.prometheus`), and its points per scope when given
/// `policy.metrics()`, in the units exporters publish (seconds).
#[pyfunction]
#[pyo3(signature = (metrics = None))]
pub(crate) fn metric_catalogue<'py>(
    py: Python<'py>,
    metrics: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyList>> {
    let mut scopes = SortedMap::new();
    for (scope, snapshot) in metrics.into_iter().flatten() {
        let scope: String = scope.extract().map_err(|_| {
            usage_error(
                "wrong_type",
                "metrics' keys must be scope names (str)".into(),
            )
        })?;
        scopes.insert(scope, data_of::<MetricsSnapshot>(py, &snapshot)?);
    }
    let points = metric_points(&scopes)
        .map(|m| py_emit(py, &m))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, points)
}

/// One decision's log record, in the format every language writes.
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct LogRecord {
    inner: record::LogRecord,
}

#[pymethods]
impl LogRecord {
    /// `wall` is Unix seconds, `delay` and `total_duration` seconds,
    /// `error` a `(code, message)` pair or None.
    #[new]
    #[pyo3(signature = (*, wall, operation, attempt, max_attempts, delay, error, strategy, outcome, total_duration))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        wall: Secs,
        operation: LossyText,
        attempt: &Bound<'_, PyAny>,
        max_attempts: &Bound<'_, PyAny>,
        delay: Secs,
        error: Option<(LossyText, LossyText)>,
        strategy: LossyText,
        outcome: LossyText,
        total_duration: Secs,
    ) -> PyResult<Self> {
        let outcome = LogOutcome::from_code(&outcome.0).ok_or_else(|| {
            usage_error(
                "invalid_value",
                format!("unknown log outcome {:?}", outcome.0),
            )
        })?;
        let inner = record::LogRecord::new(
            wall.wall("wall")?,
            &operation.0,
            count(attempt, "attempt")?,
            count(max_attempts, "max_attempts")?,
            delay.ms("delay")?,
            error.as_ref().map(|(c, m)| (c.0.as_str(), m.0.as_str())),
            &strategy.0,
            outcome,
            total_duration.ms("total_duration")?,
        );
        Ok(LogRecord { inner })
    }

    /// The record as one line of JSON.
    fn json_line(&self) -> String {
        self.inner.to_json_line()
    }

    /// The record as a dict (Python spelling).
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_emit(py, &self.inner)
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }
}
