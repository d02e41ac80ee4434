//! The discrete-event queue both simulators run on.
//!
//! A binary min-heap of `(time, sequence)` keys: events at the same time come
//! out in the order they were scheduled, so a run is a pure function of its
//! seed. The heap is reused between runs (`clear` keeps its capacity), so a
//! sweep allocates only while the first runs grow it.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One scheduled event: when, a tie-breaking sequence number, and the payload.
#[derive(Clone, Copy, Debug)]
struct Entry<T> {
    at: f64,
    seq: u64,
    event: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T> Eq for Entry<T> {}

impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Entry<T> {
    /// Reversed, so `BinaryHeap` (a max-heap) pops the earliest event first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at
            .total_cmp(&self.at)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// A time-ordered event queue; times are simulated milliseconds.
#[derive(Debug)]
pub struct EventQueue<T> {
    heap: BinaryHeap<Entry<T>>,
    seq: u64,
}

impl<T: Copy> EventQueue<T> {
    /// An empty queue with room for `capacity` pending events.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(capacity),
            seq: 0,
        }
    }

    /// Empties the queue for a new run, keeping its memory.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.seq = 0;
    }

    /// Schedules `event` at time `at`.
    pub fn push(&mut self, at: f64, event: T) {
        self.seq += 1;
        self.heap.push(Entry {
            at,
            seq: self.seq,
            event,
        });
    }

    /// The earliest event and its time, if any.
    pub fn pop(&mut self) -> Option<(f64, T)> {
        self.heap.pop().map(|e| (e.at, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = EventQueue::with_capacity(4);
        q.push(3.0, 'c');
        q.push(1.0, 'a');
        q.push(3.0, 'd');
        q.push(2.0, 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, ['a', 'b', 'c', 'd']);
    }
}
