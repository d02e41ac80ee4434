//! Text from Python, read one of two ways, because a Python `str` may hold
//! a lone surrogate (what `os.fsdecode` makes of undecodable bytes) that no
//! UTF-8 text can carry:
//! - [`LossyText`]: free text and codes (an error's detail, a header, a
//!   class or kind code), read lossily as JavaScript strings cross into
//!   wasm: the surrogate becomes U+FFFD, and an unknown code still gets the
//!   usual error naming the parameter.
//! - [`StrictText`]: text whose identity matters (a scope or operation
//!   name, an idempotency key, text that is hashed or parsed): replacing a
//!   surrogate would make two different texts one (two scopes sharing a
//!   breaker, two requests one fingerprint), so it is refused with an
//!   `InputError` (`lone_surrogate`), as the core refuses an escaped lone
//!   surrogate in canonical JSON.
//!
//! Either way the caller gets a value or a typed error, never pyo3's
//! untyped `UnicodeEncodeError`.

use pyo3::exceptions::{PyTypeError, PyUnicodeEncodeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use stoic_core::{InputError, InputErrorCode};

use crate::errors::input_error;

/// Text as the caller passed it, lone surrogates replaced.
#[derive(Clone, Debug)]
pub(crate) struct LossyText(pub(crate) String);

impl<'a, 'py> FromPyObject<'a, 'py> for LossyText {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let text = obj.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "expected a str, not {}",
                obj.get_type()
                    .name()
                    .map_or_else(|_| String::from("?"), |n| n.to_string())
            ))
        })?;
        match text.to_str() {
            Ok(valid) => Ok(LossyText(valid.to_owned())),
            Err(_) => {
                // `surrogatepass` writes each lone surrogate as the three
                // bytes UTF-8 would give it (ED A0..BF 80..BF), which
                // become one U+FFFD each, as a JavaScript string's do in
                // `TextEncoder` (pyo3's `to_string_lossy` gives three).
                let bytes = text.call_method1("encode", ("utf-8", "surrogatepass"))?;
                let bytes = bytes.cast::<PyBytes>()?;
                Ok(LossyText(one_replacement_per_surrogate(bytes.as_bytes())))
            }
        }
    }
}

/// UTF-8 with lone surrogates in their three-byte form, as text: each
/// surrogate one U+FFFD.
fn one_replacement_per_surrogate(mut rest: &[u8]) -> String {
    let mut out = String::with_capacity(rest.len());
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{FFFD}');
                let surrogate = matches!(after, [0xED, 0xA0..=0xBF, 0x80..=0xBF, ..]);
                let skip = if surrogate {
                    3
                } else {
                    error.error_len().unwrap_or(after.len())
                };
                rest = after.get(skip..).unwrap_or_default();
            }
        }
    }
}

/// Text as the caller passed it, borrowed; a lone surrogate is an error.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StrictText<'a>(pub(crate) &'a str);

impl<'a> FromPyObject<'a, '_> for StrictText<'a> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, '_, PyAny>) -> PyResult<Self> {
        // pyo3's own reading, borrowed; a wrong type stays its TypeError,
        // which it prefixes with the argument's name.
        let py = obj.py();
        <&'a str>::extract(obj).map(StrictText).map_err(|error| {
            if error.is_instance_of::<PyUnicodeEncodeError>(py) {
                lone_surrogate(py)
            } else {
                error
            }
        })
    }
}

/// The text of a `str`, or the `lone_surrogate` error.
pub(crate) fn strict_str<'a>(text: &'a Bound<'_, PyString>) -> PyResult<&'a str> {
    text.to_str().map_err(|_| lone_surrogate(text.py()))
}

fn lone_surrogate(py: Python<'_>) -> PyErr {
    input_error(
        py,
        &InputError::new(
            InputErrorCode::LoneSurrogate,
            "the text holds an unpaired surrogate (as os.fsdecode makes of undecodable bytes), \
             which no UTF-8 text can carry; pass valid Unicode",
        ),
    )
}
