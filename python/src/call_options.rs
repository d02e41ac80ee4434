//! A call's option given to `Policy(...)` by mistake. A Policy holds config
//! and shared state; the keywords of `@stoic.retry`, `stoic.retrying` and
//! the HTTP integrations (hooks, a scope, a key) are the call's. The core
//! would only call such a keyword an unknown field (or say that a function
//! has no JSON form), so the binding says where it goes, as the JavaScript
//! runtime does for its own spelling.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use stoic_core::{ConfigError, ConfigErrorCode};

use crate::errors::config_error;

/// Where the call's keywords go: every call entry point takes the same ones.
const HOME: &str = "@stoic.retry(...), stoic.retrying(...) or an HTTP integration \
                    (RetryTransport, RetryAdapter, RetryMiddleware)";

/// The keywords of a call that are not config. `classify` is config too,
/// as data (the status table), so only a callable there is the call's.
const CALL_OPTIONS: [&str; 12] = [
    "on_retry",
    "on_give_up",
    "on",
    "classify",
    "validate",
    "operation",
    "scope",
    "idempotent",
    "key",
    "reraise",
    "clock",
    "policy",
];

/// Refuses the first of `config`'s keywords that belongs to a call.
pub(crate) fn refuse_call_options(
    py: Python<'_>,
    config: Option<&Bound<'_, PyDict>>,
) -> PyResult<()> {
    let Some(config) = config else {
        return Ok(());
    };
    for (key, value) in config.iter() {
        let Ok(name) = key.extract::<&str>() else {
            continue;
        };
        if !CALL_OPTIONS.contains(&name) || (name == "classify" && !value.is_callable()) {
            continue;
        }
        let code = if name == "classify" {
            ConfigErrorCode::WrongType
        } else {
            ConfigErrorCode::UnknownField
        };
        let message = format!(
            "a Policy holds config and shared state, not a call's options; pass {name}= to {HOME}"
        );
        return Err(config_error(py, &ConfigError::new(code, name, message)));
    }
    Ok(())
}
