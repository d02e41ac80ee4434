//! `stoic._stoic.RunQuota` and `tool_reason`: an agent run's retry quota
//! and the reason codes a tool call ends with (`stoic.agents` uses both).

use pyo3::prelude::*;
use stoic_core::agent::ToolReason;
use stoic_core::run::DEFAULT_RUN_MAX_RETRIES;

use crate::text::LossyText;

/// The retries one run may make across all its calls, shared by the calls
/// that join it (`Call.join_run`).
#[pyclass(module = "stoic._stoic", frozen)]
#[derive(Debug)]
pub(crate) struct RunQuota {
    pub(crate) quota: stoic_core::RunQuota,
}

#[pymethods]
impl RunQuota {
    #[new]
    #[pyo3(signature = (max_retries = DEFAULT_RUN_MAX_RETRIES), text_signature = "(max_retries=20)")]
    fn new(max_retries: u32) -> Self {
        RunQuota {
            quota: stoic_core::RunQuota::new(max_retries),
        }
    }

    /// The retries the run may make.
    #[getter]
    fn max_retries(&self) -> u32 {
        self.quota.max_retries()
    }

    /// The retries taken so far.
    #[getter]
    fn used(&self) -> u32 {
        self.quota.used()
    }

    /// The retries left.
    #[getter]
    fn remaining(&self) -> u32 {
        self.quota.remaining()
    }

    fn __repr__(&self) -> String {
        format!(
            "RunQuota(max_retries={}, used={})",
            self.quota.max_retries(),
            self.quota.used()
        )
    }
}

/// The reason code a tool call ends with for a give-up's stop reason code
/// (`not_retryable` -> `deterministic`, ...), or None for an unknown code.
#[pyfunction]
pub(crate) fn tool_reason(stop_reason: LossyText) -> Option<&'static str> {
    ToolReason::of_code(&stop_reason.0).map(ToolReason::code)
}

/// Whether a tool call that ended with the tool reason code `reason` may be
/// made again later with the same arguments and hope for another answer
/// (the framework adapters' `retryable`); None for an unknown code.
#[pyfunction]
pub(crate) fn tool_retry_later(reason: LossyText) -> Option<bool> {
    ToolReason::from_code(&reason.0).map(ToolReason::retry_later)
}
