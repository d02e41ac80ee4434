//! Raising the package's exceptions from Rust.
//!
//! The exception classes are plain Python (`stoic/_errors.py`), so they can
//! inherit from two bases (`ConfigError(StoicError, ValueError)`) and carry
//! attributes; the package hands them over once as it is imported
//! (`registry::register_host`), and the binding never imports them back.

use pyo3::prelude::*;
use pyo3::types::PyType;
use stoic_core::{ConfigError, ConfigErrorCode, InputError};

use crate::convert::{PyValueError, MAX_DEPTH};
use crate::registry::{host, Host};

/// One of the registered exception classes.
fn error_type<'py>(
    py: Python<'py>,
    pick: fn(&Host) -> &Py<PyType>,
) -> PyResult<Bound<'py, PyType>> {
    Ok(pick(host(py)?).bind(py).clone())
}

fn input_error_type(host: &Host) -> &Py<PyType> {
    &host.input_error
}

fn raise(py: Python<'_>, args: (String, &str, String)) -> PyErr {
    match error_type(py, input_error_type).and_then(|t| t.call1(args)) {
        Ok(value) => PyErr::from_value(value),
        Err(err) => err,
    }
}

/// `stoic.ConfigError(message, code, field, problems)`: the first problem's
/// code and field (already in the Python spelling: the core's schema wrote
/// them in that dialect), every problem as a `ConfigProblem`.
pub(crate) fn config_error(py: Python<'_>, error: &ConfigError) -> PyErr {
    let raised = (|| -> PyResult<PyErr> {
        let problem = error_type(py, |h| &h.config_problem)?;
        let problems = error
            .problems()
            .map(|p| problem.call1((p.code().as_str(), p.field(), p.message())))
            .collect::<PyResult<Vec<_>>>()?;
        let problems = pyo3::types::PyTuple::new(py, problems)?;
        let value = error_type(py, |h| &h.config_error)?.call1((
            error.to_string(),
            error.code().as_str(),
            error.field(),
            problems,
        ))?;
        Ok(PyErr::from_value(value))
    })();
    raised.unwrap_or_else(|err| err)
}

/// `stoic.InputError(message, code)` for a value the binding itself refuses
/// (an unknown code, a wrong length, a call of another policy): the same
/// codes the JS binding uses (`invalid_value`, `misuse`). A `ValueError`
/// subclass, as before.
pub(crate) fn usage_error(code: &str, message: String) -> PyErr {
    usage_error_at(code, "", message)
}

/// A `TypeError` for argument `field`, carrying `code` `wrong_type` and the
/// `field`, as the JavaScript binding's are.
pub(crate) fn type_error(field: &str, message: String) -> PyErr {
    let error = pyo3::exceptions::PyTypeError::new_err(message);
    Python::attach(|py| {
        let value = error.value(py);
        let _code = value.setattr("code", "wrong_type");
        let _field = value.setattr("field", field);
    });
    error
}

/// [`usage_error`] naming the argument (`field`), as JavaScript does.
pub(crate) fn usage_error_at(code: &str, field: &str, message: String) -> PyErr {
    Python::attach(|py| raise(py, (format!("{code}: {message}"), code, field.to_owned())))
}

/// `stoic.InputError(message, code)` for a pure helper's rejected input.
pub(crate) fn input_error(py: Python<'_>, error: &InputError) -> PyErr {
    raise(
        py,
        (error.to_string(), error.code().as_str(), String::new()),
    )
}

/// A Python value that has no JSON form, as a config error (`wrong_type`).
pub(crate) fn value_config_error(py: Python<'_>, error: PyValueError) -> PyErr {
    let (code, message) = match &error {
        PyValueError::Type { type_name, .. } => (
            ConfigErrorCode::WrongType,
            format!("a {type_name} has no JSON form"),
        ),
        PyValueError::NonFinite { .. } => (
            ConfigErrorCode::OutOfRange,
            "not a finite number".to_owned(),
        ),
        PyValueError::BigInt { .. } => (
            ConfigErrorCode::OutOfRange,
            "an integer beyond 64 bits".to_owned(),
        ),
        PyValueError::Surrogate { .. } => (
            ConfigErrorCode::WrongType,
            "a string with a lone surrogate".to_owned(),
        ),
        // Not a config value at all: the input error the helpers raise too.
        PyValueError::TooDeep { .. } | PyValueError::Cyclic { .. } => {
            return value_input_error(py, error)
        }
        PyValueError::Python(_) => (ConfigErrorCode::WrongType, String::new()),
    };
    let field = error.path().to_owned();
    if let PyValueError::Python(err) = error {
        return err;
    }
    config_error(py, &ConfigError::new(code, field, message))
}

/// A Python value that has no JSON form, as an input error for the pure
/// helpers (the codes are the core's `InputErrorCode` strings).
pub(crate) fn value_input_error(py: Python<'_>, error: PyValueError) -> PyErr {
    let (code, message) = match &error {
        PyValueError::Type { type_name, path } => (
            "invalid_json",
            format!("a {type_name} at `{path}` has no JSON form"),
        ),
        PyValueError::NonFinite { path } => (
            "number_out_of_range",
            format!("the number at `{path}` is not finite"),
        ),
        PyValueError::Surrogate { path } => (
            "lone_surrogate",
            format!("the string at `{path}` holds an unpaired surrogate"),
        ),
        PyValueError::BigInt { path } => (
            "number_out_of_range",
            format!(
                "the integer at `{path}` is beyond 64 bits; a double cannot hold it exactly, \
                 so pass it as a string"
            ),
        ),
        PyValueError::TooDeep { path } => (
            "too_deep",
            format!("the value at `{path}` is nested deeper than {MAX_DEPTH} levels"),
        ),
        PyValueError::Cyclic { path } => (
            "cyclic",
            format!("the value at `{path}` contains itself; it has no JSON form"),
        ),
        PyValueError::Python(_) => ("invalid_json", String::new()),
    };
    if let PyValueError::Python(err) = error {
        return err;
    }
    raise(py, (format!("{code}: {message}"), code, String::new()))
}
