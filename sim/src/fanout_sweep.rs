//! The fan-out experiment: every hedging setting over a few seeded runs,
//! their requests pooled for the percentiles.

use crate::fanout::{FanoutParams, FanoutRun, FanoutSim};
use crate::hedge_variant::FanoutVariant;
use crate::percentile::{nearest_rank, Percentiles};
use crate::{parallel, seed};

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct FanoutSweep {
    /// The model's parameters (requests are per run).
    pub params: FanoutParams,
    /// The settings to compare.
    pub variants: Vec<FanoutVariant>,
    /// Independent runs pooled per setting.
    pub runs: u32,
    /// The sweep's seed; each run's seed derives from it.
    pub seed: u64,
}

impl Default for FanoutSweep {
    /// 4 runs of 5,000 requests (2 million sub-requests) per setting: 20
    /// requests above the p99.9 of each.
    fn default() -> Self {
        FanoutSweep {
            params: FanoutParams::default(),
            variants: FanoutVariant::ALL.to_vec(),
            runs: 4,
            seed: 2015,
        }
    }
}

/// One setting's pooled result.
#[derive(Clone, Debug, PartialEq)]
pub struct FanoutPoint {
    /// The setting.
    pub variant: FanoutVariant,
    /// Request latency percentiles, ms.
    pub latency: Percentiles,
    /// Request latency at [`TAIL_NINES`]: `(nines, ms)`, for the chart.
    pub tail: Vec<(f64, f64)>,
    /// Requests as slow as a straggler or slower.
    pub slow_requests: u64,
    /// Sub-requests, summed over the runs.
    pub sub_requests: u64,
    /// Copies sent.
    pub copies: u64,
    /// Copies cancelled.
    pub cancelled: u64,
    /// Sub-requests stoic gave up on.
    pub gave_up: u64,
}

/// Where the tail chart reads the latency, in nines: `-log10(1 - q)`, so
/// 1 is the 90th percentile, 2 the 99th, 3 the 99.9th.
pub const TAIL_NINES: [f64; 9] = [0.3, 0.5, 1.0, 1.3, 1.5, 2.0, 2.3, 2.5, 3.0];

impl FanoutPoint {
    /// Share of requests as slow as a straggler or slower.
    #[must_use]
    pub fn slow_share(&self) -> f64 {
        crate::overload::ratio(self.slow_requests, self.latency.count as u64)
    }

    /// Copies per sub-request minus one.
    #[must_use]
    pub fn extra_load(&self) -> f64 {
        crate::overload::ratio(self.copies, self.sub_requests) - 1.0
    }
}

impl FanoutSweep {
    /// Runs to do (what a progress bar counts).
    #[must_use]
    pub fn len(&self) -> usize {
        self.variants.len() * self.runs as usize
    }

    /// Whether there is nothing to run.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs every (setting, run) pair on `threads` threads, calling `tick`
    /// after each; one point per setting, in `variants` order, whatever
    /// `threads`.
    #[must_use]
    pub fn run(&self, threads: usize, tick: &(dyn Fn() + Sync)) -> Vec<FanoutPoint> {
        let coords: Vec<(usize, u32)> = (0..self.variants.len())
            .flat_map(|i| (0..self.runs).map(move |r| (i, r)))
            .collect();
        let runs = parallel::map(
            &coords,
            threads,
            || FanoutSim::new(self.params),
            |sim, &(index, run)| {
                let variant = self
                    .variants
                    .get(index)
                    .copied()
                    .unwrap_or(FanoutVariant::None);
                // The seed leaves the setting out: every setting sees the
                // same arrivals and the same first-copy draws at the start.
                sim.run(variant, seed::derive(self.seed, &[u64::from(run)]))
            },
            tick,
        );
        let mut pooled: Vec<FanoutRun> = vec![FanoutRun::default(); self.variants.len()];
        for ((index, _), run) in coords.iter().zip(runs) {
            if let Some(sum) = pooled.get_mut(*index) {
                sum.absorb(run);
            }
        }
        self.variants
            .iter()
            .zip(pooled)
            .map(|(variant, mut run)| {
                let latency = Percentiles::of(&mut run.request_ms);
                let sorted = &run.request_ms;
                FanoutPoint {
                    variant: *variant,
                    latency,
                    tail: TAIL_NINES
                        .iter()
                        .map(|n| (*n, nearest_rank(sorted, 1.0 - 10_f64.powf(-n))))
                        .collect(),
                    slow_requests: sorted
                        .iter()
                        .filter(|ms| **ms >= self.params.straggler_ms)
                        .count() as u64,
                    sub_requests: run.sub_requests,
                    copies: run.copies,
                    cancelled: run.cancelled,
                    gave_up: run.gave_up,
                }
            })
            .collect()
    }
}

/// The point of `variant`, if the sweep has it.
#[must_use]
pub fn find(points: &[FanoutPoint], variant: FanoutVariant) -> Option<&FanoutPoint> {
    points.iter().find(|p| p.variant == variant)
}
