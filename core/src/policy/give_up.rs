//! How a call ends without success: the give-up value with its
//! observation, the metrics and log line it leaves, and what it releases.

use super::Policy;
use crate::budget::BudgetKind;
use crate::call::{Call, Final, Phase};
use crate::decision::{GiveUp, StopReason};
use crate::event::{Event, BUDGET_EXHAUSTED_MESSAGE};
use crate::observation::{self, Observed};
use crate::record::{CallOutcome, LogOutcome};
use crate::run::RunQuota;
use crate::time::Instant;

impl Policy {
    pub(super) fn finish(
        &mut self,
        now: Instant,
        call: &mut Call,
        reason: StopReason,
        observed: Option<Observed<'_>>,
        excerpt: Option<&str>,
    ) -> GiveUp {
        self.finish_at(now, call, reason, observed, excerpt, None)
    }

    /// Ends `call` because its run has no retry left: `budget_exhausted`,
    /// a `budget_exhausted` event naming the `run_cap` budget, and an
    /// observation that says so.
    pub(super) fn run_spent(
        &mut self,
        now: Instant,
        call: &mut Call,
        observed: Observed<'_>,
        excerpt: Option<&str>,
    ) -> GiveUp {
        let scope = self.names.get(call.scope).map_or("", |n| n).to_owned();
        self.events.push(Event::BudgetExhausted {
            scope,
            budget: BudgetKind::RunCap,
            at: now,
            message: BUDGET_EXHAUSTED_MESSAGE,
        });
        let max = call.run.as_ref().map_or(0, RunQuota::max_retries);
        let mut give_up = self.finish(
            now,
            call,
            StopReason::BudgetExhausted,
            Some(observed),
            excerpt,
        );
        observation::push_run_spent(&mut give_up.observation, max);
        if let Phase::Finished(Final::GiveUp(stored)) = &mut call.phase {
            stored.observation.clone_from(&give_up.observation);
        }
        give_up
    }

    /// Ends `call` with `reason`: writes its observation, records metrics and
    /// a log line, and remembers the answer for any later question.
    pub(super) fn finish_at(
        &mut self,
        now: Instant,
        call: &mut Call,
        reason: StopReason,
        observed: Option<Observed<'_>>,
        excerpt: Option<&str>,
        retry_at: Option<Instant>,
    ) -> GiveUp {
        let mut give_up = self.give_up_value(now, call, reason, observed, excerpt);
        give_up.retry_at = retry_at;
        // Say when trying again can make sense, not only that it cannot now.
        match (reason, retry_at) {
            (StopReason::CircuitOpen, Some(at)) => {
                observation::push_reopening(&mut give_up.observation, at.saturating_since(now));
            }
            (StopReason::RetryAfterExceedsDeadline | StopReason::BudgetExhausted, Some(at)) => {
                observation::push_server_wait(&mut give_up.observation, at.saturating_since(now));
            }
            _ => {}
        }
        // A retry decided but never sent (refused at admission, cancelled)
        // frees what it held of the budget.
        if let (Some(ticket), Some(scope)) = (call.ticket.take(), self.scopes.get_mut(call.scope)) {
            scope.budget.release(ticket);
        }
        call.phase = Phase::Finished(Final::GiveUp(give_up.clone()));
        let (outcome, log_outcome) = match reason {
            StopReason::AttemptsExhausted => (CallOutcome::Exhausted, LogOutcome::Exhausted),
            _ => (CallOutcome::GaveUp, LogOutcome::GaveUp),
        };
        self.call_finished(now, call, outcome, Some(reason));
        let description = observed.map(observation::describe);
        let error = match (call.last, description.as_deref()) {
            (Some((matched, _)), Some(text)) => Some((matched, text)),
            _ => None,
        };
        self.log_reason(now, call, log_outcome, error, reason);
        self.flush(call.scope, now);
        give_up
    }

    pub(super) fn give_up_value(
        &self,
        now: Instant,
        call: &Call,
        reason: StopReason,
        observed: Option<Observed<'_>>,
        excerpt: Option<&str>,
    ) -> GiveUp {
        let total_ms = call.deadline.elapsed(now);
        let max_chars =
            usize::try_from(self.config.observation.max_excerpt_chars).unwrap_or(usize::MAX);
        // A host-rejected result's detail is its own description, not a body.
        let (observed, excerpt) = match (observed, excerpt) {
            (Some(Observed::Rejected { class, .. }), message) => {
                (Some(Observed::Rejected { class, message }), None)
            }
            (Some(Observed::Raised { .. }), message) => (Some(Observed::Raised { message }), None),
            other => other,
        };
        let observation = match (reason, observed) {
            (StopReason::NotRetryable, Some(o)) => {
                observation::deterministic(o, excerpt, max_chars)
            }
            (StopReason::NotIdempotent, Some(o)) => {
                observation::ambiguous_not_retried(o, excerpt, max_chars)
            }
            _ => observation::stopped(
                observed,
                stop_explanation(reason),
                call.attempts,
                total_ms,
                excerpt,
                max_chars,
            ),
        };
        GiveUp {
            reason,
            attempts: call.attempts,
            total_ms,
            matched: call.last.map(|(m, _)| m),
            class: call.last.map(|(_, c)| c),
            retry_at: None,
            observation,
            was_retryable: reason.was_retryable(),
        }
    }
}

/// The clause an observation uses for each stop reason.
pub(crate) const fn stop_explanation(reason: StopReason) -> &'static str {
    match reason {
        StopReason::AttemptsExhausted => "every allowed attempt failed",
        StopReason::DeadlineExceeded => "the total deadline leaves no room for another attempt",
        StopReason::RetryAfterExceedsDeadline => {
            "the server asked to wait longer than the deadline leaves"
        }
        StopReason::NotRetryable => "the failure is not retryable",
        StopReason::NotIdempotent => "the request may have been applied and is not safe to repeat",
        StopReason::ServerRefusedRetry => "the server said not to retry",
        StopReason::CircuitOpen => "the circuit breaker for this service is open",
        StopReason::BudgetExhausted => "the retry budget is exhausted (Retry budget exceeded)",
        StopReason::ShuttingDown => "the client is shutting down",
        StopReason::Cancelled => "the caller cancelled the call",
    }
}
