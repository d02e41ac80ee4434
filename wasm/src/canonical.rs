//! Canonical JSON (RFC 8785) and the keys derived from content. Only in the
//! full module (`tools`): a web client names its calls with random keys, and
//! the canonical reader and writer, the ES6 number form and SHA-256 were
//! 7.4 KB of the browser's module, gzipped.

use stoic_core::key::{canonical_json, canonical_json_exact, idempotency_key};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::errors::input_error;

/// RFC 8785 canonical form of JSON text.
#[wasm_bindgen(js_name = canonicalJson)]
pub fn canonical_json_text(text: &str) -> Result<String, JsValue> {
    canonical_json(text).map_err(|e| input_error(&e))
}

/// RFC 8785 canonical form of a JavaScript value's JSON text: integers a
/// double cannot hold exactly are refused (see `canonical_json_exact`).
#[wasm_bindgen(js_name = canonicalJsonExact)]
pub fn canonical_json_exact_text(text: &str) -> Result<String, JsValue> {
    canonical_json_exact(text).map_err(|e| input_error(&e))
}

/// `{runId}:{step}:{hash of the canonical arguments}`.
#[wasm_bindgen(js_name = idempotencyKey)]
pub fn idempotency_key_text(run_id: &str, step: &str, args_json: &str) -> Result<String, JsValue> {
    idempotency_key(run_id, step, args_json).map_err(|e| input_error(&e))
}
