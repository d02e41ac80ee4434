//! Shared plumbing for the standalone parts (`stoic.parts`): snapshots.

use pyo3::prelude::*;
use stoic_core::{InputError, InputErrorCode};

use crate::errors::input_error;

/// Serializes a part's whole state as JSON text.
pub(crate) fn snapshot<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Restores a part from `snapshot()` text; a malformed snapshot is an
/// `InputError` (`invalid_snapshot`, as in JavaScript) naming where it went
/// wrong.
pub(crate) fn restore<T: serde::de::DeserializeOwned>(py: Python<'_>, text: &str) -> PyResult<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let message = format!("at `{}`: {}", e.path(), e.inner());
        input_error(
            py,
            &InputError::new(InputErrorCode::InvalidSnapshot, message),
        )
    })
}
