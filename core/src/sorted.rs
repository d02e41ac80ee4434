//! Maps and sets kept as vectors sorted by key.
//!
//! Why not `BTreeMap` and `BTreeSet`: the core's maps are small (a config's
//! overrides, a policy's scopes, a metrics report), and every B-tree
//! instantiation links its own node-handling code: about 11 KB of the
//! browser's WebAssembly module for the core's six. A sorted vector is one
//! binary search per lookup and an insertion that shifts the entries after
//! it, which is as fast for tens of entries and iterates in key order the
//! same way. The API is the subset of the B-tree's the core and its hosts
//! use, with the same meanings (an insert replaces and returns the old value;
//! collecting keeps the last value of a repeated key).

use std::borrow::Borrow;
use std::fmt;
#[cfg(feature = "serde")]
use std::marker::PhantomData;

#[cfg(feature = "serde")]
use serde::de::{MapAccess, SeqAccess, Visitor};
#[cfg(feature = "serde")]
use serde::ser::{SerializeMap, SerializeSeq};
#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A map ordered by key, stored as a sorted vector of entries.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

/// The entries of a [`SortedMap`] by reference, in key order.
pub type Iter<'a, K, V> =
    std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

impl<K, V> SortedMap<K, V> {
    /// An empty map.
    #[must_use]
    pub const fn new() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }

    /// How many entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// The keys in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The value of `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        self.entries.get(at).map(|(_, v)| v)
    }

    /// The value of `key`, to change.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        self.entries.get_mut(at).map(|(_, v)| v)
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Sets `key` to `value`, returning the value it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(at) => self
                .entries
                .get_mut(at)
                .map(|(_, old)| std::mem::replace(old, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    /// Takes `key`'s value out.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let at = self.find(key).ok()?;
        Some(self.entries.remove(at).1)
    }
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap::new()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Inserted one by one (no sort is linked in): the last value of a
/// repeated key wins, as collecting into a `BTreeMap` does.
impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(items: I) -> Self {
        let mut map = SortedMap::new();
        map.extend(items);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, items: I) {
        for (key, value) in items {
            self.insert(key, value);
        }
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for SortedMap<K, V> {
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K, V> IntoIterator for SortedMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(feature = "serde")]
impl<K: Serialize, V: Serialize> Serialize for SortedMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[cfg(feature = "serde")]
impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for SortedMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for MapVisitor<K, V> {
            type Value = SortedMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = SortedMap::new();
                while let Some((key, value)) = access.next_entry()? {
                    map.insert(key, value);
                }
                Ok(map)
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

/// A set ordered by value, stored as a sorted vector.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct SortedSet<T> {
    map: SortedMap<T, ()>,
}

impl<T> SortedSet<T> {
    /// An empty set.
    #[must_use]
    pub const fn new() -> Self {
        SortedSet {
            map: SortedMap::new(),
        }
    }

    /// How many values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The values in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        self.map.keys()
    }
}

impl<T: Ord> SortedSet<T> {
    /// Whether `value` is in the set.
    pub fn contains<Q: Ord + ?Sized>(&self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.map.contains_key(value)
    }

    /// Adds `value`; false if it was there already.
    pub fn insert(&mut self, value: T) -> bool {
        self.map.insert(value, ()).is_none()
    }

    /// Takes `value` out; false if it was not there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, value: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.map.remove(value).is_some()
    }
}

impl<T: fmt::Debug> fmt::Debug for SortedSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<T: Ord> FromIterator<T> for SortedSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut set = SortedSet::new();
        set.extend(items);
        set
    }
}

impl<T: Ord> Extend<T> for SortedSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for value in items {
            self.insert(value);
        }
    }
}

impl<T: Ord, const N: usize> From<[T; N]> for SortedSet<T> {
    fn from(values: [T; N]) -> Self {
        values.into_iter().collect()
    }
}

impl<T> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(T, ())>, fn((T, ())) -> T>;

    fn into_iter(self) -> Self::IntoIter {
        self.map.into_iter().map(|(value, ())| value)
    }
}

impl<'a, T> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = std::iter::Map<Iter<'a, T, ()>, fn((&'a T, &'a ())) -> &'a T>;

    fn into_iter(self) -> Self::IntoIter {
        self.map.iter().map(|(value, ())| value)
    }
}

#[cfg(feature = "serde")]
impl<T: Serialize> Serialize for SortedSet<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for value in self {
            seq.serialize_element(value)?;
        }
        seq.end()
    }
}

#[cfg(feature = "serde")]
impl<'de, T: Ord + Deserialize<'de>> Deserialize<'de> for SortedSet<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SetVisitor<T>(PhantomData<T>);
        impl<'de, T: Ord + Deserialize<'de>> Visitor<'de> for SetVisitor<T> {
            type Value = SortedSet<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut set = SortedSet::new();
                while let Some(value) = access.next_element()? {
                    set.insert(value);
                }
                Ok(set)
            }
        }
        deserializer.deserialize_seq(SetVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::{SortedMap, SortedSet};
    use std::collections::{BTreeMap, BTreeSet};

    proptest::proptest! {
        /// The same operations on a B-tree and on a sorted map leave the
        /// same entries in the same order and return the same values.
        #[test]
        fn behaves_as_a_btree(ops in proptest::collection::vec((0u8..3, 0u16..40, 0u32..1000), 0..200)) {
            let mut sorted = SortedMap::new();
            let mut tree = BTreeMap::new();
            for (op, key, value) in ops {
                match op {
                    0 => proptest::prop_assert_eq!(sorted.insert(key, value), tree.insert(key, value)),
                    1 => proptest::prop_assert_eq!(sorted.remove(&key), tree.remove(&key)),
                    _ => proptest::prop_assert_eq!(sorted.get(&key), tree.get(&key)),
                }
                proptest::prop_assert_eq!(sorted.len(), tree.len());
            }
            let left: Vec<_> = sorted.iter().collect();
            let right: Vec<_> = tree.iter().collect();
            proptest::prop_assert_eq!(left, right);
        }

        #[test]
        fn sets_behave_as_btree_sets(values in proptest::collection::vec(0u16..600, 0..100)) {
            let sorted: SortedSet<u16> = values.iter().copied().collect();
            let tree: BTreeSet<u16> = values.iter().copied().collect();
            proptest::prop_assert_eq!(sorted.iter().collect::<Vec<_>>(), tree.iter().collect::<Vec<_>>());
            for value in 0..600 {
                proptest::prop_assert_eq!(sorted.contains(&value), tree.contains(&value));
            }
        }
    }

    fn sample() -> (SortedMap<String, u32>, SortedSet<u16>) {
        let map: SortedMap<String, u32> = [
            ("b".to_owned(), 1),
            ("a".to_owned(), 2),
            ("b".to_owned(), 3),
        ]
        .into_iter()
        .collect();
        (map, SortedSet::from([504u16, 500, 502, 500]))
    }

    #[test]
    fn collecting_keeps_the_last_value() {
        let (map, set) = sample();
        assert_eq!(map.get("b"), Some(&3));
        assert_eq!(
            format!("{map:?} {set:?}"),
            r#"{"a": 2, "b": 3} {500, 502, 504}"#
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trips() {
        let (map, set) = sample();
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, r#"{"a":2,"b":3}"#);
        let back: SortedMap<String, u32> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, map);
        assert_eq!(serde_json::to_string(&set).unwrap(), "[500,502,504]");
        let back: SortedSet<u16> = serde_json::from_str("[502,500]").unwrap();
        assert_eq!(back, SortedSet::from([500, 502]));
    }
}
