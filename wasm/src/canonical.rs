//! Canonical JSON (RFC 8785) and the keys derived from content. In every
//! build, the browser's client module too: an agent's
//! `{run_id}:{step}:{hash}` must be the same key in a page as in Node and
//! Python (the key vectors run against both modules).

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
