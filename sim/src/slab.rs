//! Live calls of a hedging model, by slot, with an id per call.
//!
//! Events name the call they are for by slot and id. A slot is reused once
//! its call ends, so the id tells a new call from the old one: the answer
//! of a copy cancelled long ago must not reach whichever call holds its
//! slot now.

/// Values by slot; each insertion gets a fresh id.
#[derive(Debug)]
pub struct Slab<T> {
    entries: Vec<Option<(u64, T)>>,
    free: Vec<usize>,
    next_id: u64,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            entries: Vec::new(),
            free: Vec::new(),
            next_id: 0,
        }
    }
}

/// Where a value lives: its slot and its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The slot.
    pub slot: usize,
    /// The id of the value the key was made for.
    pub id: u64,
}

impl<T> Slab<T> {
    /// Empties the slab for a new run, keeping its memory.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.free.clear();
        self.next_id = 0;
    }

    /// Stores `value`; its key.
    pub fn insert(&mut self, value: T) -> Key {
        let id = self.next_id;
        self.next_id += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                if let Some(entry) = self.entries.get_mut(slot) {
                    *entry = Some((id, value));
                }
                slot
            }
            None => {
                self.entries.push(Some((id, value)));
                self.entries.len() - 1
            }
        };
        Key { slot, id }
    }

    /// The value `key` was made for, if it is still there.
    pub fn get_mut(&mut self, key: Key) -> Option<&mut T> {
        match self.entries.get_mut(key.slot) {
            Some(Some((id, value))) if *id == key.id => Some(value),
            _ => None,
        }
    }

    /// Removes the value `key` was made for, if it is still there.
    pub fn remove(&mut self, key: Key) -> Option<T> {
        let entry = self.entries.get_mut(key.slot)?;
        if entry.as_ref().is_some_and(|(id, _)| *id == key.id) {
            self.free.push(key.slot);
            entry.take().map(|(_, value)| value)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reused_slot_does_not_answer_to_an_old_key() {
        let mut slab = Slab::default();
        let a = slab.insert('a');
        assert_eq!(slab.remove(a), Some('a'));
        let b = slab.insert('b');
        assert_eq!(b.slot, a.slot);
        assert_eq!(slab.get_mut(a), None);
        assert_eq!(slab.remove(a), None);
        assert_eq!(slab.get_mut(b), Some(&mut 'b'));
    }
}
