//! Writing plain JavaScript objects, for the modules that build errors and
//! results: below both `errors` and `value`, which use it and each other
//! only one way (`value` reports through `errors`).

use js_sys::{Object, Reflect};
use wasm_bindgen::JsValue;

/// Sets `object[key] = value` on a plain object (cannot fail there).
pub(crate) fn set(object: &Object, key: &str, value: &JsValue) {
    // Defining a data property on a plain, extensible object never throws.
    let _defined = Reflect::set(object, &JsValue::from_str(key), value);
}
