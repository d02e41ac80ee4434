//! JavaScript values to the core's schema documents and back.
//!
//! The walk is bounded before it recurses (depth, cycles), takes only plain
//! data (objects, arrays, strings, numbers, booleans, null, 64-bit BigInts)
//! and keeps keys exactly as written: spelling is the schema's business
//! (`stoic_core::schema`), not the binding's.

use js_sys::{Array, Object, Reflect};
use stoic_core::record::LogRecord;
use stoic_core::schema::{decode, emit_json, listed, Dialect, Emit, Section, Value};
use stoic_core::{ConfigError, ConfigErrorCode, InputError, InputErrorCode};
use wasm_bindgen::{JsCast, JsValue};

use crate::errors::{config_error, input_error};

/// Nesting deeper than any config: a bound that keeps the stack safe.
pub(crate) const MAX_DEPTH: usize = stoic_core::key::MAX_DEPTH;

/// The largest integer a JavaScript number holds exactly.
pub(crate) const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
#[allow(clippy::cast_precision_loss)] // 2^53 - 1 is exact in an f64
const MAX_SAFE: f64 = MAX_SAFE_INTEGER as f64;

/// `value` as a document. `undefined` members are absent, as in JSON.
///
/// # Errors
/// `InputError` `too_deep` / `cyclic`; `ConfigError` `wrong_type` (a
/// function, a symbol, a `Map`, ...) or `out_of_range` (a BigInt beyond 64
/// bits), naming the path as the caller wrote it.
pub(crate) fn value_of(value: &JsValue) -> Result<Value, JsValue> {
    let mut walk = Walk {
        path: Vec::new(),
        ancestors: Vec::new(),
    };
    walk.value(value)
}

struct Walk {
    path: Vec<String>,
    ancestors: Vec<JsValue>,
}

impl Walk {
    /// The path so far, `a.b.0`.
    fn dotted(&self) -> String {
        listed(&mut self.path.iter().map(String::as_str), "", ".")
    }

    fn refuse(&self, code: ConfigErrorCode, message: &str) -> JsValue {
        config_error(&ConfigError::new(code, self.dotted(), message))
    }

    fn value(&mut self, value: &JsValue) -> Result<Value, JsValue> {
        if value.is_null() || value.is_undefined() {
            return Ok(Value::Null);
        }
        if let Some(b) = value.as_bool() {
            return Ok(Value::Bool(b));
        }
        if let Some(n) = value.as_f64() {
            return Ok(number(n));
        }
        if let Some(s) = value.as_string() {
            return Ok(Value::Text(s));
        }
        if value.is_bigint() {
            return match (u64::try_from(value.clone()), i64::try_from(value.clone())) {
                (Ok(n), _) => Ok(Value::Int(i128::from(n))),
                (_, Ok(n)) => Ok(Value::Int(i128::from(n))),
                _ => Err(self.refuse(ConfigErrorCode::OutOfRange, "a BigInt beyond 64 bits")),
            };
        }
        if !value.is_object() || value.is_function() {
            let kind = if value.is_function() {
                "a function"
            } else {
                "a symbol"
            };
            return Err(self.refuse(
                ConfigErrorCode::WrongType,
                &format!("expected plain data, got {kind}"),
            ));
        }
        if self.ancestors.len() >= MAX_DEPTH {
            return Err(input_error(&InputError::new(
                InputErrorCode::TooDeep,
                format!(
                    "the value at `{}` is nested deeper than {MAX_DEPTH} levels",
                    self.dotted()
                ),
            )));
        }
        if self.ancestors.iter().any(|a| Object::is(a, value)) {
            return Err(input_error(&InputError::new(
                InputErrorCode::Cyclic,
                format!(
                    "the value at `{}` contains itself; it has no JSON form",
                    self.dotted()
                ),
            )));
        }
        self.ancestors.push(value.clone());
        let result = if Array::is_array(value) {
            self.list(value.unchecked_ref())
        } else if is_plain(value)? {
            self.object(value.unchecked_ref())
        } else {
            Err(self.refuse(
                ConfigErrorCode::WrongType,
                "expected plain data (an object literal), got an instance of a class",
            ))
        };
        self.ancestors.pop();
        result
    }

    fn list(&mut self, array: &Array) -> Result<Value, JsValue> {
        let members = items(array)?;
        let mut items = Vec::with_capacity(members.len());
        for (i, item) in members.iter().enumerate() {
            self.path.push(i.to_string());
            let item = self.value(item);
            self.path.pop();
            items.push(item?);
        }
        Ok(Value::List(items))
    }

    fn object(&mut self, object: &Object) -> Result<Value, JsValue> {
        let mut entries = Vec::new();
        for name in own_keys(object)? {
            let member = Reflect::get(object, &JsValue::from_str(&name))?;
            if member.is_undefined() {
                continue;
            }
            self.path.push(name.clone());
            let item = self.value(&member);
            self.path.pop();
            entries.push((name, item?));
        }
        Ok(Value::Map(entries))
    }
}

/// An object's own string keys. Through `Reflect` (which reports a throw
/// as an error) rather than `Object.keys` (a throwing Proxy trap would
/// unwind through the module and leave the binding's objects borrowed).
pub(crate) fn own_keys(object: &Object) -> Result<Vec<String>, JsValue> {
    Ok(Reflect::own_keys(object)?
        .iter()
        .filter_map(|key| key.as_string())
        .collect())
}

/// An array's items, read through `Reflect` for the same reason.
pub(crate) fn items(array: &Array) -> Result<Vec<JsValue>, JsValue> {
    let length = Reflect::get(array, &JsValue::from_str("length"))?
        .as_f64()
        .unwrap_or(0.0);
    // A length is a whole number below 2^32.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let length = length.clamp(0.0, f64::from(u32::MAX)) as u32;
    (0..length).map(|i| Reflect::get_u32(array, i)).collect()
}

/// A config document: `undefined` or `null` is all defaults (`{}`).
pub(crate) fn config_doc(value: &JsValue) -> Result<Value, JsValue> {
    if value.is_undefined() || value.is_null() {
        Ok(Value::Map(Vec::new()))
    } else {
        value_of(value)
    }
}

/// Reads and checks a config section (a standalone component's settings,
/// a call's overrides) in the JavaScript dialect.
pub(crate) fn read_config<T: Section>(value: &JsValue) -> Result<T, JsValue> {
    decode(&config_doc(value)?, Dialect::JS).map_err(|e| config_error(&e))
}

/// A number: whole ones a double holds exactly are integers.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE {
        // Whole and within 2^53: the conversion is exact.
        #[allow(clippy::cast_possible_truncation)]
        Value::Int(n as i128)
    } else {
        Value::Float(n)
    }
}

/// An object literal (or `Object.create(null)`), not a `Map`, a `Date` or a
/// class instance whose fields are not its data.
/// Through `Reflect`, which reports a throwing Proxy trap as an error.
fn is_plain(value: &JsValue) -> Result<bool, JsValue> {
    let proto = Reflect::get_prototype_of(value)?;
    Ok(proto.is_null() || Object::is(&proto, &Object::get_prototype_of(&Object::new())))
}

/// A value the core hands out (a decision, an event, a status), written
/// by the core in the JavaScript dialect.
///
/// It crosses as JSON text read by the engine's own `JSON.parse`: one
/// string copy and a native parse, where building the object here cost a
/// crossing and a string decode per key (the Call API's objects cost about
/// half as much this way). The core writes the text directly
/// (`schema::emit_json`), with no tree in between. Integers come back as
/// the nearest number, as the types say, and results hold no float JSON
/// cannot write.
pub(crate) fn js_emit(item: &dyn Emit) -> JsValue {
    let text = emit_json(item, Dialect::JS);
    js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL)
}

/// What a log record carries in JavaScript beyond its fields, as JSON
/// members to write before the record's closing brace: `line` (the
/// one-line JSON, the line Python writes) and `text` (the display form).
/// One place for both the records a policy queues and the ones `logRecord`
/// makes.
pub(crate) fn log_record_extras(record: &LogRecord) -> String {
    let mut members = String::from(",\"line\":");
    members.push_str(&Value::Text(record.to_json_line()).to_json_text());
    members.push_str(",\"text\":");
    members.push_str(&Value::Text(record.to_string()).to_json_text());
    members
}
