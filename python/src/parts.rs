//! Shared plumbing for the standalone parts (`stoic.parts`): restoring
//! snapshots (`stoic_core::state::write_snapshot` writes them).

use pyo3::prelude::*;
use stoic_core::schema::Section;
use stoic_core::state::read_snapshot;
use stoic_core::{InputError, InputErrorCode};

use crate::errors::input_error;
use crate::text::strict_str;

/// A snapshot as text: `snapshot()`'s text as it is, or the parsed JSON
/// (a dict, as a key-value store's JSON reader hands it back, as JavaScript's
/// `restore()` takes an object) written back with `json.dumps`. Anything
/// `json.dumps` cannot write is an `InputError` `invalid_snapshot`.
pub(crate) fn snapshot_text(py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(text) = state.cast::<pyo3::types::PyString>() {
        return Ok(strict_str(text)?.to_owned());
    }
    let written = py
        .import("json")?
        .call_method1("dumps", (state,))
        .and_then(|text| text.extract::<String>());
    written.map_err(|e| {
        let message = format!("a snapshot is its JSON text or that JSON parsed: {e}");
        input_error(
            py,
            &InputError::new(InputErrorCode::InvalidSnapshot, message),
        )
    })
}

/// Restores a part from `snapshot()` text; a malformed snapshot is an
/// `InputError` (`invalid_snapshot`, as in JavaScript) naming where it went
/// wrong.
pub(crate) fn restore<T: Section>(py: Python<'_>, text: &str) -> PyResult<T> {
    read_snapshot(text).map_err(|e| input_error(py, &e))
}
