//! An agent run's retry quota and the reason codes a tool call ends with,
//! for `stoic/agents` (translation only: the counting and the mapping are
//! the core's).

use stoic_core::agent::ToolReason;
use stoic_core::run::{RunQuota, DEFAULT_RUN_MAX_RETRIES};
use wasm_bindgen::prelude::*;

/// The retries one run may make across all its calls.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CoreRunQuota {
    pub(crate) quota: RunQuota,
}

#[wasm_bindgen]
impl CoreRunQuota {
    /// A quota of `max_retries` (the runtime checks it is a whole number).
    #[wasm_bindgen(constructor)]
    pub fn new(max_retries: u32) -> CoreRunQuota {
        CoreRunQuota {
            quota: RunQuota::new(max_retries),
        }
    }

    /// The retries the run may make.
    #[wasm_bindgen(getter, js_name = maxRetries)]
    pub fn max_retries(&self) -> u32 {
        self.quota.max_retries()
    }

    /// The retries taken so far.
    #[wasm_bindgen(getter)]
    pub fn used(&self) -> u32 {
        self.quota.used()
    }

    /// The retries left.
    #[wasm_bindgen(getter)]
    pub fn remaining(&self) -> u32 {
        self.quota.remaining()
    }
}

/// The retries an agent run may make unless its host says otherwise.
#[wasm_bindgen(js_name = defaultRunMaxRetries)]
pub fn default_run_max_retries() -> u32 {
    DEFAULT_RUN_MAX_RETRIES
}

/// The reason code a tool call ends with for a give-up's stop reason code,
/// or undefined for an unknown code.
#[wasm_bindgen(js_name = toolReason)]
pub fn tool_reason(stop_reason: &str) -> Option<String> {
    ToolReason::of_code(stop_reason).map(|r| r.code().to_owned())
}

/// Whether a tool call that ended with the tool reason code `reason` may be
/// made again later with the same arguments and hope for another answer
/// (the framework adapters' `retryable`); undefined for an unknown code.
#[wasm_bindgen(js_name = toolRetryLater)]
pub fn tool_retry_later(reason: &str) -> Option<bool> {
    ToolReason::from_code(reason).map(ToolReason::retry_later)
}

/// The header a layer above stoic marks its retries with
/// (`x-stainless-retry-count`).
#[wasm_bindgen(js_name = nestedRetryHeader)]
pub fn nested_retry_header() -> String {
    stoic_core::host::NESTED_RETRY_HEADER.to_owned()
}
