//! The fan-out model ("The Tail at Scale"): a request reads from many
//! leaves at once and is as slow as its slowest leaf.
//!
//! - Requests arrive as a Poisson process; each sends `fanout` (100)
//!   sub-requests at once and completes when every one has answered.
//! - Each sub-request is a stoic hedged call (or a plain one, without
//!   hedging). Every copy goes to its own independent server, with no
//!   queue: it answers in `|Normal(5 ms, 2 ms)|`, or, with probability 1 %,
//!   in 1 s (a straggler: a paused process, a busy disk, a lost packet).
//!   So a straggling copy says nothing about the next copy of the same
//!   sub-request, which is what makes hedging pay off here.
//! - The policy decides when each hedge goes out and which copies to
//!   cancel; the model draws each copy's latency and keeps the time. All
//!   sub-requests share one policy and scope (one client, one leaf
//!   service), so they share its latency window and its retry budget.
//!
//! Why a 5 ms body when the issue says "10 ms service time": the paper's
//! 10 ms hedge added about 2 % more requests, so 10 ms sat near the top of
//! its leaves' normal latencies; here 10 ms is 2.5 standard deviations above
//! the mean, and the fixed 10 ms delay plays the same role.

use stoic_core::{CallSpec, Instant};

use crate::hedge_host::{Flight, Host, Settled};
use crate::hedge_variant::FanoutVariant;
use crate::normal::Normal;
use crate::queue::EventQueue;
use crate::slab::{Key, Slab};

/// The model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FanoutParams {
    /// Sub-requests per request.
    pub fanout: u32,
    /// Requests per run.
    pub requests: u32,
    /// Requests started per second (only the budget's and the latency
    /// window's clocks see it: the servers have no queue).
    pub requests_per_sec: f64,
    /// Mean latency of a normal copy, ms.
    pub body_mean_ms: f64,
    /// Its standard deviation, ms.
    pub body_sd_ms: f64,
    /// Share of copies that straggle.
    pub straggler_share: f64,
    /// A straggler's latency, ms.
    pub straggler_ms: f64,
}

impl Default for FanoutParams {
    fn default() -> Self {
        FanoutParams {
            fanout: 100,
            requests: 5_000,
            requests_per_sec: 20.0,
            body_mean_ms: 5.0,
            body_sd_ms: 2.0,
            straggler_share: 0.01,
            straggler_ms: 1_000.0,
        }
    }
}

/// What one run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FanoutRun {
    /// Each request's latency (its slowest sub-request), ms.
    pub request_ms: Vec<f64>,
    /// Sub-requests started.
    pub sub_requests: u64,
    /// Copies sent, first copies included.
    pub copies: u64,
    /// Copies still in flight when their sub-request ended (the policy
    /// named them to cancel).
    pub cancelled: u64,
    /// Sub-requests stoic gave up on (never expected: no copy fails).
    pub gave_up: u64,
}

impl FanoutRun {
    /// Appends another run's measurements.
    pub fn absorb(&mut self, other: FanoutRun) {
        self.request_ms.extend(other.request_ms);
        self.sub_requests += other.sub_requests;
        self.copies += other.copies;
        self.cancelled += other.cancelled;
        self.gave_up += other.gave_up;
    }

    /// Copies sent per sub-request, minus one: the share of extra load
    /// hedging adds.
    #[must_use]
    pub fn extra_load(&self) -> f64 {
        crate::overload::ratio(self.copies, self.sub_requests) - 1.0
    }
}

/// What happens next in the model.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A new request arrives.
    Arrival,
    /// Copy `copy` of sub-request `sub` answers.
    Answer { sub: Key, copy: u32 },
    /// The time sub-request `sub`'s policy asked to be woken at.
    Wake { sub: Key, at: u64 },
}

/// A sub-request in flight.
#[derive(Debug)]
struct Sub {
    flight: Flight,
    request: Key,
    /// The wake-up scheduled for it, so a step that names the same time
    /// again does not schedule a second one.
    wake_at: Option<u64>,
}

/// A request in flight.
#[derive(Clone, Copy, Debug)]
struct Request {
    start: f64,
    pending: u32,
}

/// A reusable simulator: queue and tables are kept between runs.
#[derive(Debug)]
pub struct FanoutSim {
    params: FanoutParams,
    queue: EventQueue<Step>,
    subs: Slab<Sub>,
    requests: Slab<Request>,
    sends: Vec<u32>,
}

/// The model's clock in stoic's: whole milliseconds, rounded down.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // t >= 0, far below 2^53
pub(crate) fn instant(t: f64) -> Instant {
    Instant::from_millis(t as u64)
}

impl FanoutSim {
    /// A simulator for `params`.
    #[must_use]
    pub fn new(params: FanoutParams) -> Self {
        FanoutSim {
            params,
            queue: EventQueue::with_capacity(4096),
            subs: Slab::default(),
            requests: Slab::default(),
            sends: Vec::with_capacity(4),
        }
    }

    /// One run of `variant`; a pure function of it, the parameters and
    /// `seed`.
    ///
    /// # Panics
    /// If the variant's config is invalid, which its unit test rules out.
    pub fn run(&mut self, variant: FanoutVariant, seed: u64) -> FanoutRun {
        let mut master = stoic_core::rng::SplitMix64::new(seed);
        #[allow(clippy::expect_used)] // every variant's config is tested valid
        let policy =
            stoic_core::Policy::new(variant.config(master.next_u64())).expect("valid config");
        let mut host = Host {
            policy,
            hedging: variant.hedging(),
        };
        let mut draw = Normal::new(master.next_u64());
        let p = self.params;
        self.queue.clear();
        self.subs.clear();
        self.requests.clear();
        let mut out = FanoutRun::default();
        let mut arrived = 0_u32;
        self.queue.push(0.0, Step::Arrival);

        while let Some((now, step)) = self.queue.pop() {
            let at = instant(now);
            match step {
                Step::Arrival => {
                    arrived += 1;
                    let request = self.requests.insert(Request {
                        start: now,
                        pending: p.fanout,
                    });
                    for _ in 0..p.fanout {
                        out.sub_requests += 1;
                        self.sends.clear();
                        let spec = CallSpec::new("read").in_scope("leaf").idempotent(true);
                        let (flight, settled) = host.start(at, spec, &mut self.sends);
                        let sub = self.subs.insert(Sub {
                            flight,
                            request,
                            wake_at: None,
                        });
                        self.settle(now, sub, settled, &mut draw, &mut out);
                    }
                    if arrived < p.requests {
                        let gap = -(1.0 - draw.uniform()).ln() * 1000.0 / p.requests_per_sec;
                        self.queue.push(now + gap, Step::Arrival);
                    }
                }
                Step::Answer { sub, copy } => {
                    let Some(s) = self.subs.get_mut(sub) else {
                        continue; // a cancelled copy's answer
                    };
                    self.sends.clear();
                    let settled = host.answer(at, &mut s.flight, copy, &mut self.sends);
                    self.settle(now, sub, settled, &mut draw, &mut out);
                }
                Step::Wake { sub, at: wake } => {
                    let Some(s) = self.subs.get_mut(sub) else {
                        continue;
                    };
                    if s.wake_at != Some(wake) {
                        continue; // superseded by a later wake-up
                    }
                    s.wake_at = None;
                    self.sends.clear();
                    let settled = host.wake(at, &mut s.flight, &mut self.sends);
                    self.settle(now, sub, settled, &mut draw, &mut out);
                }
            }
        }
        out
    }

    /// Carries out what the policy decided for `sub` at `now`: sends the
    /// copies in `self.sends`, schedules its wake-up, or ends it.
    fn settle(
        &mut self,
        now: f64,
        sub: Key,
        settled: Settled,
        draw: &mut Normal,
        out: &mut FanoutRun,
    ) {
        let p = self.params;
        for &copy in &self.sends {
            out.copies += 1;
            let latency = if draw.uniform() < p.straggler_share {
                p.straggler_ms
            } else {
                draw.folded(p.body_mean_ms, p.body_sd_ms)
            };
            self.queue.push(now + latency, Step::Answer { sub, copy });
        }
        match settled {
            Settled::Wait { until } => {
                let Some(s) = self.subs.get_mut(sub) else {
                    return;
                };
                if let Some(at) = until.map(Instant::as_millis) {
                    if s.wake_at != Some(at) {
                        s.wake_at = Some(at);
                        #[allow(clippy::cast_precision_loss)] // ms far below 2^52
                        let when = (at as f64).max(now);
                        self.queue.push(when, Step::Wake { sub, at });
                    }
                }
            }
            Settled::Done { cancel, .. } => {
                out.cancelled += u64::from(cancel.len());
                self.finish(now, sub, out);
            }
            Settled::GaveUp { .. } => {
                out.gave_up += 1;
                self.finish(now, sub, out);
            }
        }
    }

    /// Ends `sub`; its request completes with its last sub-request.
    fn finish(&mut self, now: f64, sub: Key, out: &mut FanoutRun) {
        let Some(s) = self.subs.remove(sub) else {
            return;
        };
        let Some(r) = self.requests.get_mut(s.request) else {
            return;
        };
        r.pending -= 1;
        if r.pending == 0 {
            out.request_ms.push(now - r.start);
            self.requests.remove(s.request);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> FanoutParams {
        FanoutParams {
            requests: 200,
            ..FanoutParams::default()
        }
    }

    #[test]
    fn without_hedging_every_sub_request_is_sent_once() {
        let run = FanoutSim::new(small()).run(FanoutVariant::None, 1);
        assert_eq!(run.request_ms.len(), 200);
        assert_eq!(run.sub_requests, 200 * 100);
        assert_eq!(run.copies, run.sub_requests);
        assert_eq!((run.cancelled, run.gave_up), (0, 0));
        // 1 - 0.99^100 = 63 % of requests wait for a straggler.
        let slow = run.request_ms.iter().filter(|ms| **ms >= 1_000.0).count();
        assert!((100..160).contains(&slow), "{slow} slow requests");
    }

    #[test]
    fn a_fixed_hedge_sends_few_copies_and_cancels_the_losers() {
        let run = FanoutSim::new(small()).run(FanoutVariant::Fixed, 2);
        assert!(
            run.extra_load() > 0.005 && run.extra_load() < 0.05,
            "{run:?}"
        );
        // One copy per hedged sub-request is left to cancel.
        assert_eq!(run.cancelled, run.copies - run.sub_requests);
        assert_eq!(run.gave_up, 0);
    }

    #[test]
    fn runs_are_reproducible() {
        let mut sim = FanoutSim::new(small());
        let a = sim.run(FanoutVariant::P95, 9);
        assert_eq!(a, sim.run(FanoutVariant::P95, 9));
        assert_ne!(a, sim.run(FanoutVariant::P95, 10));
    }
}
