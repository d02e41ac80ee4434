//! The core's host policy (`stoic_core::host`) for the Python runtime: the
//! error-code table and defaults it reads once at import, and the rule each
//! HTTP request follows. The runtime keeps no copy of either.

use crate::ints::http_status;
use crate::text::{LossyText, StrictText};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stoic_core::host::{
    self, HttpRequest, DEFAULT_OPERATION, ERROR_CODES, HTTP_DEFAULTS, KEY_FORM, KEY_HEADER,
    PYTHON_LIBRARIES, UNKNOWN_ERROR_CLASS,
};

/// `{"error_codes": {...}, "unknown_error_class", "key_header", "key_form",
/// "default_operation", "libraries": [...], "http_defaults": {"keys", "server_deduplicates"}}`.
#[pyfunction]
pub(crate) fn host_policy(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let codes = PyDict::new(py);
    for (name, kind) in ERROR_CODES {
        codes.set_item(name, kind.code())?;
    }
    let policy = PyDict::new(py);
    policy.set_item("error_codes", codes)?;
    policy.set_item("unknown_error_class", UNKNOWN_ERROR_CLASS.code())?;
    policy.set_item("key_header", KEY_HEADER)?;
    policy.set_item("key_form", KEY_FORM)?;
    policy.set_item("default_operation", DEFAULT_OPERATION)?;
    policy.set_item("libraries", libraries(py)?)?;
    let defaults = PyDict::new(py);
    defaults.set_item("keys", HTTP_DEFAULTS.auto_keys)?;
    defaults.set_item("server_deduplicates", HTTP_DEFAULTS.server_deduplicates)?;
    policy.set_item("http_defaults", defaults)?;
    Ok(policy)
}

/// The client libraries' exception tables: `[{"library", "modules",
/// "classes": [(name, meaning)], "chain": [(name, kind)]}]`.
fn libraries(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for lib in PYTHON_LIBRARIES {
        let entry = PyDict::new(py);
        entry.set_item("library", lib.library)?;
        entry.set_item("modules", lib.modules.to_vec())?;
        let classes: Vec<(&str, &str)> = lib.classes.iter().map(|(n, m)| (*n, m.code())).collect();
        entry.set_item("classes", classes)?;
        let chain: Vec<(&str, &str)> = lib.chain.iter().map(|(n, k)| (*n, k.code())).collect();
        entry.set_item("chain", chain)?;
        list.append(entry)?;
    }
    Ok(list)
}

/// Whether a response with `status` gets a body excerpt in its observation.
#[pyfunction]
pub(crate) fn wants_excerpt(status: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(host::wants_excerpt(http_status(status)?))
}

/// Whether a response with this `Content-Type` is a stream of events
/// (`text/event-stream`) that a wrapper hands over unread.
#[pyfunction]
pub(crate) fn is_event_stream(content_type: LossyText) -> bool {
    host::is_event_stream(&content_type.0)
}

/// Whether a status an exception carries stands for the server's failure
/// (4xx, 5xx); a 2xx or 3xx on an error is the caller's own error.
#[pyfunction]
pub(crate) fn is_failure_status(status: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(host::is_failure_status(http_status(status)?))
}

/// Whether a response with `status` goes to the caller's validator.
#[pyfunction]
pub(crate) fn validates_status(status: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(host::validates(http_status(status)?))
}

/// How to run one HTTP request: `(operation, scope, safe_to_repeat,
/// auto_key, trust_key)`.
#[pyfunction]
#[pyo3(signature = (method, host, path, *, caller_key, server_deduplicates, auto_keys))]
pub(crate) fn http_plan(
    method: LossyText,
    host: LossyText,
    path: LossyText,
    caller_key: Option<StrictText<'_>>,
    server_deduplicates: bool,
    auto_keys: bool,
) -> (String, String, bool, bool, bool) {
    let plan = host::http_plan(&HttpRequest {
        method: &method.0,
        host: &host.0,
        path: &path.0,
        caller_key: caller_key.map(|k| k.0),
        server_deduplicates,
        auto_keys,
    });
    (
        plan.operation,
        plan.scope,
        plan.safe_to_repeat,
        plan.auto_key,
        plan.trust_key,
    )
}
