//! JavaScript values <-> the core's serde wire form, through JSON text.
//!
//! One serde backend (serde_json over text) serves every type in both
//! directions, which keeps the module small: a second backend (a
//! `serde_json::Value` or serde-wasm-bindgen deserializer) would duplicate
//! every type's (de)serialization code. Objects go out as text whose keys
//! are camelCased, then `JSON.parse`; objects come in by a walk that writes
//! JSON text with snake_case keys and drops `undefined` members (a
//! TypeScript caller spreading optional options means "absent" by them,
//! which serde-wasm-bindgen would read as `null`).

use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};

use crate::case::{camel_to_snake, snake_to_camel};
use stoic_core::{InputError, InputErrorCode};

use crate::errors::{data_error, input_error, shape_error};
use crate::value::{items, own_keys, MAX_DEPTH};

/// The largest integer a JavaScript number holds exactly.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// Writes a JS value as JSON text with object keys in snake_case. `path`
/// collects the caller's spelling of the keys walked, for errors.
pub(crate) fn to_json_text(
    value: &JsValue,
    path: &mut Vec<String>,
    ancestors: &mut Vec<JsValue>,
    out: &mut String,
) -> Result<(), JsValue> {
    // Bounded before it recurses: a cyclic or absurdly deep value must not
    // overflow the module's stack (which would poison the instance).
    if value.is_object() {
        if path.len() >= MAX_DEPTH {
            return Err(input_error(&InputError::new(
                InputErrorCode::TooDeep,
                format!("the value is nested deeper than {MAX_DEPTH} levels"),
            )));
        }
        if ancestors.iter().any(|x| Object::is(x, value)) {
            return Err(input_error(&InputError::new(
                InputErrorCode::Cyclic,
                format!("the value at `{}` contains itself", path.join(".")),
            )));
        }
        ancestors.push(value.clone());
        let result = to_json_inner(value, path, ancestors, out);
        ancestors.pop();
        return result;
    }
    to_json_inner(value, path, ancestors, out)
}

fn to_json_inner(
    value: &JsValue,
    path: &mut Vec<String>,
    ancestors: &mut Vec<JsValue>,
    out: &mut String,
) -> Result<(), JsValue> {
    if value.is_null() || value.is_undefined() {
        out.push_str("null");
    } else if let Some(b) = value.as_bool() {
        out.push_str(if b { "true" } else { "false" });
    } else if let Some(n) = value.as_f64() {
        push_number(n, path, out)?;
    } else if let Some(s) = value.as_string() {
        push_string(&s, out);
    } else if value.is_bigint() {
        if let Ok(n) = u64::try_from(value.clone()) {
            out.push_str(&n.to_string());
        } else if let Ok(n) = i64::try_from(value.clone()) {
            out.push_str(&n.to_string());
        } else {
            return Err(shape_error(&path.join("."), "a BigInt within 64 bits"));
        }
    } else if Array::is_array(value) {
        let array: &Array = value.unchecked_ref();
        out.push('[');
        for (i, item) in items(array)?.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            path.push(i.to_string());
            to_json_text(item, path, ancestors, out)?;
            path.pop();
        }
        out.push(']');
    } else if value.is_object() && !value.is_function() {
        push_object(value.unchecked_ref(), path, ancestors, out)?;
    } else {
        return Err(shape_error(&path.join("."), "JSON-like data"));
    }
    Ok(())
}

fn push_object(
    object: &Object,
    path: &mut Vec<String>,
    ancestors: &mut Vec<JsValue>,
    out: &mut String,
) -> Result<(), JsValue> {
    let mut seen: Vec<String> = Vec::new();
    out.push('{');
    for name in own_keys(object)? {
        let member = Reflect::get(object, &JsValue::from_str(&name))?;
        let snake = camel_to_snake(&name);
        if member.is_undefined() {
            continue;
        }
        path.push(name);
        if seen.contains(&snake) {
            return Err(shape_error(
                &path.join("."),
                "each key once (it is also given in the other case)",
            ));
        }
        if !seen.is_empty() {
            out.push(',');
        }
        push_string(&snake, out);
        out.push(':');
        to_json_text(&member, path, ancestors, out)?;
        path.pop();
        seen.push(snake);
    }
    out.push('}');
    Ok(())
}

/// Integers are written as integers, so integer fields accept them; other
/// finite numbers in JavaScript's own shortest round-trip form.
fn push_number(n: f64, path: &[String], out: &mut String) -> Result<(), JsValue> {
    if !n.is_finite() {
        return Err(shape_error(&path.join("."), "a finite number"));
    }
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE {
        // Exact: a safe integer converts without loss.
        #[allow(clippy::cast_possible_truncation)]
        out.push_str(&(n as i64).to_string());
    } else {
        let text: String = js_sys::Number::from(n)
            .to_string_with_radix(10)
            .map_or_else(|_| String::from("0"), String::from);
        out.push_str(&text);
    }
    Ok(())
}

/// A JSON string literal.
fn push_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The JS value as JSON text (snake_case keys).
pub(crate) fn json_of(value: &JsValue) -> Result<String, JsValue> {
    let mut out = String::new();
    to_json_text(value, &mut Vec::new(), &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// Rewrites the object keys of compact JSON text (as serde_json writes it)
/// from snake_case to camelCase. A key is a string followed by `:`.
pub(crate) fn camelize_keys(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('"') {
        let (before, from_quote) = rest.split_at(start);
        out.push_str(before);
        let body = from_quote.get(1..).unwrap_or_default();
        let end = string_end(body);
        let (content, after) = body.split_at(end);
        let after = after.get(1..).unwrap_or_default();
        out.push('"');
        if after.starts_with(':') {
            out.push_str(&snake_to_camel(content));
        } else {
            out.push_str(content);
        }
        out.push('"');
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The byte index of the closing quote of a string body (escapes skipped),
/// or its length if unterminated.
fn string_end(body: &str) -> usize {
    let mut escaped = false;
    for (i, b) in body.bytes().enumerate() {
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') => escaped = true,
            (false, b'"') => return i,
            _ => {}
        }
    }
    body.len()
}

/// A core value (its serde wire form) as a JS object with camelCase keys.
pub(crate) fn serialize<T: serde::Serialize>(value: &T) -> JsValue {
    let text = serde_json::to_string(value).unwrap_or_else(|_| String::from("null"));
    JSON::parse(&camelize_keys(&text)).unwrap_or(JsValue::NULL)
}

/// Sets `object[key] = value` on a plain object (cannot fail there).
pub(crate) fn set(object: &Object, key: &str, value: &JsValue) {
    // Defining a data property on a plain, extensible object never throws.
    let _defined = Reflect::set(object, &JsValue::from_str(key), value);
}

/// The caller's spelling of `snake_path` (a dotted path in the core's
/// snake_case): each segment is looked up among the keys of `original`, and
/// camelCased where the caller's object has no such member.
pub(crate) fn user_field(original: &JsValue, snake_path: &str) -> String {
    if snake_path.is_empty() {
        return String::new();
    }
    let mut current = original.clone();
    let mut out: Vec<String> = Vec::new();
    for segment in snake_path.split('.') {
        let found = if current.is_object() {
            let object: &Object = current.unchecked_ref();
            Object::keys(object)
                .iter()
                .filter_map(|k| k.as_string())
                .find(|k| k == segment || camel_to_snake(k) == segment)
        } else {
            None
        };
        match found {
            Some(key) => {
                current =
                    Reflect::get(&current, &JsValue::from_str(&key)).unwrap_or(JsValue::UNDEFINED);
                out.push(key);
            }
            None => {
                current = JsValue::UNDEFINED;
                out.push(snake_to_camel(segment));
            }
        }
    }
    out.join(".")
}

/// Reads a data value the core handed out (a permit, a ticket, a stored
/// entry, a metrics snapshot; camelCase or snake_case keys) as a core type.
/// Plain serde_json, no field paths: the value is machine-made, and path
/// tracking would compile every data type's parse twice.
pub(crate) fn read_part<T: serde::de::DeserializeOwned>(value: &JsValue) -> Result<T, JsValue> {
    let text = json_of(value)?;
    serde_json::from_str(&text).map_err(|e| {
        let problem =
            stoic_core::ConfigError::new(stoic_core::ConfigErrorCode::WrongType, "", e.to_string());
        data_error(&problem, value)
    })
}

#[cfg(test)]
mod tests {
    use super::camelize_keys;

    #[test]
    fn only_keys_change() {
        assert_eq!(
            camelize_keys(r#"{"delay_ms":1,"matched":"status_503","a_b":{"x_y":"p_q\":"}}"#),
            r#"{"delayMs":1,"matched":"status_503","aB":{"xY":"p_q\":"}}"#
        );
        assert_eq!(
            camelize_keys(r#"["a_b",{"c_d":[]}]"#),
            r#"["a_b",{"cD":[]}]"#
        );
    }
}
