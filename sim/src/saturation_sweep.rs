//! The saturation experiment: every hedging setting at every offered load,
//! a few seeded runs per point, calls pooled for the percentiles.

use crate::hedge_variant::SaturationVariant;
use crate::percentile::Percentiles;
use crate::saturation::{SaturationParams, SaturationRun, SaturationSim};
use crate::{parallel, seed};

/// What to sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct SaturationSweep {
    /// The model's parameters.
    pub params: SaturationParams,
    /// The settings to compare.
    pub variants: Vec<SaturationVariant>,
    /// Offered loads, in percent of the server's capacity.
    pub load_percents: Vec<u32>,
    /// Independent runs pooled per point.
    pub runs: u32,
    /// The sweep's seed; each run's seed derives from it.
    pub seed: u64,
}

impl Default for SaturationSweep {
    /// 50 % to 100 % of capacity, 2 runs of a simulated minute per point.
    fn default() -> Self {
        SaturationSweep {
            params: SaturationParams::default(),
            variants: SaturationVariant::ALL.to_vec(),
            load_percents: vec![50, 60, 70, 80, 90, 95, 100],
            runs: 2,
            seed: 2015,
        }
    }
}

/// One (setting, load) point, its runs pooled.
#[derive(Clone, Debug, PartialEq)]
pub struct SaturationPoint {
    /// The setting.
    pub variant: SaturationVariant,
    /// Offered load, percent of capacity.
    pub load_percent: u32,
    /// Call latency percentiles, ms.
    pub latency: Percentiles,
    /// Calls started.
    pub calls: u64,
    /// Copies sent.
    pub copies: u64,
    /// Copies cancelled (served all the same).
    pub cancelled: u64,
    /// Calls stoic gave up on.
    pub gave_up: u64,
}

impl SaturationPoint {
    /// Copies per call: the multiplier on the offered load.
    #[must_use]
    pub fn load(&self) -> f64 {
        crate::overload::ratio(self.copies, self.calls)
    }
}

impl SaturationSweep {
    /// Points to run (what a progress bar counts).
    #[must_use]
    pub fn len(&self) -> usize {
        self.variants.len() * self.load_percents.len()
    }

    /// Whether there is nothing to run.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs every point on `threads` threads, calling `tick` after each.
    /// The result is in (setting, load) order whatever `threads`.
    #[must_use]
    pub fn run(&self, threads: usize, tick: &(dyn Fn() + Sync)) -> Vec<SaturationPoint> {
        let coords: Vec<(SaturationVariant, u32)> = self
            .variants
            .iter()
            .flat_map(|v| self.load_percents.iter().map(move |l| (*v, *l)))
            .collect();
        parallel::map(
            &coords,
            threads,
            || SaturationSim::new(self.params),
            |sim, &(variant, load_percent)| {
                let load = f64::from(load_percent) / 100.0;
                let mut pooled = SaturationRun::default();
                for run in 0..self.runs {
                    // The seed leaves the setting out: every setting sees
                    // the same arrivals.
                    let coords = [u64::from(load_percent), u64::from(run)];
                    let r = sim.run(variant, load, seed::derive(self.seed, &coords));
                    pooled.call_ms.extend(r.call_ms);
                    pooled.calls += r.calls;
                    pooled.copies += r.copies;
                    pooled.cancelled += r.cancelled;
                    pooled.gave_up += r.gave_up;
                }
                SaturationPoint {
                    variant,
                    load_percent,
                    latency: pooled.percentiles(),
                    calls: pooled.calls,
                    copies: pooled.copies,
                    cancelled: pooled.cancelled,
                    gave_up: pooled.gave_up,
                }
            },
            tick,
        )
    }
}

/// The point of `variant` at `load_percent`, if the sweep has it.
#[must_use]
pub fn find(
    points: &[SaturationPoint],
    variant: SaturationVariant,
    load_percent: u32,
) -> Option<&SaturationPoint> {
    points
        .iter()
        .find(|p| p.variant == variant && p.load_percent == load_percent)
}
