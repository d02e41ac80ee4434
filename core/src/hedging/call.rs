//! One hedged call: the logical call, and each copy sent of it.

use super::config::HedgingConfig;
use super::copies::{Copies, Sent};
use super::step::HedgeStep;
use crate::budget::RetryCost;
use crate::call::{Call, Final, Phase};
use crate::decision::StopReason;
use crate::observation::Observed;
use crate::time::Instant;

/// A logical operation sent as up to `1 + max_hedges` copies.
///
/// Made by [`crate::Policy::start_hedged`], driven by
/// [`crate::Policy::hedge_poll`] and [`crate::Policy::hedge_outcome`]. Its
/// [`Call`] is the one a plain call would have (key, deadline, scope,
/// copies sent as its attempts), so give-ups, metrics and log lines read
/// as a plain call's do.
#[derive(Clone, Debug)]
pub struct HedgedCall {
    pub(crate) call: Call,
    pub(crate) config: HedgingConfig,
    /// Copy `n` at index `n - 1`.
    pub(crate) copies: Vec<Sent>,
    /// When the next copy may go out: after the hedge delay, at once after
    /// a failure, or after a server's pushback; `None` while no copy is due.
    pub(crate) next_at: Option<Instant>,
    /// What the next copy costs the budget: a timer's hedge is a normal
    /// extra attempt, one after a timeout or a 429 costs what a retry after
    /// it would.
    pub(crate) next_cost: RetryCost,
    /// Why the last copy wanted was not sent (budget, breaker, server
    /// pushback, deadline, draining) and when trying again could make
    /// sense: the give-up's reason if no copy in flight then wins.
    pub(crate) held: Option<(StopReason, Option<Instant>)>,
    /// The server said not to send more copies, or its wait ends past the
    /// deadline: no copy goes out any more, failure or not.
    pub(crate) stopped: bool,
    /// The last failure seen, for the give-up's observation.
    pub(crate) observed: Option<Observed<'static>>,
    pub(crate) winner: u32,
    pub(crate) cancelled: Copies,
    /// When the last copy went out: a hedge's span event says how long
    /// the call had waited for an answer before it.
    pub(crate) last_sent: Instant,
}

impl HedgedCall {
    pub(crate) fn new(call: Call, config: HedgingConfig) -> HedgedCall {
        HedgedCall {
            call,
            config,
            copies: Vec::with_capacity(usize::try_from(config.max_copies()).unwrap_or(1)),
            next_at: None,
            next_cost: RetryCost::Normal,
            held: None,
            stopped: false,
            observed: None,
            winner: 0,
            cancelled: Copies::EMPTY,
            last_sent: Instant::ZERO,
        }
    }

    /// The logical call (id, operation, key, deadline, copies sent as
    /// attempts).
    #[must_use]
    pub const fn call(&self) -> &Call {
        &self.call
    }

    /// The hedging settings this call started with.
    #[must_use]
    pub const fn config(&self) -> &HedgingConfig {
        &self.config
    }

    /// Copies sent so far.
    #[must_use]
    pub fn sent(&self) -> u32 {
        u32::try_from(self.copies.len()).unwrap_or(u32::MAX)
    }

    /// The copies in flight (sent, no outcome, not cancelled).
    #[must_use]
    pub fn in_flight(&self) -> Copies {
        let mut set = Copies::EMPTY;
        for (copy, sent) in (1..).zip(&self.copies) {
            if matches!(sent, Sent::InFlight { .. }) {
                set.insert(copy);
            }
        }
        set
    }

    /// When the host should ask again if no outcome comes first: the next
    /// copy's time, while one may still go out.
    #[must_use]
    pub fn next_timeout(&self) -> Option<Instant> {
        if self.call.is_finished() || self.stopped || self.sent() >= self.config.max_copies() {
            None
        } else {
            self.next_at
        }
    }

    /// Whether the call is over.
    #[must_use]
    pub const fn is_finished(&self) -> bool {
        self.call.is_finished()
    }

    /// Whether another copy may still be sent by this call's own limits.
    pub(crate) fn may_send_more(&self) -> bool {
        !self.stopped && self.sent() < self.config.max_copies()
    }

    /// The step that ended the call, asked again.
    pub(crate) fn final_step(&self) -> Option<HedgeStep> {
        match &self.call.phase {
            Phase::Finished(Final::Done(done)) => Some(HedgeStep::Done {
                done: *done,
                winner: self.winner,
                cancel: self.cancelled,
            }),
            Phase::Finished(Final::GiveUp(give_up)) => Some(HedgeStep::GiveUp {
                give_up: give_up.clone(),
                cancel: self.cancelled,
            }),
            Phase::Ready | Phase::InFlight { .. } | Phase::Waiting { .. } => None,
        }
    }

    /// Holds further copies back for `reason` (until a failure asks for
    /// one again, unless the call is `stopped`).
    pub(crate) fn hold(&mut self, reason: StopReason, retry_at: Option<Instant>) {
        self.held = Some((reason, retry_at));
        self.next_at = None;
    }

    /// Copy `copy`'s state, if it was sent.
    pub(crate) fn copy_mut(&mut self, copy: u32) -> Option<&mut Sent> {
        let index = usize::try_from(copy.checked_sub(1)?).ok()?;
        self.copies.get_mut(index)
    }
}
