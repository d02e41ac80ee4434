//! Free text from Python (an error's detail for the observation): read
//! lossily, as JavaScript strings cross into wasm, so a lone surrogate
//! becomes U+FFFD instead of an untyped `UnicodeEncodeError` mid-call.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

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
        Ok(LossyText(text.to_string_lossy().into_owned()))
    }
}
