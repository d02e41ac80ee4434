//! `ServerIdempotency`: the server half of the idempotency-key contract
//! (`stoic_core::server_idempotency`), for servers and workers written in JS.

use stoic_core::server_idempotency::{decide, fingerprint, ServerIdempotencyConfig, StoredEntry};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::data::read_data;
use crate::errors::input_error;
use crate::units::ms;
use crate::value::js_emit;
use crate::value::read_config;

/// Decides what a server does with a request, given what its store holds
/// for the request's key.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CoreServerIdempotency {
    config: ServerIdempotencyConfig,
}

#[wasm_bindgen]
impl CoreServerIdempotency {
    /// Validates the settings (`requireKey`, `ttlMs`, `inFlightTimeoutMs`).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<CoreServerIdempotency, JsValue> {
        let parsed: ServerIdempotencyConfig = read_config(&config)?;
        Ok(CoreServerIdempotency { config: parsed })
    }

    /// The decision (`proceed`, `replay` or `refuse`) for a request with
    /// `key` and payload `fingerprint` at `now_unix_ms`; `stored` is the
    /// store's entry for the key, or null.
    pub fn decide(
        &self,
        now_unix_ms: f64,
        key: Option<String>,
        fingerprint: &str,
        stored: JsValue,
    ) -> Result<JsValue, JsValue> {
        let stored: Option<StoredEntry> = if stored.is_null() || stored.is_undefined() {
            None
        } else {
            Some(read_data(&stored)?)
        };
        let decision = decide(
            &self.config,
            ms(now_unix_ms),
            key.as_deref(),
            fingerprint,
            stored.as_ref(),
        );
        Ok(js_emit(&decision))
    }
}

/// SHA-256 of the body's RFC 8785 canonical JSON: a payload fingerprint that
/// formatting and member order do not change.
#[wasm_bindgen(js_name = payloadFingerprint)]
pub fn payload_fingerprint(body_json: &str) -> Result<String, JsValue> {
    fingerprint(body_json).map_err(|e| input_error(&e))
}
