//! The failure-rate windows: bounded rings of recent outcomes.

use std::collections::VecDeque;

use super::config::Window;
use crate::time::Instant;

/// What a failure-rate window holds at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WindowCounts {
    /// Calls recorded (successes, slow successes and failures).
    pub calls: u64,
    /// Failed calls.
    pub failures: u64,
    /// Successes that were slow (see [`super::SlowCall`]).
    pub slow: u64,
}

impl WindowCounts {
    /// `failures / calls`, or `None` for an empty window (a rate of nothing
    /// is undefined, not zero).
    #[must_use]
    pub fn failure_rate(&self) -> Option<f64> {
        ratio(self.failures, self.calls)
    }

    /// `slow / calls`, or `None` for an empty window.
    #[must_use]
    pub fn slow_rate(&self) -> Option<f64> {
        ratio(self.slow, self.calls)
    }

    fn add(&mut self, mark: Mark, by: u64) {
        self.calls = self.calls.saturating_add(by);
        match mark {
            Mark::Success => {}
            Mark::Failure => self.failures = self.failures.saturating_add(by),
            Mark::Slow => self.slow = self.slow.saturating_add(by),
        }
    }

    #[cfg(feature = "rate_breaker")]
    fn sub(&mut self, mark: Mark) {
        self.calls = self.calls.saturating_sub(1);
        match mark {
            Mark::Success => {}
            Mark::Failure => self.failures = self.failures.saturating_sub(1),
            Mark::Slow => self.slow = self.slow.saturating_sub(1),
        }
    }

    fn sum(&mut self, other: &WindowCounts) {
        self.calls = self.calls.saturating_add(other.calls);
        self.failures = self.failures.saturating_add(other.failures);
        self.slow = self.slow.saturating_add(other.slow);
    }
}

#[allow(clippy::cast_precision_loss)] // counts far below 2^53 are exact; beyond, a rate is still a rate
fn ratio(part: u64, whole: u64) -> Option<f64> {
    if whole == 0 {
        None
    } else {
        Some(part as f64 / whole as f64)
    }
}

/// One recorded outcome, as a window keeps it (short codes keep snapshots small).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    Success,
    Failure,
    Slow,
}

impl Mark {
    /// Every mark, for reading codes.
    pub(crate) const ALL: [Mark; 3] = [Mark::Success, Mark::Failure, Mark::Slow];

    /// The mark's code in a snapshot.
    pub(crate) const fn code(self) -> &'static str {
        match self {
            Mark::Success => "ok",
            Mark::Failure => "err",
            Mark::Slow => "slow",
        }
    }
}

/// One time bucket; `index` is absolute (`now_ms / bucket_ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bucket {
    pub(super) index: u64,
    pub(super) counts: WindowCounts,
}

/// The live data of a failure-rate window. Its parameters stay in the config,
/// so a snapshot cannot make the two disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CallWindow {
    /// The last `size` outcomes, oldest first; `counts` caches their sum.
    Count {
        marks: VecDeque<Mark>,
        counts: WindowCounts,
    },
    /// Non-empty buckets, ascending by index, at most `buckets` of them.
    Time { buckets: VecDeque<Bucket> },
}

fn bucket_ms(duration_ms: u64, buckets: u32) -> u64 {
    duration_ms
        .checked_div(u64::from(buckets))
        .unwrap_or(1)
        .max(1)
}

/// Whether bucket `index` is in the window whose current bucket is `current`.
fn live(index: u64, current: u64, buckets: u32) -> bool {
    index <= current && index.saturating_add(u64::from(buckets)) > current
}

impl CallWindow {
    /// An empty window of the configured kind.
    pub(crate) fn new(cfg: &Window) -> Self {
        match cfg {
            Window::Count { .. } => CallWindow::Count {
                marks: VecDeque::new(),
                counts: WindowCounts::default(),
            },
            Window::Time { .. } => CallWindow::Time {
                buckets: VecDeque::new(),
            },
        }
    }

    /// Whether this data belongs to a window of kind `cfg`.
    pub(crate) fn matches(&self, cfg: &Window) -> bool {
        matches!(
            (self, cfg),
            (CallWindow::Count { .. }, Window::Count { .. })
                | (CallWindow::Time { .. }, Window::Time { .. })
        )
    }

    /// Forgets every outcome (the breaker changed state).
    pub(crate) fn clear(&mut self) {
        match self {
            CallWindow::Count { marks, counts } => {
                marks.clear();
                *counts = WindowCounts::default();
            }
            CallWindow::Time { buckets } => buckets.clear(),
        }
    }

    /// Slots held in memory: at most `size` marks or `buckets` buckets.
    pub(crate) fn slots(&self) -> usize {
        match self {
            CallWindow::Count { marks, .. } => marks.len(),
            CallWindow::Time { buckets } => buckets.len(),
        }
    }

    /// Records one outcome at `now`.
    #[cfg(feature = "rate_breaker")]
    pub(crate) fn record(&mut self, cfg: &Window, now: Instant, mark: Mark) {
        match (self, cfg) {
            (CallWindow::Count { marks, counts }, Window::Count { size }) => {
                let size = usize::try_from((*size).max(1)).unwrap_or(usize::MAX);
                while marks.len() >= size {
                    match marks.pop_front() {
                        Some(old) => counts.sub(old),
                        None => break,
                    }
                }
                marks.push_back(mark);
                counts.add(mark, 1);
            }
            (
                CallWindow::Time { buckets },
                Window::Time {
                    duration_ms,
                    buckets: n,
                },
            ) => {
                let current = now.as_millis() / bucket_ms(*duration_ms, *n);
                prune(buckets, current, *n);
                match buckets.iter_mut().rev().find(|b| b.index == current) {
                    Some(bucket) => bucket.counts.add(mark, 1),
                    None => {
                        let mut counts = WindowCounts::default();
                        counts.add(mark, 1);
                        let at = buckets.partition_point(|b| b.index < current);
                        buckets.insert(
                            at,
                            Bucket {
                                index: current,
                                counts,
                            },
                        );
                        trim(buckets, *n);
                    }
                }
            }
            // Kinds are checked at construction and restore; a mismatch records nothing.
            (CallWindow::Count { .. }, Window::Time { .. })
            | (CallWindow::Time { .. }, Window::Count { .. }) => {}
        }
    }

    /// The counts in the window at `now`.
    pub(crate) fn counts(&self, cfg: &Window, now: Instant) -> WindowCounts {
        match (self, cfg) {
            (CallWindow::Count { counts, .. }, Window::Count { .. }) => *counts,
            (
                CallWindow::Time { buckets },
                Window::Time {
                    duration_ms,
                    buckets: n,
                },
            ) => {
                let current = now.as_millis() / bucket_ms(*duration_ms, *n);
                let mut total = WindowCounts::default();
                for b in buckets.iter().filter(|b| live(b.index, current, *n)) {
                    total.sum(&b.counts);
                }
                total
            }
            (CallWindow::Count { .. }, Window::Time { .. })
            | (CallWindow::Time { .. }, Window::Count { .. }) => WindowCounts::default(),
        }
    }

    /// Restores the invariants after deserialization: at most `size` marks
    /// with a correct cached sum; buckets ascending, unique, at most `buckets`.
    pub(crate) fn normalize(&mut self, cfg: &Window) {
        match (self, cfg) {
            (CallWindow::Count { marks, counts }, Window::Count { size }) => {
                let size = usize::try_from(*size).unwrap_or(usize::MAX);
                while marks.len() > size {
                    marks.pop_front();
                }
                *counts = WindowCounts::default();
                for m in marks.iter() {
                    counts.add(*m, 1);
                }
            }
            (CallWindow::Time { buckets }, Window::Time { buckets: n, .. }) => {
                sort_and_sum(buckets);
                trim(buckets, *n);
            }
            (CallWindow::Count { .. }, Window::Time { .. })
            | (CallWindow::Time { .. }, Window::Count { .. }) => {}
        }
    }

    /// Adds `other`'s buckets into `self` by absolute bucket index (see the
    /// merge rule on [`Window`]), keeping what is live at `now`. Returns
    /// `false`, changing nothing, unless both are time windows: a count window
    /// has no order that two hosts share, so it cannot be merged.
    pub(crate) fn merge(&mut self, other: &CallWindow, cfg: &Window, now: Instant) -> bool {
        match (self, other, cfg) {
            (
                CallWindow::Time { buckets },
                CallWindow::Time { buckets: theirs },
                Window::Time {
                    duration_ms,
                    buckets: n,
                },
            ) => {
                buckets.extend(theirs.iter().copied());
                sort_and_sum(buckets);
                prune(buckets, now.as_millis() / bucket_ms(*duration_ms, *n), *n);
                trim(buckets, *n);
                true
            }
            _ => false,
        }
    }
}

/// Sorts buckets by index and sums those that share one.
fn sort_and_sum(buckets: &mut VecDeque<Bucket>) {
    let mut sorted: Vec<Bucket> = buckets.drain(..).collect();
    crate::sort::sort_by(&mut sorted, |a, b| a.index < b.index);
    for b in sorted {
        match buckets.back_mut() {
            Some(last) if last.index == b.index => last.counts.sum(&b.counts),
            _ => buckets.push_back(b),
        }
    }
}

/// Drops buckets that have left the window ending at bucket `current`.
fn prune(buckets: &mut VecDeque<Bucket>, current: u64, n: u32) {
    while buckets
        .front()
        .is_some_and(|b| b.index.saturating_add(u64::from(n)) <= current)
    {
        buckets.pop_front();
    }
}

/// Keeps at most `n` buckets, dropping the oldest.
fn trim(buckets: &mut VecDeque<Bucket>, n: u32) {
    let n = usize::try_from(n.max(1)).unwrap_or(usize::MAX);
    while buckets.len() > n {
        buckets.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    #[test]
    fn count_window_slides() {
        let cfg = Window::Count { size: 5 };
        let mut w = CallWindow::new(&cfg);
        // cockatiel CountBreaker wrap-around: 9 calls, failure when i % 3 == 0.
        for i in 0..9 {
            w.record(
                &cfg,
                at(0),
                if i % 3 == 0 {
                    Mark::Failure
                } else {
                    Mark::Success
                },
            );
        }
        assert_eq!(
            w.counts(&cfg, at(0)),
            WindowCounts {
                calls: 5,
                failures: 1,
                slow: 0
            }
        );
        assert_eq!(w.slots(), 5);
        w.record(&cfg, at(0), Mark::Slow);
        assert_eq!(
            w.counts(&cfg, at(0)),
            WindowCounts {
                calls: 5,
                failures: 1,
                slow: 1
            }
        );
        w.clear();
        assert_eq!(w.counts(&cfg, at(0)), WindowCounts::default());
    }

    #[test]
    fn polly_rolling_window() {
        // SamplingDuration 10 s in 10 buckets (RollingHealthMetricsTests).
        let cfg = Window::Time {
            duration_ms: 10_000,
            buckets: 10,
        };
        let mut w = CallWindow::new(&cfg);
        let rec = |w: &mut CallWindow, t, marks: &[Mark]| {
            for m in marks {
                w.record(&cfg, at(t), *m);
            }
        };
        let c = |calls, failures| WindowCounts {
            calls,
            failures,
            slow: 0,
        };
        rec(&mut w, 0, &[Mark::Failure, Mark::Success]);
        assert_eq!(w.counts(&cfg, at(2000)), c(2, 1));
        rec(&mut w, 2000, &[Mark::Failure, Mark::Success]);
        assert_eq!(w.counts(&cfg, at(4000)), c(4, 2));
        rec(&mut w, 4000, &[Mark::Success, Mark::Success]);
        assert_eq!(w.counts(&cfg, at(6000)), c(6, 2));
        rec(&mut w, 6000, &[Mark::Success, Mark::Success]);
        assert_eq!(w.counts(&cfg, at(8000)), c(8, 2));
        assert_eq!(w.counts(&cfg, at(8000)).failure_rate(), Some(0.25));
        rec(&mut w, 8000, &[Mark::Success, Mark::Success]);
        assert_eq!(w.counts(&cfg, at(10_000)), c(8, 1));
        assert_eq!(w.counts(&cfg, at(10_000)).failure_rate(), Some(0.125));
        assert_eq!(w.counts(&cfg, at(12_000)), c(6, 0));
        assert_eq!(w.counts(&cfg, at(99_000)).failure_rate(), None);
    }

    #[test]
    fn time_window_memory_is_bounded() {
        let cfg = Window::Time {
            duration_ms: 50,
            buckets: 5,
        };
        let mut w = CallWindow::new(&cfg);
        for t in 0..10_000 {
            w.record(&cfg, at(t), Mark::Failure);
            assert!(w.slots() <= 5);
        }
        assert_eq!(w.counts(&cfg, at(9_999)).calls, 50);
    }

    #[test]
    fn merge_sums_by_absolute_index() {
        let cfg = Window::Time {
            duration_ms: 4000,
            buckets: 4,
        };
        let mut a = CallWindow::new(&cfg);
        let mut b = CallWindow::new(&cfg);
        a.record(&cfg, at(0), Mark::Failure); // bucket 0, expires at 4000
        a.record(&cfg, at(1500), Mark::Success); // bucket 1
        b.record(&cfg, at(1200), Mark::Failure); // bucket 1
        b.record(&cfg, at(4100), Mark::Slow); // bucket 4
        assert!(a.merge(&b, &cfg, at(4100)));
        assert_eq!(
            a.counts(&cfg, at(4100)),
            WindowCounts {
                calls: 3,
                failures: 1,
                slow: 1
            }
        );
        assert_eq!(a.slots(), 2);
        let count = Window::Count { size: 3 };
        let mut c = CallWindow::new(&count);
        assert!(!c.merge(&CallWindow::new(&count), &count, at(0)));
    }

    #[test]
    fn normalize_repairs_restored_data() {
        let cfg = Window::Count { size: 2 };
        let mut w: CallWindow =
            crate::state::read_snapshot(r#"{"kind":"count","marks":["err","ok","err"]}"#).unwrap();
        w.normalize(&cfg);
        assert_eq!(
            w.counts(&cfg, at(0)),
            WindowCounts {
                calls: 2,
                failures: 1,
                slow: 0
            }
        );
        let tcfg = Window::Time {
            duration_ms: 20,
            buckets: 2,
        };
        let mut t: CallWindow = crate::state::read_snapshot(
            r#"{"kind":"time","buckets":[
            {"index":5,"counts":{"calls":1,"failures":1,"slow":0}},
            {"index":3,"counts":{"calls":1,"failures":0,"slow":0}},
            {"index":5,"counts":{"calls":2,"failures":0,"slow":1}}]}"#,
        )
        .unwrap();
        t.normalize(&tcfg);
        assert_eq!(
            t.counts(&tcfg, at(50)),
            WindowCounts {
                calls: 3,
                failures: 1,
                slow: 1
            }
        );
        assert!(t.slots() <= 2);
        assert!(!t.matches(&cfg));
        assert!(t.matches(&tcfg));
    }
}
