//! The no-load latency (min RTT) the gradient compares samples against,
//! and its periodic re-measurement.
//!
//! **What it is: a percentile, not a minimum.** A measurement collects
//! `probe_samples` latencies and takes the gradient's own `percentile` of
//! them (nearest rank), as Envoy's gradient controller reads its min-RTT
//! window with the same percentile as its samples. The gradient divides
//! this baseline by an interval's percentile, so both must estimate the
//! same thing at no load: then the gradient is `1 + buffer` when nothing
//! queues and falls only when latency really rises. The lowest latency
//! ever seen is no such estimate. Latency has a tail on the fast side
//! too (a cached answer, a log-normal service time, a millisecond clock
//! rounding down): one lucky answer, far below the median, made the
//! gradient about 0.1 in every interval, clamped to 0.5, and pinned the
//! limit to `min_limit` at any load and any capacity (the simulator's
//! Netflix example: limit 3 at half load, 8.7 % of requests rejected; 71 %
//! against a server ten times wider). So a single sample never moves the
//! baseline: it changes only when a measurement completes, and then to
//! that measurement's percentile, up or down.
//!
//! **Why re-measure.** The dependency may become slower for good (a new
//! region, a heavier version): every sample then looks like queueing and
//! the gradient would hold the limit down for ever. Or faster: the limit
//! would allow queueing up to the old latency. So about every
//! `probe_interval_ms` the baseline is measured afresh and replaced.
//!
//! **How, without the pitfalls others hit.**
//! - Envoy pins the limit to its minimum for the whole measurement
//!   (envoy #8337, #46532): a busy client then queues or rejects most of
//!   its traffic every minute, and the limit climbs back from the floor.
//!   Here the measurement never touches the limit.
//! - Measured at full load, the baseline includes queueing, and each
//!   re-measurement can raise it a little more (envoy #11579), so the
//!   limit rises with it. Here a re-measurement takes only latencies of
//!   requests sent while at most `min_limit` were in flight, which a
//!   saturated client does not send; if it has not
//!   collected `probe_samples` of them within one probe interval it is
//!   dropped and the old baseline stays. A baseline that really rose makes
//!   the gradient shrink the limit until such requests are sent, and the
//!   re-measurement then completes. The first measurement, with nothing
//!   to compare against yet, takes every latency.
//! - Not "at most half the limit", as before: on a server two wide, a
//!   limit of 5-25 let requests sent at 3-12 in flight count as quiet, so
//!   they queued and re-measurements learnt 1.6-6x the unloaded median
//!   (the simulator's Netflix example, seeds 1-16), and the limit rose
//!   with them. The cost: a client that always keeps more than
//!   `min_limit` in flight (a wide server, busy) never completes a
//!   re-measurement, so a faster dependency goes unlearnt and a slower
//!   one is learnt only after the gradient has shrunk the limit to
//!   where such requests are sent (Envoy pins the limit to its minimum
//!   instead; this never touches the limit).
//! - A fleet started together would probe in step; each wait is
//!   lengthened by a draw from the caller's seed, up to `probe_jitter` of
//!   the interval.

use super::percentile::nearest_rank;
use crate::rng::SplitMix64;
use crate::time::Instant;

/// The measurement's settings, from the gradient config.
#[derive(Clone, Copy, Debug)]
pub(super) struct ProbeParams {
    pub(super) interval_ms: u64,
    pub(super) jitter_milli: u64,
    pub(super) samples: u32,
    /// The gradient's percentile, read to thousandths.
    pub(super) percentile_milli: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Collecting latencies (in `MinRtt::taken`) since `since`.
    Measuring { since: Instant },
    /// Waiting for the next measurement.
    Steady { next_at: Instant },
}

#[derive(Clone, Debug)]
pub(super) struct MinRtt {
    baseline: Option<u64>,
    phase: Phase,
    /// The measurement's latencies so far: fewer than `probe_samples`.
    taken: Vec<u64>,
    rng: SplitMix64,
}

impl MinRtt {
    /// No baseline yet: the first measurement starts with the first sample.
    pub(super) fn new(seed: u64) -> Self {
        MinRtt {
            baseline: None,
            phase: Phase::Measuring {
                since: Instant::ZERO,
            },
            taken: Vec::new(),
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
                self.taken.clear();
                self.phase = Phase::Measuring { since: now };
            }
            Phase::Measuring { since }
                if self.baseline.is_some() && now.saturating_since(since) >= p.interval_ms =>
            {
                self.schedule(now, p);
            }
            Phase::Steady { .. } | Phase::Measuring { .. } => {}
        }
    }

    /// Takes a success's latency (at least 1 ms). `quiet`: it was sent with
    /// at most `min_limit` in flight, so a re-measurement takes it (the
    /// first measurement takes every sample). Outside a measurement a
    /// latency teaches the baseline nothing.
    pub(super) fn sample(&mut self, now: Instant, latency_ms: u64, quiet: bool, p: ProbeParams) {
        self.tick(now, p);
        if !self.measuring() || !(quiet || self.baseline.is_none()) {
            return;
        }
        self.taken.push(latency_ms.max(1));
        if self.taken.len() >= p.samples as usize {
            if let Some(baseline) = nearest_rank(&mut self.taken, p.percentile_milli) {
                self.baseline = Some(baseline);
            }
            self.schedule(now, p);
        }
    }

    /// Ends any measurement; the next starts `interval + below(interval *
    /// jitter + 1)` after `now` (one draw of the generator).
    fn schedule(&mut self, now: Instant, p: ProbeParams) {
        self.taken.clear();
        let spread = u128::from(p.interval_ms) * u128::from(p.jitter_milli) / 1000;
        let spread = u64::try_from(spread).unwrap_or(u64::MAX);
        let jitter = self.rng.below(spread.saturating_add(1));
        let next_at = now.saturating_add(p.interval_ms).saturating_add(jitter);
        self.phase = Phase::Steady { next_at };
    }
}

#[cfg(test)]
mod tests {
    use super::{MinRtt, ProbeParams};
    use crate::time::Instant;

    const P: ProbeParams = ProbeParams {
        interval_ms: 1_000,
        jitter_milli: 0,
        samples: 5,
        percentile_milli: 500,
    };

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// `latencies` at 1 ms apart from `t`, all quiet or all not.
    fn feed(m: &mut MinRtt, t: u64, latencies: &[u64], quiet: bool) {
        for (i, ms) in (0u64..).zip(latencies) {
            m.sample(at(t + i), *ms, quiet, P);
        }
    }

    #[test]
    fn a_measurement_takes_the_percentile_of_its_samples() {
        let mut m = MinRtt::new(1);
        // Loud samples count for the first measurement.
        feed(&mut m, 0, &[30, 1, 12, 14, 11], false);
        assert_eq!(m.baseline(), Some(12)); // the 3rd of 1, 11, 12, 14, 30
        assert_eq!(m.next_at(), Some(at(1_004)));
    }

    #[test]
    fn one_fast_answer_does_not_lower_the_baseline() {
        let mut m = MinRtt::new(1);
        feed(&mut m, 0, &[12; 5], true);
        feed(&mut m, 10, &[1, 0, 2], true);
        assert_eq!(m.baseline(), Some(12));
        // Nor in a re-measurement, where it is one sample of five.
        feed(&mut m, 1_004, &[1, 12, 13, 11, 12], true);
        assert_eq!(m.baseline(), Some(12));
    }

    #[test]
    fn a_re_measurement_replaces_the_baseline_up_or_down() {
        let mut m = MinRtt::new(1);
        feed(&mut m, 0, &[12; 5], true);
        feed(&mut m, 1_004, &[30, 31, 29, 30, 30], true);
        assert_eq!(m.baseline(), Some(30));
        feed(&mut m, 2_008, &[8, 9, 7, 8, 8], true);
        assert_eq!(m.baseline(), Some(8));
    }

    #[test]
    fn a_re_measurement_takes_only_quiet_samples_and_is_dropped_if_incomplete() {
        let mut m = MinRtt::new(1);
        feed(&mut m, 0, &[12; 5], true);
        // Saturated: nothing quiet, the samples do not count.
        feed(&mut m, 1_004, &[40; 20], false);
        assert!(m.measuring());
        // Four quiet ones, then the interval runs out: dropped, with them.
        feed(&mut m, 1_500, &[20; 4], true);
        m.tick(at(2_004), P);
        assert!(!m.measuring());
        assert_eq!(m.baseline(), Some(12));
        assert_eq!(m.next_at(), Some(at(3_004)));
        // The next one starts from nothing: five more are needed.
        feed(&mut m, 3_004, &[20; 4], true);
        assert_eq!(m.baseline(), Some(12));
        feed(&mut m, 3_010, &[20], true);
        assert_eq!(m.baseline(), Some(20));
    }
}
