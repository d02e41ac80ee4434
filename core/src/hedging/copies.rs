//! The copies of a hedged call: each one's state, and sets of them.

use crate::breaker::Permit;
use crate::budget::RetryTicket;
use crate::time::Instant;

/// A set of copies, by number (1 for the first). Plain bits, so a host
/// reads it as a number (`bits`: bit `n - 1` for copy `n`) across any
/// boundary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Copies(u8);

impl Copies {
    /// No copy.
    pub const EMPTY: Copies = Copies(0);

    /// The set whose bit `n - 1` stands for copy `n` (bits past the fifth
    /// copy are dropped: no call sends more).
    #[must_use]
    pub const fn from_bits(bits: u32) -> Copies {
        Copies((bits & 0x1f) as u8)
    }

    /// Bit `n - 1` set for each copy `n` in the set.
    #[must_use]
    pub const fn bits(self) -> u32 {
        self.0 as u32
    }

    /// Whether copy `copy` is in the set.
    #[must_use]
    pub const fn contains(self, copy: u32) -> bool {
        copy >= 1 && copy <= 5 && self.0 & (1 << (copy - 1)) != 0
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// How many copies are in the set.
    #[must_use]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// The copies in the set, lowest first.
    pub fn iter(self) -> impl Iterator<Item = u32> {
        (1..=5).filter(move |copy| self.contains(*copy))
    }

    pub(crate) fn insert(&mut self, copy: u32) {
        if (1..=5).contains(&copy) {
            self.0 |= 1 << (copy - 1);
        }
    }
}

/// Where one copy is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Sent at `started`, holding a breaker permit and, for a hedge, the
    /// budget's ticket, until its outcome comes or it is cancelled.
    InFlight {
        started: Instant,
        permit: Option<Permit>,
        ticket: Option<RetryTicket>,
    },
    /// Its outcome came: a failure.
    Failed,
    /// Its outcome came: the answer the call returns.
    Won,
    /// Cancelled (superseded by a winner, or the call ended) before its
    /// outcome came.
    Cancelled,
}

#[cfg(test)]
mod tests {
    use super::Copies;

    #[test]
    fn a_set_is_its_bits() {
        let mut set = Copies::EMPTY;
        assert!(set.is_empty());
        set.insert(1);
        set.insert(3);
        set.insert(6); // no sixth copy exists
        set.insert(0);
        assert_eq!(set.bits(), 0b101);
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(set.len(), 2);
        assert!(set.contains(3) && !set.contains(2) && !set.contains(0));
        assert_eq!(Copies::from_bits(0xff).len(), 5);
    }
}
