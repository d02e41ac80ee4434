//! What a hedged call tells its host to do next.

use super::copies::Copies;
use crate::decision::{AttemptPlan, Done, GiveUp};
use crate::time::Instant;

/// The answer to every question a host asks of a hedged call
/// ([`crate::Policy::hedge_poll`], [`crate::Policy::hedge_outcome`]).
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HedgeStep {
    /// Send a copy now: `plan.attempt` is its number (1 for the first),
    /// `plan.timeout_ms` its own timeout, `plan.idempotency_key` the key
    /// every copy carries. Then ask again: another copy may be due too.
    Send(AttemptPlan),
    /// Nothing to send now. Ask again at `until` (the next hedge's time),
    /// or as soon as a copy's outcome comes; with no `until`, only then.
    Wait {
        /// When the next copy may go out, if one may.
        until: Option<Instant>,
    },
    /// Copy `winner` answered: return its answer, and cancel `cancel`.
    Done {
        /// Copies sent and the time since the call started.
        done: Done,
        /// The copy whose answer is accepted.
        winner: u32,
        /// The copies still in flight, to cancel (their answers are not
        /// needed, and each still loads the service).
        cancel: Copies,
    },
    /// The call is over without success: report `give_up`, and cancel
    /// `cancel`.
    GiveUp {
        /// Why, with the observation for the caller.
        give_up: GiveUp,
        /// The copies still in flight, to cancel.
        cancel: Copies,
    },
}

impl HedgeStep {
    /// The step's code: `send`, `wait`, `done` or `give_up`.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            HedgeStep::Send(_) => "send",
            HedgeStep::Wait { .. } => "wait",
            HedgeStep::Done { .. } => "done",
            HedgeStep::GiveUp { .. } => "give_up",
        }
    }

    /// The copies to cancel (empty unless the call just ended).
    #[must_use]
    pub const fn cancel(&self) -> Copies {
        match self {
            HedgeStep::Done { cancel, .. } | HedgeStep::GiveUp { cancel, .. } => *cancel,
            HedgeStep::Send(_) | HedgeStep::Wait { .. } => Copies::EMPTY,
        }
    }
}
