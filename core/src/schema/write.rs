//! Writing a section as a document in the caller's dialect.
//!
//! The accessors are `#[inline(never)]`: every section's `read`, `write`
//! and `check` calls them from hundreds of sites, and inlined at the core's
//! opt-level 3 each site carried its own copy (9 % of the gzipped module).
//! Nothing here is on a call's hot path.

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

    #[inline(never)]
    fn put(&mut self, name: &str, duration: bool, value: Value) {
        // Room for a handful of fields at once: most objects have that many.
        if self.entries.capacity() == 0 {
            self.entries.reserve(8);
        }
        self.entries.push((self.dialect.key(name, duration), value));
    }

    /// An unsigned integer.
    #[inline(never)]
    pub fn uint(&mut self, name: &str, value: impl Into<u64>) {
        self.put(name, false, Value::Int(i128::from(value.into())));
    }

    /// An unsigned integer or `null`.
    #[inline(never)]
    pub fn opt_uint(&mut self, name: &str, value: Option<u64>) {
        self.put(
            name,
            false,
            value.map_or(Value::Null, |v| Value::Int(i128::from(v))),
        );
    }

    /// A number.
    #[inline(never)]
    pub fn float(&mut self, name: &str, value: f64) {
        self.put(name, false, Value::Float(value));
    }

    /// A flag.
    #[inline(never)]
    pub fn bool(&mut self, name: &str, value: bool) {
        self.put(name, false, Value::Bool(value));
    }

    /// A code (data, written as is).
    #[inline(never)]
    pub fn code(&mut self, name: &str, code: &str) {
        self.text(name, code);
    }

    /// A text (data, written as is).
    #[inline(never)]
    pub fn text(&mut self, name: &str, text: &str) {
        self.put(name, false, Value::Text(text.to_owned()));
    }

    /// A text or `null`.
    #[inline(never)]
    pub fn opt_text(&mut self, name: &str, text: Option<&str>) {
        self.put(
            name,
            false,
            text.map_or(Value::Null, |t| Value::Text(t.to_owned())),
        );
    }

    /// A code or `null`.
    #[inline(never)]
    pub fn opt_code(&mut self, name: &str, code: Option<&str>) {
        self.opt_text(name, code);
    }

    /// An instant under a key without a unit (`at`, `until`, `retry_at`):
    /// milliseconds since the host's origin, or seconds in Python.
    #[inline(never)]
    pub fn instant(&mut self, name: &str, at: Instant) {
        let value = self.duration_value(at.as_millis());
        self.put(name, false, value);
    }

    /// An instant or `null`.
    #[inline(never)]
    pub fn opt_instant(&mut self, name: &str, at: Option<Instant>) {
        let value = at.map_or(Value::Null, |at| self.duration_value(at.as_millis()));
        self.put(name, false, value);
    }

    /// A duration, by its stem, in the dialect's unit.
    #[inline(never)]
    pub fn duration(&mut self, stem: &str, ms: u64) {
        let value = self.duration_value(ms);
        self.put(stem, true, value);
    }

    /// A list of durations, by its stem, in the dialect's unit.
    #[inline(never)]
    pub fn durations(&mut self, stem: &str, ms: impl IntoIterator<Item = u64>) {
        let items = ms.into_iter().map(|ms| self.duration_value(ms)).collect();
        self.put(stem, true, Value::List(items));
    }

    /// A duration or `null`.
    #[inline(never)]
    pub fn opt_duration(&mut self, stem: &str, ms: Option<u64>) {
        let value = ms.map_or(Value::Null, |ms| self.duration_value(ms));
        self.put(stem, true, value);
    }

    #[inline(never)]
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
    #[inline(never)]
    pub fn object<T: Emit + ?Sized>(&self, item: &T) -> Value {
        let mut inner = Out::new(self.dialect);
        item.emit(&mut inner);
        inner.into_value()
    }

    /// A nested section (or any value the core writes).
    #[inline(never)]
    pub fn section<T: Emit + ?Sized>(&mut self, name: &str, item: &T) {
        let value = self.object(item);
        self.put(name, false, value);
    }

    /// A nested section or `null`.
    #[inline(never)]
    pub fn opt_section<T: Emit>(&mut self, name: &str, item: Option<&T>) {
        match item {
            Some(item) => self.section(name, item),
            None => self.put(name, false, Value::Null),
        }
    }

    /// A table keyed by data (keys written as given).
    #[inline(never)]
    pub fn table(&mut self, name: &str, entries: Vec<(String, Value)>) {
        self.put(name, false, Value::Map(entries));
    }

    /// A list.
    #[inline(never)]
    pub fn list(&mut self, name: &str, items: Vec<Value>) {
        self.put(name, false, Value::List(items));
    }

    /// A value the section built itself (a tuple, a list or `null`).
    #[inline(never)]
    pub fn value(&mut self, name: &str, value: Value) {
        self.put(name, false, value);
    }

    /// A list of objects the core writes (queued events, ring slots).
    #[inline(never)]
    pub fn sections<'a, T: Emit + 'a>(
        &mut self,
        name: &str,
        items: impl IntoIterator<Item = &'a T>,
    ) {
        let items = items.into_iter().map(|item| self.object(item)).collect();
        self.list(name, items);
    }

    /// A list of unsigned integers.
    #[inline(never)]
    pub fn uints(&mut self, name: &str, items: impl IntoIterator<Item = u64>) {
        let items = items
            .into_iter()
            .map(|n| Value::Int(i128::from(n)))
            .collect();
        self.list(name, items);
    }
}
