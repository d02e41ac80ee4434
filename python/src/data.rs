//! Data the binding handed out and gets back (a stored idempotency entry, a
//! metrics snapshot, a server hint), read as core types.
//!
//! Configs go through the core's schema (`stoic_core::schema`, Python
//! dialect). These data types are still read through their serde form:
//! Python writes their durations and instants as float seconds under the
//! core's key minus `_ms`, so when serde reports `x` unknown while naming
//! `x_ms` among the fields it expects (or `x_ms` missing while `x` is
//! present), the key is renamed, the value converted, and the parse tried
//! again. Moving these types onto the schema retires this file.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use stoic_core::{ConfigError, ConfigErrorCode};

use crate::convert::seconds_json;

/// More renames than any config has duration fields: a bound, not a limit.
const MAX_RENAMES: usize = 256;

/// Parses `value` with `parse`, renaming seconds keys as the core asks.
/// Errors name the field in the Python spelling.
pub(crate) fn parse_with<T>(
    mut value: Value,
    parse: impl Fn(&Value) -> Result<T, ConfigError>,
) -> Result<T, ConfigError> {
    reject_ms_keys(&value, "")?;
    for _ in 0..MAX_RENAMES {
        match parse(&value) {
            Ok(parsed) => return Ok(parsed),
            Err(error) => {
                if !rename(&mut value, &error) {
                    return Err(python_spelling(&error));
                }
            }
        }
    }
    Err(ConfigError::new(
        ConfigErrorCode::InvalidValue,
        "",
        "too many duration fields",
    ))
}

/// Any core data type from Python-spelled keys (metrics snapshots, ...),
/// with the core's codes and field paths for a malformed one.
pub(crate) fn read<T: DeserializeOwned>(value: Value) -> Result<T, ConfigError> {
    parse_with(value, |v| stoic_core::config::deserialize_part::<T, _>(v))
}

/// Durations are seconds in Python: a key spelled the core's way is a
/// mistake worth naming (250 "ms" read as 250 s would be a bad surprise).
fn reject_ms_keys(value: &Value, path: &str) -> Result<(), ConfigError> {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let here = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if let Some(stem) = key.strip_suffix("_ms") {
                    return Err(ConfigError::new(
                        ConfigErrorCode::UnknownField,
                        python_path(&here),
                        format!(
                            "durations are float seconds in Python: write `{stem}`, not `{key}`"
                        ),
                    ));
                }
                reject_ms_keys(item, &here)?;
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| reject_ms_keys(item, &format!("{path}[{i}]"))),
        _ => Ok(()),
    }
}

/// Renames the key an error points at, if the core spells it with `_ms`.
///
/// Inside internally tagged enums serde loses the path (it buffers the
/// variant first), so when the path does not lead to the key, the object
/// is searched for below the deepest part of the path that exists: one
/// holding `x` but not `x_ms`, whose other keys the error lists as
/// expected (under their own name or with `_ms`).
fn rename(value: &mut Value, error: &ConfigError) -> bool {
    let field = error.field();
    let (parent, key) = match field.rsplit_once('.') {
        Some((parent, key)) => (parent, key),
        None => ("", field),
    };
    let (from, to, expected) = match error.code() {
        ConfigErrorCode::UnknownField => {
            let to = format!("{key}_ms");
            let expected = expected_fields(error.message());
            if !expected.contains(&to) {
                return false;
            }
            (key.to_owned(), to, Some(expected))
        }
        ConfigErrorCode::Required => match key.strip_suffix("_ms") {
            Some(stem) => (stem.to_owned(), key.to_owned(), None),
            None => return false,
        },
        _ => return false,
    };
    let fits = |map: &Map<String, Value>| {
        map.contains_key(&from)
            && !map.contains_key(&to)
            && expected.as_ref().is_none_or(|names| {
                map.keys().all(|k| {
                    *k == from
                        || k == "kind"
                        || names.contains(k)
                        || names.contains(&format!("{k}_ms"))
                })
            })
    };
    let exact = matches!(lookup(value, parent), Some(Value::Object(map)) if fits(map));
    let target = if exact {
        lookup(value, parent).and_then(Value::as_object_mut)
    } else {
        deepest(value, parent).and_then(|start| find(start, &fits))
    };
    let Some(map) = target else {
        return false;
    };
    let Some(seconds) = map.remove(&from) else {
        return false;
    };
    map.insert(to, seconds_json(seconds));
    true
}

/// The backticked names after "expected" in a serde unknown-field message.
fn expected_fields(message: &str) -> Vec<String> {
    let Some((_, list)) = message.split_once("expected") else {
        return Vec::new();
    };
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The deepest value along `path` that exists.
fn deepest<'v>(value: &'v mut Value, path: &str) -> Option<&'v mut Value> {
    let segments: Vec<&str> = path.split('.').filter(|s| !s.is_empty()).collect();
    let prefix = |depth: usize| {
        segments
            .iter()
            .take(depth)
            .copied()
            .collect::<Vec<_>>()
            .join(".")
    };
    let mut probe = value.clone();
    let depth = (1..=segments.len())
        .rev()
        .find(|&depth| lookup(&mut probe, &prefix(depth)).is_some())
        .unwrap_or(0);
    if depth == 0 {
        Some(value)
    } else {
        lookup(value, &prefix(depth))
    }
}

/// The first object (depth first) below `value` that `fits`.
fn find<'v>(
    value: &'v mut Value,
    fits: &dyn Fn(&Map<String, Value>) -> bool,
) -> Option<&'v mut Map<String, Value>> {
    let here = match value {
        Value::Object(map) => fits(map),
        _ => false,
    };
    if here {
        return value.as_object_mut();
    }
    match value {
        Value::Object(map) => map.values_mut().find_map(|v| find(v, fits)),
        Value::Array(items) => items.iter_mut().find_map(|v| find(v, fits)),
        _ => None,
    }
}

/// The value at a dotted path (`a.b[2].c`), as serde_path_to_error writes it.
fn lookup<'v>(value: &'v mut Value, path: &str) -> Option<&'v mut Value> {
    if path.is_empty() {
        return Some(value);
    }
    let mut here = value;
    for segment in path.split('.') {
        let (name, indexes) = match segment.find('[') {
            Some(at) => segment.split_at(at),
            None => (segment, ""),
        };
        if !name.is_empty() {
            here = here.as_object_mut()?.get_mut(name)?;
        }
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            let index: usize = index.trim_end_matches(']').parse().ok()?;
            here = here.as_array_mut()?.get_mut(index)?;
        }
    }
    Some(here)
}

/// A dotted core path in the Python spelling (`backoff.base_ms` ->
/// `backoff.base`).
pub(crate) fn python_path(path: &str) -> String {
    path.split('.')
        .map(|segment| segment.strip_suffix("_ms").unwrap_or(segment))
        .collect::<Vec<_>>()
        .join(".")
}

/// The same error with its field (and the field names its message quotes,
/// such as serde's "expected one of `base_ms`, ...") in the Python spelling.
pub(crate) fn python_spelling(error: &ConfigError) -> ConfigError {
    let message = error.message().replace("_ms`", "`");
    ConfigError::new(error.code(), python_path(error.field()), message)
}
