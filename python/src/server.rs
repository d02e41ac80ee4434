//! `stoic.parts.ServerIdempotency`: the server half of the idempotency-key
//! contract (what to do with a request, given what the store holds).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stoic_core::schema::{encode, Dialect};
use stoic_core::server_idempotency::{decide, fingerprint, ServerIdempotencyConfig, StoredEntry};

use crate::document::{data_of, py_emit, py_of, section_of};
use crate::errors::input_error;
use crate::ints::http_status;
use crate::seconds::Secs;
use crate::text::StrictText;

/// A stored entry from its dict (Python spelling: Unix seconds).
fn entry(py: Python<'_>, stored: &Bound<'_, PyAny>) -> PyResult<StoredEntry> {
    data_of(py, stored)
}

/// Server-side idempotency decisions: `ServerIdempotency(require_key=True,
/// ttl=86400, in_flight_timeout=60)`.
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct ServerIdempotency {
    config: ServerIdempotencyConfig,
}

#[pymethods]
impl ServerIdempotency {
    #[new]
    #[pyo3(signature = (**config))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let config: ServerIdempotencyConfig = section_of(py, config)?;
        Ok(ServerIdempotency { config })
    }

    /// The settings (Python spelling).
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_of(py, &encode(&self.config, Dialect::PYTHON))
    }

    /// What to do with a request at `now` (Unix seconds) carrying `key`
    /// (None: no header) and payload `fingerprint`, given the `stored`
    /// entry (None: nothing stored). A dict: `kind` is `proceed`, `replay`
    /// or `refuse`.
    #[pyo3(signature = (now, key, fingerprint, stored=None))]
    fn decide<'py>(
        &self,
        py: Python<'py>,
        now: Secs,
        key: Option<StrictText<'_>>,
        fingerprint: StrictText<'_>,
        stored: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let stored = match stored {
            Some(obj) if !obj.is_none() => Some(entry(py, obj)?),
            _ => None,
        };
        let decision = decide(
            &self.config,
            now.ms("now")?,
            key.map(|k| k.0),
            fingerprint.0,
            stored.as_ref(),
        );
        py_emit(py, &decision)
    }

    /// The entry to record before processing a request.
    #[staticmethod]
    fn in_flight<'py>(
        py: Python<'py>,
        fingerprint: StrictText<'_>,
        now: Secs,
    ) -> PyResult<Bound<'py, PyAny>> {
        py_emit(py, &StoredEntry::in_flight(fingerprint.0, now.ms("now")?))
    }

    /// The same entry once the response (`status`) is stored.
    #[staticmethod]
    fn completed<'py>(
        py: Python<'py>,
        stored: &Bound<'py, PyAny>,
        now: Secs,
        status: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let status = http_status(status)?;
        let stored = entry(py, stored)?;
        py_emit(py, &stored.completed(now.ms("now")?, status))
    }
}

/// The payload fingerprint of a JSON body (SHA-256 of its canonical form),
/// so a retry with reformatted JSON is still the same payload.
#[pyfunction]
pub(crate) fn request_fingerprint(py: Python<'_>, body: StrictText<'_>) -> PyResult<String> {
    fingerprint(body.0).map_err(|e| input_error(py, &e))
}
