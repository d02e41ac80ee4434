//! A seeded normal sampler on stoic's [`SplitMix64`].
//!
//! The contention model draws every network hop from `|Normal(10, 2)|`. The
//! simulator must be reproducible from a seed on any machine, so it uses the
//! same generator as stoic's jitter and the Box–Muller transform (two uniforms
//! in, two independent standard normals out) instead of a distribution crate
//! whose algorithm could change between versions.

use stoic_core::rng::SplitMix64;

/// Standard normal deviates by Box–Muller, keeping the second value of each
/// pair for the next call so no draw is wasted.
#[derive(Clone, Debug)]
pub struct Normal {
    rng: SplitMix64,
    spare: Option<f64>,
}

impl Normal {
    /// A sampler seeded with `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Normal {
            rng: SplitMix64::new(seed),
            spare: None,
        }
    }

    /// One standard normal deviate (mean 0, sd 1).
    pub fn standard(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        // 1 - u lies in (0, 1], so its logarithm is finite.
        let u1 = 1.0 - self.rng.next_f64();
        let u2 = self.rng.next_f64();
        let radius = (-2.0 * u1.ln()).sqrt();
        let angle = std::f64::consts::TAU * u2;
        self.spare = Some(radius * angle.sin());
        radius * angle.cos()
    }

    /// `|Normal(mean, sd)|`: the folded normal the model uses for a network
    /// hop, which can never be negative.
    pub fn folded(&mut self, mean: f64, sd: f64) -> f64 {
        (mean + sd * self.standard()).abs()
    }

    /// A uniform deviate in `[0, 1)` from the same stream, for models that
    /// need both kinds of draw.
    pub fn uniform(&mut self) -> f64 {
        self.rng.next_f64()
    }

    /// A log-normal deviate of mean `mean` whose logarithm has standard
    /// deviation `sigma`: `exp(mu + sigma * z)` with `mu = ln(mean) -
    /// sigma^2 / 2`, so the mean, not the median, is `mean` (a service
    /// time is specified by its mean; the median is `mean * exp(-sigma^2
    /// / 2)`).
    pub fn log_normal(&mut self, mean: f64, sigma: f64) -> f64 {
        let mu = mean.ln() - sigma * sigma / 2.0;
        (mu + sigma * self.standard()).exp()
    }

    /// An exponential deviate of mean `mean` (a Poisson process's gaps).
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - u lies in (0, 1], so its logarithm is finite.
        -(1.0 - self.uniform()).ln() * mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_match_the_parameters() {
        let mut n = Normal::new(42);
        let count = 200_000;
        let draws: Vec<f64> = (0..count).map(|_| n.folded(10.0, 2.0)).collect();
        let mean = draws.iter().sum::<f64>() / f64::from(count);
        let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / f64::from(count);
        assert!((mean - 10.0).abs() < 0.02, "mean {mean}");
        assert!((var.sqrt() - 2.0).abs() < 0.02, "sd {}", var.sqrt());
        assert!(draws.iter().all(|x| *x >= 0.0));
    }

    #[test]
    fn log_normal_has_the_asked_mean_and_median() {
        let mut n = Normal::new(43);
        let count = 400_000;
        let mut draws: Vec<f64> = (0..count).map(|_| n.log_normal(20.0, 1.0)).collect();
        let mean = draws.iter().sum::<f64>() / f64::from(count);
        assert!((mean - 20.0).abs() < 0.3, "mean {mean}");
        draws.sort_by(f64::total_cmp);
        let median = draws[draws.len() / 2];
        let want = 20.0 * (-0.5_f64).exp();
        assert!((median - want).abs() < 0.2, "median {median} vs {want}");
    }

    #[test]
    fn same_seed_same_stream() {
        let mut a = Normal::new(7);
        let mut b = Normal::new(7);
        for _ in 0..100 {
            assert_eq!(a.standard().to_bits(), b.standard().to_bits());
        }
    }
}
