//! A minimal ring of time buckets for the alert window.
//!
//! Private to `record`; a similar ring exists for budgets and the two will be
//! unified at merge. Memory is fixed ([`WINDOW_BUCKETS`] buckets whatever the
//! traffic), and each bucket remembers the absolute bucket number it holds
//! (`now_ms / bucket_ms`), so a slot left over from an earlier lap of the
//! ring is recognised as stale and ignored or reset, never double counted.

use serde::{Deserialize, Serialize};

/// How many buckets the alert window is cut into. The window is therefore
/// approximate to within one bucket (`window_ms / 12`, 5 s for the default
/// minute): the buckets that count at `now` are the current, partial one and
/// the 11 before it.
pub const WINDOW_BUCKETS: usize = 12;

/// The counts the alert rules need, for one bucket or a whole window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WindowCounts {
    /// Attempts sent.
    pub(crate) attempts: u64,
    /// Attempts that were retries (attempt 2 and later of a call).
    pub(crate) retry_attempts: u64,
    /// Calls finished, whatever the outcome.
    pub(crate) finished: u64,
    /// Calls finished with outcome `exhausted`.
    pub(crate) exhausted: u64,
}

impl WindowCounts {
    fn add(&mut self, other: &WindowCounts) {
        self.attempts = self.attempts.saturating_add(other.attempts);
        self.retry_attempts = self.retry_attempts.saturating_add(other.retry_attempts);
        self.finished = self.finished.saturating_add(other.finished);
        self.exhausted = self.exhausted.saturating_add(other.exhausted);
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Bucket {
    /// Absolute bucket number (`now_ms / bucket_ms`) these counts belong to.
    index: u64,
    counts: WindowCounts,
}

/// The sliding window: a fixed ring of buckets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Window {
    buckets: [Bucket; WINDOW_BUCKETS],
}

/// Width of one bucket for a window of `window_ms`; never 0, so a window
/// restored from hand-edited state cannot divide by zero.
fn bucket_ms(window_ms: u64) -> u64 {
    window_ms.div_ceil(WINDOW_BUCKETS as u64).max(1)
}

impl Window {
    /// Adds `delta` to the bucket containing `now_ms`.
    pub(crate) fn add(&mut self, window_ms: u64, now_ms: u64, delta: &WindowCounts) {
        let index = now_ms / bucket_ms(window_ms);
        let slot = (index % WINDOW_BUCKETS as u64) as usize;
        if let Some(bucket) = self.buckets.get_mut(slot) {
            if bucket.index != index {
                *bucket = Bucket {
                    index,
                    counts: WindowCounts::default(),
                };
            }
            bucket.counts.add(delta);
        }
    }

    /// The counts of the window ending at `now_ms`: the current bucket and the
    /// `WINDOW_BUCKETS - 1` before it. Buckets from later than `now_ms` (time
    /// that went backwards) are ignored rather than trusted.
    pub(crate) fn totals(&self, window_ms: u64, now_ms: u64) -> WindowCounts {
        let current = now_ms / bucket_ms(window_ms);
        let oldest = current.saturating_sub(WINDOW_BUCKETS as u64 - 1);
        let mut totals = WindowCounts::default();
        for bucket in &self.buckets {
            if bucket.index >= oldest && bucket.index <= current {
                totals.add(&bucket.counts);
            }
        }
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_attempt() -> WindowCounts {
        WindowCounts {
            attempts: 1,
            ..WindowCounts::default()
        }
    }

    #[test]
    fn counts_expire_after_the_window() {
        let mut w = Window::default();
        w.add(60_000, 0, &one_attempt());
        w.add(60_000, 4_999, &one_attempt());
        w.add(60_000, 5_000, &one_attempt());
        assert_eq!(w.totals(60_000, 5_000).attempts, 3);
        // Bucket 0 ([0, 5000)) is still in the window at bucket 11.
        assert_eq!(w.totals(60_000, 59_999).attempts, 3);
        // At bucket 12 the first bucket has left the window.
        assert_eq!(w.totals(60_000, 60_000).attempts, 1);
        assert_eq!(w.totals(60_000, 65_000).attempts, 0);
    }

    #[test]
    fn stale_slots_are_reset_not_accumulated() {
        let mut w = Window::default();
        w.add(60_000, 0, &one_attempt());
        // Same slot, one lap later.
        w.add(60_000, 60_000, &one_attempt());
        assert_eq!(w.totals(60_000, 60_000).attempts, 1);
    }

    #[test]
    fn zero_window_does_not_divide_by_zero() {
        let mut w = Window::default();
        w.add(0, u64::MAX, &one_attempt());
        assert_eq!(w.totals(0, u64::MAX).attempts, 1);
    }
}
