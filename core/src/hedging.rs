//! Hedged calls: a second copy of a slow call, sent before the first
//! answers, the first answer winning ("The Tail at Scale"; gRPC A6's
//! hedging policy).
//!
//! Sans-IO like the rest: the host sends, cancels and sleeps; the policy
//! says when and which. A host loop:
//!
//! ```
//! use stoic_core::hedging::{HedgeStep, HedgingConfig};
//! use stoic_core::{CallSpec, Config, Instant, Method, Outcome, Policy};
//!
//! let mut policy = Policy::new(Config::with_seed(7)).unwrap();
//! let hedging = HedgingConfig::from_json(r#"{"delay": {"kind": "fixed", "after_ms": 50}}"#).unwrap();
//! let spec = CallSpec::http("get_user", Method::Get);
//! let mut call = policy.start_hedged(Instant::from_millis(0), spec, &hedging).unwrap();
//!
//! // Virtual time: copy 1 hangs, copy 2 answers 10 ms after it is sent.
//! let mut now = Instant::from_millis(0);
//! let mut step = policy.hedge_poll(now, &mut call);
//! let answer = loop {
//!     step = match step {
//!         // Send copy `plan.attempt` (its key: plan.idempotency_key), then ask again.
//!         HedgeStep::Send(plan) => policy.hedge_poll(now, &mut call),
//!         // Sleep until `until` or the next outcome, whichever comes first.
//!         HedgeStep::Wait { until } => {
//!             let answer_at = Instant::from_millis(60);
//!             match until {
//!                 Some(at) if at < answer_at => { now = at; policy.hedge_poll(now, &mut call) }
//!                 _ => { now = answer_at; policy.hedge_outcome(now, &mut call, 2, Outcome::success()) }
//!             }
//!         }
//!         // Cancel the losers; return the winner's answer.
//!         HedgeStep::Done { winner, cancel, .. } => break (winner, cancel.bits()),
//!         HedgeStep::GiveUp { give_up, .. } => panic!("{}", give_up.observation),
//!     };
//! };
//! assert_eq!(answer, (2, 0b1)); // copy 2 won; cancel copy 1
//! ```
//!
//! **Safe only.** [`crate::Policy::start_hedged`] refuses a call that is not
//! safe to repeat (idempotent, or keyed for a server that deduplicates)
//! with the config error `not_idempotent`; every copy carries the call's
//! one key.
//!
//! **One budget for the extra load.** Each hedge asks the scope's retry
//! budget as a retry does, so in a brownout (where every call is slow and
//! would hedge) the budget runs out and hedging stops instead of doubling
//! the load; the breaker admits every copy. A refused hedge is held back:
//! nothing already in flight is cancelled.
//!
//! **When.** After each copy, the next one is due a [`HedgeDelay`] later:
//! fixed, or a quantile of the scope's recent latencies (see
//! [`LatencyWindow`] for what is recorded). A non-fatal failure (transient,
//! or ambiguous: a hedged call is safe to repeat) makes the next copy due
//! at once, through the same budget and breaker; the server's pushback on a
//! failure (`Retry-After`, `grpc-retry-pushback-ms`, ...) delays it instead,
//! and a refusal (negative pushback, `x-should-retry: false`) stops every
//! further copy while those in flight run on. A fatal failure (not
//! retryable) ends the call and cancels the rest. When no copy is in flight
//! and none may be sent, the call gives up with the reason the last copy
//! was held back for (`budget_exhausted`, `circuit_open`,
//! `server_refused_retry`, ...), or `attempts_exhausted`.
//!
//! Latency windows are per scope, kept in the policy, and not part of its
//! snapshot: a restored policy learns them again.

mod call;
mod config;
mod copies;
mod latency;
mod step;

#[cfg(test)]
mod tests;

pub use call::HedgedCall;
pub(crate) use config::HedgingOption;
pub use config::{HedgeDelay, HedgingConfig, MAX_HEDGES, MAX_SAMPLES};
pub use copies::Copies;
pub(crate) use copies::Sent;
pub(crate) use latency::Latencies;
pub use latency::LatencyWindow;
pub use step::HedgeStep;
