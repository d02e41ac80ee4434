//! The saturation model: hedging into a correlated slowdown, where every
//! copy waits in the same queue.
//!
//! - One server: a FIFO queue, unbounded, in front of `workers` (8)
//!   workers; each copy takes `|Normal(10 ms, 3 ms)|` of a worker's time,
//!   so the server completes about 800 copies per second.
//! - Callers start calls as a Poisson process at a chosen share of that
//!   capacity ("offered load", 0.5 to 1.0) for a simulated minute; the run
//!   then drains.
//! - Each call is a stoic hedged call (or a plain one) of one shared policy
//!   and scope. The server serves every copy it received: a cancel stops
//!   the caller waiting but does not reach a copy already queued, as with
//!   most servers that have read a request (the limit of the model: a
//!   server that drops cancelled queued work wastes less).
//!
//! A hedge cannot beat the queue it joins behind its own first copy, so
//! here hedging only adds load; the question is how much, and what that
//! does to everyone's latency.

use std::collections::VecDeque;

use stoic_core::{CallSpec, Instant};

use crate::fanout::instant;
use crate::hedge_host::{Flight, Host, Settled};
use crate::hedge_variant::SaturationVariant;
use crate::normal::Normal;
use crate::percentile::Percentiles;
use crate::queue::EventQueue;
use crate::slab::{Key, Slab};

/// The model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SaturationParams {
    /// Parallel workers behind the queue.
    pub workers: u32,
    /// Mean service time of a copy, ms.
    pub service_mean_ms: f64,
    /// Its standard deviation, ms.
    pub service_sd_ms: f64,
    /// How long calls arrive, ms.
    pub duration_ms: f64,
}

impl Default for SaturationParams {
    fn default() -> Self {
        SaturationParams {
            workers: 8,
            service_mean_ms: 10.0,
            service_sd_ms: 3.0,
            duration_ms: 60_000.0,
        }
    }
}

impl SaturationParams {
    /// Copies the server completes per second when always busy.
    #[must_use]
    pub fn capacity_per_sec(&self) -> f64 {
        f64::from(self.workers) * 1000.0 / self.service_mean_ms
    }
}

/// What one run measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SaturationRun {
    /// Each call's latency (to its winning answer), ms.
    pub call_ms: Vec<f64>,
    /// Calls started.
    pub calls: u64,
    /// Copies sent, first copies included.
    pub copies: u64,
    /// Copies still in flight when their call ended (served all the same).
    pub cancelled: u64,
    /// Calls stoic gave up on (never expected: no copy fails).
    pub gave_up: u64,
}

impl SaturationRun {
    /// Copies sent per call: the load hedging multiplies the offered load by.
    #[must_use]
    pub fn load(&self) -> f64 {
        crate::overload::ratio(self.copies, self.calls)
    }

    /// The latency percentiles (sorts `call_ms`).
    pub fn percentiles(&mut self) -> Percentiles {
        Percentiles::of(&mut self.call_ms)
    }
}

/// What happens next in the model.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A new call arrives.
    Arrival,
    /// A worker finishes copy `copy` of call `call`.
    Finish { call: Key, copy: u32 },
    /// The time call `call`'s policy asked to be woken at.
    Wake { call: Key, at: u64 },
}

/// A call in flight.
#[derive(Debug)]
struct Live {
    flight: Flight,
    start: f64,
    wake_at: Option<u64>,
}

/// A reusable simulator.
#[derive(Debug)]
pub struct SaturationSim {
    params: SaturationParams,
    events: EventQueue<Step>,
    calls: Slab<Live>,
    waiting: VecDeque<(Key, u32)>,
    busy: u32,
    sends: Vec<u32>,
}

impl SaturationSim {
    /// A simulator for `params`.
    #[must_use]
    pub fn new(params: SaturationParams) -> Self {
        SaturationSim {
            params,
            events: EventQueue::with_capacity(4096),
            calls: Slab::default(),
            waiting: VecDeque::new(),
            busy: 0,
            sends: Vec::with_capacity(2),
        }
    }

    /// One run of `variant` with calls offered at `load` times the server's
    /// capacity; a pure function of its arguments and `seed`.
    ///
    /// # Panics
    /// If the variant's config is invalid, which its unit test rules out.
    pub fn run(&mut self, variant: SaturationVariant, load: f64, seed: u64) -> SaturationRun {
        let mut master = stoic_core::rng::SplitMix64::new(seed);
        #[allow(clippy::expect_used)] // every variant's config is tested valid
        let policy =
            stoic_core::Policy::new(variant.config(master.next_u64())).expect("valid config");
        let mut host = Host {
            policy,
            hedging: variant.hedging(),
        };
        let mut arrivals = Normal::new(master.next_u64());
        let mut service = Normal::new(master.next_u64());
        let p = self.params;
        let rate = load * p.capacity_per_sec();
        self.events.clear();
        self.calls.clear();
        self.waiting.clear();
        self.busy = 0;
        let mut out = SaturationRun::default();
        self.events.push(0.0, Step::Arrival);

        while let Some((now, step)) = self.events.pop() {
            let at = instant(now);
            match step {
                Step::Arrival => {
                    out.calls += 1;
                    self.sends.clear();
                    let spec = CallSpec::new("read").in_scope("server").idempotent(true);
                    let (flight, settled) = host.start(at, spec, &mut self.sends);
                    let call = self.calls.insert(Live {
                        flight,
                        start: now,
                        wake_at: None,
                    });
                    self.settle(now, call, settled, &mut service, &mut out);
                    let next = now - (1.0 - arrivals.uniform()).ln() * 1000.0 / rate;
                    if next < p.duration_ms {
                        self.events.push(next, Step::Arrival);
                    }
                }
                Step::Finish { call, copy } => {
                    // The worker takes the next copy whether or not anyone
                    // still waits for this one.
                    match self.waiting.pop_front() {
                        Some((next, next_copy)) => {
                            let ms = service.folded(p.service_mean_ms, p.service_sd_ms);
                            self.events.push(
                                now + ms,
                                Step::Finish {
                                    call: next,
                                    copy: next_copy,
                                },
                            );
                        }
                        None => self.busy -= 1,
                    }
                    let Some(live) = self.calls.get_mut(call) else {
                        continue; // a cancelled copy, served for nothing
                    };
                    self.sends.clear();
                    let settled = host.answer(at, &mut live.flight, copy, &mut self.sends);
                    self.settle(now, call, settled, &mut service, &mut out);
                }
                Step::Wake { call, at: wake } => {
                    let Some(live) = self.calls.get_mut(call) else {
                        continue;
                    };
                    if live.wake_at != Some(wake) {
                        continue;
                    }
                    live.wake_at = None;
                    self.sends.clear();
                    let settled = host.wake(at, &mut live.flight, &mut self.sends);
                    self.settle(now, call, settled, &mut service, &mut out);
                }
            }
        }
        out
    }

    /// Carries out what the policy decided for `call` at `now`: enqueues the
    /// copies in `self.sends`, schedules its wake-up, or ends it.
    fn settle(
        &mut self,
        now: f64,
        call: Key,
        settled: Settled,
        service: &mut Normal,
        out: &mut SaturationRun,
    ) {
        let p = self.params;
        for &copy in &self.sends {
            out.copies += 1;
            if self.busy < p.workers {
                self.busy += 1;
                let ms = service.folded(p.service_mean_ms, p.service_sd_ms);
                self.events.push(now + ms, Step::Finish { call, copy });
            } else {
                self.waiting.push_back((call, copy));
            }
        }
        match settled {
            Settled::Wait { until } => {
                let Some(live) = self.calls.get_mut(call) else {
                    return;
                };
                if let Some(at) = until.map(Instant::as_millis) {
                    if live.wake_at != Some(at) {
                        live.wake_at = Some(at);
                        #[allow(clippy::cast_precision_loss)] // ms far below 2^52
                        let when = (at as f64).max(now);
                        self.events.push(when, Step::Wake { call, at });
                    }
                }
            }
            Settled::Done { cancel, .. } => {
                out.cancelled += u64::from(cancel.len());
                if let Some(live) = self.calls.remove(call) {
                    out.call_ms.push(now - live.start);
                }
            }
            Settled::GaveUp { .. } => {
                out.gave_up += 1;
                self.calls.remove(call);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short() -> SaturationParams {
        SaturationParams {
            duration_ms: 5_000.0,
            ..SaturationParams::default()
        }
    }

    #[test]
    fn a_lightly_loaded_server_answers_in_about_the_service_time() {
        let mut run = SaturationSim::new(short()).run(SaturationVariant::None, 0.3, 1);
        assert_eq!(run.copies, run.calls);
        assert_eq!(run.call_ms.len() as u64, run.calls);
        let p = run.percentiles();
        assert!((8.0..12.0).contains(&p.p50), "{p:?}");
    }

    #[test]
    fn every_copy_sent_is_served_and_every_call_ends() {
        for v in SaturationVariant::ALL {
            let run = SaturationSim::new(short()).run(v, 0.9, 2);
            assert_eq!(
                run.call_ms.len() as u64 + run.gave_up,
                run.calls,
                "{}",
                v.code()
            );
            assert_eq!(run.gave_up, 0, "{}", v.code());
            assert!(run.copies >= run.calls);
        }
    }

    #[test]
    fn runs_are_reproducible() {
        let mut sim = SaturationSim::new(short());
        let a = sim.run(SaturationVariant::Budgeted, 0.95, 9);
        assert_eq!(a, sim.run(SaturationVariant::Budgeted, 0.95, 9));
        assert_ne!(a, sim.run(SaturationVariant::Budgeted, 0.95, 10));
    }
}
