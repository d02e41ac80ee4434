//! Shared plumbing for the standalone parts (`stoic.parts`): building a
//! section of the engine config from Python keywords, and snapshots.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use stoic_core::{Config, ConfigError, ConfigErrorCode};

use crate::convert::{from_py, Numbers};
use crate::errors::{config_error, value_config_error};
use crate::schema;

/// The engine config with section `name` set from Python keywords, parsed
/// and validated by the core as inside a full config.
pub(crate) fn section(
    py: Python<'_>,
    name: &str,
    config: Option<&Bound<'_, PyDict>>,
) -> PyResult<Config> {
    let doc = match config {
        Some(dict) => {
            from_py(dict.as_any(), "", Numbers::Plain).map_err(|e| value_config_error(py, e))?
        }
        None => Value::Object(serde_json::Map::new()),
    };
    schema::section(name, doc).map_err(|e| config_error(py, &e))
}

/// Serializes a part's whole state as JSON text.
pub(crate) fn snapshot<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Restores a part from `snapshot()` text; a malformed snapshot is a
/// `ConfigError` (`invalid_json`) naming where it went wrong.
pub(crate) fn restore<T: serde::de::DeserializeOwned>(py: Python<'_>, text: &str) -> PyResult<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let err = ConfigError::new(
            ConfigErrorCode::InvalidJson,
            e.path().to_string(),
            e.inner().to_string(),
        );
        config_error(py, &err)
    })
}
