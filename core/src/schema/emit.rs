//! Values the core hands out (decisions, admissions, events, statuses),
//! written in the caller's dialect by the same [`Out`] as configs.
//!
//! Each result type says once which fields it has and which of them are
//! durations or instants, so the bindings never respell keys or convert
//! units by a rule of their own: JavaScript gets `delayMs` in milliseconds,
//! Python `delay` in seconds, from the one declaration.

use super::dialect::Dialect;
use super::value::Value;
use super::write::Out;
use super::Section;

/// A value written as an object in a caller's dialect.
pub trait Emit {
    /// Writes every field.
    fn emit(&self, out: &mut Out);
}

/// A config section is written the way it is declared.
impl<T: Section> Emit for T {
    fn emit(&self, out: &mut Out) {
        self.write(out);
    }
}

/// `item` as an object in `dialect`.
#[must_use]
pub fn emit<T: Emit + ?Sized>(item: &T, dialect: Dialect) -> Value {
    Out::new(dialect).object(item)
}
