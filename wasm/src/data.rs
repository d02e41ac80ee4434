//! Data values the core handed out and gets back (a permit, a ticket, a
//! stored entry, a metrics snapshot), read by the core's declaration of
//! them. Only the standalone parts and the server take such values back.

use stoic_core::schema::{decode, Dialect, Section};
use stoic_core::ConfigError;
use wasm_bindgen::JsValue;

use crate::errors::named_input_error;
use crate::value::value_of;

/// Reads a data value the core handed out and gets back (a permit, a
/// ticket, a stored entry, a metrics snapshot) by the core's declaration
/// of it, in the JavaScript dialect (the core's snake_case accepted).
pub(crate) fn read_data<T: Section>(value: &JsValue) -> Result<T, JsValue> {
    decode(&value_of(value)?, Dialect::JS).map_err(|e| data_error(&e))
}

/// A data value handed back that the core's schema refused: an `InputError`
/// with the first problem's code and field, every problem in the message.
fn data_error(error: &ConfigError) -> JsValue {
    named_input_error(&error.text(), error.code().as_str(), Some(error.field()))
}
