//! The overload sweep: every client policy at every injected failure rate,
//! a few seeded runs per point, counts summed.

use crate::overload::{ratio, OverloadCounts, OverloadParams, OverloadSim};
use crate::overload_variant::Variant;
use crate::{parallel, seed};

/// What to sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct OverloadSweep {
    /// The model's parameters.
    pub params: OverloadParams,
    /// The client policies to compare.
    pub variants: Vec<Variant>,
    /// Injected failure rates, in percent.
    pub failure_percents: Vec<u32>,
    /// Independent runs summed per point.
    pub runs: u32,
    /// The sweep's seed; each run's seed derives from it.
    pub seed: u64,
}

impl Default for OverloadSweep {
    /// 0 to 100 % by 5, 3 runs of a simulated minute per point.
    fn default() -> Self {
        OverloadSweep {
            params: OverloadParams::default(),
            variants: Variant::ALL.to_vec(),
            failure_percents: (0..=20).map(|k| k * 5).collect(),
            runs: 3,
            seed: 2015,
        }
    }
}

/// The counts of one (variant, failure rate) point, summed over its runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverloadPoint {
    /// The client policy.
    pub variant: Variant,
    /// The injected failure rate, percent.
    pub failure_percent: u32,
    /// The summed counts.
    pub counts: OverloadCounts,
}

impl OverloadPoint {
    /// Attempts per first attempt.
    #[must_use]
    pub fn amplification(&self) -> f64 {
        self.counts.amplification()
    }

    /// Share of calls that succeeded.
    #[must_use]
    pub fn goodput(&self) -> f64 {
        self.counts.goodput()
    }

    /// Share of attempts the server shed for lack of capacity.
    #[must_use]
    pub fn shed_share(&self) -> f64 {
        ratio(self.counts.shed, self.counts.attempts)
    }
}

impl OverloadSweep {
    /// The number of points (what a progress bar counts).
    #[must_use]
    pub fn len(&self) -> usize {
        self.variants.len() * self.failure_percents.len()
    }

    /// Whether the sweep has no points.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs every point on `threads` threads, calling `tick` after each. The
    /// result is in (variant, failure rate) order and does not depend on
    /// `threads`.
    #[must_use]
    pub fn run(&self, threads: usize, tick: &(dyn Fn() + Sync)) -> Vec<OverloadPoint> {
        let coords: Vec<(usize, Variant, u32)> = self
            .variants
            .iter()
            .enumerate()
            .flat_map(|(i, v)| self.failure_percents.iter().map(move |f| (i, *v, *f)))
            .collect();
        parallel::map(
            &coords,
            threads,
            || OverloadSim::new(self.params),
            |sim, &(index, variant, failure_percent)| {
                let rate = f64::from(failure_percent.min(100)) / 100.0;
                let counts = (0..self.runs).fold(OverloadCounts::default(), |sum, run| {
                    let coords = [index as u64, u64::from(failure_percent), u64::from(run)];
                    sum.plus(sim.run(variant, rate, seed::derive(self.seed, &coords)))
                });
                OverloadPoint {
                    variant,
                    failure_percent,
                    counts,
                }
            },
            tick,
        )
    }
}

/// The point for `variant` at `failure_percent`, if the sweep has it.
#[must_use]
pub fn find(
    points: &[OverloadPoint],
    variant: Variant,
    failure_percent: u32,
) -> Option<&OverloadPoint> {
    points
        .iter()
        .find(|p| p.variant == variant && p.failure_percent == failure_percent)
}
