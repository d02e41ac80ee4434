//! Integers from Python: any int is read, then bounded to its parameter's
//! range, so a value out of range is an `InputError` (code `out_of_range`,
//! as in JS), never a wrapped number or an untyped `OverflowError`.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

use crate::errors::{type_error, usage_error_at};

/// `value` as an int (a bool is not one), or the `TypeError` naming `name`.
fn int<'a, 'py>(value: &'a Bound<'py, PyAny>, name: &str) -> PyResult<&'a Bound<'py, PyAny>> {
    if !value.is_instance_of::<PyInt>() || value.is_instance_of::<PyBool>() {
        let message = format!("{name} must be an int, not {}", value.get_type().name()?);
        return Err(type_error(name, message));
    }
    Ok(value)
}

/// `value` as a whole number from `min` to `max`, or the error naming `name`.
fn bounded(value: &Bound<'_, PyAny>, name: &str, min: u64, max: u64) -> PyResult<u64> {
    match int(value, name)?.extract::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(usage_error_at(
            "out_of_range",
            name,
            format!("{name} must be a whole number from {min} to {max}, not {value}"),
        )),
    }
}

/// `value` as an HTTP status (100-999).
pub(crate) fn http_status(value: &Bound<'_, PyAny>) -> PyResult<u16> {
    let status = bounded(value, "status", 100, 999)?;
    Ok(u16::try_from(status).unwrap_or(u16::MAX))
}

/// `value` as a count that fits 32 bits (an attempt or retry number).
pub(crate) fn count(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u32> {
    let n = bounded(value, name, 0, u64::from(u32::MAX))?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

/// `value` as a whole number that fits 64 bits (a Unix time in seconds).
pub(crate) fn whole(value: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    bounded(value, name, 0, u64::MAX)
}
