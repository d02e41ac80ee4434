//! Latency percentiles of a run, by nearest rank.
//!
//! Nearest rank (the sorted sample at rank `ceil(q * n)`) always names a
//! latency that was measured, never an interpolation between two, so a
//! table's p99.9 is one request's time and two runs with the same seed give
//! the same digits.

/// The percentiles the hedging tables report, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Percentiles {
    /// Samples summarised.
    pub count: usize,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest sample.
    pub max: f64,
}

impl Percentiles {
    /// The percentiles of `samples`, which it sorts; all zero when empty.
    #[must_use]
    pub fn of(samples: &mut [f64]) -> Percentiles {
        samples.sort_unstable_by(f64::total_cmp);
        Percentiles {
            count: samples.len(),
            p50: nearest_rank(samples, 0.5),
            p99: nearest_rank(samples, 0.99),
            p999: nearest_rank(samples, 0.999),
            max: samples.last().copied().unwrap_or(0.0),
        }
    }
}

/// The value at rank `ceil(q * n)` (1-based) of `sorted`; 0 when empty.
#[must_use]
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )] // n is far below 2^52 and q in [0, 1]
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted.get(rank - 1).copied().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_names_a_sample() {
        let mut xs: Vec<f64> = (1..=1000).rev().map(f64::from).collect();
        let p = Percentiles::of(&mut xs);
        assert_eq!((p.p50, p.p99, p.p999, p.max), (500.0, 990.0, 999.0, 1000.0));
        assert_eq!(p.count, 1000);
        // 10 samples: p99 and p99.9 are both the largest.
        let mut xs: Vec<f64> = (1..=10).map(f64::from).collect();
        let p = Percentiles::of(&mut xs);
        assert_eq!((p.p50, p.p99, p.p999), (5.0, 10.0, 10.0));
        assert_eq!(Percentiles::of(&mut []), Percentiles::default());
    }
}
