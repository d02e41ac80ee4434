//! `stoic.monotonic`: the runtimes' clock, monotonic seconds on the Unix
//! scale (`time.monotonic()` plus the offset to `time.time()` taken once, as
//! JavaScript's `performance.timeOrigin + performance.now()`), so readings
//! from processes up for different times mean the same instant.
//!
//! Read through Python's own `time` module (the binding reads no clock of
//! its own); native only so that the two readings every call makes cost no
//! Python frame.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// `time.monotonic`, and the offset from its scale to the Unix one.
static READER: PyOnceLock<(Py<PyAny>, f64)> = PyOnceLock::new();

fn reader(py: Python<'_>) -> PyResult<&(Py<PyAny>, f64)> {
    READER.get_or_try_init(py, || {
        let time = py.import("time")?;
        let read = time.getattr("monotonic")?;
        let unix: f64 = time.call_method0("time")?.extract()?;
        let since_boot: f64 = read.call0()?.extract()?;
        Ok((read.unbind(), unix - since_boot))
    })
}

/// Monotonic seconds on the Unix scale: what the runtimes pass as `now`.
#[pyfunction]
pub(crate) fn monotonic(py: Python<'_>) -> PyResult<f64> {
    let (read, offset) = reader(py)?;
    let since_boot: f64 = read.bind(py).call0()?.extract()?;
    Ok(offset + since_boot)
}
