//! A sans-IO circuit breaker for one scope (a policy keeps one per scope).
//!
//! A breaker stops sending calls to a dependency that keeps failing, so that
//! retries do not pile load onto it, then lets a few probes through to find
//! out when it has recovered. It decides only: the host asks
//! [`Breaker::try_acquire`] before each attempt, reports the outcome with the
//! [`Permit`] it got, and drains state changes with [`Breaker::poll_transition`].
//!
//! ```text
//!            trip rule holds                 now >= until (first admission)
//!   Closed ------------------> Open{until} ---------------------------------> HalfOpen
//!     ^                           ^                                              |
//!     |                           +---- any probe failure (or slow probe) -------+
//!     +-------------- success_threshold probe successes -------------------------+
//! ```
//!
//! Semantics, and where well-known libraries differ (each choice is pinned by
//! `tests/vectors/breaker_scenarios.json`, which restates their tests):
//!
//! - **Trip comparison** is explicit ([`Compare`]): `>=` by default, as in
//!   pybreaker, resilience4j, Polly and cockatiel's consecutive breaker; `>`
//!   for gobreaker's default (`ConsecutiveFailures > 5`) and cockatiel's count
//!   breaker.
//! - **A failure-rate rule** trips only when its window holds at least
//!   `minimum_throughput` calls. It is evaluated whenever an outcome is
//!   recorded, so a success can trip it (resilience4j); Polly and cockatiel
//!   evaluate on failures only. Rates are `f64` quotients of the counts.
//! - **Open -> half-open** happens on the first admission at or after the
//!   cooldown (`now >= until`, like resilience4j and Polly). gobreaker compares
//!   strictly (`expiry.Before(now)`) and transitions when the state is read;
//!   here reading the state never changes it, so an open breaker past its
//!   cooldown still reports `open` until a call asks to be admitted. That call
//!   becomes the first probe.
//! - **Half-open admission** is a counting semaphore of `max_probes` slots:
//!   a finished or released probe frees its slot. gobreaker and resilience4j
//!   admit `MaxRequests` / `permittedNumberOfCalls` *in total* per half-open
//!   period; cockatiel makes extra callers wait for the trial; here they are
//!   rejected with `retry_at: None` ("when a probe finishes").
//! - **Half-open verdict**: `success_threshold` probe successes close the
//!   breaker; any probe failure reopens it for a fresh cooldown (gobreaker,
//!   pybreaker, Polly, cockatiel). resilience4j instead evaluates the rate
//!   over all permitted calls. When the trip rule has a slow-call rule, a slow
//!   probe success reopens the breaker too: a probe is a health check, and a
//!   slow answer is the symptom the rule exists to catch.
//! - **Counters reset on every transition** (the window included), like
//!   gobreaker; pybreaker keeps counting failures through a failed trial.
//! - **Generations**: every transition starts a new generation. A permit from
//!   an older generation is ignored when it comes back, so a call admitted
//!   before a trip cannot count against the state after it (gobreaker).
//! - **Time** is the host's monotonic `now` in ms, clamped so it never runs
//!   backwards; the cooldown end saturates instead of overflowing.
//!
//! A `Breaker` serializes (config, state, generation, window, clock, queued
//! transitions) so a host can persist it and restore it exactly; restoring
//! validates the config again and repairs the window's bounds.

mod config;
mod fleet;
mod snapshot;
mod state;
mod window;

use std::collections::VecDeque;

pub use config::{
    BreakerConfig, Compare, HalfOpenConfig, SlowCall, TripRule, Window, MAX_COUNT_WINDOW, MAX_MS,
    MAX_TIME_BUCKETS,
};
pub use state::{
    BreakerState, BreakerStateCode, Permit, RejectReason, Rejected, Transition, TransitionReason,
};
pub use window::WindowCounts;

use crate::serials::Serials;
use crate::time::{Instant, MonotonicClamp};
use window::{CallWindow, Mark};

/// How many undrained transitions a breaker keeps; older ones are dropped
/// (and counted) so a host that never polls cannot grow its memory.
pub const MAX_QUEUED_TRANSITIONS: usize = 16;

/// One scope's circuit breaker. See the [module docs](self) for the semantics.
#[derive(Clone, Debug, PartialEq)]
pub struct Breaker {
    config: BreakerConfig,
    state: BreakerState,
    generation: u64,
    window: Option<CallWindow>,
    clock: MonotonicClamp,
    transitions: VecDeque<Transition>,
    transitions_dropped: u64,
    /// Permits of this generation issued and not yet handed back: a permit
    /// counts once, when its serial number leaves this list.
    permits: Serials,
    /// With a fleet attached (`crate::fleet`), whether this process holds
    /// the fleet's half-open probe lease: an open breaker whose cooldown
    /// has elapsed probes only with it. `None`: no fleet, probe as usual.
    probe_lease: Option<bool>,
    /// A call was refused for want of that lease since the breaker opened:
    /// only then does this process ask its fleet for the lease, so that a
    /// process with no calls to make never holds the fleet's probe.
    probe_wanted: bool,
}

/// What the host reports back with a permit.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    Success { duration_ms: u64 },
    Failure,
}

/// The machine's inputs.
#[derive(Clone, Copy, Debug)]
enum Input {
    Acquire,
    Record { permit: Permit, outcome: Outcome },
    Release { permit: Permit },
}

/// The machine's answer to one input.
#[derive(Clone, Copy, Debug)]
enum Effect {
    Admitted(Permit),
    Refused(Rejected),
    Counted,
    Ignored,
}

impl Breaker {
    /// A closed breaker. Validate the config first
    /// ([`BreakerConfig::validate`]); construction itself cannot fail, and an
    /// unvalidated config still never makes the breaker panic.
    #[must_use]
    pub fn new(config: BreakerConfig) -> Self {
        let window = config.trip.window().map(CallWindow::new);
        Breaker {
            config,
            state: BreakerState::Closed {
                consecutive_failures: 0,
            },
            generation: 0,
            window,
            clock: MonotonicClamp::new(),
            transitions: VecDeque::new(),
            transitions_dropped: 0,
            permits: Serials::default(),
            probe_lease: None,
            probe_wanted: false,
        }
    }

    /// Asks to make one call at `now`. Closed: admitted. Open: rejected with
    /// `retry_at = until`, unless the cooldown has elapsed (`now >= until`),
    /// in which case the breaker turns half-open and this call is its first
    /// probe. Half-open: admitted as a probe while a slot is free.
    ///
    /// # Errors
    /// [`Rejected`] when the call must not be made; it is a decision, not a fault.
    pub fn try_acquire(&mut self, now: Instant) -> Result<Permit, Rejected> {
        match self.step(now, Input::Acquire) {
            Effect::Admitted(permit) => Ok(permit),
            Effect::Refused(rejected) => Err(rejected),
            // Acquire always admits or refuses; refuse if that ever changes.
            Effect::Counted | Effect::Ignored => Err(Rejected {
                reason: RejectReason::CircuitOpen,
                retry_at: None,
            }),
        }
    }

    /// Reports that the call holding `permit` succeeded after `duration_ms`
    /// (which only matters to a slow-call rule). Returns whether it counted:
    /// `false` for a permit from an older generation.
    pub fn on_success(&mut self, now: Instant, permit: Permit, duration_ms: u64) -> bool {
        let outcome = Outcome::Success { duration_ms };
        matches!(
            self.step(now, Input::Record { permit, outcome }),
            Effect::Counted
        )
    }

    /// Reports that the call holding `permit` failed. `duration_ms` is accepted
    /// for symmetry and future rules; failures are never counted as slow.
    /// Returns whether it counted.
    pub fn on_failure(&mut self, now: Instant, permit: Permit, duration_ms: u64) -> bool {
        let _ = duration_ms;
        let outcome = Outcome::Failure;
        matches!(
            self.step(now, Input::Record { permit, outcome }),
            Effect::Counted
        )
    }

    /// Hands back a permit whose call was cancelled or whose outcome must not
    /// count (say, a client-side error): a probe frees its slot, nothing is
    /// recorded. Returns whether it freed a probe slot.
    pub fn release(&mut self, permit: Permit) -> bool {
        let now = self.clock.latest();
        matches!(self.step(now, Input::Release { permit }), Effect::Counted)
    }

    /// The current state and its data.
    #[must_use]
    pub const fn state(&self) -> &BreakerState {
        &self.state
    }

    /// What a state gauge shows at `now`. An open breaker past its cooldown
    /// still reports `open`: it turns half-open only when a call is admitted
    /// as a probe, so a gauge never shows `half_open` with no probe running.
    /// (`now` does not change the answer; it is taken so gauges read like
    /// every other query.)
    #[must_use]
    pub fn state_at(&self, now: Instant) -> BreakerStateCode {
        let _ = now;
        self.state.code()
    }

    /// The oldest undrained state change, if any.
    pub fn poll_transition(&mut self) -> Option<Transition> {
        self.transitions.pop_front()
    }

    /// Transitions dropped because more than [`MAX_QUEUED_TRANSITIONS`] were
    /// waiting to be polled.
    #[must_use]
    pub const fn transitions_dropped(&self) -> u64 {
        self.transitions_dropped
    }

    /// When the breaker's answer can next change without any report: `until`
    /// while open, `None` otherwise. Trip rules are evaluated only when an
    /// outcome is recorded, so a time bucket leaving the window never needs a
    /// wake-up, and half-open waits on its probes, not on the clock.
    #[must_use]
    pub const fn next_timeout(&self) -> Option<Instant> {
        match self.state {
            BreakerState::Open { until, .. } => Some(until),
            BreakerState::Closed { .. } | BreakerState::HalfOpen { .. } => None,
        }
    }

    /// The config the breaker runs.
    #[must_use]
    pub const fn config(&self) -> &BreakerConfig {
        &self.config
    }

    /// The current generation (it increases, wrapping, at every transition).
    #[must_use]
    pub const fn generation(&self) -> u64 {
        self.generation
    }

    /// The failure-rate window's counts at `now` (clamped), or `None` for a
    /// consecutive-failures rule. Empty outside the closed state.
    #[must_use]
    pub fn window_counts(&self, now: Instant) -> Option<WindowCounts> {
        let now = now.max(self.clock.latest());
        match (&self.window, self.config.trip.window()) {
            (Some(w), Some(cfg)) => Some(w.counts(cfg, now)),
            _ => None,
        }
    }

    /// Slots the failure-rate window holds in memory (marks of a count window,
    /// buckets of a time window); never more than `size` or `buckets`.
    #[must_use]
    pub fn window_len(&self) -> usize {
        self.window.as_ref().map_or(0, CallWindow::slots)
    }

    /// Adds the time-window counts of `other`, a snapshot of the same scope
    /// taken elsewhere, by absolute bucket index (see [`Window`]). The clock
    /// advances to the later of the two. Returns `false`, changing nothing,
    /// unless both use the same time window. The merged counts are judged
    /// at the next recorded outcome. Merge disjoint snapshots only: a shared
    /// history would be counted twice.
    pub fn merge_window(&mut self, other: &Breaker) -> bool {
        let Some(cfg @ Window::Time { .. }) = self.config.trip.window() else {
            return false;
        };
        if other.config.trip.window() != Some(cfg) {
            return false;
        }
        let now = self.clock.observe(other.clock.latest());
        match (&mut self.window, &other.window) {
            (Some(mine), Some(theirs)) => mine.merge(theirs, cfg, now),
            _ => false,
        }
    }

    /// The heart: one exhaustive `match (state, input)`.
    fn step(&mut self, now: Instant, input: Input) -> Effect {
        let now = self.clock.observe(now);
        if let Input::Record { permit, .. } | Input::Release { permit } = input {
            if !self.hand_back(permit) {
                return Effect::Ignored;
            }
        }
        self.decide(now, input)
    }

    /// Takes `permit` back: `false` when it is not open (from an older
    /// generation, handed back already, or never issued).
    fn hand_back(&mut self, permit: Permit) -> bool {
        permit.generation == self.generation && self.permits.take(permit.id)
    }

    /// A permit of the current generation with the next serial number.
    fn issue(&mut self, probe: bool) -> Permit {
        Permit {
            generation: self.generation,
            id: self.permits.issue(),
            probe,
        }
    }

    /// The transition table, for an input whose permit (if any) is current.
    fn decide(&mut self, now: Instant, input: Input) -> Effect {
        let half_open = self.config.half_open;
        match (self.state, input) {
            (BreakerState::Closed { .. }, Input::Acquire) => Effect::Admitted(self.issue(false)),
            (BreakerState::Open { until, .. }, Input::Acquire) => {
                if now >= until && self.probe_lease == Some(false) {
                    // Another process of the fleet holds this cooldown's
                    // probe (or none does yet): wait for its verdict, and
                    // ask for the lease at the next exchange.
                    self.probe_wanted = true;
                    Effect::Refused(Rejected {
                        reason: RejectReason::CircuitOpen,
                        retry_at: None,
                    })
                } else if now >= until {
                    let probe = BreakerState::HalfOpen {
                        probes_in_flight: 1,
                        successes: 0,
                    };
                    self.enter(now, probe, TransitionReason::CooldownElapsed);
                    Effect::Admitted(self.issue(true))
                } else {
                    let reason = RejectReason::CircuitOpen;
                    Effect::Refused(Rejected {
                        reason,
                        retry_at: Some(until),
                    })
                }
            }
            (
                BreakerState::HalfOpen {
                    probes_in_flight,
                    successes,
                },
                Input::Acquire,
            ) => {
                if probes_in_flight < half_open.max_probes {
                    let probes_in_flight = probes_in_flight.saturating_add(1);
                    self.state = BreakerState::HalfOpen {
                        probes_in_flight,
                        successes,
                    };
                    Effect::Admitted(self.issue(true))
                } else {
                    let reason = RejectReason::HalfOpenFull;
                    Effect::Refused(Rejected {
                        reason,
                        retry_at: None,
                    })
                }
            }
            (
                BreakerState::Closed {
                    consecutive_failures,
                },
                Input::Record { outcome, .. },
            ) => {
                self.record_closed(now, consecutive_failures, outcome);
                Effect::Counted
            }
            // No permit of an open generation exists; a forged one changes nothing.
            (BreakerState::Open { .. }, Input::Record { .. } | Input::Release { .. }) => {
                Effect::Ignored
            }
            (BreakerState::HalfOpen { .. }, Input::Record { permit, .. }) if !permit.probe => {
                Effect::Ignored
            }
            (
                BreakerState::HalfOpen {
                    probes_in_flight,
                    successes,
                },
                Input::Record { outcome, .. },
            ) => {
                match self.mark(outcome) {
                    Mark::Failure => self.trip(now, TransitionReason::ProbeFailed),
                    Mark::Slow => self.trip(now, TransitionReason::ProbeSlow),
                    Mark::Success => {
                        let successes = successes.saturating_add(1);
                        if successes >= half_open.success_threshold {
                            let closed = BreakerState::Closed {
                                consecutive_failures: 0,
                            };
                            self.enter(now, closed, TransitionReason::ProbesSucceeded);
                        } else {
                            let probes_in_flight = probes_in_flight.saturating_sub(1);
                            self.state = BreakerState::HalfOpen {
                                probes_in_flight,
                                successes,
                            };
                        }
                    }
                }
                Effect::Counted
            }
            // A closed-state permit holds nothing: releasing it records nothing.
            (BreakerState::Closed { .. }, Input::Release { .. }) => Effect::Ignored,
            (
                BreakerState::HalfOpen {
                    probes_in_flight,
                    successes,
                },
                Input::Release { permit },
            ) => {
                if permit.probe {
                    let probes_in_flight = probes_in_flight.saturating_sub(1);
                    self.state = BreakerState::HalfOpen {
                        probes_in_flight,
                        successes,
                    };
                    Effect::Counted
                } else {
                    Effect::Ignored
                }
            }
        }
    }

    /// Classifies an outcome for the windows and the probes.
    fn mark(&self, outcome: Outcome) -> Mark {
        match outcome {
            Outcome::Failure => Mark::Failure,
            Outcome::Success { duration_ms } => match self.config.trip.slow_call() {
                Some(slow) if duration_ms >= slow.duration_ms => Mark::Slow,
                Some(_) | None => Mark::Success,
            },
        }
    }

    /// Counts an outcome in the closed state and trips if the rule says so.
    fn record_closed(&mut self, now: Instant, consecutive_failures: u32, outcome: Outcome) {
        let mark = self.mark(outcome);
        let consecutive_failures = match mark {
            Mark::Failure => consecutive_failures.saturating_add(1),
            Mark::Success | Mark::Slow => 0,
        };
        self.state = BreakerState::Closed {
            consecutive_failures,
        };
        let reason = match &self.config.trip {
            TripRule::ConsecutiveFailures { threshold, compare } => (mark == Mark::Failure
                && compare.holds(consecutive_failures, *threshold))
            .then_some(TransitionReason::ConsecutiveFailures),
            #[cfg(feature = "rate_breaker")]
            TripRule::FailureRate {
                window,
                failure_rate,
                minimum_throughput,
                compare,
                slow_call,
            } => {
                let w = self.window.get_or_insert_with(|| CallWindow::new(window));
                w.record(window, now, mark);
                let counts = w.counts(window, now);
                let rate_holds = |rate: Option<f64>, threshold: f64| {
                    rate.is_some_and(|r| compare.holds(r, threshold))
                };
                if counts.calls == 0 || counts.calls < u64::from(*minimum_throughput) {
                    None
                } else if rate_holds(counts.failure_rate(), *failure_rate) {
                    Some(TransitionReason::FailureRate)
                } else if slow_call.is_some_and(|s| rate_holds(counts.slow_rate(), s.rate)) {
                    Some(TransitionReason::SlowCallRate)
                } else {
                    None
                }
            }
            // Refused at validation in a build without the rule.
            #[cfg(not(feature = "rate_breaker"))]
            TripRule::FailureRate { .. } => None,
        };
        if let Some(reason) = reason {
            self.trip(now, reason);
        }
    }

    /// Opens the breaker for a fresh cooldown.
    fn trip(&mut self, now: Instant, reason: TransitionReason) {
        let until = now.saturating_add(self.config.cooldown_ms);
        self.enter(now, BreakerState::Open { since: now, until }, reason);
    }

    /// Moves to `next`: a new generation, an empty window, a queued transition.
    fn enter(&mut self, now: Instant, next: BreakerState, reason: TransitionReason) {
        let from = self.state.code();
        self.state = next;
        self.probe_wanted = false;
        self.generation = self.generation.wrapping_add(1);
        self.permits.clear();
        if let Some(w) = &mut self.window {
            w.clear();
        }
        if self.transitions.len() >= MAX_QUEUED_TRANSITIONS {
            self.transitions.pop_front();
            self.transitions_dropped = self.transitions_dropped.saturating_add(1);
        }
        self.transitions.push_back(Transition {
            from,
            to: next.code(),
            at: now,
            reason,
        });
    }
}

#[cfg(test)]
mod tests;
