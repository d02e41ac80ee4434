//! Writing a section as a document in the caller's dialect.

use super::dialect::{Dialect, TimeUnit};
use super::value::Value;
use super::Section;

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
        self.put(name, false, Value::Text(code.to_owned()));
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
            // Config durations are far below 2^53 ms: the conversion is exact.
            #[allow(clippy::cast_precision_loss)]
            TimeUnit::Seconds => Value::Float(ms as f64 / 1000.0),
        }
    }

    /// A nested section.
    pub fn section<T: Section>(&mut self, name: &str, item: &T) {
        let mut inner = Out::new(self.dialect);
        item.write(&mut inner);
        self.put(name, false, inner.into_value());
    }

    /// A nested section or `null`.
    pub fn opt_section<T: Section>(&mut self, name: &str, item: Option<&T>) {
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
}
