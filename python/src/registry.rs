//! What the `stoic` package hands the native module once, as it is
//! imported (`stoic/__init__.py` calls `register_host`): the exception
//! classes the binding raises. The binding never
//! imports the package back, so the package is free to import it from
//! anywhere, and the native module has no hidden import order.
//!
//! The module's own `listening` attribute goes the other way: the binding
//! sets it when a policy first gets a listener, and the runtimes read it.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyModule, PyType};

/// The package's pieces, as registered.
pub(crate) struct Host {
    pub(crate) config_error: Py<PyType>,
    pub(crate) config_problem: Py<PyType>,
    pub(crate) input_error: Py<PyType>,
}

static HOST: PyOnceLock<Host> = PyOnceLock::new();
static MODULE: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The registered pieces, or the error saying the package never registered
/// them (the native module imported without its package).
pub(crate) fn host(py: Python<'_>) -> PyResult<&Host> {
    HOST.get(py).ok_or_else(|| {
        pyo3::exceptions::PyRuntimeError::new_err(
            "stoic._stoic is used without the stoic package: import stoic first",
        )
    })
}

/// Keeps the native module, for the attributes the binding sets on it.
pub(crate) fn keep_module(module: &Bound<'_, PyModule>) {
    let _already = MODULE.set(module.py(), module.clone().unbind());
}

/// Sets the module's `listening` attribute: some policy has a listener, so
/// the runtimes deliver events even to calls without `records=`.
pub(crate) fn set_listening(py: Python<'_>) -> PyResult<()> {
    match MODULE.get(py) {
        Some(module) => module.bind(py).setattr("listening", true),
        None => Ok(()),
    }
}

/// Hands the native module the package's exception classes; called once by
/// `stoic/__init__.py` (a second call changes nothing).
#[pyfunction]
#[pyo3(signature = (*, config_error, config_problem, input_error))]
pub(crate) fn register_host(
    py: Python<'_>,
    config_error: Bound<'_, PyType>,
    config_problem: Bound<'_, PyType>,
    input_error: Bound<'_, PyType>,
) {
    let _already = HOST.set(
        py,
        Host {
            config_error: config_error.unbind(),
            config_problem: config_problem.unbind(),
            input_error: input_error.unbind(),
        },
    );
}
