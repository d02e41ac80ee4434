//! The bounded first-in, first-out queue of callers waiting for a permit.

use std::collections::VecDeque;

use crate::time::Instant;

/// One waiting caller: its ticket number and when it stops waiting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Waiter {
    pub(super) ticket: u64,
    pub(super) until: Instant,
}

/// Waiters in arrival order. Every waiter waits the same `max_wait_ms` and
/// time never runs backwards, so deadlines never decrease from front to
/// back: only the front can be the first to expire.
#[derive(Clone, Debug, Default)]
pub(super) struct WaitQueue {
    waiters: VecDeque<Waiter>,
    next_ticket: u64,
}

impl WaitQueue {
    pub(super) fn len(&self) -> usize {
        self.waiters.len()
    }

    /// Adds a waiter until `until`; returns its ticket number (from 1).
    pub(super) fn push(&mut self, until: Instant) -> u64 {
        self.next_ticket = self.next_ticket.wrapping_add(1).max(1);
        let ticket = self.next_ticket;
        self.waiters.push_back(Waiter { ticket, until });
        ticket
    }

    pub(super) fn front(&self) -> Option<Waiter> {
        self.waiters.front().copied()
    }

    pub(super) fn pop_front(&mut self) -> Option<Waiter> {
        self.waiters.pop_front()
    }

    /// Removes `ticket`; `false` when it is not waiting.
    pub(super) fn remove(&mut self, ticket: u64) -> bool {
        match self.waiters.iter().position(|w| w.ticket == ticket) {
            Some(at) => self.waiters.remove(at).is_some(),
            None => false,
        }
    }
}
