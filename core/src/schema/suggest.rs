//! The key a caller probably meant: an unknown key is named with the
//! accepted key nearest to it, when it is near enough to be a typo.

/// The accepted key nearest to `key` (by edit distance, ignoring case and
/// underscores), if near enough to be a typo.
pub(super) fn closest<'k>(key: &str, known: &'k [String]) -> Option<&'k str> {
    let norm = |s: &str| -> Vec<char> {
        s.chars()
            .filter(|c| *c != '_')
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let target = norm(key);
    known
        .iter()
        .map(|k| (distance(&target, &norm(k)), k))
        .filter(|(d, k)| *d <= (k.len() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k.as_str())
}

/// Edit distance counting a swap of two neighbours as one edit (optimal
/// string alignment): `raed` is one edit from `read`.
fn distance(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    let mut d = vec![0_usize; (a.len() + 1) * width];
    let at = |i: usize, j: usize| i * width + j;
    for i in 0..=a.len() {
        if let Some(cell) = d.get_mut(at(i, 0)) {
            *cell = i;
        }
    }
    for j in 0..=b.len() {
        if let Some(cell) = d.get_mut(at(0, j)) {
            *cell = j;
        }
    }
    let get = |d: &[usize], i: usize, j: usize| d.get(at(i, j)).copied().unwrap_or(usize::MAX / 2);
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let (ca, cb) = (a.get(i - 1), b.get(j - 1));
            let cost = usize::from(ca != cb);
            let mut best = (get(&d, i - 1, j) + 1)
                .min(get(&d, i, j - 1) + 1)
                .min(get(&d, i - 1, j - 1) + cost);
            if i > 1 && j > 1 && ca == b.get(j - 2) && a.get(i - 2) == cb {
                best = best.min(get(&d, i - 2, j - 2) + 1);
            }
            if let Some(cell) = d.get_mut(at(i, j)) {
                *cell = best;
            }
        }
    }
    get(&d, a.len(), b.len())
}
