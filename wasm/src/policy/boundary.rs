//! The errors the misuse codes stand for. Hot-path methods answer with a
//! plain number ([`crate::abi`]: `UNKNOWN_CALL`, `INVALID_CODE`, `MISUSE`,
//! `RAISED_SUCCESS`, `REJECTED_SUCCESS`), and the runtime asks here for the
//! error to throw when one comes back.

use stoic_core::{Class, InputError, InputErrorCode, Outcome};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::abi::{INVALID_CODE, MISUSE, RAISED_SUCCESS, REJECTED_SUCCESS, UNKNOWN_CALL};
use crate::errors::{input_error, named_input_error, usage_error};

/// A closed or unknown call handle.
pub(super) fn unknown_call() -> JsValue {
    usage_error("unknown_call", "this call handle is closed or unknown")
}

/// The error a misuse code stands for (`TypeError`, code `unknown_call` or
/// `invalid_value`; `InputError`, code `misuse` or `not_a_failure`), or
/// `undefined` for any other number.
#[wasm_bindgen(js_name = boundaryError)]
pub fn boundary_error(code: u32) -> JsValue {
    match code {
        UNKNOWN_CALL => unknown_call(),
        INVALID_CODE => usage_error("invalid_value", "unknown network error kind or class"),
        MISUSE => input_error(&InputError::new(
            InputErrorCode::Misuse,
            "a call's steps were taken out of order: ask before each attempt, report its outcome, then ask again",
        )),
        RAISED_SUCCESS => not_a_failure(Outcome::raised(Class::Success), "classify"),
        REJECTED_SUCCESS => not_a_failure(Outcome::rejected(Class::Success), "validate"),
        _ => JsValue::UNDEFINED,
    }
}

/// The core's refusal of `outcome`, named by the option that answered it.
fn not_a_failure(outcome: Outcome<'_>, field: &str) -> JsValue {
    match outcome.check() {
        Err(error) => named_input_error(error.message(), error.code().as_str(), Some(field)),
        Ok(()) => JsValue::UNDEFINED,
    }
}
