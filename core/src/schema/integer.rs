//! An integer field's value: whole, within the field's range, and exact
//! (a double beyond 2^53 stands for many integers), or the problem said in
//! the caller's terms.

use crate::error::ConfigErrorCode;
use crate::key::float_text;

use super::check::{Check, Seg};
use super::dialect::KeyCase;
use super::value::{int_text, Value};

/// The largest whole number a double holds exactly (2^53 - 1).
const MAX_EXACT: f64 = 9_007_199_254_740_991.0;

/// `value` as an integer in `0..=max`, or the problem recorded at `seg`.
pub(super) fn integer(check: &mut Check, seg: Seg, value: &Value, max: i128) -> Option<i128> {
    let n = match value {
        Value::Int(n) => *n,
        Value::Float(f) if f.is_finite() && f.fract() == 0.0 => {
            // Whole; saturating beyond i128 (far past any field's range).
            #[allow(clippy::cast_possible_truncation)]
            let n = *f as i128;
            n
        }
        Value::Float(f) if f.is_finite() => {
            check.fail_at(
                seg,
                ConfigErrorCode::WrongType,
                format!("expected a whole number, got {}", float_text(*f)),
            );
            return None;
        }
        // A NaN or an infinity is a number out of any range (as Python
        // reports it before the schema sees it).
        Value::Float(_) => {
            check.fail_at(seg, ConfigErrorCode::OutOfRange, "not a finite number");
            return None;
        }
        other => {
            check.fail_at(
                seg,
                ConfigErrorCode::WrongType,
                format!("expected a whole number, got {}", other.kind()),
            );
            return None;
        }
    };
    if !(0..=max).contains(&n) {
        let text = if n < 0 {
            format!("must not be negative, got {}", int_text(n))
        } else {
            format!("is too large, got {}", int_text(n))
        };
        check.fail_at(seg, ConfigErrorCode::OutOfRange, text);
        return None;
    }
    // In range, but a whole double beyond 2^53 stands for many integers at
    // once (JS `2 ** 60` is also `2 ** 60 + 1`): refused, as canonical JSON
    // refuses it.
    if matches!(value, Value::Float(f) if f.abs() > MAX_EXACT) {
        let exact = match check.dialect().case {
            KeyCase::Camel => "a BigInt",
            KeyCase::Snake => "an int",
        };
        check.fail_at(
            seg,
            ConfigErrorCode::OutOfRange,
            format!("is beyond 2^53, where a number is not exact; pass {exact}"),
        );
        return None;
    }
    Some(n)
}
