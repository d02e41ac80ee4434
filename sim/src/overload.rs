//! The overload model: open-loop callers, a server of limited capacity that
//! also fails a chosen share of requests, and a stoic [`Policy`] deciding
//! every retry.
//!
//! - Callers start logical calls as a Poisson process (100 per second by
//!   default) for a fixed duration; calls still retrying then run to the end.
//! - Every attempt takes `|Normal(20, 5)|` ms to answer.
//! - The server accepts `capacity` attempts per one-second slot (150 by
//!   default, 1.5 x the first-attempt rate) and answers 503 to the excess
//!   ("shed"); an accepted attempt fails with the injected failure rate, also
//!   as a 503. So the failure rate an attempt sees grows with the load the
//!   retries themselves add.
//! - Each call is a stoic [`Call`]: `before_attempt` admits or refuses each
//!   attempt (an open breaker refuses), `on_outcome` answers done, retry
//!   after a delay, or give up (attempts exhausted, budget exhausted, breaker
//!   open). The simulator only carries out those decisions, on simulated time.
//!
//! All callers share one policy (one client process and one scope), so they
//! share its budget and breaker, as they would in a real service.

use stoic_core::{Admission, Call, CallSpec, Decision, Instant, Outcome, Policy, StopReason};

use crate::normal::Normal;
use crate::overload_variant::Variant;
use crate::queue::EventQueue;

/// The model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OverloadParams {
    /// New logical calls per second.
    pub arrivals_per_sec: f64,
    /// Attempts the server accepts per one-second slot.
    pub capacity_per_sec: u32,
    /// How long new calls arrive, ms.
    pub duration_ms: f64,
    /// Mean time to answer one attempt, ms.
    pub latency_mean_ms: f64,
    /// Its standard deviation, ms.
    pub latency_sd_ms: f64,
}

impl Default for OverloadParams {
    fn default() -> Self {
        OverloadParams {
            arrivals_per_sec: 100.0,
            capacity_per_sec: 150,
            duration_ms: 60_000.0,
            latency_mean_ms: 20.0,
            latency_sd_ms: 5.0,
        }
    }
}

/// What one run counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OverloadCounts {
    /// Logical calls started.
    pub calls: u64,
    /// Calls that ended in success.
    pub successes: u64,
    /// Attempts sent to the server, first attempts included.
    pub attempts: u64,
    /// First attempts sent.
    pub first_attempts: u64,
    /// Attempts the server shed for lack of capacity.
    pub shed: u64,
    /// Calls stoic stopped because a retry budget refused a retry.
    pub budget_exhausted: u64,
    /// Calls stoic stopped because the breaker was open.
    pub circuit_open: u64,
}

impl OverloadCounts {
    /// Attempts sent per first attempt: how much the policy multiplies the
    /// load its callers offer.
    #[must_use]
    pub fn amplification(&self) -> f64 {
        ratio(self.attempts, self.first_attempts)
    }

    /// The share of logical calls that succeeded.
    #[must_use]
    pub fn goodput(&self) -> f64 {
        ratio(self.successes, self.calls)
    }

    /// Sums two runs' counts.
    #[must_use]
    pub const fn plus(self, o: OverloadCounts) -> OverloadCounts {
        OverloadCounts {
            calls: self.calls + o.calls,
            successes: self.successes + o.successes,
            attempts: self.attempts + o.attempts,
            first_attempts: self.first_attempts + o.first_attempts,
            shed: self.shed + o.shed,
            budget_exhausted: self.budget_exhausted + o.budget_exhausted,
            circuit_open: self.circuit_open + o.circuit_open,
        }
    }
}

/// `a / b` as a float, 0 when `b` is 0.
#[allow(clippy::cast_precision_loss)] // counts far below 2^52
pub(crate) fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// What happens next in the model.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A new logical call arrives.
    Arrival,
    /// The call in this slot asks to send its next attempt.
    Send { slot: usize },
    /// The answer to that call's attempt arrives.
    Answer { slot: usize, ok: bool },
}

/// A reusable simulator: queue, call slots and generators are kept between
/// runs.
#[derive(Debug)]
pub struct OverloadSim {
    params: OverloadParams,
    queue: EventQueue<Step>,
    calls: Vec<Option<Call>>,
    free: Vec<usize>,
}

impl OverloadSim {
    /// A simulator for `params`.
    #[must_use]
    pub fn new(params: OverloadParams) -> Self {
        OverloadSim {
            params,
            queue: EventQueue::with_capacity(1024),
            calls: Vec::new(),
            free: Vec::new(),
        }
    }

    /// One run of `variant` with the server failing `failure_rate` (0..=1) of
    /// the attempts it accepts; a pure function of its arguments and `seed`.
    ///
    /// # Panics
    /// If the variant's config is invalid, which its unit test rules out.
    pub fn run(&mut self, variant: Variant, failure_rate: f64, seed: u64) -> OverloadCounts {
        let mut master = stoic_core::rng::SplitMix64::new(seed);
        #[allow(clippy::expect_used)] // every variant's config is tested valid
        let mut policy = Policy::new(variant.config(master.next_u64())).expect("valid config");
        let mut draw = Normal::new(master.next_u64());
        let p = self.params;
        let spec = CallSpec::new("update").in_scope("server").idempotent(true);

        self.queue.clear();
        self.calls.clear();
        self.free.clear();
        let mut counts = OverloadCounts::default();
        let (mut slot_index, mut slot_used) = (u64::MAX, 0_u32);
        let gap = |d: &mut Normal| -(1.0 - d.uniform()).ln() * 1000.0 / p.arrivals_per_sec;
        let first = gap(&mut draw);
        self.queue.push(first, Step::Arrival);

        while let Some((now, step)) = self.queue.pop() {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let instant = Instant::from_millis(now as u64);
            match step {
                Step::Arrival => {
                    counts.calls += 1;
                    let call = policy.start(instant, spec);
                    let slot = match self.free.pop() {
                        Some(slot) => {
                            if let Some(place) = self.calls.get_mut(slot) {
                                *place = Some(call);
                            }
                            slot
                        }
                        None => {
                            self.calls.push(Some(call));
                            self.calls.len() - 1
                        }
                    };
                    self.queue.push(now, Step::Send { slot });
                    let next = now + gap(&mut draw);
                    if next < p.duration_ms {
                        self.queue.push(next, Step::Arrival);
                    }
                }
                Step::Send { slot } => {
                    let Some(Some(call)) = self.calls.get_mut(slot) else {
                        continue;
                    };
                    match policy.before_attempt(instant, call) {
                        Admission::Proceed(plan) => {
                            counts.attempts += 1;
                            if plan.attempt == 1 {
                                counts.first_attempts += 1;
                            }
                            let second = instant.as_millis() / 1000;
                            if second != slot_index {
                                (slot_index, slot_used) = (second, 0);
                            }
                            slot_used += 1;
                            let ok = if slot_used > p.capacity_per_sec {
                                counts.shed += 1;
                                false
                            } else {
                                draw.uniform() >= failure_rate
                            };
                            let latency = draw.folded(p.latency_mean_ms, p.latency_sd_ms);
                            self.queue.push(now + latency, Step::Answer { slot, ok });
                        }
                        Admission::Reject(g) => {
                            counts.tally_stop(g.reason);
                            self.release(slot);
                        }
                    }
                }
                Step::Answer { slot, ok } => {
                    let Some(Some(call)) = self.calls.get_mut(slot) else {
                        continue;
                    };
                    let outcome = if ok {
                        Outcome::success()
                    } else {
                        Outcome::status(503)
                    };
                    match policy.on_outcome(instant, call, outcome) {
                        Decision::Done(_) => {
                            counts.successes += 1;
                            self.release(slot);
                        }
                        #[allow(clippy::cast_precision_loss)] // delays far below 2^52 ms
                        Decision::Retry(r) => {
                            self.queue
                                .push(now + r.delay_ms as f64, Step::Send { slot });
                        }
                        Decision::GiveUp(g) => {
                            counts.tally_stop(g.reason);
                            self.release(slot);
                        }
                    }
                }
            }
        }
        counts
    }

    /// Frees a finished call's slot for reuse.
    fn release(&mut self, slot: usize) {
        if let Some(place) = self.calls.get_mut(slot) {
            *place = None;
            self.free.push(slot);
        }
    }
}

impl OverloadCounts {
    /// Counts a give-up by the reason stoic gave.
    fn tally_stop(&mut self, reason: StopReason) {
        match reason {
            StopReason::BudgetExhausted => self.budget_exhausted += 1,
            StopReason::CircuitOpen => self.circuit_open += 1,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short() -> OverloadParams {
        OverloadParams {
            duration_ms: 5_000.0,
            ..OverloadParams::default()
        }
    }

    #[test]
    fn a_healthy_server_serves_every_call_once() {
        let mut sim = OverloadSim::new(short());
        for v in Variant::ALL {
            let c = sim.run(v, 0.0, 1);
            assert!(c.calls > 300, "{c:?}");
            assert_eq!(c.successes, c.calls, "{}: {c:?}", v.code());
            assert_eq!(c.attempts, c.first_attempts, "{}: {c:?}", v.code());
        }
    }

    #[test]
    fn plain_retries_make_every_attempt_at_total_failure() {
        let mut sim = OverloadSim::new(short());
        let c = sim.run(Variant::Retries, 1.0, 2);
        assert_eq!(c.successes, 0);
        assert_eq!(
            c.attempts,
            c.first_attempts * u64::from(crate::overload_variant::RETRY_ATTEMPTS)
        );
    }

    #[test]
    fn runs_are_reproducible() {
        let mut sim = OverloadSim::new(short());
        let a = sim.run(Variant::TokenBucket, 0.4, 9);
        assert_eq!(a, sim.run(Variant::TokenBucket, 0.4, 9));
        assert_ne!(a, sim.run(Variant::TokenBucket, 0.4, 10));
    }
}
