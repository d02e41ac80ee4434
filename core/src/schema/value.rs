//! A document as the schema reads and writes it: what a JSON text, a
//! JavaScript object or a Python dict holds, already bounded by the binding
//! that built it.

use crate::error::{ConfigError, ConfigErrorCode};
use crate::key::{read_decimal, Json};

/// One value of a document. Objects keep their keys in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// An integer (JavaScript numbers with no fraction arrive as integers).
    Int(i128),
    Float(f64),
    Text(String),
    List(Vec<Value>),
    Map(Vec<(String, Value)>),
}

impl Value {
    /// What the value is, for messages ("text", "a list", ...).
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::Float(_) => "a number",
            Value::Text(_) => "text",
            Value::List(_) => "a list",
            Value::Map(_) => "an object",
        }
    }

    /// Sets `key` of an object to what `value` makes where it is absent or
    /// `null` (a host's default, such as a seed it draws); a value given is
    /// kept, and `value` is not called.
    ///
    /// # Errors
    /// Whatever `value` fails with.
    pub fn set_default<E>(
        &mut self,
        key: &str,
        value: impl FnOnce() -> Result<Value, E>,
    ) -> Result<(), E> {
        if let Value::Map(entries) = self {
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some((_, given)) => {
                    if *given == Value::Null {
                        *given = value()?;
                    }
                }
                None => entries.push((key.to_owned(), value()?)),
            }
        }
        Ok(())
    }

    /// Parses JSON text (a config document written for Rust or the vectors)
    /// with the core's own strict parser: integer literals exact (a 64-bit
    /// seed reads back as written), duplicate members refused.
    ///
    /// # Errors
    /// `invalid_json` for text that is not JSON, saying where.
    pub fn from_json(text: &str) -> Result<Value, ConfigError> {
        crate::key::parse_document(text)
            .map(|json| Value::of_json(&json))
            .map_err(|e| {
                ConfigError::new(
                    ConfigErrorCode::InvalidJson,
                    "",
                    format!("not JSON: {}", e.message()),
                )
            })
    }

    fn of_json(json: &Json) -> Value {
        match json {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(text) => {
                let integer = !text.contains(['.', 'e', 'E']);
                match text.parse::<i128>() {
                    Ok(n) if integer => Value::Int(n),
                    // Correctly rounded, as ECMAScript's and Python's parsers.
                    _ => Value::Float(read_decimal(text).unwrap_or(f64::NAN)),
                }
            }
            Json::String(s) => Value::Text(s.clone()),
            Json::Array(items) => Value::List(items.iter().map(Value::of_json).collect()),
            Json::Object(members) => Value::Map(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::of_json(v)))
                    .collect(),
            ),
        }
    }

    /// The value as compact JSON text (snapshots, log lines): keys in the
    /// order written, strings escaped as RFC 8785 escapes them (non-ASCII
    /// kept as UTF-8), a float in its shortest form that reads back to the
    /// same double with a fraction or exponent kept (`0.1`, `1.0`, `1e-7`),
    /// a float JSON cannot carry (NaN, an infinity) as `null`.
    #[must_use]
    pub fn to_json_text(&self) -> String {
        let mut out = String::with_capacity(128);
        self.write_json(&mut out);
        out
    }

    pub(crate) fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(true) => out.push_str("true"),
            Value::Bool(false) => out.push_str("false"),
            Value::Int(n) => match u64::try_from(n.unsigned_abs()) {
                Ok(small) => {
                    if *n < 0 {
                        out.push('-');
                    }
                    push_u64(out, small);
                }
                Err(_) => out.push_str(&int_text(*n)),
            },
            Value::Float(f) if f.is_finite() => {
                // The ECMAScript form, with `.0` on a whole number so that
                // a float reads back as a float.
                let text = crate::key::float_text(*f);
                out.push_str(&text);
                if !text.contains(['.', 'e']) {
                    out.push_str(".0");
                }
            }
            Value::Float(_) => out.push_str("null"),
            Value::Text(text) => crate::key::write_json_string(text, out),
            Value::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Value::Map(entries) => {
                out.push('{');
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    crate::key::write_json_string(key, out);
                    out.push(':');
                    item.write_json(out);
                }
                out.push('}');
            }
        }
    }
}

/// `n` in decimal, appended: every integer of a result written as JSON
/// passes here, and `core::fmt` (its padding and width logic, a `String`
/// per number) cost more than the digits.
pub(crate) fn push_u64(out: &mut String, n: u64) {
    let mut unit = 1;
    while n / unit >= 10 {
        unit *= 10;
    }
    while unit > 0 {
        // A digit: `n / unit % 10` is below 10.
        #[allow(clippy::cast_possible_truncation)]
        out.push(char::from(b'0' + (n / unit % 10) as u8));
        unit /= 10;
    }
}

/// An integer's decimal text, through `u64` (in two halves beyond it)
/// rather than `core::fmt`'s 128-bit formatter: that one divides in 128
/// bits on every digit, several times slower, and is 1.4 KB of WebAssembly
/// for the rare integer beyond 64 bits.
pub(crate) fn int_text(n: i128) -> String {
    const TEN_TO_19: u128 = 10_000_000_000_000_000_000;
    let sign = if n < 0 { "-" } else { "" };
    let magnitude = n.unsigned_abs();
    match u64::try_from(magnitude) {
        Ok(small) => format!("{sign}{small}"),
        // |n| <= 2^127, so the high half is below 1.8 x 10^19: a u64.
        Err(_) => {
            let high = u64::try_from(magnitude / TEN_TO_19).unwrap_or(u64::MAX);
            let low = u64::try_from(magnitude % TEN_TO_19).unwrap_or(0);
            format!("{sign}{high}{low:019}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{int_text, Value};

    #[test]
    fn json_integers_read_as_the_standard_formatter_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, -1, -10, -12_345]
            .into_iter()
            .chain([u64::MAX, u64::MAX - 1, 10_u64.pow(19), 10_u64.pow(19) - 1].map(i128::from))
            .chain([-i128::from(u64::MAX), i128::from(u64::MAX) + 1, i128::MIN])
        {
            assert_eq!(Value::Int(n).to_json_text(), n.to_string());
        }
    }

    #[test]
    fn integers_read_as_the_standard_formatter_writes_them() {
        for n in [
            0,
            7,
            -7,
            i128::from(u64::MAX),
            i128::from(u64::MAX) + 1,
            -i128::from(u64::MAX) - 1,
            10_000_000_000_000_000_000,
            123_456_789_012_345_678_901_234_567_890,
            i128::MAX,
            i128::MIN,
        ] {
            assert_eq!(int_text(n), n.to_string());
        }
    }
}
