//! The core's host policy (`stoic_core::host`) for the JS runtime: the
//! error-code table and defaults it reads once at start, and the rule each
//! HTTP request follows. The runtime keeps no copy of either.

use js_sys::{Array, Object};
use stoic_core::host::{
    http_plan, is_failure_status, validates, wants_excerpt, HttpRequest, DEFAULT_OPERATION,
    ERROR_CODES, FETCH_REFUSALS, HTTP_DEFAULTS, KEY_FORM, KEY_HEADER, UNKNOWN_ERROR_CLASS,
};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::abi::pack_http_plan;
use crate::object::set;

/// `{ errorCodes, unknownErrorClass, keyHeader, keyForm, defaultOperation,
/// fetchRefusals, httpDefaults: { keys, serverDeduplicates } }`.
#[wasm_bindgen(js_name = hostPolicy)]
pub fn host_policy() -> JsValue {
    let codes = Object::new();
    for (name, kind) in ERROR_CODES {
        set(&codes, name, &JsValue::from_str(kind.code()));
    }
    let policy = Object::new();
    set(&policy, "errorCodes", &codes);
    let text = |value: &str| JsValue::from_str(value);
    set(
        &policy,
        "unknownErrorClass",
        &text(UNKNOWN_ERROR_CLASS.code()),
    );
    set(&policy, "keyHeader", &text(KEY_HEADER));
    set(&policy, "keyForm", &text(KEY_FORM));
    set(&policy, "defaultOperation", &text(DEFAULT_OPERATION));
    let refusals: Array = FETCH_REFUSALS.iter().map(|r| text(r)).collect();
    set(&policy, "fetchRefusals", &refusals);
    let defaults = Object::new();
    set(
        &defaults,
        "keys",
        &JsValue::from_bool(HTTP_DEFAULTS.auto_keys),
    );
    set(
        &defaults,
        "serverDeduplicates",
        &JsValue::from_bool(HTTP_DEFAULTS.server_deduplicates),
    );
    set(&policy, "httpDefaults", &defaults);
    policy.into()
}

/// Whether a response with this `Content-Type` is a stream of events
/// (`text/event-stream`) that `createFetch` hands over unread.
#[wasm_bindgen(js_name = isEventStream)]
pub fn is_event_stream_of(content_type: &str) -> bool {
    stoic_core::host::is_event_stream(content_type)
}

/// Whether a response with `status` gets a body excerpt in its observation.
#[wasm_bindgen(js_name = wantsExcerpt)]
pub fn wants_excerpt_of(status: u16) -> bool {
    wants_excerpt(status)
}

/// Whether a status an error carries stands for the server's failure (4xx,
/// 5xx); a 2xx or 3xx on an error is the caller's own error.
#[wasm_bindgen(js_name = isFailureStatus)]
pub fn is_failure_status_of(status: u16) -> bool {
    is_failure_status(status)
}

/// Whether a response with `status` goes to the caller's validator.
#[wasm_bindgen(js_name = validatesStatus)]
pub fn validates_status(status: u16) -> bool {
    validates(status)
}

/// How to run one HTTP request, packed into one string
/// ([`pack_http_plan`]); the runtime unpacks it (`http-plan.ts`).
#[wasm_bindgen(js_name = httpPlan)]
pub fn http_plan_of(
    method: &str,
    host: &str,
    path: &str,
    caller_key: Option<String>,
    server_deduplicates: bool,
    auto_keys: bool,
) -> String {
    pack_http_plan(&http_plan(&HttpRequest {
        method,
        host,
        path,
        caller_key: caller_key.as_deref(),
        server_deduplicates,
        auto_keys,
    }))
}
