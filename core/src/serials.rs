//! Serial numbers for what the core hands out and gets back once (breaker
//! permits, retry-budget tickets).
//!
//! A permit or a ticket is plain data, so a host can copy, forge or hand it
//! back twice. Each carries a serial number; the issuer keeps the numbers it
//! has issued and not yet taken back, and a value counts only when its
//! number leaves that list. The list is bounded: beyond [`MAX_OPEN_SERIALS`]
//! the oldest number is forgotten (its value is then ignored if it ever
//! comes back), so a host that never hands values back cannot grow memory.

use std::collections::VecDeque;

use crate::schema::{Check, Fields, Out, Section};

/// How many issued, not yet returned serial numbers an issuer remembers.
pub const MAX_OPEN_SERIALS: usize = 1024;

/// The numbers one issuer has handed out and not yet taken back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Serials {
    /// The next number (numbers start at 1; 0 is never issued).
    next: u64,
    /// Numbers issued and not taken back, oldest first.
    open: VecDeque<u64>,
}

/// The stored shape, normalized when read: a restored issuer never hands
/// out a number still open.
#[derive(Default)]
struct SerialsRepr {
    next: u64,
    open: VecDeque<u64>,
}

impl From<SerialsRepr> for Serials {
    fn from(r: SerialsRepr) -> Self {
        let mut open = r.open;
        while open.len() > MAX_OPEN_SERIALS {
            open.pop_front();
        }
        let issued = open.iter().copied().max().unwrap_or(0);
        Serials {
            next: r.next.max(issued.saturating_add(1)).max(1),
            open,
        }
    }
}

/// Read as [`SerialsRepr`] is: absent fields are fresh, and the numbers
/// are normalized (bounded, `next` past every open one).
impl Section for Serials {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let next = f.u64("next", 0);
        let open = f.u64s("open").into();
        Serials::from(SerialsRepr { next, open })
    }

    fn write(&self, o: &mut Out) {
        o.uint("next", self.next);
        o.uints("open", self.open.iter().copied());
    }

    fn check(&self, _: &mut Check) {}
}

impl Default for Serials {
    fn default() -> Self {
        Serials {
            next: 1,
            open: VecDeque::new(),
        }
    }
}

impl Serials {
    /// A new number, remembered as open.
    pub(crate) fn issue(&mut self) -> u64 {
        let id = self.next;
        self.next = self.next.wrapping_add(1).max(1);
        if self.open.len() >= MAX_OPEN_SERIALS {
            self.open.pop_front();
        }
        self.open.push_back(id);
        id
    }

    /// Takes `id` back: `false` when it is not open (taken back already,
    /// forgotten, or never issued).
    pub(crate) fn take(&mut self, id: u64) -> bool {
        match self.open.iter().rposition(|&open| open == id) {
            Some(at) => {
                self.open.remove(at);
                true
            }
            None => false,
        }
    }

    /// Forgets every open number (their values no longer count).
    pub(crate) fn clear(&mut self) {
        self.open.clear();
    }
}
