//! Numbers at the boundary: JavaScript passes milliseconds as `f64`; the
//! core counts `u64` milliseconds. Conversions never panic.

use stoic_core::Instant;

/// A host millisecond reading as the core's integer milliseconds: fractions
/// are dropped, negatives and NaN read as 0, huge values saturate.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
pub(crate) fn ms(value: f64) -> u64 {
    // Float-to-integer `as` saturates and maps NaN to 0: it cannot panic.
    value as u64
}

pub(crate) fn instant(value: f64) -> Instant {
    Instant::from_millis(ms(value))
}

/// An optional duration as a number, `-1` for none (keeps the hot path
/// numeric).
#[allow(clippy::cast_precision_loss)]
pub(crate) fn opt_ms(value: Option<u64>) -> f64 {
    value.map_or(-1.0, |v| v as f64)
}
