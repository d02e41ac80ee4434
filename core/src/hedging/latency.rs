//! Recent latencies of a scope, and the quantile a hedge waits for.
//!
//! **What is recorded.** A success's latency; a timeout's elapsed time
//! (the request took at least that long); a superseded copy's elapsed time
//! when it had run longer than the copy that won (it too took at least that
//! long). Never a fast failure: a 503 in 2 ms says nothing about how long
//! an answer takes, and counting it would pull the quantile down until
//! every call hedged at once. The superseded and timed-out samples are
//! there because winners alone are a biased view: once hedging works, the
//! slow requests it rescues would never be seen, the quantile would drift
//! down, and hedging would feed on itself.
//!
//! **Which quantile.** The nearest rank over the newest `samples`
//! latencies: sorted ascending, the value at rank `ceil(q * n)`, `q` read
//! to thousandths and computed in integers, so every host gets the same
//! millisecond.

use std::collections::VecDeque;

use crate::budget::to_milli;

/// One scope's newest latencies, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LatencyWindow {
    samples: VecDeque<u64>,
    capacity: usize,
}

impl LatencyWindow {
    /// Records `ms`, keeping at most `capacity` samples (the largest any
    /// caller asked for so far: a call that looks back over fewer reads
    /// the newest of them).
    pub fn record(&mut self, ms: u64, capacity: u32) {
        let capacity = usize::try_from(capacity).unwrap_or(usize::MAX);
        self.capacity = self.capacity.max(capacity).max(1);
        while self.samples.len() >= self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(ms);
    }

    /// Samples held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no sample is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The `quantile` of the newest `samples` latencies, if at least
    /// `min_samples` of them are known.
    #[must_use]
    pub fn quantile(&self, quantile: f64, samples: u32, min_samples: u32) -> Option<u64> {
        let newest = usize::try_from(samples).unwrap_or(usize::MAX);
        let mut values: Vec<u64> = self.samples.iter().rev().take(newest).copied().collect();
        let count = u64::try_from(values.len()).unwrap_or(u64::MAX);
        if values.is_empty() || count < u64::from(min_samples) {
            return None;
        }
        values.sort_unstable();
        // rank = ceil(q_milli * n / 1000), from 1 to n.
        let q = to_milli(quantile).min(1000);
        let rank = (q.saturating_mul(count).saturating_add(999) / 1000).clamp(1, count);
        let index = usize::try_from(rank - 1).unwrap_or(usize::MAX);
        values.get(index).copied()
    }
}

/// Every scope's window, by scope index (scopes are bounded by
/// `max_scopes`, and a window exists only for a scope that hedged).
#[derive(Clone, Debug, Default)]
pub(crate) struct Latencies {
    windows: Vec<LatencyWindow>,
}

impl Latencies {
    /// The window of scope `index`, if it has recorded anything.
    #[must_use]
    pub(crate) fn get(&self, index: usize) -> Option<&LatencyWindow> {
        self.windows.get(index)
    }

    /// Records `ms` in scope `index`'s window.
    pub(crate) fn record(&mut self, index: usize, ms: u64, capacity: u32) {
        if self.windows.len() <= index {
            self.windows
                .resize_with(index.saturating_add(1), LatencyWindow::default);
        }
        if let Some(window) = self.windows.get_mut(index) {
            window.record(ms, capacity);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(values: &[u64], capacity: u32) -> LatencyWindow {
        let mut w = LatencyWindow::default();
        for v in values {
            w.record(*v, capacity);
        }
        w
    }

    #[test]
    fn nearest_rank_quantiles() {
        let w = window(&(1..=100).rev().collect::<Vec<_>>(), 100);
        assert_eq!(w.quantile(0.95, 100, 1), Some(95));
        assert_eq!(w.quantile(0.5, 100, 1), Some(50));
        assert_eq!(w.quantile(1.0, 100, 1), Some(100));
        assert_eq!(w.quantile(0.001, 100, 1), Some(1));
        // 20 samples: rank ceil(0.95 * 20) = 19.
        let w = window(&(1..=20).collect::<Vec<_>>(), 100);
        assert_eq!(w.quantile(0.95, 100, 20), Some(19));
        assert_eq!(w.quantile(0.95, 100, 21), None, "too few samples");
    }

    #[test]
    fn only_the_newest_samples_count() {
        let mut w = window(&[1_000; 10], 10);
        for _ in 0..10 {
            w.record(10, 10);
        }
        assert_eq!(w.len(), 10);
        assert_eq!(w.quantile(0.95, 10, 10), Some(10), "the old regime is gone");
        // A caller that looks back over fewer samples reads the newest.
        let w = window(&[5, 5, 5, 900, 900], 5);
        assert_eq!(w.quantile(0.5, 2, 1), Some(900));
        assert_eq!(w.quantile(0.5, 5, 1), Some(5));
    }

    #[test]
    fn the_window_grows_to_the_largest_capacity_asked() {
        let mut w = window(&[1, 2, 3], 2);
        assert_eq!(w.len(), 2);
        w.record(4, 4);
        w.record(5, 4);
        assert_eq!(w.len(), 4);
        w.record(6, 2);
        assert_eq!(w.len(), 4, "a smaller ask does not shrink it");
        assert!(!w.is_empty());
    }

    #[test]
    fn latencies_are_kept_per_scope() {
        let mut all = Latencies::default();
        all.record(3, 40, 10);
        assert!(all.get(0).is_some_and(LatencyWindow::is_empty));
        assert_eq!(all.get(3).map(LatencyWindow::len), Some(1));
        assert!(all.get(4).is_none());
    }
}
