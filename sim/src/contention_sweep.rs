//! The contention sweep: every strategy at every client count, many seeded
//! runs per point, averaged.

use stoic_core::backoff::Strategy;

use crate::contention::{ContentionParams, ContentionSim, STRATEGIES};
use crate::{parallel, seed};

/// What to sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct ContentionSweep {
    /// The model's parameters.
    pub params: ContentionParams,
    /// The strategies to compare.
    pub strategies: Vec<Strategy>,
    /// Client counts, one point each.
    pub clients: Vec<u32>,
    /// Independent runs averaged per point.
    pub runs: u32,
    /// The sweep's seed; each run's seed derives from it.
    pub seed: u64,
}

impl Default for ContentionSweep {
    /// The published sweep: 10 to 190 clients by 10, 100 runs per point.
    fn default() -> Self {
        ContentionSweep {
            params: ContentionParams::default(),
            strategies: STRATEGIES.to_vec(),
            clients: (1..=19).map(|k| k * 10).collect(),
            runs: 100,
            seed: 2015,
        }
    }
}

/// The averages at one (strategy, client count) point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContentionPoint {
    /// The backoff strategy.
    pub strategy: Strategy,
    /// The number of clients.
    pub clients: u32,
    /// Mean write calls per run.
    pub mean_calls: f64,
    /// Mean completion time per run, ms.
    pub mean_completion_ms: f64,
}

impl ContentionSweep {
    /// The number of points (what a progress bar counts).
    #[must_use]
    pub fn len(&self) -> usize {
        self.strategies.len() * self.clients.len()
    }

    /// Whether the sweep has no points.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs every point on `threads` threads, calling `tick` after each point.
    /// The result is in (strategy, clients) order and does not depend on
    /// `threads`.
    #[must_use]
    pub fn run(&self, threads: usize, tick: &(dyn Fn() + Sync)) -> Vec<ContentionPoint> {
        let coords: Vec<(usize, Strategy, u32)> = self
            .strategies
            .iter()
            .enumerate()
            .flat_map(|(i, s)| self.clients.iter().map(move |n| (i, *s, *n)))
            .collect();
        parallel::map(
            &coords,
            threads,
            || ContentionSim::new(self.params),
            |sim, &(index, strategy, clients)| {
                let (mut calls, mut time) = (0.0, 0.0);
                for run in 0..self.runs {
                    let coords = [index as u64, u64::from(clients), u64::from(run)];
                    let r = sim.run(strategy, clients, seed::derive(self.seed, &coords));
                    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
                    {
                        calls += r.calls as f64;
                    }
                    time += r.completion_ms;
                }
                let runs = f64::from(self.runs.max(1));
                ContentionPoint {
                    strategy,
                    clients,
                    mean_calls: calls / runs,
                    mean_completion_ms: time / runs,
                }
            },
            tick,
        )
    }
}

/// The point for `strategy` at `clients`, if the sweep has it.
#[must_use]
pub fn find(
    points: &[ContentionPoint],
    strategy: Strategy,
    clients: u32,
) -> Option<&ContentionPoint> {
    points
        .iter()
        .find(|p| p.strategy == strategy && p.clients == clients)
}
