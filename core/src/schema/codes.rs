//! Codes (data such as `full_jitter` or `budget_exhausted`, the same
//! snake_case in every dialect): reading one against its list, and naming
//! the list in messages, in the same words in every language.

use crate::error::ConfigErrorCode;

use super::check::{Check, Seg};
use super::value::Value;

/// `value` as one of `all`'s codes, or an `invalid_value` problem at `seg`
/// (`None`: at the current path).
pub fn code_value<T: Copy>(
    check: &mut Check,
    seg: Option<Seg>,
    value: &Value,
    all: &[T],
    code: impl Fn(&T) -> &'static str,
) -> Option<T> {
    if let Value::Text(text) = value {
        if let Some(found) = all.iter().find(|item| code(item) == text) {
            return Some(*found);
        }
    }
    let got = match value {
        Value::Text(text) => format!("\"{text}\""),
        other => other.kind().to_owned(),
    };
    let message = format!(
        "expected one of {}, got {got}",
        quoted(all.iter().map(code))
    );
    match seg {
        Some(seg) => check.fail_at(seg, ConfigErrorCode::InvalidValue, message),
        None => check.fail(ConfigErrorCode::InvalidValue, message),
    }
    None
}

/// Codes as a message lists them: `"normal", "timeout", "throttling"`.
pub fn quoted<'a>(codes: impl IntoIterator<Item = &'a str>) -> String {
    listed(&mut codes.into_iter(), "\"", ", ")
}

/// `items`, each between two `mark`s, `sep` between them: `` `a`, `b` ``
/// or `a.b`. One loop behind a `dyn` iterator instead of `[String]::join`
/// per caller, whose generic copy costs each wasm module a kilobyte.
pub fn listed(items: &mut dyn Iterator<Item = &str>, mark: &str, sep: &str) -> String {
    let mut out = String::new();
    for (n, item) in items.enumerate() {
        if n > 0 {
            out.push_str(sep);
        }
        out.push_str(mark);
        out.push_str(item);
        out.push_str(mark);
    }
    out
}

/// The message for an argument `field` that is not one of `codes` (a
/// binding's code argument, outside any config): the same wording in every
/// language.
#[must_use]
pub fn not_one_of<'a>(field: &str, got: &str, codes: impl IntoIterator<Item = &'a str>) -> String {
    format!("{field} must be one of {}, not \"{got}\"", quoted(codes))
}
