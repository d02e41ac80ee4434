//! The limiter model: Netflix's example of an adaptive concurrency limit
//! (issue 43, item 5 b), with stoic's [`Limiter`] in front of the server.
//!
//! - One server: `workers` (2) requests served at once, the rest waiting in
//!   an unbounded FIFO queue; each takes a log-normal service time of mean
//!   20 ms (`sigma` 1 for its logarithm: the issue gives only the mean, and
//!   a log-normal that narrow would hardly be one). Capacity: 2 / 20 ms =
//!   100 requests per second.
//! - One client sends requests as a Poisson process at 50, 90, 200 and 100
//!   requests per second for 100 s each (0.5, 0.9, 2 and 1 times the
//!   capacity); then the run drains. No timeouts: a request sent is served
//!   and answered, however long it waited.
//! - With a limiter, each request asks `acquire` first: admitted, it is
//!   sent and its permit released with its latency (queueing included, as
//!   the client measures it); rejected, it fails at once (no local queue,
//!   the limiter's default). Without one, every request is sent.
//!
//! Goodput counts answers within [`LimiterParams::slo_ms`] (1 s) per
//! second, throughput every answer: a server that answers after a minute
//! is busy, not useful.

use std::collections::VecDeque;

use stoic_core::load_control::{
    Acquired, LimitAlgorithm, LimitOutcome, Limiter, LimiterConfig, Permit,
};
use stoic_core::Instant;

use crate::normal::Normal;
use crate::percentile::Percentiles;
use crate::queue::EventQueue;

/// One phase of constant offered load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phase {
    /// Requests per second (Poisson).
    pub rate_per_sec: f64,
    /// How long, in seconds.
    pub secs: f64,
}

/// The model's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct LimiterParams {
    /// Requests the server serves at once.
    pub workers: u32,
    /// Mean service time, ms.
    pub service_mean_ms: f64,
    /// Standard deviation of the service time's logarithm.
    pub service_sigma: f64,
    /// The offered load, phase after phase.
    pub phases: Vec<Phase>,
    /// An answer later than this does not count as goodput, ms.
    pub slo_ms: f64,
}

impl Default for LimiterParams {
    /// The numbers: 50, 90, 200, 100 requests/s for 100 s each.
    fn default() -> Self {
        let phase = |rate_per_sec| Phase {
            rate_per_sec,
            secs: 100.0,
        };
        LimiterParams {
            workers: 2,
            service_mean_ms: 20.0,
            service_sigma: 1.0,
            phases: vec![phase(50.0), phase(90.0), phase(200.0), phase(100.0)],
            slo_ms: 1_000.0,
        }
    }
}

impl LimiterParams {
    /// Requests per second the server completes when always busy.
    #[must_use]
    pub fn capacity_per_sec(&self) -> f64 {
        f64::from(self.workers) * 1000.0 / self.service_mean_ms
    }

    /// When arrivals stop, ms.
    #[must_use]
    pub fn duration_ms(&self) -> f64 {
        self.phases.iter().map(|p| p.secs * 1000.0).sum()
    }

    /// The phase `at_ms` falls in; `None` after the last.
    #[must_use]
    pub fn phase_at(&self, at_ms: f64) -> Option<usize> {
        let mut end = 0.0;
        for (i, p) in self.phases.iter().enumerate() {
            end += p.secs * 1000.0;
            if at_ms < end {
                return Some(i);
            }
        }
        None
    }
}

/// A client setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitVariant {
    /// Every request sent.
    None,
    /// stoic's limiter with its defaults: gradient, `min_limit` 3, no queue.
    Gradient,
    /// The same with `min_limit` 1, so the limit can go below the server's
    /// concurrency and show where the gradient itself settles.
    GradientMin1,
}

impl LimitVariant {
    /// Every setting, in table order.
    pub const ALL: [LimitVariant; 3] = [
        LimitVariant::None,
        LimitVariant::Gradient,
        LimitVariant::GradientMin1,
    ];

    /// A stable short name for tables, CSV and legends.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            LimitVariant::None => "no_limiter",
            LimitVariant::Gradient => "gradient",
            LimitVariant::GradientMin1 => "gradient_min1",
        }
    }

    /// The limiter's settings; `None` for no limiter.
    #[must_use]
    pub fn config(self) -> Option<LimiterConfig> {
        match self {
            LimitVariant::None => None,
            LimitVariant::Gradient => Some(LimiterConfig::default()),
            LimitVariant::GradientMin1 => Some(LimiterConfig {
                min_limit: 1,
                algorithm: LimitAlgorithm::default(),
                ..LimiterConfig::default()
            }),
        }
    }
}

/// What one phase measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PhaseStats {
    /// Requests offered (arrived).
    pub offered: u64,
    /// Requests the limiter rejected.
    pub rejected: u64,
    /// Answers received during the phase.
    pub answered: u64,
    /// Of them, answers within the SLO.
    pub good: u64,
    /// Latency of the requests that arrived in the phase and were sent
    /// (answered in it or later), ms.
    pub latency: Percentiles,
    /// The limit, averaged over the phase's seconds (0 without a limiter).
    pub mean_limit: f64,
    /// The lowest and highest limit seen at a second's tick.
    pub limit_range: (u32, u32),
    /// Requests in the server (queued or served), averaged over the ticks.
    pub mean_in_server: f64,
}

/// One second of a run, for the charts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tick {
    /// Seconds since the start.
    pub secs: f64,
    /// The limit (0 without a limiter).
    pub limit: u32,
    /// The min RTT the gradient compares against, ms (0 while unknown).
    pub min_rtt_ms: u64,
    /// Requests in the server.
    pub in_server: u64,
    /// Mean latency of the answers of that second, ms (0 if none).
    pub mean_latency_ms: f64,
}

/// What one run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LimiterRun {
    /// Per phase, in order.
    pub phases: Vec<PhaseStats>,
    /// Every second, arrivals' span only.
    pub ticks: Vec<Tick>,
    /// When the last answer came, ms (the drain).
    pub last_answer_ms: f64,
}

/// What happens next in the model.
#[derive(Clone, Copy, Debug)]
enum Step {
    Arrival,
    /// A worker finishes request `req`.
    Finish {
        req: usize,
    },
    /// A second's sample.
    Tick,
}

/// A request sent: when it arrived and its permit, if limited.
#[derive(Clone, Copy, Debug)]
struct Sent {
    arrived: f64,
    permit: Option<Permit>,
}

/// Runs `variant` once; a pure function of its arguments and `seed`.
///
/// # Panics
/// If the variant's limiter config is invalid, which its test rules out.
#[must_use]
pub fn run(params: &LimiterParams, variant: LimitVariant, seed: u64) -> LimiterRun {
    let mut master = stoic_core::rng::SplitMix64::new(seed);
    // Drawn with or without a limiter, so every setting sees the same
    // arrivals and service times.
    let limiter_seed = master.next_u64();
    #[allow(clippy::expect_used)] // every variant's config is tested valid
    let mut limiter = variant
        .config()
        .map(|c| Limiter::new(c, limiter_seed).expect("valid limiter config"));
    let mut arrivals = Normal::new(master.next_u64());
    let mut service = Normal::new(master.next_u64());
    let p = params;
    let end_ms = p.duration_ms();
    let mut events = EventQueue::with_capacity(1024);
    let mut sent: Vec<Sent> = Vec::new();
    let mut waiting: VecDeque<usize> = VecDeque::new();
    let mut busy = 0_u32;
    let mut phases = vec![PhaseStats::default(); p.phases.len()];
    let mut latencies: Vec<Vec<f64>> = vec![Vec::new(); p.phases.len()];
    let mut ticks = Vec::new();
    let (mut second_sum, mut second_n) = (0.0, 0_u32);
    let mut last_answer_ms = 0.0;
    events.push(0.0, Step::Arrival);
    events.push(1000.0, Step::Tick);

    while let Some((now, step)) = events.pop() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // ms >= 0
        let at = Instant::from_millis(now as u64);
        match step {
            Step::Arrival => {
                let Some(i) = p.phase_at(now) else { continue };
                let stats = &mut phases[i];
                stats.offered += 1;
                let permit = match limiter.as_mut().map(|l| l.acquire(at)) {
                    None => None,
                    Some(Acquired::Admitted(permit)) => Some(permit),
                    // No queue is configured, so nothing is ever queued;
                    // either way the request is not sent.
                    Some(Acquired::Rejected(_) | Acquired::Queued(_)) => {
                        stats.rejected += 1;
                        schedule_arrival(p, now, &mut arrivals, &mut events);
                        continue;
                    }
                };
                let req = sent.len();
                sent.push(Sent {
                    arrived: now,
                    permit,
                });
                if busy < p.workers {
                    busy += 1;
                    let ms = service.log_normal(p.service_mean_ms, p.service_sigma);
                    events.push(now + ms, Step::Finish { req });
                } else {
                    waiting.push_back(req);
                }
                schedule_arrival(p, now, &mut arrivals, &mut events);
            }
            Step::Finish { req } => {
                match waiting.pop_front() {
                    Some(next) => {
                        let ms = service.log_normal(p.service_mean_ms, p.service_sigma);
                        events.push(now + ms, Step::Finish { req: next });
                    }
                    None => busy -= 1,
                }
                let Some(s) = sent.get(req).copied() else {
                    continue;
                };
                let latency = now - s.arrived;
                last_answer_ms = now;
                second_sum += latency;
                second_n += 1;
                if let Some(i) = p.phase_at(s.arrived) {
                    latencies[i].push(latency);
                }
                if let Some(i) = p.phase_at(now) {
                    phases[i].answered += 1;
                    phases[i].good += u64::from(latency <= p.slo_ms);
                }
                if let (Some(l), Some(permit)) = (limiter.as_mut(), s.permit) {
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let latency_ms = latency.round() as u64; // the host's ms clock
                    l.release(at, permit, LimitOutcome::Success { latency_ms });
                }
            }
            Step::Tick => {
                let status = limiter.as_ref().map(Limiter::status);
                ticks.push(Tick {
                    secs: now / 1000.0,
                    limit: status.map_or(0, |s| s.limit),
                    min_rtt_ms: status.and_then(|s| s.min_rtt_ms).unwrap_or(0),
                    in_server: u64::from(busy) + waiting.len() as u64,
                    mean_latency_ms: if second_n == 0 {
                        0.0
                    } else {
                        second_sum / f64::from(second_n)
                    },
                });
                (second_sum, second_n) = (0.0, 0);
                if now + 1000.0 <= end_ms {
                    events.push(now + 1000.0, Step::Tick);
                }
            }
        }
    }
    for (i, stats) in phases.iter_mut().enumerate() {
        stats.latency = Percentiles::of(&mut latencies[i]);
        // A tick at the end of second s samples the phase that second was in.
        let in_phase: Vec<&Tick> = ticks
            .iter()
            .filter(|t| p.phase_at(t.secs * 1000.0 - 1.0) == Some(i))
            .collect();
        if !in_phase.is_empty() {
            #[allow(clippy::cast_precision_loss)] // a few hundred ticks
            let n = in_phase.len() as f64;
            stats.mean_limit = in_phase.iter().map(|t| f64::from(t.limit)).sum::<f64>() / n;
            #[allow(clippy::cast_precision_loss)] // counts far below 2^52
            let in_server = in_phase.iter().map(|t| t.in_server as f64).sum::<f64>();
            stats.mean_in_server = in_server / n;
            let lo = in_phase.iter().map(|t| t.limit).min().unwrap_or(0);
            let hi = in_phase.iter().map(|t| t.limit).max().unwrap_or(0);
            stats.limit_range = (lo, hi);
        }
    }
    LimiterRun {
        phases,
        ticks,
        last_answer_ms,
    }
}

/// Schedules the arrival after `now`: a Poisson gap at the current phase's
/// rate; a gap that crosses into the next phase restarts at its start with
/// the new rate (exact, since the process is memoryless).
fn schedule_arrival(p: &LimiterParams, now: f64, draw: &mut Normal, events: &mut EventQueue<Step>) {
    let mut from = now;
    while let Some(i) = p.phase_at(from) {
        let phase_end: f64 = p.phases[..=i].iter().map(|ph| ph.secs * 1000.0).sum();
        let next = from + draw.exponential(1000.0 / p.phases[i].rate_per_sec);
        if next < phase_end {
            events.push(next, Step::Arrival);
            return;
        }
        from = phase_end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short() -> LimiterParams {
        LimiterParams {
            phases: vec![
                Phase {
                    rate_per_sec: 50.0,
                    secs: 10.0,
                },
                Phase {
                    rate_per_sec: 200.0,
                    secs: 10.0,
                },
            ],
            ..LimiterParams::default()
        }
    }

    #[test]
    fn every_setting_is_valid() {
        for v in LimitVariant::ALL {
            assert!(
                v.config().is_none_or(|c| c.validate().is_ok()),
                "{}",
                v.code()
            );
        }
    }

    #[test]
    fn without_a_limiter_every_request_is_answered() {
        let r = run(&short(), LimitVariant::None, 1);
        let offered: u64 = r.phases.iter().map(|s| s.offered).sum();
        let answered: usize = r.phases.iter().map(|s| s.latency.count).sum();
        assert_eq!(offered, answered as u64);
        assert!(r.phases.iter().all(|s| s.rejected == 0));
        // About 50 and 200 per second offered.
        assert!(
            (400..600).contains(&r.phases[0].offered),
            "{:?}",
            r.phases[0]
        );
        assert!(
            (1800..2200).contains(&r.phases[1].offered),
            "{:?}",
            r.phases[1]
        );
    }

    #[test]
    fn runs_are_reproducible() {
        let a = run(&short(), LimitVariant::Gradient, 9);
        assert_eq!(a, run(&short(), LimitVariant::Gradient, 9));
        assert_ne!(a, run(&short(), LimitVariant::Gradient, 10));
    }
}
