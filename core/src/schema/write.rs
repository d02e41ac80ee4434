//! Writing a section as a document in the caller's dialect.

use super::dialect::{Dialect, TimeUnit};
use super::emit::Emit;
use super::value::Value;
use crate::time::Instant;

/// The fields of one object being written.
#[derive(Debug)]
pub struct Out {
    dialect: Dialect,
    entries: Vec<(String, Value)>,
}

impl Out {
    /// An empty object in `dialect`.
    #[must_use]
    pub const fn new(dialect: Dialect) -> Out {
        Out {
            dialect,
            entries: Vec::new(),
        }
    }

    /// The object written.
    #[must_use]
    pub fn into_value(self) -> Value {
        Value::Map(self.entries)
    }

    fn put(&mut self, name: &str, duration: bool, value: Value) {
        self.entries.push((self.dialect.key(name, duration), value));
    }

    /// An unsigned integer.
    pub fn uint(&mut self, name: &str, value: impl Into<u64>) {
        self.put(name, false, Value::Int(i128::from(value.into())));
    }

    /// An unsigned integer or `null`.
    pub fn opt_uint(&mut self, name: &str, value: Option<u64>) {
        self.put(
            name,
            false,
            value.map_or(Value::Null, |v| Value::Int(i128::from(v))),
        );
    }

    /// A number.
    pub fn float(&mut self, name: &str, value: f64) {
        self.put(name, false, Value::Float(value));
    }

    /// A flag.
    pub fn bool(&mut self, name: &str, value: bool) {
        self.put(name, false, Value::Bool(value));
    }

    /// A code (data, written as is).
    pub fn code(&mut self, name: &str, code: &str) {
        self.text(name, code);
    }

    /// A text (data, written as is).
    pub fn text(&mut self, name: &str, text: &str) {
        self.put(name, false, Value::Text(text.to_owned()));
    }

    /// A text or `null`.
    pub fn opt_text(&mut self, name: &str, text: Option<&str>) {
        self.put(
            name,
            false,
            text.map_or(Value::Null, |t| Value::Text(t.to_owned())),
        );
    }

    /// A code or `null`.
    pub fn opt_code(&mut self, name: &str, code: Option<&str>) {
        self.opt_text(name, code);
    }

    /// An instant under a key without a unit (`at`, `until`, `retry_at`):
    /// milliseconds since the host's origin, or seconds in Python.
    pub fn instant(&mut self, name: &str, at: Instant) {
        let value = self.duration_value(at.as_millis());
        self.put(name, false, value);
    }

    /// An instant or `null`.
    pub fn opt_instant(&mut self, name: &str, at: Option<Instant>) {
        let value = at.map_or(Value::Null, |at| self.duration_value(at.as_millis()));
        self.put(name, false, value);
    }

    /// A duration, by its stem, in the dialect's unit.
    pub fn duration(&mut self, stem: &str, ms: u64) {
        let value = self.duration_value(ms);
        self.put(stem, true, value);
    }

    /// A duration or `null`.
    pub fn opt_duration(&mut self, stem: &str, ms: Option<u64>) {
        let value = ms.map_or(Value::Null, |ms| self.duration_value(ms));
        self.put(stem, true, value);
    }

    fn duration_value(&self, ms: u64) -> Value {
        match self.dialect.time {
            TimeUnit::Millis => Value::Int(i128::from(ms)),
            // `ms as f64 / 1000`: the one formula every Python output uses
            // (exact below 2^53 ms), so tests may compare floats exactly.
            #[allow(clippy::cast_precision_loss)]
            TimeUnit::Seconds => Value::Float(ms as f64 / 1000.0),
        }
    }

    /// `item` as an object in this dialect.
    #[must_use]
    pub fn object<T: Emit + ?Sized>(&self, item: &T) -> Value {
        let mut inner = Out::new(self.dialect);
        item.emit(&mut inner);
        inner.into_value()
    }

    /// A nested section (or any value the core writes).
    pub fn section<T: Emit + ?Sized>(&mut self, name: &str, item: &T) {
        let value = self.object(item);
        self.put(name, false, value);
    }

    /// A nested section or `null`.
    pub fn opt_section<T: Emit>(&mut self, name: &str, item: Option<&T>) {
        match item {
            Some(item) => self.section(name, item),
            None => self.put(name, false, Value::Null),
        }
    }

    /// A table keyed by data (keys written as given).
    pub fn table(&mut self, name: &str, entries: Vec<(String, Value)>) {
        self.put(name, false, Value::Map(entries));
    }

    /// A list.
    pub fn list(&mut self, name: &str, items: Vec<Value>) {
        self.put(name, false, Value::List(items));
    }

    /// A value the section built itself (a tuple, a list or `null`).
    pub fn value(&mut self, name: &str, value: Value) {
        self.put(name, false, value);
    }

    /// A list of unsigned integers.
    pub fn uints(&mut self, name: &str, items: impl IntoIterator<Item = u64>) {
        let items = items
            .into_iter()
            .map(|n| Value::Int(i128::from(n)))
            .collect();
        self.list(name, items);
    }
}
