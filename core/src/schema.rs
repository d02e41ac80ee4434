//! The config's one schema, spoken in each caller's dialect.
//!
//! Every config section says once which fields it has, what type and unit
//! each holds and which values are valid ([`Section`]); a [`Dialect`] says
//! how a caller spells keys (snake_case for Rust and Python, camelCase for
//! JavaScript) and writes durations (integer milliseconds for Rust and
//! JavaScript, float seconds for Python). Reading, writing and checking all
//! go through the section's declaration, so no binding guesses a unit from
//! a key's name and no error is rewritten after the fact: a problem is
//! written for its caller when it is found, with the field path in the
//! caller's spelling and every problem of a document reported, not only the
//! first. Only keys are respelled; data (codes such as `full_jitter`, the
//! status `404` in a table) stays as written.
//!
//! Bindings turn host values into a [`Value`] (bounded in depth, cycles
//! refused) and back; nothing else about the schema lives in them.

mod bounds;
mod check;
mod codes;
mod dialect;
mod emit;
mod integer;
mod read;
mod results;
pub mod sections;
#[cfg(feature = "suggest")]
mod suggest;
mod value;
mod write;

pub use check::{Check, Seg};
pub use codes::{code_value, listed, not_one_of, quoted};
pub use dialect::{camel, Dialect, KeyCase, TimeUnit};
pub use emit::{emit, Emit};
pub use read::Fields;
pub(crate) use value::push_u64;
pub use value::Value;
pub use write::{emit_json, Out};

use crate::error::ConfigError;

/// A part of the config: how it is read from a [`Value`], written back, and
/// checked.
pub trait Section: Sized {
    /// Reads the fields of one object; missing fields take their defaults
    /// and shape problems (a wrong type, an unknown key, a bad code) are
    /// recorded on `fields` rather than returned, so all are reported.
    fn read(fields: &mut Fields<'_, '_>) -> Self;

    /// Writes every field, defaults included.
    fn write(&self, out: &mut Out);

    /// Records every value out of range or inconsistent with another.
    fn check(&self, check: &mut Check);
}

/// Reads and checks `value` as a `T` written in `dialect`.
///
/// # Errors
/// A [`ConfigError`] carrying every problem found (shape problems first;
/// values are checked only when the shape is right).
pub fn decode<T: Section>(value: &Value, dialect: Dialect) -> Result<T, ConfigError> {
    let mut check = Check::new(dialect);
    let item = read::section::<T>(&mut check, value);
    if check.is_clean() {
        item.check(&mut check);
    }
    check.finish().map(|()| item)
}

/// Reads `value` as a `T` inside a section being read (an entry of a table
/// of sections), its problems recorded at the check's current path.
pub fn section<T: Section>(check: &mut Check, value: &Value) -> T {
    read::section(check, value)
}

/// `item` as a document in `dialect`.
#[must_use]
pub fn encode<T: Section>(item: &T, dialect: Dialect) -> Value {
    let mut out = Out::new(dialect);
    item.write(&mut out);
    out.into_value()
}

/// Checks a value built in Rust, with errors in the Rust spelling.
///
/// # Errors
/// A [`ConfigError`] carrying every problem found.
pub fn validate<T: Section>(item: &T) -> Result<(), ConfigError> {
    let mut check = Check::new(Dialect::RUST);
    item.check(&mut check);
    check.finish()
}

/// For the core's unit tests: a section read from JSON text as a Rust
/// caller writes it, and a value as the schema writes it for Rust.
#[cfg(test)]
pub(crate) mod json {
    use super::{decode, emit_json, Dialect, Emit, Section, Value};
    use crate::error::ConfigError;

    /// `text` read and checked as a `T` (the Rust dialect).
    pub(crate) fn read<T: Section>(text: &str) -> Result<T, ConfigError> {
        decode(&Value::from_json(text)?, Dialect::RUST)
    }

    /// `text` read as a `T` without checking its values (a test of the
    /// checks builds a bad one this way); a shape problem panics.
    pub(crate) fn shape<T: Section>(text: &str) -> T {
        let mut check = super::Check::new(Dialect::RUST);
        let item = super::section::<T>(&mut check, &Value::from_json(text).unwrap());
        check.finish().unwrap();
        item
    }

    /// `item` as the schema writes it for Rust, as text.
    pub(crate) fn text<T: Emit>(item: &T) -> String {
        emit_json(item, Dialect::RUST)
    }

    /// `item` as the schema writes it for Rust, as `serde_json` reads it.
    pub(crate) fn value<T: Emit>(item: &T) -> serde_json::Value {
        serde_json::from_str(&text(item)).unwrap()
    }
}

#[cfg(test)]
mod tests;
