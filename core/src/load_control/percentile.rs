//! The one percentile rule of the gradient: both sides of its comparison
//! (an interval's sample and the min-RTT baseline) are read the same way,
//! so that at no load they estimate the same latency.

/// The `percentile_milli / 1000` percentile of `samples` by nearest rank
/// (the `ceil(q * n)`-th smallest, at least the first); `None` when empty.
/// Sorts `samples` in place.
pub(super) fn nearest_rank(samples: &mut [u64], percentile_milli: u64) -> Option<u64> {
    let n = samples.len() as u64;
    if n == 0 {
        return None;
    }
    crate::sort::sort_by(samples, |a, b| a < b);
    let rank = percentile_milli
        .saturating_mul(n)
        .div_ceil(1000)
        .clamp(1, n);
    let at = usize::try_from(rank - 1).unwrap_or(0);
    samples.get(at).copied()
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn nearest_rank_reads_the_ceil_q_n_th_smallest() {
        let mut five = [50, 10, 40, 20, 30];
        assert_eq!(nearest_rank(&mut five, 500), Some(30)); // ceil(2.5) = 3rd
        assert_eq!(nearest_rank(&mut five, 0), Some(10)); // at least the 1st
        assert_eq!(nearest_rank(&mut five, 1000), Some(50));
        let mut four = [4, 1, 3, 2];
        assert_eq!(nearest_rank(&mut four, 500), Some(2)); // ceil(2.0) = 2nd
        assert_eq!(nearest_rank(&mut four, 501), Some(3)); // ceil(2.004) = 3rd
        assert_eq!(nearest_rank(&mut [], 500), None);
    }
}
