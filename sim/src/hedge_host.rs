//! The host side of a hedged call, for the hedging models: it asks stoic's
//! [`Policy`] what to do and reports back what the model's servers did.
//!
//! The models only decide how long a copy takes; every send, every hedge
//! timer and every cancel comes from the policy (`start_hedged`,
//! `hedge_poll`, `hedge_outcome`). "No hedging" is a plain stoic call with
//! one attempt, since a hedging config needs at least one hedge: it is what
//! the same host sends without hedging.

use stoic_core::hedging::{Copies, HedgeStep, HedgedCall, HedgingConfig};
use stoic_core::{Admission, Call, CallSpec, Decision, Instant, Outcome, Policy, StopReason};

/// One logical call in flight: plain (no hedging) or hedged.
#[derive(Debug)]
pub enum Flight {
    /// A plain call of one attempt.
    Plain(Call),
    /// A hedged call.
    Hedged(HedgedCall),
}

/// Where a call stands after the host has sent every copy the policy asked
/// for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settled {
    /// Waiting for an answer, or until `until` (the next hedge's time).
    Wait {
        /// When to ask the policy again if no answer comes first.
        until: Option<Instant>,
    },
    /// Copy `winner` answered; the copies in `cancel` are no longer wanted.
    Done {
        /// The copy whose answer the call returns.
        winner: u32,
        /// The copies still in flight.
        cancel: Copies,
    },
    /// The call ended without an answer (the models never fail a copy, so
    /// this only shows a model or policy error; the models count it).
    GaveUp {
        /// Why stoic stopped.
        reason: StopReason,
    },
}

/// A policy and the hedging settings its calls use (`None`: no hedging).
#[derive(Debug)]
pub struct Host {
    /// The stoic policy deciding every copy.
    pub policy: Policy,
    /// How calls hedge; `None` sends each call once.
    pub hedging: Option<HedgingConfig>,
}

impl Host {
    /// Starts a call at `now`; the copies to send now are appended to
    /// `sends` (copy numbers, 1 for the first).
    ///
    /// # Panics
    /// If the policy refuses the spec as not hedgeable; the models' specs
    /// are idempotent.
    pub fn start(
        &mut self,
        now: Instant,
        spec: CallSpec<'_>,
        sends: &mut Vec<u32>,
    ) -> (Flight, Settled) {
        match self.hedging {
            None => {
                let mut call = self.policy.start(now, spec);
                let settled = match self.policy.before_attempt(now, &mut call) {
                    Admission::Proceed(plan) => {
                        sends.push(plan.attempt);
                        Settled::Wait { until: None }
                    }
                    Admission::Reject(g) => Settled::GaveUp { reason: g.reason },
                };
                (Flight::Plain(call), settled)
            }
            Some(config) => {
                #[allow(clippy::expect_used)] // the models' specs are idempotent
                let mut call = self
                    .policy
                    .start_hedged(now, spec, &config)
                    .expect("an idempotent spec and a valid hedging config");
                let step = self.policy.hedge_poll(now, &mut call);
                let settled = self.follow(now, &mut call, step, sends);
                (Flight::Hedged(call), settled)
            }
        }
    }

    /// Copy `copy` of `flight` answered successfully at `now`.
    pub fn answer(
        &mut self,
        now: Instant,
        flight: &mut Flight,
        copy: u32,
        sends: &mut Vec<u32>,
    ) -> Settled {
        match flight {
            Flight::Plain(call) => match self.policy.on_outcome(now, call, Outcome::success()) {
                Decision::Done(_) => Settled::Done {
                    winner: copy,
                    cancel: Copies::EMPTY,
                },
                // One attempt and a success: neither can happen; report
                // them as a give-up the model counts.
                Decision::Retry(_) => Settled::GaveUp {
                    reason: StopReason::AttemptsExhausted,
                },
                Decision::GiveUp(g) => Settled::GaveUp { reason: g.reason },
            },
            Flight::Hedged(call) => {
                let step = self
                    .policy
                    .hedge_outcome(now, call, copy, Outcome::success());
                self.follow(now, call, step, sends)
            }
        }
    }

    /// The time a `Wait` named has come: ask the policy again.
    pub fn wake(&mut self, now: Instant, flight: &mut Flight, sends: &mut Vec<u32>) -> Settled {
        match flight {
            Flight::Plain(_) => Settled::Wait { until: None },
            Flight::Hedged(call) => {
                let step = self.policy.hedge_poll(now, call);
                self.follow(now, call, step, sends)
            }
        }
    }

    /// Follows `step`: records each copy to send and asks again, as the
    /// core's host loop does, until the call waits or ends.
    fn follow(
        &mut self,
        now: Instant,
        call: &mut HedgedCall,
        mut step: HedgeStep,
        sends: &mut Vec<u32>,
    ) -> Settled {
        loop {
            step = match step {
                HedgeStep::Send(plan) => {
                    sends.push(plan.attempt);
                    self.policy.hedge_poll(now, call)
                }
                HedgeStep::Wait { until } => return Settled::Wait { until },
                HedgeStep::Done { winner, cancel, .. } => return Settled::Done { winner, cancel },
                HedgeStep::GiveUp { give_up, .. } => {
                    return Settled::GaveUp {
                        reason: give_up.reason,
                    }
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stoic_core::hedging::HedgeDelay;
    use stoic_core::Config;

    fn host(hedging: Option<HedgingConfig>) -> Host {
        Host {
            policy: Policy::new(Config::with_seed(1)).unwrap(),
            hedging,
        }
    }

    fn spec() -> CallSpec<'static> {
        CallSpec::new("read").in_scope("leaf").idempotent(true)
    }

    #[test]
    fn a_hedge_goes_out_at_the_fixed_delay_and_the_loser_is_cancelled() {
        let fixed = HedgingConfig {
            max_hedges: 1,
            delay: HedgeDelay::Fixed { after_ms: 10 },
        };
        let mut h = host(Some(fixed));
        let mut sends = Vec::new();
        let (mut flight, s) = h.start(Instant::from_millis(0), spec(), &mut sends);
        assert_eq!(sends, [1]);
        assert_eq!(
            s,
            Settled::Wait {
                until: Some(Instant::from_millis(10))
            }
        );
        sends.clear();
        let s = h.wake(Instant::from_millis(10), &mut flight, &mut sends);
        assert_eq!(sends, [2]);
        assert_eq!(s, Settled::Wait { until: None });
        let s = h.answer(Instant::from_millis(14), &mut flight, 2, &mut sends);
        assert_eq!(
            s,
            Settled::Done {
                winner: 2,
                cancel: Copies::from_bits(0b1)
            }
        );
    }

    #[test]
    fn without_hedging_one_copy_goes_out() {
        let mut h = host(None);
        let mut sends = Vec::new();
        let (mut flight, s) = h.start(Instant::from_millis(0), spec(), &mut sends);
        assert_eq!(
            (sends.as_slice(), s),
            (&[1][..], Settled::Wait { until: None })
        );
        let s = h.wake(Instant::from_millis(500), &mut flight, &mut sends);
        assert_eq!(sends.len(), 1);
        assert_eq!(s, Settled::Wait { until: None });
        let s = h.answer(Instant::from_millis(900), &mut flight, 1, &mut sends);
        assert!(matches!(s, Settled::Done { winner: 1, .. }));
    }
}
