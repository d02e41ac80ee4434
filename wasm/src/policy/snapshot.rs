//! A policy's shared state as the core's versioned JSON text, and back: for
//! hosts that keep state between invocations (edge workers, serverless).
//! Not in the browser build (the `snapshot` feature), where it would be
//! about a fifth of the module.

use stoic_core::PolicyState;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::errors::input_error;
use crate::value::js_emit;

use super::CorePolicy;

#[wasm_bindgen]
impl CorePolicy {
    /// The shared state as versioned JSON text (the core's wire form, the
    /// same in every language), for storage between invocations.
    pub fn snapshot(&self) -> String {
        self.inner.snapshot_json()
    }

    /// Restores state saved by `snapshot`; returns `{restored, reset}`.
    pub fn restore(&mut self, text: &str) -> Result<JsValue, JsValue> {
        let state = PolicyState::from_json(text).map_err(|e| input_error(&e))?;
        let report = self
            .inner
            .restore_state(state)
            .map_err(|e| input_error(&e))?;
        Ok(js_emit(&report))
    }
}
