//! Times and durations from Python: float (or int) seconds, checked at the
//! edge as JavaScript checks its milliseconds, so a NaN, a negative time, an
//! infinity or an absurd reading is an `InputError` (code `out_of_range`)
//! naming the argument, never a silent 0 or a saturated clock.

use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};

use crate::convert::secs_to_ms;
use crate::errors::{type_error, usage_error_at};

/// The largest time the core reads: 2^53 - 1 ms (as in JavaScript).
const MAX_MS: f64 = 9_007_199_254_740_991.0;

/// A number of seconds as the caller passed it, checked when it is used
/// (where the argument's name is known, so every error names it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Secs(Reading);

#[derive(Clone, Copy, Debug)]
enum Reading {
    Seconds(f64),
    /// Not a number: the type's name, for the error.
    NotANumber(&'static str),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Secs {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        // A float, the clocks' reading: every call passes two.
        if let Ok(float) = obj.cast_exact::<PyFloat>() {
            return Ok(Secs(Reading::Seconds(float.value())));
        }
        let number = (obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>())
            && !obj.is_instance_of::<PyBool>();
        if !number {
            let kind = if obj.is_instance_of::<PyBool>() {
                "bool"
            } else if obj.is_none() {
                "None"
            } else if obj.is_instance_of::<pyo3::types::PyString>() {
                "str"
            } else {
                "a non-number"
            };
            return Ok(Secs(Reading::NotANumber(kind)));
        }
        match obj.extract::<f64>() {
            Ok(secs) => Ok(Secs(Reading::Seconds(secs))),
            // An int too large for a double: out of any range, said by name below.
            Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
                Ok(Secs(Reading::Seconds(f64::INFINITY)))
            }
            Err(e) => Err(e),
        }
    }
}

impl From<f64> for Secs {
    fn from(secs: f64) -> Self {
        Secs(Reading::Seconds(secs))
    }
}

impl Secs {
    /// No time (a default duration).
    pub(crate) const ZERO: Secs = Secs(Reading::Seconds(0.0));

    /// Whole milliseconds, or the error naming `name`.
    pub(crate) fn ms(self, name: &str) -> PyResult<u64> {
        let secs = match self.0 {
            Reading::Seconds(secs) => secs,
            Reading::NotANumber(kind) => {
                let message = format!("{name} must be a number of seconds, not {kind}");
                return Err(type_error(name, message));
            }
        };
        let ms = secs * 1000.0;
        if secs.is_finite() && (0.0..=MAX_MS).contains(&ms) {
            Ok(secs_to_ms(secs))
        } else {
            Err(usage_error_at(
                "out_of_range",
                name,
                format!(
                    "{name} must be a finite number of seconds from 0, below 2^53 ms, got {secs}"
                ),
            ))
        }
    }

    /// A monotonic reading as the core's instant.
    pub(crate) fn instant(self, name: &str) -> PyResult<stoic_core::Instant> {
        self.ms(name).map(stoic_core::Instant::from_millis)
    }

    /// A Unix time in seconds as the core's wall clock.
    pub(crate) fn wall(self, name: &str) -> PyResult<stoic_core::WallClock> {
        self.ms(name).map(stoic_core::WallClock::from_unix_millis)
    }
}
