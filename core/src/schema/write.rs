//! Writing a section as a document in the caller's dialect: as a [`Value`]
//! tree (Python's dicts, snapshots), or straight as JSON text
//! ([`emit_json`]: the objects JavaScript receives, log lines), with no
//! tree, no key allocated and no `core::fmt` in between.
//!
//! The accessors are `#[inline(never)]`: every section's `read`, `write`
//! and `check` calls them from hundreds of sites, and inlined at the core's
//! opt-level 3 each site carried its own copy (9 % of the gzipped module).

use super::dialect::{Dialect, TimeUnit};
use super::emit::Emit;
use super::value::Value;
#[cfg(feature = "measure")]
use crate::record::AttributeValue;
use crate::time::Instant;

/// The fields of one object being written.
#[derive(Debug)]
pub struct Out {
    dialect: Dialect,
    sink: Sink,
}

/// Where an [`Out`] writes.
#[derive(Debug)]
enum Sink {
    /// The fields of one object, as a tree.
    Tree(Vec<(String, Value)>),
    /// JSON text: nested objects write into the same text.
    Json(String),
}

/// `item` as compact JSON text in `dialect`: the same text as
/// `emit(item, dialect).to_json_text()`, written directly. Through `dyn`:
/// one copy of the writer in the module, not one per result type.
#[must_use]
pub fn emit_json(item: &dyn Emit, dialect: Dialect) -> String {
    let mut out = Out {
        dialect,
        sink: Sink::Json(String::with_capacity(256)),
    };
    out.open('{');
    item.emit(&mut out);
    out.close('}');
    match out.sink {
        Sink::Json(text) => text,
        Sink::Tree(_) => String::new(),
    }
}

impl Out {
    /// An empty object in `dialect`.
    #[must_use]
    pub const fn new(dialect: Dialect) -> Out {
        Out {
            dialect,
            sink: Sink::Tree(Vec::new()),
        }
    }

    /// The object written (an empty one from a JSON writer).
    #[must_use]
    pub fn into_value(self) -> Value {
        match self.sink {
            Sink::Tree(entries) => Value::Map(entries),
            Sink::Json(_) => Value::Map(Vec::new()),
        }
    }

    #[inline(never)]
    fn put(&mut self, name: &str, duration: bool, value: Value) {
        match &mut self.sink {
            Sink::Tree(entries) => {
                // Room for a handful of fields at once: most objects have that many.
                if entries.capacity() == 0 {
                    entries.reserve(8);
                }
                entries.push((self.dialect.key(name, duration), value));
            }
            Sink::Json(_) => {
                self.json_key(name, duration);
                if let Sink::Json(text) = &mut self.sink {
                    value.write_json(text);
                }
            }
        }
    }

    /// In a JSON writer, the separator and `"key":` of the next member.
    fn json_key(&mut self, name: &str, duration: bool) {
        let dialect = self.dialect;
        if let Sink::Json(text) = &mut self.sink {
            // A member follows an opening bracket or another member.
            if !text.ends_with(['{', '[']) {
                text.push(',');
            }
            // Schema names are ASCII identifiers: nothing to escape.
            text.push('"');
            dialect.write_key(text, name, duration);
            text.push_str("\":");
        }
    }

    /// In a JSON writer, an opening bracket (after a separator in a list).
    fn open(&mut self, bracket: char) {
        if let Sink::Json(text) = &mut self.sink {
            if text.ends_with(['}', ']']) {
                text.push(',');
            }
            text.push(bracket);
        }
    }

    fn close(&mut self, bracket: char) {
        if let Sink::Json(text) = &mut self.sink {
            text.push(bracket);
        }
    }

    const fn is_json(&self) -> bool {
        matches!(self.sink, Sink::Json(_))
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

    /// A text (data, written as is). A JSON writer copies it straight into
    /// its text, with no owned copy made first.
    #[inline(never)]
    pub fn text(&mut self, name: &str, text: &str) {
        if self.is_json() {
            self.json_key(name, false);
            if let Sink::Json(out) = &mut self.sink {
                crate::key::write_json_string(text, out);
            }
            return;
        }
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
        if self.is_json() {
            self.json_key(name, false);
            self.open('{');
            item.emit(self);
            self.close('}');
            return;
        }
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

    /// A point's or a decision's attributes, as an exporter hands them to
    /// its SDK: names as they are in every language (they are attribute
    /// names, not fields), absent ones left out. A JSON writer writes them
    /// straight into its text, with nothing allocated per entry (they are
    /// written on every measured call).
    #[cfg(feature = "measure")]
    pub fn attributes<'k, 'v>(
        &mut self,
        name: &str,
        entries: impl Iterator<Item = (&'k str, AttributeValue<'v>)>,
    ) {
        let value = |item: AttributeValue<'_>| match item {
            AttributeValue::Text(text) => Value::Text(text.to_owned()),
            AttributeValue::Int(n) => Value::Int(i128::from(n)),
            AttributeValue::Float(x) => Value::Float(x),
        };
        if !self.is_json() {
            let entries = entries.map(|(k, v)| (k.to_owned(), value(v))).collect();
            self.table(name, entries);
            return;
        }
        self.json_key(name, false);
        if let Sink::Json(text) = &mut self.sink {
            text.push('{');
            for (i, (key, item)) in entries.enumerate() {
                if i > 0 {
                    text.push(',');
                }
                crate::key::write_json_string(key, text);
                text.push(':');
                match item {
                    AttributeValue::Text(t) => crate::key::write_json_string(t, text),
                    number => value(number).write_json(text),
                }
            }
            text.push('}');
        }
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
        if self.is_json() {
            self.json_key(name, false);
            self.open('[');
            for item in items {
                self.open('{');
                item.emit(self);
                self.close('}');
            }
            self.close(']');
            return;
        }
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
