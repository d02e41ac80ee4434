//! A time-bucketed counter over a sliding window, in fixed memory: the one
//! window behind the ratio budget and the alert rules.

use crate::schema::{Check, Fields, Out, Section};
use crate::state::{checked, AS_WRITTEN};
use crate::time::Instant;

/// The most buckets a ring may have. A window is a few dozen buckets at most in
/// practice; the bound keeps a hostile config or snapshot from allocating much.
pub const MAX_BUCKETS: u32 = 1000;

/// One slot of the ring: the absolute bucket it currently holds and its count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// Absolute bucket index (`now_ms / bucket_ms`).
    index: u64,
    /// Events counted in that bucket (saturating).
    count: u64,
}

/// Counts events over a sliding window made of a fixed number of buckets.
///
/// **Why buckets.** A retry budget needs "how many requests and retries in the
/// last minute" at any traffic level. Remembering each event costs memory in
/// proportion to traffic; a ring of `n` buckets of `bucket_ms` each costs `n`
/// slots whatever the traffic, at the price of a window that slides by whole
/// buckets.
///
/// **Indexing.** Bucket indexes are *absolute*: the bucket of `now` is
/// `now_ms / bucket_ms`, and it lives in slot `index % n`. The window at `now`
/// is the `n` buckets `(c - n, c]` where `c` is the current index, so an event
/// counted at `t` stops counting at the start of bucket `t / bucket_ms + n`,
/// between `(n - 1) * bucket_ms` and `n * bucket_ms` after it happened.
/// Absolute indexes are what make two snapshots comparable and mergeable.
///
/// **Time.** The ring remembers the newest bucket it has seen (`head`); an
/// older reading counts in the newest bucket, like
/// [`MonotonicClamp`](crate::MonotonicClamp), so a clock stepping back can never
/// erase newer counts.
///
/// **Merge rule.** Two snapshots of the same scope (say, two processes that
/// each counted their own traffic) merge by summing counts per absolute bucket
/// index, then dropping every bucket outside the window that ends at the newer
/// of the two heads. If the geometries differ, each of `other`'s buckets is
/// re-indexed by its start time (`index * other.bucket_ms / self.bucket_ms`)
/// into `self`'s geometry. Summing assumes the two snapshots counted disjoint
/// events: merging a snapshot into itself, or twice, counts its events twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketRing {
    bucket_ms: u64,
    head: u64,
    slots: Vec<Slot>,
    /// Where the head bucket lies in time, so that an event in it (nearly
    /// every event: a bucket is seconds wide) finds its slot without the
    /// two 64-bit divisions `now_ms / bucket_ms` and `index % n`.
    span: HeadSpan,
}

/// The milliseconds `[from_ms, to_ms)` of the head bucket and the slot it
/// lives in; empty (`from_ms == to_ms`) until an event sets it. A cache of
/// what `head` and `bucket_ms` imply, not part of the ring's value: equal
/// rings may differ in it, and it is never written to a snapshot.
#[derive(Clone, Copy, Debug, Default)]
struct HeadSpan {
    from_ms: u64,
    to_ms: u64,
    position: usize,
}

impl HeadSpan {
    /// Whether reading `ms` falls in the head bucket.
    const fn holds(&self, ms: u64) -> bool {
        ms >= self.from_ms && ms < self.to_ms
    }
}

impl PartialEq for HeadSpan {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for HeadSpan {}

/// The unchecked wire form, validated into a [`BucketRing`] on deserialization.
struct RawRing {
    bucket_ms: u64,
    head: u64,
    slots: Vec<Slot>,
}

impl TryFrom<RawRing> for BucketRing {
    type Error = String;

    fn try_from(raw: RawRing) -> Result<Self, Self::Error> {
        let n = raw.slots.len() as u64;
        if raw.bucket_ms == 0 {
            return Err("bucket_ms must be at least 1".to_owned());
        }
        if n == 0 || n > u64::from(MAX_BUCKETS) {
            return Err(format!("a ring has 1..={MAX_BUCKETS} slots, not {n}"));
        }
        for (position, slot) in raw.slots.iter().enumerate() {
            if slot.index > raw.head {
                return Err(format!(
                    "slot {position} holds bucket {} after head",
                    slot.index
                ));
            }
            if slot.count > 0 && slot.index % n != position as u64 {
                return Err(format!(
                    "slot {position} holds bucket {} of another slot",
                    slot.index
                ));
            }
        }
        Ok(BucketRing {
            bucket_ms: raw.bucket_ms,
            head: raw.head,
            slots: raw.slots,
            span: HeadSpan::default(),
        })
    }
}

/// In a snapshot: `{"bucket_ms", "head", "slots": [{"index", "count"}]}`,
/// read with the checks [`RawRing`] makes (every slot holds a bucket at or
/// before the head, in its own position).
impl Section for BucketRing {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["bucket_ms", "head", "slots"], AS_WRITTEN);
        let raw = RawRing {
            bucket_ms: f.u64("bucket_ms", 1),
            head: f.u64("head", 0),
            slots: f.sections("slots"),
        };
        checked(f, BucketRing::try_from(raw), BucketRing::new(1, 1))
    }

    fn write(&self, o: &mut Out) {
        o.uint("bucket_ms", self.bucket_ms);
        o.uint("head", self.head);
        o.sections("slots", &self.slots);
    }

    fn check(&self, _: &mut Check) {}
}

impl Section for Slot {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["index", "count"], AS_WRITTEN);
        Slot {
            index: f.u64("index", 0),
            count: f.u64("count", 0),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("index", self.index);
        o.uint("count", self.count);
    }

    fn check(&self, _: &mut Check) {}
}

impl BucketRing {
    /// An empty ring of `buckets` buckets of `bucket_ms` each.
    ///
    /// Never fails: `bucket_ms` is raised to at least 1 and `buckets` is clamped
    /// to `1..=MAX_BUCKETS`, because a ring is an internal tool whose callers
    /// validate their own config (see [`RatioConfig`](crate::budget::RatioConfig)).
    #[must_use]
    pub fn new(bucket_ms: u64, buckets: u32) -> Self {
        let n = buckets.clamp(1, MAX_BUCKETS);
        BucketRing {
            bucket_ms: bucket_ms.max(1),
            head: 0,
            slots: vec![Slot::default(); n as usize],
            span: HeadSpan::default(),
        }
    }

    /// Milliseconds per bucket.
    #[must_use]
    pub const fn bucket_ms(&self) -> u64 {
        self.bucket_ms
    }

    /// Number of buckets in the window.
    #[must_use]
    pub fn buckets(&self) -> u32 {
        u32::try_from(self.slots.len()).unwrap_or(MAX_BUCKETS)
    }

    /// The window length, `bucket_ms * buckets`.
    #[must_use]
    pub fn window_ms(&self) -> u64 {
        self.bucket_ms.saturating_mul(self.len())
    }

    /// The newest absolute bucket index seen.
    #[must_use]
    pub const fn head(&self) -> u64 {
        self.head
    }

    fn len(&self) -> u64 {
        self.slots.len() as u64
    }

    /// The current bucket index for `now`: never older than `head`.
    fn current(&self, now: Instant) -> u64 {
        self.bucket_of(now).max(self.head)
    }

    /// The absolute index of the bucket holding `now` (`now_ms /
    /// bucket_ms`), without dividing when `now` falls in the head bucket.
    #[must_use]
    pub fn bucket_of(&self, now: Instant) -> u64 {
        let ms = now.as_millis();
        if self.span.holds(ms) {
            self.head
        } else {
            ms / self.bucket_ms
        }
    }

    /// Whether absolute bucket `index` lies in the window ending at bucket `current`.
    fn in_window(&self, index: u64, current: u64) -> bool {
        index <= current && current - index < self.len()
    }

    /// Counts `n` events at `now` (saturating).
    pub fn add(&mut self, now: Instant, n: u64) {
        let ms = now.as_millis();
        let span = self.span;
        let (index, position) = if span.holds(ms) {
            (self.head, span.position)
        } else {
            let bucket = ms / self.bucket_ms;
            let index = bucket.max(self.head);
            let position = (index % self.len()) as usize;
            if index == bucket {
                // `bucket * bucket_ms <= ms`: the product cannot overflow.
                let from_ms = bucket.wrapping_mul(self.bucket_ms);
                self.span = HeadSpan {
                    from_ms,
                    to_ms: from_ms.saturating_add(self.bucket_ms),
                    position,
                };
            }
            (index, position)
        };
        self.head = index;
        self.add_in(position, index, n);
    }

    /// Adds `n` to absolute bucket `index`, recycling its slot if the slot
    /// holds an older bucket. Callers guarantee `index` is in the window.
    fn add_at(&mut self, index: u64, n: u64) {
        self.add_in((index % self.len()) as usize, index, n);
    }

    /// [`Self::add_at`] with the slot `index % n` already worked out.
    fn add_in(&mut self, position: usize, index: u64, n: u64) {
        if let Some(slot) = self.slots.get_mut(position) {
            if slot.index != index {
                *slot = Slot { index, count: 0 };
            }
            slot.count = slot.count.saturating_add(n);
        }
    }

    /// Events counted in the window that ends at `now` (saturating).
    #[must_use]
    pub fn total(&self, now: Instant) -> u64 {
        let current = self.current(now);
        self.slots
            .iter()
            .filter(|slot| self.in_window(slot.index, current))
            .fold(0u64, |sum, slot| sum.saturating_add(slot.count))
    }

    /// The non-empty buckets of the window ending at `now`, as
    /// `(absolute index, count)` in ascending index order.
    #[must_use]
    pub fn live_buckets(&self, now: Instant) -> Vec<(u64, u64)> {
        let current = self.current(now);
        let mut live: Vec<(u64, u64)> = self
            .slots
            .iter()
            .filter(|slot| slot.count > 0 && self.in_window(slot.index, current))
            .map(|slot| (slot.index, slot.count))
            .collect();
        crate::sort::sort_by(&mut live, |a, b| a < b);
        live
    }

    /// Merges `other` into `self` (see the merge rule in the type docs).
    pub fn merge(&mut self, other: &Self) {
        let (from_ms, to_ms, len) = (other.bucket_ms, self.bucket_ms, self.len());
        let rebase = |index: u64| -> u64 {
            let start_ms = u128::from(index) * u128::from(from_ms);
            u64::try_from(start_ms / u128::from(to_ms)).unwrap_or(u64::MAX)
        };
        let head = self.head.max(rebase(other.head));
        // The head may move and counts go: the cache is worked out afresh.
        self.span = HeadSpan::default();
        for slot in &mut self.slots {
            if head.saturating_sub(slot.index) >= len {
                slot.count = 0;
            }
        }
        self.head = head;
        for slot in other.slots.iter().filter(|slot| slot.count > 0) {
            let index = rebase(slot.index);
            if self.in_window(index, head) {
                self.add_at(index, slot.count);
            }
        }
    }
}

#[cfg(test)]
mod tests;
