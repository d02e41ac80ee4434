//! The alert window: the four counts the alert rules need, each in a
//! [`BucketRing`] (the crate's one sliding-window counter, shared with the
//! ratio budget). Memory is fixed ([`WINDOW_BUCKETS`] buckets per count
//! whatever the traffic) and buckets are keyed by absolute index, so alert
//! state merges by the same rule as every other window.

use crate::ring::BucketRing;
use crate::time::Instant;

/// How many buckets the alert window is cut into. The window is therefore
/// approximate to within one bucket (`window_ms / 12`, 5 s for the default
/// minute): the buckets that count at `now` are the current, partial one and
/// the 11 before it.
pub const WINDOW_BUCKETS: usize = 12;

/// The counts the alert rules need, for one event or a whole window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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

/// The sliding window of [`WindowCounts`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    pub(super) attempts: BucketRing,
    pub(super) retry_attempts: BucketRing,
    pub(super) finished: BucketRing,
    pub(super) exhausted: BucketRing,
}

impl Window {
    /// An empty window of `window_ms`, cut into [`WINDOW_BUCKETS`] buckets
    /// (never 0 ms wide, so a hand-edited config cannot divide by zero).
    pub(crate) fn new(window_ms: u64) -> Self {
        let bucket_ms = window_ms.div_ceil(WINDOW_BUCKETS as u64).max(1);
        let ring = BucketRing::new(bucket_ms, WINDOW_BUCKETS as u32);
        Window {
            attempts: ring.clone(),
            retry_attempts: ring.clone(),
            finished: ring.clone(),
            exhausted: ring,
        }
    }

    /// Whether every count has `other`'s bucket size and count (a restored
    /// window against the one its config makes).
    pub(crate) fn same_shape(&self, other: &Window) -> bool {
        fn rings(w: &Window) -> [&BucketRing; 4] {
            [&w.attempts, &w.retry_attempts, &w.finished, &w.exhausted]
        }
        rings(self)
            .iter()
            .zip(rings(other))
            .all(|(a, b)| (a.bucket_ms(), a.buckets()) == (b.bucket_ms(), b.buckets()))
    }

    /// Adds `delta` at `now`.
    pub(crate) fn add(&mut self, now: Instant, delta: &WindowCounts) {
        for (ring, n) in [
            (&mut self.attempts, delta.attempts),
            (&mut self.retry_attempts, delta.retry_attempts),
            (&mut self.finished, delta.finished),
            (&mut self.exhausted, delta.exhausted),
        ] {
            if n > 0 {
                ring.add(now, n);
            }
        }
    }

    /// The absolute index of the bucket holding `now`.
    pub(crate) fn bucket(&self, now: Instant) -> u64 {
        self.attempts.bucket_of(now)
    }

    /// The counts of the window ending at `now`.
    pub(crate) fn totals(&self, now: Instant) -> WindowCounts {
        WindowCounts {
            attempts: self.attempts.total(now),
            retry_attempts: self.retry_attempts.total(now),
            finished: self.finished.total(now),
            exhausted: self.exhausted.total(now),
        }
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

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    #[test]
    fn counts_expire_after_the_window() {
        let mut w = Window::new(60_000);
        w.add(at(0), &one_attempt());
        w.add(at(4_999), &one_attempt());
        w.add(at(5_000), &one_attempt());
        assert_eq!(w.totals(at(5_000)).attempts, 3);
        // Bucket 0 ([0, 5000)) is still in the window at bucket 11.
        assert_eq!(w.totals(at(59_999)).attempts, 3);
        // At bucket 12 the first bucket has left the window.
        assert_eq!(w.totals(at(60_000)).attempts, 1);
        assert_eq!(w.totals(at(65_000)).attempts, 0);
    }

    #[test]
    fn stale_slots_are_reset_not_accumulated() {
        let mut w = Window::new(60_000);
        w.add(at(0), &one_attempt());
        // Same slot, one lap later.
        w.add(at(60_000), &one_attempt());
        assert_eq!(w.totals(at(60_000)).attempts, 1);
    }

    #[test]
    fn zero_window_does_not_divide_by_zero() {
        let mut w = Window::new(0);
        w.add(at(u64::MAX), &one_attempt());
        assert_eq!(w.totals(at(u64::MAX)).attempts, 1);
    }
}
