//! HTTP statuses from Python: any int is read, then bounded to 100-999, so a
//! status out of range is an `InputError` (code `out_of_range`, as in JS),
//! never a wrapped number or an `OverflowError`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use crate::errors::usage_error;

/// `value` as an HTTP status, or the error that names it.
pub(crate) fn http_status(value: &Bound<'_, PyAny>) -> PyResult<u16> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "status must be an int, not {}",
            value.get_type().name()?
        )));
    }
    match value
        .extract::<i64>()
        .ok()
        .and_then(|n| u16::try_from(n).ok())
    {
        Some(status) if (100..=999).contains(&status) => Ok(status),
        _ => Err(usage_error(
            "out_of_range",
            format!("status must be an HTTP status (100-999), not {value}"),
        )),
    }
}
