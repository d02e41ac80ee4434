//! Python values to the core's schema documents and back.
//!
//! The walk itself is [`crate::convert::from_py`] (bounded in depth, cycles
//! refused, ints beyond 64 bits refused); keys and units are the schema's
//! business (`stoic_core::schema`, Python dialect: snake_case keys, float
//! seconds), for configs, for results and for data handed back alike, so
//! nothing here knows a field's name.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyList, PyString};
use stoic_core::schema::{decode, emit, Dialect, Emit, Section, Value};

use crate::convert::{from_py, Numbers};
use crate::errors::{config_error, usage_error_at, value_config_error};

/// Keyword arguments (or any mapping) as a document; none is `{}`.
pub(crate) fn doc_of(py: Python<'_>, given: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    match given {
        None => Ok(Value::Map(Vec::new())),
        Some(obj) => from_py(obj, "", Numbers::Config).map_err(|e| value_config_error(py, e)),
    }
}

/// Keyword arguments read and checked as the section `T`.
pub(crate) fn section_of<T: Section>(
    py: Python<'_>,
    config: Option<&Bound<'_, PyDict>>,
) -> PyResult<T> {
    let doc = doc_of(py, config.map(Bound::as_any))?;
    decode(&doc, Dialect::PYTHON).map_err(|e| config_error(py, &e))
}

/// A document as Python objects (dicts, lists, ints, floats, str, None).
pub(crate) fn py_of<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Int(n) => n.into_pyobject(py)?.into_any(),
        Value::Float(f) => PyFloat::new(py, *f).into_any(),
        Value::Text(s) => PyString::new(py, s).into_any(),
        Value::List(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(py_of(py, item)?)?;
            }
            list.into_any()
        }
        Value::Map(entries) => {
            let dict = PyDict::new(py);
            for (key, item) in entries {
                dict.set_item(key, py_of(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// A value the core hands out (a decision, an event, a status), written by
/// the core in the Python dialect (float seconds under keys without `_ms`).
pub(crate) fn py_emit<'py, T: Emit + ?Sized>(
    py: Python<'py>,
    item: &T,
) -> PyResult<Bound<'py, PyAny>> {
    py_of(py, &emit(item, Dialect::PYTHON))
}

/// A data value the core handed out and gets back (a stored entry, a
/// metrics snapshot, a server hint), read by the core's declaration of it.
///
/// A value that does not fit is an `InputError` (it is not a config) with
/// the first problem's code and field, every problem in the message.
pub(crate) fn data_of<T: Section>(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<T> {
    let doc = doc_of(py, Some(obj))?;
    decode(&doc, Dialect::PYTHON)
        .map_err(|e| usage_error_at(e.code().as_str(), e.field(), e.text()))
}
