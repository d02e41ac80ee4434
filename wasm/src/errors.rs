//! Errors thrown to JavaScript: real `Error` objects with `name`, `code`
//! and `field`, never strings.
//!
//! Every config mistake (a wrong type, an unknown key, a value out of
//! range) is a `ConfigError`, as in Python, with every problem listed. A
//! data value the core cannot read back (a permit, a ticket, a stored
//! entry, a metrics snapshot) is an `InputError` with the problem's code and
//! field, as is caller data a pure helper refuses.

use std::cell::OnceCell;
use std::mem::ManuallyDrop;

use js_sys::{Error, Object, TypeError};
use stoic_core::{ConfigError, InputError};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::object::set;

thread_local! {
    /// The prototypes of the runtime's `ConfigError` and `InputError`
    /// classes, registered once the module is loaded, so that an error made
    /// here is an instance of the class the package exports (its
    /// `constructor`, and the `ConfigError: ...` Node prints for it), not a
    /// plain `Error` that only carries the name. Never dropped (they live
    /// as long as the module), which spares the module a thread-local
    /// destructor's code.
    static PROTOTYPES: OnceCell<ManuallyDrop<(Object, Object)>> = const { OnceCell::new() };
}

/// Registers the prototypes of the runtime's `ConfigError` and `InputError`
/// (the first registration stays: one runtime per module instance).
#[wasm_bindgen(js_name = registerErrorClasses)]
pub fn register_error_classes(config_error: Object, input_error: Object) {
    // `try_with`, not `with`: it cannot fail here (no destructor runs),
    // and `with` would link its panic message.
    let _ = PROTOTYPES.try_with(|cell| cell.set(ManuallyDrop::new((config_error, input_error))));
}

/// An `Error` named `name` (`ConfigError` or `InputError`), of the
/// registered class of that name when there is one.
fn named_error(message: &str, name: &str) -> Error {
    let js = Error::new(message);
    js.set_name(name);
    let _ = PROTOTYPES.try_with(|cell| {
        if let Some(prototypes) = cell.get() {
            let (config, input) = &**prototypes;
            Object::set_prototype_of(&js, if name == "InputError" { input } else { config });
        }
    });
    js
}

fn with_fields(error: &Error, code: &str, field: Option<&str>) -> JsValue {
    let object: &Object = error.unchecked_ref();
    set(object, "code", &JsValue::from_str(code));
    if let Some(field) = field {
        set(object, "field", &JsValue::from_str(field));
    }
    error.clone().into()
}

/// The core's config error: a `ConfigError` whose `code` and `field` are
/// the first problem's (the field already in the caller's spelling: the
/// schema wrote it in the JavaScript dialect), whose message lists every
/// problem, and whose `problems` holds each as `{ code, field, message }`.
pub(crate) fn config_error(error: &ConfigError) -> JsValue {
    let js = named_error(&error.text(), "ConfigError");
    let problems: js_sys::Array = error
        .problems()
        .map(|p| {
            let item = Object::new();
            set(&item, "code", &JsValue::from_str(p.code().as_str()));
            set(&item, "field", &JsValue::from_str(p.field()));
            set(&item, "message", &JsValue::from_str(p.message()));
            JsValue::from(item)
        })
        .collect();
    set(js.unchecked_ref(), "problems", &problems);
    with_fields(&js, error.code().as_str(), Some(error.field()))
}

/// The core's rejection of caller data given to a pure helper.
pub(crate) fn input_error(error: &InputError) -> JsValue {
    named_input_error(error.message(), error.code().as_str(), None)
}

pub(crate) fn named_input_error(message: &str, code: &str, field: Option<&str>) -> JsValue {
    let js = named_error(message, "InputError");
    with_fields(&js, code, field)
}

/// Misuse of the binding itself (an unknown call handle, an unknown code).
pub(crate) fn usage_error(code: &str, text: &str) -> JsValue {
    let js: Error = TypeError::new(text).into();
    with_fields(&js, code, None)
}

/// An argument that is not one of the core's `codes`: a `TypeError` with
/// code `invalid_value` naming `field` (as the JS caller spells it).
#[cfg(feature = "tools")]
pub(crate) fn not_one_of<'a>(
    field: &str,
    got: &str,
    codes: impl IntoIterator<Item = &'a str>,
) -> JsValue {
    let text = stoic_core::schema::not_one_of(field, got, codes);
    let js: Error = TypeError::new(&text).into();
    with_fields(&js, "invalid_value", Some(field))
}
