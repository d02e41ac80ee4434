//! One small sort for the whole crate.
//!
//! The standard library's sorts are fast but large: each call site with its
//! own element type or comparator instantiates a pattern-defeating
//! quicksort or a driftsort with their helpers, 3 to 8 KB of WebAssembly
//! apiece, about a twentieth of the browser module for five call sites.
//! The crate sorts short lists (a document's keys, a window's buckets, a
//! few budget kinds), so an in-place heapsort, a few hundred bytes per
//! instantiation and O(n log n) in every case, is the better trade.
//! Unstable: no caller has equal elements whose order matters.

/// Sorts `items` so that no element is `less` than the one before it.
pub(crate) fn sort_by<T>(items: &mut [T], mut less: impl FnMut(&T, &T) -> bool) {
    let len = items.len();
    for start in (0..len / 2).rev() {
        sift_down(items, start, len, &mut less);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift_down(items, 0, end, &mut less);
    }
}

/// Moves `items[root]` down the max-heap held in `items[..end]`.
fn sift_down<T>(
    items: &mut [T],
    mut root: usize,
    end: usize,
    less: &mut impl FnMut(&T, &T) -> bool,
) {
    loop {
        let left = root.saturating_mul(2).saturating_add(1);
        if left >= end {
            return;
        }
        let right = left.saturating_add(1);
        let child = match (items.get(left), items.get(right)) {
            (Some(l), Some(r)) if right < end && less(l, r) => right,
            _ => left,
        };
        match (items.get(root), items.get(child)) {
            (Some(parent), Some(larger)) if less(parent, larger) => {
                items.swap(root, child);
                root = child;
            }
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sort_by;

    #[test]
    fn sorts_short_and_empty_lists() {
        let mut empty: [u8; 0] = [];
        sort_by(&mut empty, |a, b| a < b);
        let mut one = [7];
        sort_by(&mut one, |a, b| a < b);
        assert_eq!(one, [7]);
        let mut some = [3, 1, 2, 3, 0];
        sort_by(&mut some, |a, b| a < b);
        assert_eq!(some, [0, 1, 2, 3, 3]);
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_standard_sort(mut items in proptest::collection::vec(proptest::num::i32::ANY, 0..300)) {
            let mut expected = items.clone();
            expected.sort_unstable();
            sort_by(&mut items, |a, b| a < b);
            proptest::prop_assert_eq!(items, expected);
        }

        #[test]
        fn sorts_by_a_key_alone(mut items in proptest::collection::vec((0u8..8, proptest::num::u16::ANY), 0..100)) {
            sort_by(&mut items, |a, b| a.0 < b.0);
            proptest::prop_assert!(items.windows(2).all(|w| w.first().map(|a| a.0) <= w.get(1).map(|b| b.0)));
        }
    }
}
