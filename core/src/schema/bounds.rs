//! The range checks every section makes, and their messages, once.
//!
//! Each check is one non-generic call: a closure per site that formats its
//! own message made every site a copy of the check and of its `format!`
//! (about a kilobyte of the browser's module over the schema's two dozen
//! bounded fields). Messages stay in the caller's units: durations through
//! the dialect (`1500 ms`, `1.5 s`), floats in their shortest form.

use crate::error::ConfigErrorCode;
use crate::key::float_text;

use super::check::{Check, Seg};

impl Check {
    /// `out_of_range` at `seg` unless `min <= got <= max`: "must be from
    /// `min` to `max`, got `got`".
    #[inline(never)]
    pub fn count_from(&mut self, seg: Seg, got: u64, min: u64, max: u64) {
        if !(min..=max).contains(&got) {
            self.out_of_range(seg, format!("must be from {min} to {max}, got {got}"));
        }
    }

    /// `out_of_range` at `seg` unless `got <= max`.
    #[inline(never)]
    pub fn count_at_most(&mut self, seg: Seg, got: u64, max: u64) {
        if got > max {
            self.out_of_range(seg, format!("must be at most {max}, got {got}"));
        }
    }

    /// `out_of_range` at `seg` unless `got >= 1`; `note` follows the rule.
    #[inline(never)]
    pub fn at_least_one(&mut self, seg: Seg, got: u64, note: &str) {
        if got < 1 {
            self.out_of_range(seg, format!("must be at least 1{note}"));
        }
    }

    /// `out_of_range` at the duration `seg` unless `min <= got <= max`
    /// (milliseconds); `note` follows the upper bound (` (30 days)`).
    #[inline(never)]
    pub fn ms_from(&mut self, seg: Seg, got: u64, min: u64, max: u64, note: &str) {
        if !(min..=max).contains(&got) {
            let text = format!(
                "must be from {} to {}{note}, got {}",
                self.ms(min),
                self.ms(max),
                self.ms(got)
            );
            self.out_of_range(seg, text);
        }
    }

    /// `out_of_range` at the duration `seg` unless `got <= max`
    /// (milliseconds); `note` follows the bound.
    #[inline(never)]
    pub fn ms_at_most(&mut self, seg: Seg, got: u64, max: u64, note: &str) {
        if got > max {
            let text = format!(
                "must be at most {}{note}, got {}",
                self.ms(max),
                self.ms(got)
            );
            self.out_of_range(seg, text);
        }
    }

    /// `out_of_range` at `seg` unless `got` is a finite number from `min`
    /// to `max`; `what` names the kind (`a fraction `, or empty).
    #[inline(never)]
    pub fn float_from(&mut self, seg: Seg, got: f64, min: f64, max: f64, what: &str) {
        if !(got.is_finite() && (min..=max).contains(&got)) {
            let text = format!(
                "must be {what}from {} to {}, got {}",
                float_text(min),
                float_text(max),
                float_text(got)
            );
            self.out_of_range(seg, text);
        }
    }

    fn out_of_range(&mut self, seg: Seg, text: String) {
        self.fail_at(seg, ConfigErrorCode::OutOfRange, text);
    }
}
