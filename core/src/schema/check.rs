//! Where a problem is, and the problems found so far.
//!
//! The accessors are `#[inline(never)]`: every section's `read`, `write`
//! and `check` calls them from hundreds of sites, and inlined at the core's
//! opt-level 3 each site carried its own copy (9 % of the gzipped module).
//! Nothing here is on a call's hot path.

use crate::error::{ConfigError, ConfigErrorCode};

use super::dialect::Dialect;

/// One step of a field path.
///
/// `Copy`: a step is passed by value to every check and accessor, and with
/// an owned text inside, each of those hundreds of sites carried a drop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    /// A schema field (snake_case name; for a duration, its stem).
    Field { name: &'static str, duration: bool },
    /// A key that is data (a status in a table, a network error kind), or a
    /// key the caller wrote that the schema does not know, kept verbatim:
    /// its text is the check's (see [`Check::data_key`]).
    Key(usize),
    /// A list position.
    Index(usize),
}

impl Seg {
    /// A plain field.
    #[must_use]
    pub const fn field(name: &'static str) -> Seg {
        Seg::Field {
            name,
            duration: false,
        }
    }

    /// A duration field, by its stem (`base` for `base_ms`).
    #[must_use]
    pub const fn duration(stem: &'static str) -> Seg {
        Seg::Field {
            name: stem,
            duration: true,
        }
    }
}

/// The problems of one document, each written for the caller's dialect.
#[derive(Debug)]
pub struct Check {
    dialect: Dialect,
    path: Vec<Seg>,
    /// The texts of the [`Seg::Key`] steps made so far.
    keys: Vec<String>,
    problems: Vec<ConfigError>,
}

impl Check {
    /// An empty check in `dialect`.
    #[must_use]
    pub const fn new(dialect: Dialect) -> Check {
        Check {
            dialect,
            path: Vec::new(),
            keys: Vec::new(),
            problems: Vec::new(),
        }
    }

    /// The caller's dialect.
    #[must_use]
    pub const fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// No problem recorded yet.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }

    /// A step named by data (`key`, written as given).
    #[inline(never)]
    pub fn data_key(&mut self, key: &str) -> Seg {
        self.keys.push(key.to_owned());
        Seg::Key(self.keys.len() - 1)
    }

    /// Runs `f` with `seg` appended to the path.
    #[inline(never)]
    pub fn within<R>(&mut self, seg: Seg, f: impl FnOnce(&mut Check) -> R) -> R {
        self.path.push(seg);
        let result = f(self);
        self.path.pop();
        result
    }

    /// The key of field `name` as the caller spells it (for messages).
    #[must_use]
    #[inline(never)]
    pub fn key(&self, name: &str, duration: bool) -> String {
        self.dialect.key(name, duration)
    }

    /// A duration as the caller writes it (for messages).
    #[must_use]
    #[inline(never)]
    pub fn ms(&self, ms: u64) -> String {
        self.dialect.duration_text(ms)
    }

    /// The current path, then `last`, in the caller's spelling.
    #[must_use]
    #[inline(never)]
    pub fn path_with(&self, last: Option<&Seg>) -> String {
        let mut out = String::new();
        for seg in self.path.iter().chain(last) {
            match seg {
                Seg::Index(i) => out.push_str(&format!("[{i}]")),
                Seg::Field { name, duration } => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(&self.dialect.key(name, *duration));
                }
                Seg::Key(at) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(self.keys.get(*at).map_or("", String::as_str));
                }
            }
        }
        out
    }

    /// Records a problem at the current path.
    #[inline(never)]
    pub fn fail(&mut self, code: ConfigErrorCode, message: impl Into<String>) {
        let field = self.path_with(None);
        self.problems.push(ConfigError::new(code, field, message));
    }

    /// Records a problem at field `seg` of the current object.
    #[inline(never)]
    pub fn fail_at(&mut self, seg: Seg, code: ConfigErrorCode, message: impl Into<String>) {
        let field = self.path_with(Some(&seg));
        self.problems.push(ConfigError::new(code, field, message));
    }

    /// Records `not_in_build` at `seg`: the caller asked for `what`, a
    /// behaviour this build leaves out (a core feature turned off, as the
    /// browser's client engine does).
    #[inline(never)]
    pub fn not_in_build(&mut self, seg: Seg, what: &str) {
        self.fail_at(
            seg,
            ConfigErrorCode::NotInBuild,
            format!("{what} is not in this build: import it from stoic/full"),
        );
    }

    /// Records `out_of_range` at `seg` unless `ok`.
    #[inline(never)]
    pub fn range(&mut self, ok: bool, seg: Seg, message: impl FnOnce(&Check) -> String) {
        if !ok {
            let text = message(self);
            self.fail_at(seg, ConfigErrorCode::OutOfRange, text);
        }
    }

    /// Where an unknown key beside a missing first one is (see [`Check::finish`]).
    fn misspelt_key(&self) -> Option<usize> {
        let first = self.problems.first()?;
        let (parent, key) = split_last(first.field());
        if first.code() != ConfigErrorCode::Required || key == "kind" {
            return None;
        }
        self.problems.iter().position(|p| {
            p.code() == ConfigErrorCode::UnknownField && split_last(p.field()).0 == parent
        })
    }

    /// Every problem as one error (the first's code and field), or `Ok`.
    ///
    /// When the first problem is a missing key and an unknown key sits
    /// beside it, the unknown one leads: a misspelt key (`after` for
    /// `afterMs`) is both, and the misspelling is what to fix, so the
    /// error's own code and field name it. Not for a missing `kind`: a
    /// tagged section without one knows none of its keys, and the kind is
    /// what to add. Otherwise the problems keep the order they were found
    /// in.
    ///
    /// # Errors
    /// The problems found.
    #[inline(never)]
    pub fn finish(mut self) -> Result<(), ConfigError> {
        if let Some(at) = self.misspelt_key() {
            // Moved to the front, the others keeping their order (swaps:
            // a slice rotation's code weighed more in the browser module).
            for i in (1..=at).rev() {
                self.problems.swap(i, i - 1);
            }
        }
        ConfigError::collect(self.problems).map_or(Ok(()), Err)
    }
}

/// `field` as (the dotted path of its section, its own key).
fn split_last(field: &str) -> (&str, &str) {
    match field.bytes().rposition(|b| b == b'.') {
        Some(dot) => (
            field.get(..dot).unwrap_or(""),
            field.get(dot + 1..).unwrap_or(""),
        ),
        None => ("", field),
    }
}
