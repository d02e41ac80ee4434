//! `stoic.parts.Breaker`: the core's circuit breaker on its own.

use std::sync::{Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stoic_core::breaker::{self, Transition};

use crate::convert::ms_to_secs;
use crate::document::{py_emit, section_of};
use crate::parts;
use crate::seconds::Secs;

/// Proof that an attempt was admitted; hand it back with the result.
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct Permit {
    inner: breaker::Permit,
}

/// A circuit breaker: `Breaker(**config)` takes the `breaker` section of
/// the engine config (Python spelling).
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct Breaker {
    inner: Mutex<breaker::Breaker>,
}

impl Breaker {
    fn lock(&self) -> MutexGuard<'_, breaker::Breaker> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl Breaker {
    #[new]
    #[pyo3(signature = (**config))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let config: breaker::BreakerConfig = section_of(py, config)?;
        let breaker = breaker::Breaker::new(config);
        Ok(Breaker {
            inner: Mutex::new(breaker),
        })
    }

    /// Admits an attempt: a `Permit`, or the rejection as a dict
    /// (`reason`, `retry_at`).
    fn acquire<'py>(&self, py: Python<'py>, now: Secs) -> PyResult<Bound<'py, PyAny>> {
        let now = now.instant("now")?;
        let result = self.lock().try_acquire(now);
        match result {
            Ok(permit) => Ok(Bound::new(py, Permit { inner: permit })?.into_any()),
            Err(rejected) => py_emit(py, &rejected),
        }
    }

    /// Reports a success; whether it counted (a stale permit does not).
    #[pyo3(signature = (now, permit, duration=Secs::ZERO), text_signature = "($self, now, permit, duration=0.0)")]
    fn on_success(&self, now: Secs, permit: &Permit, duration: Secs) -> PyResult<bool> {
        let (now, duration) = (now.instant("now")?, duration.ms("duration")?);
        Ok(self.lock().on_success(now, permit.inner, duration))
    }

    /// Reports a failure; whether it counted.
    #[pyo3(signature = (now, permit, duration=Secs::ZERO), text_signature = "($self, now, permit, duration=0.0)")]
    fn on_failure(&self, now: Secs, permit: &Permit, duration: Secs) -> PyResult<bool> {
        let (now, duration) = (now.instant("now")?, duration.ms("duration")?);
        Ok(self.lock().on_failure(now, permit.inner, duration))
    }

    /// Gives back a permit whose attempt was abandoned.
    fn release(&self, permit: &Permit) -> bool {
        self.lock().release(permit.inner)
    }

    /// The state with its data (`kind`: `closed`, `open`, `half_open`).
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = *self.lock().state();
        py_emit(py, &state)
    }

    /// The state code as of `now` (an open breaker whose cooldown ended
    /// reads `half_open`).
    fn state_at(&self, now: Secs) -> PyResult<&'static str> {
        let now = now.instant("now")?;
        Ok(self.lock().state_at(now).code())
    }

    /// Every queued transition, oldest first.
    fn transitions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let drained: Vec<Transition> = {
            let mut breaker = self.lock();
            std::iter::from_fn(|| breaker.poll_transition()).collect()
        };
        let list = PyList::empty(py);
        for transition in &drained {
            list.append(py_emit(py, transition)?)?;
        }
        Ok(list)
    }

    /// The sliding window's counts at `now`, if the trip rule has a window.
    fn window_counts<'py>(
        &self,
        py: Python<'py>,
        now: Secs,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let now = now.instant("now")?;
        let counts = self.lock().window_counts(now);
        counts.map(|c| py_emit(py, &c)).transpose()
    }

    /// When the breaker next changes by itself (monotonic seconds).
    fn next_timeout(&self) -> Option<f64> {
        self.lock()
            .next_timeout()
            .map(|at| ms_to_secs(at.as_millis()))
    }

    /// The whole state as JSON text.
    fn snapshot(&self) -> String {
        stoic_core::state::write_snapshot(&*self.lock())
    }

    /// A breaker restored from `snapshot()` text.
    #[staticmethod]
    fn restore(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = parts::snapshot_text(py, text)?;
        let breaker: breaker::Breaker = parts::restore(py, &text)?;
        Ok(Breaker {
            inner: Mutex::new(breaker),
        })
    }
}
