//! The no-load latency (min RTT) the gradient compares samples against,
//! and its periodic re-measurement.
//!
//! **Why re-measure.** The lowest latency ever seen only goes down; if the
//! dependency becomes slower for good (a new region, a heavier version),
//! every sample looks like queueing and the gradient holds the limit at
//! its minimum for ever. So about every `probe_interval_ms` the baseline
//! is measured afresh.
//!
//! **How, without the pitfalls others hit.**
//! - Envoy pins the limit to its minimum for the whole measurement
//!   (envoy #8337, #46532): a busy client then queues or rejects most of
//!   its traffic every minute, and the limit climbs back from the floor.
//!   Here the measurement never touches the limit.
//! - Measured at full load, a "minimum" includes queueing, and each
//!   re-measurement can raise the baseline a little more (envoy #11579),
//!   so the limit rises with it. Here a re-measurement completes only with
//!   `probe_samples` latencies of requests sent while at most half the
//!   limit (or `min_limit`) was in flight, which a saturated client does
//!   not send; if it does not complete within one probe interval it is
//!   dropped and the old baseline stays. A baseline that really rose makes
//!   the gradient shrink the limit until such requests are sent, and the
//!   re-measurement then completes.
//! - A fleet started together would probe in step; each wait is
//!   lengthened by a draw from the caller's seed, up to `probe_jitter` of
//!   the interval.
//!
//! Between measurements any latency below the baseline lowers it at once:
//! a faster answer proves the baseline too high.

use crate::rng::SplitMix64;
use crate::time::Instant;

/// The re-measurement's settings, from the gradient config.
#[derive(Clone, Copy, Debug)]
pub(super) struct ProbeParams {
    pub(super) interval_ms: u64,
    pub(super) jitter_milli: u64,
    pub(super) samples: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Collecting: `low` is the lowest latency since `since`, `counted` the
    /// samples that count towards completing.
    Measuring {
        since: Instant,
        low: u64,
        counted: u32,
    },
    /// Waiting for the next measurement.
    Steady { next_at: Instant },
}

#[derive(Clone, Debug)]
pub(super) struct MinRtt {
    baseline: Option<u64>,
    phase: Phase,
    rng: SplitMix64,
}

impl MinRtt {
    /// No baseline yet: the first measurement starts with the first sample.
    pub(super) fn new(seed: u64) -> Self {
        MinRtt {
            baseline: None,
            phase: Phase::Measuring {
                since: Instant::ZERO,
                low: u64::MAX,
                counted: 0,
            },
            rng: SplitMix64::new(seed),
        }
    }

    /// The no-load latency in ms, once measured.
    pub(super) const fn baseline(&self) -> Option<u64> {
        self.baseline
    }

    /// Whether a measurement is under way.
    pub(super) const fn measuring(&self) -> bool {
        matches!(self.phase, Phase::Measuring { .. })
    }

    /// When the next re-measurement starts, while none is under way.
    pub(super) const fn next_at(&self) -> Option<Instant> {
        match self.phase {
            Phase::Steady { next_at } => Some(next_at),
            Phase::Measuring { .. } => None,
        }
    }

    /// Starts a due re-measurement, or drops one that ran a whole interval
    /// without completing (the baseline stays).
    pub(super) fn tick(&mut self, now: Instant, p: ProbeParams) {
        match self.phase {
            Phase::Steady { next_at } if now >= next_at => {
                self.phase = Phase::Measuring {
                    since: now,
                    low: u64::MAX,
                    counted: 0,
                };
            }
            Phase::Measuring { since, .. }
                if self.baseline.is_some() && now.saturating_since(since) >= p.interval_ms =>
            {
                self.schedule(now, p);
            }
            Phase::Steady { .. } | Phase::Measuring { .. } => {}
        }
    }

    /// Takes a success's latency (at least 1 ms). `quiet`: it was sent with
    /// at most half the limit in flight, so it counts towards completing a
    /// re-measurement (the first measurement counts every sample).
    pub(super) fn sample(&mut self, now: Instant, latency_ms: u64, quiet: bool, p: ProbeParams) {
        self.tick(now, p);
        let latency = latency_ms.max(1);
        if let Some(baseline) = self.baseline {
            self.baseline = Some(baseline.min(latency));
        }
        if let Phase::Measuring {
            since,
            low,
            counted,
        } = self.phase
        {
            let low = low.min(latency);
            let counts = quiet || self.baseline.is_none();
            let counted = counted.saturating_add(u32::from(counts));
            if counted >= p.samples {
                self.baseline = Some(low);
                self.schedule(now, p);
            } else {
                self.phase = Phase::Measuring {
                    since,
                    low,
                    counted,
                };
            }
        }
    }

    /// The next re-measurement: `interval + below(interval * jitter + 1)`
    /// after `now` (one draw of the generator).
    fn schedule(&mut self, now: Instant, p: ProbeParams) {
        let spread = u128::from(p.interval_ms) * u128::from(p.jitter_milli) / 1000;
        let spread = u64::try_from(spread).unwrap_or(u64::MAX);
        let jitter = self.rng.below(spread.saturating_add(1));
        let next_at = now.saturating_add(p.interval_ms).saturating_add(jitter);
        self.phase = Phase::Steady { next_at };
    }
}
