//! The core's pure helpers, and the code lists the runtime indexes by.

use stoic_core::hints::{parse_retry_after, server_hint};
use stoic_core::httpdate::parse_http_date_at;
use stoic_core::key::{header_value, parse_key_header, random_key, KeyHeaderForm};
use stoic_core::{Class, Method, NetworkErrorKind, WallClock};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::abi::header_pairs;
use crate::errors::usage_error;
use crate::object::set;
use crate::random;
use crate::units::{ms, opt_ms};
use crate::value::js_emit;

/// The module's `WebAssembly.Memory`, where hosts write into a policy's
/// text area (see `CorePolicy::textArea`).
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// The network error kind codes; the runtime passes a kind as its index.
#[wasm_bindgen(js_name = networkKinds)]
pub fn network_kinds() -> js_sys::Array {
    NetworkErrorKind::ALL
        .iter()
        .map(|k| JsValue::from_str(k.code()))
        .collect()
}

/// The class codes; the runtime passes a class as its index.
#[wasm_bindgen]
pub fn classes() -> js_sys::Array {
    Class::ALL
        .iter()
        .map(|c| JsValue::from_str(c.code()))
        .collect()
}

/// Whether an HTTP method is idempotent (RFC 9110 section 9.2.2).
#[wasm_bindgen(js_name = isIdempotentMethod)]
pub fn is_idempotent_method(method: &str) -> bool {
    Method::parse(method).is_idempotent()
}

/// A random UUIDv4 key, from 16 given bytes or from `crypto.getRandomValues`.
#[wasm_bindgen(js_name = randomKey)]
pub fn random_key_from(bytes: Option<Vec<u8>>) -> Result<String, JsValue> {
    let bytes = match bytes {
        Some(given) => <[u8; 16]>::try_from(given.as_slice())
            .map_err(|_| usage_error("invalid_value", "randomKey needs exactly 16 bytes"))?,
        None => random::bytes::<16>()?,
    };
    Ok(random_key(bytes))
}

/// The `Idempotency-Key` header value of `key` in `form` (`bare`, `quoted`).
#[wasm_bindgen(js_name = keyHeaderValue)]
pub fn key_header_value(key: &str, form: &str) -> Result<String, JsValue> {
    let form = KeyHeaderForm::from_code(form)
        .ok_or_else(|| usage_error("invalid_value", "form must be `bare` or `quoted`"))?;
    Ok(header_value(key, form))
}

/// The key inside an `Idempotency-Key` header value, if it is well formed.
#[wasm_bindgen(js_name = parseKeyHeader)]
pub fn parse_key_header_value(value: &str) -> Option<String> {
    parse_key_header(value)
}

/// A `Retry-After` value as a delay in ms at Unix time `now_ms`, or null.
#[wasm_bindgen(js_name = parseRetryAfter)]
pub fn parse_retry_after_value(value: &str, now_ms: f64) -> Option<f64> {
    parse_retry_after(value, ms(now_ms)).map(|v| opt_ms(Some(v)))
}

/// An HTTP-date as Unix seconds (`now_s`, if given, resolves two-digit
/// years), or null.
#[wasm_bindgen(js_name = parseHttpDate)]
pub fn parse_http_date_value(value: &str, now_s: Option<f64>) -> Option<f64> {
    parse_http_date_at(value, now_s.map(ms)).map(|v| opt_ms(Some(v)))
}

/// The server's hint in packed headers (`name\nvalue\n...`) at Unix ms
/// `wall` (-1 if unknown), or null; with `backoff_ms` >= 0 it also carries
/// `delayWithBackoffMs`, the wait the policy would use.
#[wasm_bindgen(js_name = serverHint)]
pub fn server_hint_of(headers: &str, wall: f64, backoff_ms: f64) -> JsValue {
    let wall = (wall >= 0.0).then(|| WallClock::from_unix_millis(ms(wall)));
    let Some(hint) = server_hint(header_pairs(headers), wall) else {
        return JsValue::NULL;
    };
    let value = js_emit(&hint);
    if backoff_ms >= 0.0 {
        let delay = hint.delay_with_backoff(ms(backoff_ms));
        let object: js_sys::Object = value.clone().into();
        set(
            &object,
            "delayWithBackoffMs",
            &delay.map_or(JsValue::NULL, |d| opt_ms(Some(d)).into()),
        );
    }
    value
}
