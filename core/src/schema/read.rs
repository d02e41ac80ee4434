//! Reading one object of a document against a section's fields.
//!
//! The accessors are `#[inline(never)]`: every section's `read`, `write`
//! and `check` calls them from hundreds of sites, and inlined at the core's
//! opt-level 3 each site carried its own copy (9 % of the gzipped module).
//! Nothing here is on a call's hot path.

use crate::key::float_text;
use std::collections::VecDeque;

use crate::error::ConfigErrorCode;

use super::check::{Check, Seg};
use super::codes::{code_value, listed};
use super::dialect::{core_key, TimeUnit};
use super::integer::integer;
#[cfg(feature = "suggest")]
use super::suggest::closest;
use super::value::Value;
use super::Section;
use crate::time::Instant;

/// Reads `value` as the section `T` at the check's current path.
///
/// Generic, so instantiated once per section type: the part that does not
/// depend on `T` (the shape check, the bookkeeping, the unknown-key report)
/// lives in `Fields::open` and `Fields::finish`, not in every copy.
pub(crate) fn section<T: Section>(check: &mut Check, value: &Value) -> T {
    let mut fields = Fields::open(check, value);
    let item = T::read(&mut fields);
    fields.finish();
    item
}

/// The fields of one object being read. Each accessor takes its field's
/// value (or the default when absent), records a shape problem if the
/// value has the wrong type, and remembers the field's name, so keys the
/// section never asked for are reported as unknown with a suggestion.
#[derive(Debug)]
pub struct Fields<'v, 'c> {
    check: &'c mut Check,
    entries: &'v [(String, Value)],
    used: Vec<bool>,
    /// The accepted keys, in the caller's spelling, for suggestions.
    known: Vec<String>,
}

/// The largest integer a field may hold, by its type.
const U32_MAX: i128 = u32::MAX as i128;
const U64_MAX: i128 = u64::MAX as i128;

impl<'v, 'c> Fields<'v, 'c> {
    /// The fields of `value`, which must be an object (anything else is a
    /// problem recorded, and reads as an object with no fields).
    #[inline(never)]
    fn open(check: &'c mut Check, value: &'v Value) -> Self {
        let entries: &[(String, Value)] = match value {
            Value::Map(entries) => entries,
            other => {
                check.fail(
                    ConfigErrorCode::WrongType,
                    format!("expected an object, got {}", other.kind()),
                );
                &[]
            }
        };
        Fields {
            check,
            entries,
            used: vec![false; entries.len()],
            known: Vec::new(),
        }
    }

    /// The problems so far (for a section's own shape problems).
    pub fn check(&mut self) -> &mut Check {
        self.check
    }

    /// Takes field `name`'s value, by the caller's spelling (or the core's,
    /// where the dialect accepts it); `null` is a value here.
    #[inline(never)]
    fn take(&mut self, name: &'static str, duration: bool) -> Option<(Seg, &'v Value)> {
        let dialect = self.check.dialect();
        let key = dialect.key(name, duration);
        let core = core_key(name, duration);
        let mut found = None;
        for (i, (k, v)) in self.entries.iter().enumerate() {
            let matches = *k == key || (dialect.accepts_core_keys && *k == core);
            if matches {
                if let Some(used) = self.used.get_mut(i) {
                    *used = true;
                }
                if found.is_some() {
                    let seg = self.check.data_key(k);
                    self.check.fail_at(
                        seg,
                        ConfigErrorCode::InvalidValue,
                        format!("`{key}` is given twice (in two spellings)"),
                    );
                }
                // Named in the dialect's own spelling even when the core's
                // was accepted: one name per field in every message.
                found = Some((Seg::Field { name, duration }, v));
            }
        }
        self.known.push(key);
        found
    }

    /// Whether field `name` is present (not absent, not `null`).
    #[inline(never)]
    pub fn has(&self, name: &'static str, duration: bool) -> bool {
        let dialect = self.check.dialect();
        let key = dialect.key(name, duration);
        let core = core_key(name, duration);
        self.entries.iter().any(|(k, v)| {
            (*k == key || (dialect.accepts_core_keys && *k == core)) && *v != Value::Null
        })
    }

    /// Whether field `name` is present (not absent, not `null`), marking
    /// it read without reading it: for a section this build leaves out,
    /// which is refused as such rather than reported as unknown.
    #[inline(never)]
    pub fn skip(&mut self, name: &'static str) -> bool {
        self.take(name, false)
            .is_some_and(|(_, value)| *value != Value::Null)
    }

    /// Records `required` unless field `name` is present; returns whether
    /// it is.
    #[inline(never)]
    pub fn require(&mut self, name: &'static str, duration: bool, why: &str) -> bool {
        let present = self.has(name, duration);
        if !present {
            let key = self.check.key(name, duration);
            self.check.fail_at(
                Seg::Field { name, duration },
                ConfigErrorCode::Required,
                if why.is_empty() {
                    format!("`{key}` is required")
                } else {
                    format!("`{key}` is required {why}")
                },
            );
        }
        present
    }

    #[inline(never)]
    fn wrong_type(&mut self, seg: Seg, expected: &str, got: &Value) {
        self.check.fail_at(
            seg,
            ConfigErrorCode::WrongType,
            format!("expected {expected}, got {}", got.kind()),
        );
    }

    /// An integer in `0..=max`.
    #[inline(never)]
    fn integer(&mut self, seg: Seg, value: &Value, max: i128) -> Option<i128> {
        integer(self.check, seg, value, max)
    }

    /// An unsigned 32-bit field.
    #[inline(never)]
    pub fn u32(&mut self, name: &'static str, default: u32) -> u32 {
        match self.take(name, false) {
            None => default,
            Some((seg, v)) => self
                .integer(seg, v, U32_MAX)
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(default),
        }
    }

    /// An unsigned 32-bit field that may be absent (or `null`).
    #[inline(never)]
    pub fn opt_u32(&mut self, name: &'static str) -> Option<u32> {
        match self.take(name, false) {
            None | Some((_, Value::Null)) => None,
            Some((seg, v)) => self
                .integer(seg, v, U32_MAX)
                .and_then(|n| u32::try_from(n).ok()),
        }
    }

    /// An unsigned 64-bit field; `null` or absent is `default`.
    #[inline(never)]
    pub fn opt_u64(&mut self, name: &'static str, default: Option<u64>) -> Option<u64> {
        match self.take(name, false) {
            None | Some((_, Value::Null)) => default,
            Some((seg, v)) => self
                .integer(seg, v, U64_MAX)
                .and_then(|n| u64::try_from(n).ok())
                .or(default),
        }
    }

    /// An unsigned 64-bit field; absent is `default`.
    #[inline(never)]
    pub fn u64(&mut self, name: &'static str, default: u64) -> u64 {
        match self.take(name, false) {
            None => default,
            Some((seg, v)) => self
                .integer(seg, v, U64_MAX)
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(default),
        }
    }

    /// A list of unsigned 64-bit integers; absent is empty.
    #[inline(never)]
    pub fn u64s(&mut self, name: &'static str) -> Vec<u64> {
        let mut out = Vec::new();
        let Some((seg, value)) = self.take(name, false) else {
            return out;
        };
        match value {
            Value::List(items) => self.check.within(seg, |c| {
                for (i, item) in items.iter().enumerate() {
                    let n = integer(c, Seg::Index(i), item, U64_MAX);
                    out.extend(n.and_then(|n| u64::try_from(n).ok()));
                }
            }),
            other => self.wrong_type(seg, "a list", other),
        }
        out
    }

    /// A list of unsigned 64-bit integers, or `None` when absent or `null`.
    #[inline(never)]
    pub fn opt_u64s(&mut self, name: &'static str) -> Option<Vec<u64>> {
        if self.has(name, false) {
            Some(self.u64s(name))
        } else {
            let _null = self.take(name, false);
            None
        }
    }

    /// A text; absent is `default`.
    #[inline(never)]
    pub fn text(&mut self, name: &'static str, default: &str) -> String {
        match self.take(name, false) {
            None => default.to_owned(),
            Some((_, Value::Text(text))) => text.clone(),
            Some((seg, other)) => {
                self.wrong_type(seg, "a string", other);
                default.to_owned()
            }
        }
    }

    /// Records `required` for each of `names` (plain fields) that is
    /// absent: for data the core wrote, where a missing field means the
    /// text is not what it wrote (and a default would pass in silently).
    #[inline(never)]
    pub fn require_all(&mut self, names: &[&'static str], why: &str) {
        for name in names {
            self.require(name, false, why);
        }
    }

    /// An instant under a key without a unit (`at`, `latest`); absent is
    /// `default`.
    #[inline(never)]
    pub fn instant(&mut self, name: &'static str, default: Instant) -> Instant {
        match self.take(name, false) {
            None => default,
            Some((seg, v)) => self
                .duration_value(seg, v)
                .map_or(default, Instant::from_millis),
        }
    }

    /// A list of nested sections; absent is empty.
    #[inline(never)]
    pub fn sections<T: Section>(&mut self, name: &'static str) -> Vec<T> {
        let mut out = Vec::new();
        self.list(name, |c, item| out.push(section(c, item)));
        out
    }

    /// A bounded queue the core wrote: the items under `name` (oldest
    /// first) and the count under `dropped`, trimmed to `capacity` as the
    /// queue trims itself (the oldest go, and are counted as dropped).
    #[inline(never)]
    pub fn queue<T: Section>(
        &mut self,
        name: &'static str,
        dropped: &'static str,
        capacity: usize,
    ) -> (VecDeque<T>, u64) {
        let mut items: VecDeque<T> = self.sections(name).into();
        let mut lost = self.u64(dropped, 0);
        while items.len() > capacity {
            items.pop_front();
            lost = lost.saturating_add(1);
        }
        (items, lost)
    }

    /// A list of codes; absent is empty, an item not one of `all` is a
    /// problem (and left out).
    #[inline(never)]
    pub fn codes<T: Copy>(
        &mut self,
        name: &'static str,
        all: &[T],
        code: impl Fn(&T) -> &'static str,
    ) -> Vec<T> {
        let mut out = Vec::new();
        self.list(name, |c, item| {
            out.extend(code_value(c, None, item, all, &code))
        });
        out
    }

    /// An instant under a key without a unit (`floor_slot`): integer ms, or
    /// float seconds in Python; it may be absent or `null`.
    #[inline(never)]
    pub fn opt_instant(&mut self, name: &'static str) -> Option<Instant> {
        match self.take(name, false) {
            None | Some((_, Value::Null)) => None,
            Some((seg, v)) => self.duration_value(seg, v).map(Instant::from_millis),
        }
    }

    /// A number.
    #[inline(never)]
    pub fn float(&mut self, name: &'static str, default: f64) -> f64 {
        match self.take(name, false) {
            None => default,
            Some((_, Value::Float(f))) => *f,
            // Integers in configs are small: the conversion is exact.
            #[allow(clippy::cast_precision_loss)]
            Some((_, Value::Int(n))) => *n as f64,
            Some((seg, other)) => {
                self.wrong_type(seg, "a number", other);
                default
            }
        }
    }

    /// `true` or `false`.
    #[inline(never)]
    pub fn bool(&mut self, name: &'static str, default: bool) -> bool {
        match self.take(name, false) {
            None => default,
            Some((_, Value::Bool(b))) => *b,
            Some((seg, other)) => {
                self.wrong_type(seg, "true or false", other);
                default
            }
        }
    }

    /// A duration, by its stem: integer ms or float seconds, by dialect.
    #[inline(never)]
    pub fn duration(&mut self, stem: &'static str, default: u64) -> u64 {
        match self.take(stem, true) {
            None => default,
            Some((seg, v)) => self.duration_value(seg, v).unwrap_or(default),
        }
    }

    /// A duration that `null` turns off.
    #[inline(never)]
    pub fn opt_duration(&mut self, stem: &'static str, default: Option<u64>) -> Option<u64> {
        match self.take(stem, true) {
            None => default,
            Some((_, Value::Null)) => None,
            Some((seg, v)) => self.duration_value(seg, v).or(default),
        }
    }

    #[inline(never)]
    fn duration_value(&mut self, seg: Seg, value: &Value) -> Option<u64> {
        match self.check.dialect().time {
            TimeUnit::Millis => self
                .integer(seg, value, U64_MAX)
                .and_then(|n| u64::try_from(n).ok()),
            TimeUnit::Seconds => {
                let seconds = match value {
                    #[allow(clippy::cast_precision_loss)]
                    Value::Int(n) => *n as f64,
                    Value::Float(f) if f.is_finite() => *f,
                    other => {
                        self.wrong_type(seg, "a number of seconds", other);
                        return None;
                    }
                };
                let ms = (seconds * 1000.0).round();
                // Up to the core's largest time (u64 ms, where a saturated
                // value handed out comes back); each section bounds its own
                // settings far below it.
                if seconds < 0.0 || ms > 18_446_744_073_709_551_615.0 {
                    let text = if seconds < 0.0 {
                        format!("must not be negative, got {}", float_text(seconds))
                    } else {
                        format!("is too large, got {}", float_text(seconds))
                    };
                    self.check.fail_at(seg, ConfigErrorCode::OutOfRange, text);
                    return None;
                }
                if seconds > 0.0 && ms < 1.0 {
                    self.check.fail_at(
                        seg,
                        ConfigErrorCode::OutOfRange,
                        format!(
                            "is below the 1 ms resolution of durations, got {}",
                            float_text(seconds)
                        ),
                    );
                    return None;
                }
                // Whole and non-negative: the cast saturates at u64::MAX.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                Some(ms as u64)
            }
        }
    }

    /// One of a list of codes (data: the same snake_case in every dialect).
    #[inline(never)]
    pub fn code<T: Copy>(
        &mut self,
        name: &'static str,
        default: T,
        all: &[T],
        code: impl Fn(&T) -> &'static str,
    ) -> T {
        match self.take(name, false) {
            None => default,
            Some((seg, value)) => {
                code_value(self.check, Some(seg), value, all, code).unwrap_or(default)
            }
        }
    }

    /// One of a list of codes, or `None` when absent or not one of them
    /// (the problem recorded).
    #[inline(never)]
    pub fn opt_code<T: Copy>(
        &mut self,
        name: &'static str,
        all: &[T],
        code: impl Fn(&T) -> &'static str,
    ) -> Option<T> {
        let (seg, value) = self.take(name, false)?;
        code_value(self.check, Some(seg), value, all, code)
    }

    /// A nested section; absent is `default`.
    #[inline(never)]
    pub fn section<T: Section>(&mut self, name: &'static str, default: T) -> T {
        match self.take(name, false) {
            None => default,
            Some((seg, value)) => self.check.within(seg, |c| section(c, value)),
        }
    }

    /// A nested section that `null` turns off; absent is `default`.
    #[inline(never)]
    pub fn opt_section<T: Section>(&mut self, name: &'static str, default: Option<T>) -> Option<T> {
        match self.take(name, false) {
            None => default,
            Some((_, Value::Null)) => None,
            Some((seg, value)) => Some(self.check.within(seg, |c| section(c, value))),
        }
    }

    /// A table keyed by data (`status`: `{"404": "transient"}`): each entry
    /// goes to `each` with its path; absent or empty is no entries.
    #[inline(never)]
    pub fn table(&mut self, name: &'static str, mut each: impl FnMut(&mut Check, &str, &Value)) {
        match self.take(name, false) {
            None => {}
            Some((seg, Value::Map(entries))) => self.check.within(seg, |c| {
                for (key, value) in entries {
                    let seg = c.data_key(key);
                    c.within(seg, |c| each(c, key, value));
                }
            }),
            Some((seg, other)) => self.wrong_type(seg, "an object", other),
        }
    }

    /// A list: each item goes to `each` with its path; absent is `None`.
    #[inline(never)]
    pub fn list(
        &mut self,
        name: &'static str,
        mut each: impl FnMut(&mut Check, &Value),
    ) -> Option<()> {
        match self.take(name, false) {
            None => None,
            Some((seg, Value::List(items))) => {
                self.check.within(seg, |c| {
                    for (i, item) in items.iter().enumerate() {
                        c.within(Seg::Index(i), |c| each(c, item));
                    }
                });
                Some(())
            }
            Some((seg, other)) => {
                self.wrong_type(seg, "a list", other);
                None
            }
        }
    }

    /// Takes no position on the keys not read yet: for a section whose
    /// shape depends on a value that is already wrong (an unknown `kind`),
    /// listing the other keys as unknown would only mislead.
    #[inline(never)]
    pub fn ignore_rest(&mut self) {
        self.used.iter_mut().for_each(|used| *used = true);
    }

    /// Reports every key no accessor asked for.
    #[inline(never)]
    fn finish(self) {
        let dialect = self.check.dialect();
        for (i, (key, _)) in self.entries.iter().enumerate() {
            if self.used.get(i).copied().unwrap_or(true) {
                continue;
            }
            let mut message = format!("unknown field `{key}`");
            let stem = key.strip_suffix("_ms").or_else(|| key.strip_suffix("Ms"));
            let as_seconds = stem.filter(|stem| {
                dialect.time == TimeUnit::Seconds && self.known.iter().any(|k| k == stem)
            });
            if let Some(stem) = as_seconds {
                message = format!(
                    "unknown field `{key}`: durations are float seconds here, write `{stem}`"
                );
            } else {
                #[cfg(feature = "suggest")]
                if let Some(close) = closest(key, &self.known) {
                    message.push_str(&format!("; did you mean `{close}`?"));
                }
            }
            if !self.known.is_empty() && as_seconds.is_none() {
                let names = listed(&mut self.known.iter().map(String::as_str), "`", ", ");
                message.push_str(&format!(" (expected one of {names})"));
            }
            let seg = self.check.data_key(key);
            self.check
                .fail_at(seg, ConfigErrorCode::UnknownField, message);
        }
    }
}
