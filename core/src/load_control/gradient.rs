//! The gradient controller (Envoy's `adaptive_concurrency` form).
//!
//! Every `update_interval_ms`, with `sample` a percentile of the interval's
//! latencies and `min_rtt` the measured no-load latency ([`MinRtt`]):
//!
//! ```text
//! gradient  = clamp(min_rtt * (1 + buffer) / sample, 0.5, 2)
//! scaled    = limit * gradient
//! new_limit = clamp(floor(scaled + sqrt(scaled)), min_limit, max_limit)
//! ```
//!
//! `sqrt(scaled)` is Envoy's burst headroom: it lets the limit probe
//! upwards while latency stays within the buffer. Two rules are added:
//!
//! - **An idle limit does not grow.** When no more than half the limit was
//!   in flight during the interval and the gradient would not shrink the
//!   limit, it stays: fast answers at low load say nothing about what more
//!   load would do, and a limit that grew to its maximum while idle
//!   protects nothing when a burst comes (Netflix concurrency-limits only
//!   grows a limit that is at least half used, for the same reason).
//! - **A drop is overload.** An interval in which a request was dropped
//!   (429, 503, a timeout) takes the lowest gradient, 0.5, whatever its
//!   latencies: the dependency said so.
//!
//! The baseline is the same percentile of latencies sent at low
//! concurrency, re-measured now and then ([`MinRtt`]), not the lowest
//! latency ever seen (one lucky answer would pin the limit to its floor)
//! nor an average of recent latencies: a long average under sustained
//! modest overload drifts up with the queueing it should detect, and the
//! limit with it (Netflix concurrency-limits #134, Gradient2). The
//! arithmetic is IEEE double (`*`, `/`, `sqrt` are exactly
//! rounded), so every platform computes the same limit.

use super::limiter_config::MAX_INTERVAL_SAMPLES;
use super::min_rtt::{MinRtt, ProbeParams};
use super::percentile::nearest_rank;
use crate::time::Instant;

/// The gradient settings, in integers where the config has fractions.
#[derive(Clone, Copy, Debug)]
pub(super) struct GradientParams {
    pub(super) update_interval_ms: u64,
    /// Also the min-RTT measurement's (`probe.percentile_milli`).
    pub(super) percentile_milli: u64,
    pub(super) buffer_milli: u64,
    pub(super) probe: ProbeParams,
}

/// What one released permit tells the controller.
#[derive(Clone, Copy, Debug)]
pub(super) enum Signal {
    Latency { ms: u64, quiet: bool },
    Drop,
}

#[derive(Clone, Debug)]
pub(super) struct Gradient {
    params: GradientParams,
    min_rtt: MinRtt,
    /// When the current interval began (its first signal).
    started: Option<Instant>,
    samples: Vec<u64>,
    dropped: bool,
    /// The most permits in flight at once during the interval.
    peak_in_flight: u32,
}

impl Gradient {
    pub(super) fn new(params: GradientParams, seed: u64) -> Self {
        Gradient {
            params,
            min_rtt: MinRtt::new(seed),
            started: None,
            samples: Vec::new(),
            dropped: false,
            peak_in_flight: 0,
        }
    }

    pub(super) const fn min_rtt(&self) -> &MinRtt {
        &self.min_rtt
    }

    /// A permit was admitted; `in_flight` counts it.
    pub(super) fn on_admit(&mut self, in_flight: u32) {
        self.peak_in_flight = self.peak_in_flight.max(in_flight);
    }

    /// Closes the interval if it has run its length, and returns the limit
    /// it leaves. Called at every acquire, poll and release, so that a
    /// request admitted after an interval ended is admitted under the
    /// limit that interval taught, not the one before it.
    pub(super) fn roll(
        &mut self,
        now: Instant,
        limit: u32,
        in_flight: u32,
        bounds: (u32, u32),
    ) -> u32 {
        self.min_rtt.tick(now, self.params.probe);
        let Some(started) = self.started else {
            return limit;
        };
        if now.saturating_since(started) < self.params.update_interval_ms {
            return limit;
        }
        let limit = self.next_limit(limit, bounds);
        self.started = None;
        self.samples.clear();
        self.dropped = false;
        self.peak_in_flight = in_flight;
        limit
    }

    /// Records what a released permit says, in the interval it falls in
    /// (the caller rolled the interval first).
    pub(super) fn record(&mut self, now: Instant, signal: Signal) {
        match signal {
            Signal::Latency { ms, quiet } => {
                if self.samples.len() < MAX_INTERVAL_SAMPLES as usize {
                    self.samples.push(ms.max(1));
                }
                self.min_rtt.sample(now, ms, quiet, self.params.probe);
            }
            Signal::Drop => self.dropped = true,
        }
        self.started.get_or_insert(now);
    }

    /// The limit after the interval that just ended.
    fn next_limit(&mut self, limit: u32, (lo, hi): (u32, u32)) -> u32 {
        let gradient = if self.dropped {
            0.5
        } else {
            match (self.min_rtt.baseline(), self.percentile()) {
                (Some(min_rtt), Some(sample)) => {
                    let buffered =
                        to_f64(min_rtt) * to_f64(1000 + self.params.buffer_milli) / 1000.0;
                    (buffered / to_f64(sample)).clamp(0.5, 2.0)
                }
                // Nothing to compare yet: the limit stays.
                _ => return limit,
            }
        };
        if gradient >= 1.0 && u64::from(self.peak_in_flight) * 2 < u64::from(limit) {
            return limit;
        }
        let scaled = f64::from(limit) * gradient;
        let next = (scaled + scaled.sqrt()).floor();
        // `next` is finite and below 2 * MAX_LIMIT + 45: the cast is exact.
        let next = if next >= f64::from(hi) {
            hi
        } else {
            next as u32
        };
        next.clamp(lo, hi)
    }

    /// The configured percentile of the interval's latencies.
    fn percentile(&mut self) -> Option<u64> {
        nearest_rank(&mut self.samples, self.params.percentile_milli)
    }
}

/// A latency or a small count as a double. Latencies are below 2^53 ms
/// (the clock's own bound), so the conversion is exact.
#[allow(clippy::cast_precision_loss)]
fn to_f64(value: u64) -> f64 {
    value as f64
}
