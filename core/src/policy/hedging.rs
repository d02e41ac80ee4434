//! Hedged calls (`crate::hedging`): what the policy does with each copy.
//!
//! Every copy goes through the gates a retry goes through, in the same
//! order: draining -> deadline -> breaker admission -> (for a hedge) the
//! retry budget, asked last so a copy refused for another reason costs no
//! budget. A copy that is refused is held back, never anything in flight
//! cancelled: a spent budget stops new load, it does not throw away the
//! answers already on their way.

use super::shared_state::scope_name;
use super::Policy;
use crate::budget::RetryCost;
use crate::call::{CallSpec, Final, Phase};
use crate::classify::{Class, NetworkErrorKind};
use crate::decision::{AttemptPlan, Done, Matched, StopReason};
use crate::error::{ConfigError, ConfigErrorCode};
use crate::fleet::Tally;
use crate::hedging::{Copies, HedgeDelay, HedgeStep, HedgedCall, HedgingConfig, Sent};
use crate::hints::ServerHint;
use crate::outcome::Outcome;
use crate::record::{CallOutcome, LogOutcome};
use crate::time::Instant;

/// The error's field: what the caller must change (the call's own flag,
/// spelt the same in every dialect).
const NOT_HEDGEABLE_FIELD: &str = "idempotent";

const NOT_HEDGEABLE: &str = "hedging sends copies of a call, so only a call that is safe to repeat is hedged: mark it idempotent (an idempotent method, or the call's idempotent flag) or give it an idempotency key its server honours";

impl Policy {
    /// Starts a logical operation that may be sent as several copies
    /// ([`crate::hedging`] says how a host drives it).
    ///
    /// # Errors
    /// `hedging`'s problems, by field; or `not_idempotent` at field
    /// `idempotent` for a call that is not safe to repeat (neither
    /// idempotent nor carrying a valid idempotency key): such a call is
    /// never hedged.
    pub fn start_hedged(
        &mut self,
        now: Instant,
        spec: CallSpec<'_>,
        hedging: &HedgingConfig,
    ) -> Result<HedgedCall, ConfigError> {
        hedging.validate()?;
        let keyed = spec.idempotency_key.is_some_and(crate::key::is_valid_key);
        if !spec.idempotent && !keyed {
            return Err(ConfigError::new(
                ConfigErrorCode::NotIdempotent,
                NOT_HEDGEABLE_FIELD,
                NOT_HEDGEABLE,
            ));
        }
        let mut call = self.start(now, spec);
        call.max_attempts = hedging.max_copies();
        Ok(HedgedCall::new(call, *hedging))
    }

    /// What `hedged` needs now: a copy to send, a time to wake, or its end.
    /// Ask when the call starts, after each copy is sent, and when the
    /// last `Wait`'s `until` comes.
    pub fn hedge_poll(&mut self, now: Instant, hedged: &mut HedgedCall) -> HedgeStep {
        let now = self.clock.observe(now);
        #[cfg(feature = "fleet")]
        if self.fleet.is_some() {
            self.watch_fleet(now);
        }
        self.hedge_step(now, hedged, None)
    }

    /// Copy `copy` of `hedged` ended with `outcome`; what now. A success
    /// ends the call and names the copies to cancel; a fatal failure (not
    /// retryable) ends it too; any other failure sends the next copy at
    /// once, or after the server's pushback, budget and breaker allowing.
    /// An outcome for a copy that is not in flight (cancelled, reported
    /// already, never sent) changes nothing.
    pub fn hedge_outcome(
        &mut self,
        now: Instant,
        hedged: &mut HedgedCall,
        copy: u32,
        outcome: Outcome<'_>,
    ) -> HedgeStep {
        let now = self.clock.observe(now);
        if let Some(step) = hedged.final_step() {
            return step;
        }
        let Some(&mut Sent::InFlight {
            started,
            permit,
            ticket,
        }) = hedged.copy_mut(copy)
        else {
            return self.hedge_step(now, hedged, None);
        };
        let (matched, class, observed) = self.classify(&outcome, true);
        hedged.call.last = Some((matched, class));
        let duration_ms = now.saturating_since(started);
        let scope = hedged.call.scope;
        self.record_result(now, scope, ticket, matched, class, permit, duration_ms);
        let timed_out = matches!(
            matched,
            Matched::Network(NetworkErrorKind::ReadTimeout | NetworkErrorKind::ConnectTimeout)
        );
        if class == Class::Success || timed_out {
            self.record_latency(scope, &hedged.config, duration_ms);
        }
        let won = class == Class::Success;
        if let Some(sent) = hedged.copy_mut(copy) {
            *sent = if won { Sent::Won } else { Sent::Failed };
        }
        if won {
            return self.hedge_won(now, hedged, copy, duration_ms);
        }
        hedged.observed = Some(observed);
        let excerpt = outcome.detail;
        let fatal = match class {
            Class::Deterministic => Some(StopReason::NotRetryable),
            Class::Ambiguous if !self.classifier.may_retry_ambiguous(true) => {
                Some(StopReason::NotIdempotent)
            }
            Class::Success | Class::Transient | Class::Ambiguous => None,
        };
        if let Some(reason) = fatal {
            return self.hedge_end(now, hedged, reason, None, excerpt);
        }
        self.after_failure(now, hedged, matched, outcome.hint);
        self.hedge_step(now, hedged, excerpt)
    }

    /// Cancels `hedged` (the host's caller gave up): every copy in flight
    /// is to be cancelled, and gives back its breaker permit and budget
    /// slot without counting. A finished call answers as it ended.
    pub fn hedge_cancel(&mut self, now: Instant, hedged: &mut HedgedCall) -> HedgeStep {
        let now = self.clock.observe(now);
        match hedged.final_step() {
            Some(step) => step,
            None => self.hedge_end(now, hedged, StopReason::Cancelled, None, None),
        }
    }

    /// The host dropped `hedged` without ending it: cancelled at the latest
    /// time the policy has seen, as [`Policy::abandon`] does for a call.
    pub fn hedge_abandon(&mut self, hedged: &mut HedgedCall) {
        if !hedged.is_finished() {
            let now = self.clock.latest();
            let _ = self.hedge_cancel(now, hedged);
        }
    }

    fn hedge_step(
        &mut self,
        now: Instant,
        hedged: &mut HedgedCall,
        excerpt: Option<&str>,
    ) -> HedgeStep {
        if let Some(step) = hedged.final_step() {
            return step;
        }
        if hedged.sent() == 0 {
            return self.send_first(now, hedged);
        }
        if hedged.call.deadline.is_expired(now) {
            let reason = StopReason::DeadlineExceeded;
            return self.hedge_end(now, hedged, reason, None, excerpt);
        }
        if self.draining && hedged.may_send_more() {
            hedged.stopped = true;
            hedged.hold(StopReason::ShuttingDown, None);
        }
        if hedged.may_send_more() && hedged.next_at.is_some_and(|at| at <= now) {
            if let Some(plan) = self.send_hedge(now, hedged) {
                return HedgeStep::Send(plan);
            }
        }
        if hedged.in_flight().is_empty() {
            // Nothing on its way: wait for the server's pushback to pass,
            // or end for the reason the last copy wanted was held back.
            if let Some(at) = hedged.next_timeout() {
                return HedgeStep::Wait { until: Some(at) };
            }
            let (reason, at) = hedged.held.unwrap_or((StopReason::AttemptsExhausted, None));
            return self.hedge_end(now, hedged, reason, at, excerpt);
        }
        HedgeStep::Wait {
            until: hedged.next_timeout(),
        }
    }

    /// The first copy: admitted as a plain call's first attempt is.
    fn send_first(&mut self, now: Instant, hedged: &mut HedgedCall) -> HedgeStep {
        if self.draining {
            return self.hedge_end(now, hedged, StopReason::ShuttingDown, None, None);
        }
        if hedged.call.deadline.is_expired(now) {
            return self.hedge_end(now, hedged, StopReason::DeadlineExceeded, None, None);
        }
        let index = hedged.call.scope;
        let permit = match self.breaker_mut(index).map(|b| b.try_acquire(now)) {
            None => None,
            Some(Ok(permit)) => Some(permit),
            Some(Err(rejected)) => {
                let reason = StopReason::CircuitOpen;
                return self.hedge_end(now, hedged, reason, rejected.retry_at, None);
            }
        };
        hedged.call.attempts = 1;
        hedged.last_sent = now;
        hedged.copies.push(Sent::InFlight {
            started: now,
            permit,
            ticket: None,
        });
        if let Some(scope) = self.scopes.get_mut(index) {
            scope.budget.on_first_attempt(now);
            scope.metrics.on_attempt(now, false);
        }
        self.measure_attempt(&hedged.call);
        self.count_for_fleet(index, now, Tally::REQUEST);
        self.arm(now, hedged);
        self.flush(index, now);
        HedgeStep::Send(self.copy_plan(now, hedged))
    }

    /// A hedge: the breaker admits it, then the retry budget pays for it
    /// as for a retry. Refused, it is held back and `None` returned.
    fn send_hedge(&mut self, now: Instant, hedged: &mut HedgedCall) -> Option<AttemptPlan> {
        let index = hedged.call.scope;
        let permit = match self.breaker_mut(index).map(|b| b.try_acquire(now)) {
            None => None,
            Some(Ok(permit)) => Some(permit),
            Some(Err(rejected)) => {
                hedged.hold(StopReason::CircuitOpen, rejected.retry_at);
                self.flush(index, now);
                return None;
            }
        };
        let grant = self
            .scopes
            .get_mut(index)
            .map(|scope| scope.budget.try_retry(now, hedged.next_cost));
        let ticket = match grant {
            None => None,
            Some(Ok(ticket)) => Some(ticket),
            Some(Err(_refusal)) => {
                if let (Some(permit), Some(breaker)) = (permit, self.breaker_mut(index)) {
                    let _ = breaker.release(permit);
                }
                hedged.hold(StopReason::BudgetExhausted, None);
                self.flush(index, now);
                return None;
            }
        };
        if ticket.is_some() {
            self.count_for_fleet(index, now, Tally::RETRY);
        }
        hedged.call.attempts = hedged.call.attempts.saturating_add(1);
        hedged.call.retries = hedged.call.retries.saturating_add(1);
        hedged.copies.push(Sent::InFlight {
            started: now,
            permit,
            ticket,
        });
        hedged.next_cost = RetryCost::Normal;
        hedged.held = None;
        if let Some(scope) = self.scopes.get_mut(index) {
            scope.metrics.on_attempt(now, true);
        }
        self.measure_attempt(&hedged.call);
        self.measure_hedge(&hedged.call, now.saturating_since(hedged.last_sent));
        hedged.last_sent = now;
        self.arm(now, hedged);
        self.flush(index, now);
        Some(self.copy_plan(now, hedged))
    }

    /// Sets the next copy's time one hedge delay after `now`, if another
    /// copy may go and the delay is known and ends before the deadline.
    fn arm(&self, now: Instant, hedged: &mut HedgedCall) {
        let delay = self
            .hedge_delay(hedged.call.scope, &hedged.config)
            .filter(|ms| hedged.call.deadline.leaves_room(now, *ms, 1));
        hedged.next_at = match delay {
            Some(ms) if hedged.may_send_more() => Some(now.saturating_add(ms)),
            _ => None,
        };
    }

    /// After a non-fatal failure: the next copy at once (gRPC A6), unless
    /// the server pushed back, which delays it or, refusing, stops every
    /// further copy.
    fn after_failure(
        &mut self,
        now: Instant,
        hedged: &mut HedgedCall,
        matched: Matched,
        hint: Option<ServerHint>,
    ) {
        hedged.next_cost = match matched {
            Matched::Network(NetworkErrorKind::ReadTimeout | NetworkErrorKind::ConnectTimeout) => {
                RetryCost::Timeout
            }
            Matched::Status { status: 429, .. } => RetryCost::Throttling,
            _ => RetryCost::Normal,
        };
        if !hedged.may_send_more() {
            return;
        }
        let hint = hint.filter(|_| self.config.hints.respect);
        let reason = match hint {
            Some(_) => StopReason::RetryAfterExceedsDeadline,
            None => StopReason::DeadlineExceeded,
        };
        let wait_ms = match hint {
            None => 0,
            Some(ServerHint::DoNotRetry { .. }) => {
                hedged.stopped = true;
                hedged.hold(StopReason::ServerRefusedRetry, None);
                return;
            }
            Some(hint) => hint
                .delay_with_backoff(0)
                .unwrap_or(0)
                .min(self.config.hints.max_delay_ms),
        };
        let at = now.saturating_add(wait_ms);
        if hedged.call.deadline.leaves_room(now, wait_ms, 1) {
            hedged.next_at = Some(at);
        } else {
            // The server's wait ends past the deadline: say when it ends.
            let at = hint.is_some().then_some(at);
            hedged.stopped = true;
            hedged.hold(reason, at);
        }
    }

    fn hedge_won(
        &mut self,
        now: Instant,
        hedged: &mut HedgedCall,
        copy: u32,
        duration_ms: u64,
    ) -> HedgeStep {
        let cancel = self.cancel_in_flight(now, hedged, Some(duration_ms));
        let done = Done {
            attempts: hedged.call.attempts,
            total_ms: hedged.call.deadline.elapsed(now),
        };
        hedged.call.phase = Phase::Finished(Final::Done(done));
        hedged.winner = copy;
        hedged.cancelled = cancel;
        hedged.next_at = None;
        self.call_finished(now, &hedged.call, CallOutcome::Success, None);
        self.log(now, &hedged.call, LogOutcome::Success, 0, None, None);
        self.flush(hedged.call.scope, now);
        HedgeStep::Done {
            done,
            winner: copy,
            cancel,
        }
    }

    fn hedge_end(
        &mut self,
        now: Instant,
        hedged: &mut HedgedCall,
        reason: StopReason,
        retry_at: Option<Instant>,
        excerpt: Option<&str>,
    ) -> HedgeStep {
        let cancel = self.cancel_in_flight(now, hedged, None);
        hedged.cancelled = cancel;
        hedged.next_at = None;
        let observed = hedged.observed;
        let give_up = self.finish_at(now, &mut hedged.call, reason, observed, excerpt, retry_at);
        HedgeStep::GiveUp { give_up, cancel }
    }

    /// Marks every copy in flight cancelled, giving back its breaker
    /// permit and budget ticket without counting an outcome. With a
    /// winner's latency, a copy that had already run longer is a latency
    /// sample too: it took at least that long.
    fn cancel_in_flight(
        &mut self,
        now: Instant,
        hedged: &mut HedgedCall,
        winner_ms: Option<u64>,
    ) -> Copies {
        let index = hedged.call.scope;
        let config = hedged.config;
        let mut cancel = Copies::EMPTY;
        for (copy, sent) in (1..).zip(hedged.copies.iter_mut()) {
            let Sent::InFlight {
                started,
                permit,
                ticket,
            } = *sent
            else {
                continue;
            };
            *sent = Sent::Cancelled;
            cancel.insert(copy);
            if let Some(scope) = self.scopes.get_mut(index) {
                if let (Some(permit), Some(breaker)) = (permit, scope.breaker.as_mut()) {
                    let _ = breaker.release(permit);
                }
                if let Some(ticket) = ticket {
                    let _ = scope.budget.release(ticket);
                }
            }
            let elapsed = now.saturating_since(started);
            if winner_ms.is_some_and(|won| elapsed > won) {
                self.record_latency(index, &config, elapsed);
            }
        }
        cancel
    }

    fn copy_plan(&self, now: Instant, hedged: &HedgedCall) -> AttemptPlan {
        let timeouts = &self.config.timeouts;
        let deadline = &hedged.call.deadline;
        AttemptPlan {
            attempt: hedged.sent(),
            max_attempts: hedged.config.max_copies(),
            timeout_ms: deadline.attempt_timeout(now, timeouts),
            connect_timeout_ms: deadline.connect_timeout(now, timeouts),
            remaining_ms: deadline.remaining(now),
            idempotency_key: hedged.call.key.clone(),
        }
    }

    /// The hedge delay in scope `index`: the fixed one, or the quantile of
    /// its recent latencies once enough are known (at least 1 ms, so a
    /// hedge never leaves with the copy it backs up).
    fn hedge_delay(&self, index: usize, config: &HedgingConfig) -> Option<u64> {
        match config.delay {
            HedgeDelay::Fixed { after_ms } => Some(after_ms),
            HedgeDelay::Quantile {
                quantile,
                min_samples,
                samples,
            } => self
                .latencies
                .get(index)?
                .quantile(quantile, samples, min_samples)
                .map(|ms| ms.max(1)),
        }
    }

    /// Records a latency for quantile delays (a fixed delay reads none).
    fn record_latency(&mut self, index: usize, config: &HedgingConfig, ms: u64) {
        if let HedgeDelay::Quantile { samples, .. } = config.delay {
            self.latencies.record(index, ms, samples);
        }
    }

    /// Latencies `scope` holds for quantile delays (hedging by a quantile
    /// starts once its `min_samples` are there).
    #[must_use]
    pub fn latency_samples(&self, scope: &str) -> usize {
        self.index
            .get(scope_name(scope))
            .and_then(|index| self.latencies.get(*index))
            .map_or(0, crate::hedging::LatencyWindow::len)
    }

    /// The hedge delay a call of `scope` would wait now, if one is known
    /// (for hosts and tests: what the quantile estimate reads).
    #[must_use]
    pub fn hedge_delay_ms(&self, scope: &str, config: &HedgingConfig) -> Option<u64> {
        match config.delay {
            HedgeDelay::Fixed { after_ms } => Some(after_ms),
            HedgeDelay::Quantile { .. } => {
                let index = *self.index.get(scope_name(scope))?;
                self.hedge_delay(index, config)
            }
        }
    }
}
