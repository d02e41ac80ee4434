//! Seeds for sweep points.
//!
//! Each run gets its own seed, derived from the sweep's seed and the run's
//! coordinates, so any single point can be re-run alone and gives the same
//! numbers as inside the full sweep.

use stoic_core::rng::SplitMix64;

/// A seed for the run at `coords` of a sweep seeded with `sweep_seed`: each
/// coordinate is folded in through one SplitMix64 output, so neighbouring
/// coordinates give unrelated streams.
#[must_use]
pub fn derive(sweep_seed: u64, coords: &[u64]) -> u64 {
    coords.iter().fold(sweep_seed, |acc, c| {
        SplitMix64::new(acc ^ c.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_matter_in_order() {
        assert_eq!(derive(1, &[2, 3]), derive(1, &[2, 3]));
        assert_ne!(derive(1, &[2, 3]), derive(1, &[3, 2]));
        assert_ne!(derive(1, &[2, 3]), derive(2, &[2, 3]));
    }
}
