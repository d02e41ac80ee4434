//! `stoic.Backoff`: a seeded backoff schedule on its own.

use std::sync::{Mutex, PoisonError};

use pyo3::prelude::*;
use stoic_core::backoff::SeededBackoff;
use stoic_core::schema::sections::SeededSpec;
use stoic_core::schema::{decode, Dialect, Value};

use crate::convert::{from_py, ms_to_secs, Numbers};
use crate::errors::{config_error, value_config_error};
use crate::ints::count;

/// `Backoff(strategy, *, base, cap, multiplier=2.0, seed=None)`: the delay
/// before each retry, in seconds. Stateful for decorrelated jitter, whose
/// next delay grows from the last one; the seed fixes the schedule.
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct Backoff {
    inner: Mutex<SeededBackoff>,
    seed: u64,
}

#[pymethods]
impl Backoff {
    #[new]
    #[pyo3(signature = (strategy, *, base, cap, multiplier=None, seed=None))]
    fn new(
        py: Python<'_>,
        strategy: &Bound<'_, PyAny>,
        base: &Bound<'_, PyAny>,
        cap: &Bound<'_, PyAny>,
        multiplier: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut entries = Vec::new();
        for (key, obj) in [
            ("strategy", Some(strategy)),
            ("base", Some(base)),
            ("cap", Some(cap)),
            ("multiplier", multiplier),
            ("seed", seed),
        ] {
            if let Some(obj) = obj {
                let value =
                    from_py(obj, key, Numbers::Plain).map_err(|e| value_config_error(py, e))?;
                entries.push((key.to_owned(), value));
            }
        }
        // The seed is checked by the core's schema, as in JavaScript: a
        // negative or too large one is a ConfigError naming `seed`.
        let SeededSpec { spec, seed } =
            decode(&Value::Map(entries), Dialect::PYTHON).map_err(|e| config_error(py, &e))?;
        let seed = match seed {
            Some(seed) => seed,
            None => {
                let bytes: [u8; 8] = py
                    .import("os")?
                    .call_method1("urandom", (8,))?
                    .extract::<Vec<u8>>()?
                    .try_into()
                    .unwrap_or_default();
                u64::from_le_bytes(bytes)
            }
        };
        let inner = SeededBackoff::new(spec, seed).map_err(|e| config_error(py, &e))?;
        Ok(Backoff {
            inner: Mutex::new(inner),
            seed,
        })
    }

    /// The delay before retry `retry` (1 for the first retry), in seconds.
    fn delay(&self, retry: &Bound<'_, PyAny>) -> PyResult<f64> {
        let retry = count(retry, "retry")?;
        let mut backoff = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(ms_to_secs(backoff.delay_ms(retry)))
    }

    /// The strategy code.
    #[getter]
    fn strategy(&self) -> &'static str {
        let backoff = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        backoff.spec().strategy.code()
    }

    /// The seed (drawn from the OS when none was given).
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    fn __repr__(&self) -> String {
        let backoff = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let spec = backoff.spec();
        format!(
            "Backoff({:?}, base={}, cap={}, multiplier={})",
            spec.strategy.code(),
            ms_to_secs(spec.base_ms),
            ms_to_secs(spec.cap_ms),
            spec.multiplier
        )
    }
}
