//! `stoic.CallOverrides`: per-call settings (attempts, backoff) on a shared
//! policy, made once by `Policy.overrides(**config)` and validated by the
//! core like the policy's own config.

use pyo3::prelude::*;

/// Per-call `max_attempts` and `backoff`, for `Policy.start`/`begin`'s
/// `overrides=`; the breaker and the budget stay the policy's.
#[pyclass(module = "stoic._stoic", frozen)]
#[derive(Debug)]
pub(crate) struct CallOverrides {
    pub(crate) inner: stoic_core::CallOverrides,
}

#[pymethods]
impl CallOverrides {
    /// The attempts a call may make, if overridden.
    #[getter]
    fn max_attempts(&self) -> Option<u32> {
        self.inner.max_attempts()
    }

    fn __repr__(&self) -> String {
        format!(
            "CallOverrides(max_attempts={:?}, backoff={})",
            self.inner.max_attempts(),
            if self.inner.backoff().is_some() {
                "set"
            } else {
                "None"
            }
        )
    }
}
