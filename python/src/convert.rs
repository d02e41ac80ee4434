//! Python values to the core's documents (`stoic_core::schema::Value`:
//! bounded in depth, cycles refused), and the clock's seconds <-> the core's
//! milliseconds for the numbers that cross as arguments (`now`, `duration`).
//!
//! Documents (configs, results, data handed back) are the schema's
//! business (`crate::document`): the core's declaration of each field says
//! which are durations, so nothing here knows a field's name.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use stoic_core::schema::Value;

/// Float seconds to whole milliseconds, rounded to the nearest (so a time
/// that went through `ms / 1000` comes back exact). Negative and NaN clamp
/// to 0, huge values to `u64::MAX`: the core clamps time, it never errors.
pub(crate) fn secs_to_ms(secs: f64) -> u64 {
    let ms = (secs * 1000.0).round();
    if ms.is_nan() || ms <= 0.0 {
        0
    } else if ms >= 18_446_744_073_709_551_615.0 {
        u64::MAX
    } else {
        // In range and integral: the cast is exact.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let whole = ms as u64;
        whole
    }
}

/// Milliseconds to float seconds (`ms as f64 / 1000`, the one formula every
/// output uses, so tests can compare floats exactly).
#[allow(clippy::cast_precision_loss)]
pub(crate) fn ms_to_secs(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

/// Why a Python value has no JSON form.
#[derive(Debug)]
pub(crate) enum PyValueError {
    /// A type JSON cannot hold (a set, an object, ...), at this path.
    Type { path: String, type_name: String },
    /// A float that is not finite.
    NonFinite { path: String },
    /// A string with an unpaired surrogate.
    Surrogate { path: String },
    /// An integer beyond 64 bits.
    BigInt { path: String },
    /// Nested deeper than [`MAX_DEPTH`] levels.
    TooDeep { path: String },
    /// A list or dict that contains itself.
    Cyclic { path: String },
    /// A Python error raised while reading the value.
    Python(PyErr),
}

impl PyValueError {
    /// The dotted path of the offending value.
    pub(crate) fn path(&self) -> &str {
        match self {
            PyValueError::Type { path, .. }
            | PyValueError::NonFinite { path }
            | PyValueError::Surrogate { path }
            | PyValueError::TooDeep { path }
            | PyValueError::BigInt { path }
            | PyValueError::Cyclic { path } => path,
            PyValueError::Python(_) => "",
        }
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// How [`from_py`] treats numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Numbers {
    /// As they are (canonical JSON, idempotency key arguments).
    Plain,
    /// A config: as `Plain`, and an int key is its decimal text (a status
    /// table reads `{404: "transient"}` as Python callers write it).
    Config,
}

/// A Python value as a document: dicts (string keys, in key order), lists,
/// tuples, strings, ints, floats, bools and None. Integers beyond 64 bits
/// are kept (as a double) only where a double says exactly that integer; the
/// others are refused, since as a double they would stand for many integers
/// at once.
pub(crate) fn from_py(
    obj: &Bound<'_, PyAny>,
    path: &str,
    numbers: Numbers,
) -> Result<Value, PyValueError> {
    from_py_within(obj, path, numbers, &mut Vec::new())
}

/// The most nesting a Python value may have: the core's own bound for JSON
/// (a config is a few levels deep; anything near this is a mistake).
pub(crate) const MAX_DEPTH: usize = stoic_core::key::MAX_DEPTH;

/// [`from_py`] with the containers being walked (`open`, by address): the
/// walk is bounded before it recurses, so a cyclic or absurdly deep value is
/// an error, never a stack overflow.
fn from_py_within(
    obj: &Bound<'_, PyAny>,
    path: &str,
    numbers: Numbers,
    open: &mut Vec<usize>,
) -> Result<Value, PyValueError> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::Int(i128::from(u)));
        }
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::Int(i128::from(i)));
        }
        // Beyond 64 bits: kept only where a double says exactly this integer
        // (its value, or its RFC 8785 form), as the core's own rule for
        // integer literals; any other would stand for several integers.
        let big = || PyValueError::BigInt {
            path: path.to_owned(),
        };
        let f: f64 = obj.extract().map_err(|_| big())?;
        let exact = obj.eq(f).unwrap_or(false);
        let written = obj.str().ok().map(|t| t.to_string());
        if exact || written.is_some() && stoic_core::key::es6_number(f) == written {
            return float(f, path);
        }
        return Err(big());
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return float(f.value(), path);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return match s.to_str() {
            Ok(text) => Ok(Value::Text(text.to_owned())),
            Err(_) => Err(PyValueError::Surrogate {
                path: path.to_owned(),
            }),
        };
    }
    let is_container = obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>();
    if is_container {
        let address = obj.as_ptr() as usize;
        if open.contains(&address) {
            return Err(PyValueError::Cyclic {
                path: path.to_owned(),
            });
        }
        if open.len() >= MAX_DEPTH {
            return Err(PyValueError::TooDeep {
                path: path.to_owned(),
            });
        }
        open.push(address);
        let value = container(obj, path, numbers, open);
        open.pop();
        return value;
    }
    let type_name = obj
        .get_type()
        .name()
        .map_or_else(|_| "object".to_owned(), |n| n.to_string());
    Err(PyValueError::Type {
        path: path.to_owned(),
        type_name,
    })
}

/// A dict, list or tuple, its items walked one level deeper. A dict's
/// entries come in key order, a key written twice (`404` and `"404"` in a
/// config) keeping its last value.
fn container(
    obj: &Bound<'_, PyAny>,
    path: &str,
    numbers: Numbers,
    open: &mut Vec<usize>,
) -> Result<Value, PyValueError> {
    if let Ok(dict) = obj.cast::<PyDict>() {
        let mut map = BTreeMap::new();
        for (key, item) in dict.iter() {
            let int_key = numbers == Numbers::Config
                && key.cast::<pyo3::types::PyInt>().is_ok()
                && key.cast::<pyo3::types::PyBool>().is_err();
            let key_text: String = if int_key {
                key.str().map_err(PyValueError::Python)?.to_string()
            } else {
                let Ok(key) = key.cast::<PyString>() else {
                    return Err(PyValueError::Type {
                        path: path.to_owned(),
                        type_name: "dict with a non-string key".to_owned(),
                    });
                };
                key.to_str()
                    .map_err(|_| PyValueError::Surrogate {
                        path: path.to_owned(),
                    })?
                    .to_owned()
            };
            let key = key_text.as_str();
            let here = join(path, key);
            let value = from_py_within(&item, &here, numbers, open)?;
            map.insert(key.to_owned(), value);
        }
        return Ok(Value::Map(map.into_iter().collect()));
    }
    // A list or a tuple (the only other containers `from_py_within` passes).
    let mut items = Vec::new();
    for (index, item) in obj.try_iter().map_err(PyValueError::Python)?.enumerate() {
        let item = item.map_err(PyValueError::Python)?;
        let here = format!("{path}[{index}]");
        items.push(from_py_within(&item, &here, numbers, open)?);
    }
    Ok(Value::List(items))
}

fn float(f: f64, path: &str) -> Result<Value, PyValueError> {
    if f.is_finite() {
        Ok(Value::Float(f))
    } else {
        Err(PyValueError::NonFinite {
            path: path.to_owned(),
        })
    }
}
