//! The policy: shared state and the two questions every attempt asks.
//!
//! Composition order, the same on every path (documented in the README and
//! tested in `tests/composition.rs`):
//!
//! `before_attempt`: finished? -> draining -> deadline -> admit.
//!
//! `on_outcome`: classification -> success? -> retryable class? (deterministic
//! and unsafe ambiguous failures stop here, with an observation) -> server
//! refusal -> attempts left? -> backoff and server hint -> deadline.
//!
//! Nothing is consumed before the last check passes, so a refused retry costs
//! nothing.

use std::sync::Arc;

use crate::backoff::Backoff;
use crate::call::{Call, CallSpec, Final, Phase};
use crate::classify::{Class, Classifier};
use crate::config::Config;
use crate::deadline::Deadline;
use crate::decision::{
    Admission, AttemptPlan, Decision, DelaySource, Done, GiveUp, Matched, Retry, StopReason,
};
use crate::error::ConfigError;
use crate::hints::ServerHint;
use crate::observation::{self, Observed};
use crate::outcome::{Outcome, OutcomeKind};
use crate::rng::SplitMix64;
use crate::time::{Instant, MonotonicClamp};

/// A validated config and the state that many calls share.
///
/// Build it once (`Policy::new` is the engine's only fallible step), then for
/// each logical operation: [`Policy::start`] a [`Call`], and loop on
/// [`Policy::before_attempt`] and [`Policy::on_outcome`] until a decision
/// ends it.
#[derive(Debug)]
pub struct Policy {
    config: Config,
    classifier: Classifier,
    rng: SplitMix64,
    clock: MonotonicClamp,
    next_call_id: u64,
    draining: bool,
}

impl Policy {
    /// Validates `config` and builds the policy.
    pub fn new(config: Config) -> Result<Policy, ConfigError> {
        config.validate()?;
        let seed = config.seed.unwrap_or_default();
        Ok(Policy {
            classifier: Classifier::new(&config.classify),
            rng: SplitMix64::new(seed),
            clock: MonotonicClamp::new(),
            next_call_id: 1,
            draining: false,
            config,
        })
    }

    /// Parses, validates and builds from a JSON config document.
    pub fn from_json(text: &str) -> Result<Policy, ConfigError> {
        Policy::new(Config::from_json(text)?)
    }

    /// The validated config.
    #[must_use]
    pub const fn config(&self) -> &Config {
        &self.config
    }

    /// Starts a logical operation at `now`. Its deadline, key and jitter
    /// stream are fixed here: each call draws its own stream from the
    /// policy's seed, so interleaving calls does not change their delays.
    pub fn start(&mut self, now: Instant, spec: CallSpec<'_>) -> Call {
        let now = self.clock.observe(now);
        let id = self.next_call_id;
        self.next_call_id = self.next_call_id.saturating_add(1);
        Call {
            id,
            operation: spec.operation.into(),
            idempotent: spec.idempotent,
            key: spec.idempotency_key.map(Arc::from),
            deadline: Deadline::start(now, &self.config.timeouts),
            attempts: 0,
            retries: 0,
            backoff: Backoff::new(self.config.backoff),
            rng: self.rng.split(),
            phase: Phase::Ready,
            last: None,
        }
    }

    /// May the next attempt of `call` go out now? If so, under which limits.
    pub fn before_attempt(&mut self, now: Instant, call: &mut Call) -> Admission {
        let now = self.clock.observe(now);
        if let Phase::Finished(done) = &call.phase {
            return match done {
                Final::GiveUp(g) => Admission::Reject(g.clone()),
                Final::Done(_) => Admission::Reject(self.finish(
                    now,
                    call,
                    StopReason::AttemptsExhausted,
                    None,
                    None,
                )),
            };
        }
        if self.draining {
            return Admission::Reject(self.finish(now, call, StopReason::ShuttingDown, None, None));
        }
        if call.deadline.is_expired(now) {
            return Admission::Reject(self.finish(
                now,
                call,
                StopReason::DeadlineExceeded,
                None,
                None,
            ));
        }
        call.attempts = call.attempts.saturating_add(1);
        call.phase = Phase::InFlight { started: now };
        let timeouts = &self.config.timeouts;
        Admission::Proceed(AttemptPlan {
            attempt: call.attempts,
            max_attempts: self.config.max_attempts,
            timeout_ms: call.deadline.attempt_timeout(now, timeouts),
            connect_timeout_ms: call.deadline.connect_timeout(now, timeouts),
            remaining_ms: call.deadline.remaining(now),
            idempotency_key: call.key.clone(),
        })
    }

    /// What to do after an attempt of `call` ended with `outcome`.
    pub fn on_outcome(&mut self, now: Instant, call: &mut Call, outcome: Outcome<'_>) -> Decision {
        let now = self.clock.observe(now);
        match &call.phase {
            Phase::Finished(Final::Done(done)) => return Decision::Done(*done),
            Phase::Finished(Final::GiveUp(g)) => return Decision::GiveUp(g.clone()),
            // An outcome without an admitted attempt still counts: attempts are
            // counted where they are observed, so misuse cannot buy extra tries.
            Phase::Ready | Phase::Waiting { .. } => call.attempts = call.attempts.saturating_add(1),
            Phase::InFlight { .. } => {}
        }

        let (matched, class, observed) = self.classify(&outcome);
        call.last = Some((matched, class));
        let excerpt = outcome.detail;

        let retryable = match class {
            Class::Success => {
                let done = Done {
                    attempts: call.attempts,
                    total_ms: call.deadline.elapsed(now),
                };
                call.phase = Phase::Finished(Final::Done(done));
                return Decision::Done(done);
            }
            Class::Deterministic => Err(StopReason::NotRetryable),
            Class::Ambiguous
                if !self
                    .classifier
                    .may_retry_ambiguous(call.idempotent || call.key.is_some()) =>
            {
                Err(StopReason::NotIdempotent)
            }
            Class::Transient | Class::Ambiguous => Ok(()),
        };
        if let Err(reason) = retryable {
            return Decision::GiveUp(self.finish(now, call, reason, Some(observed), excerpt));
        }

        let hint = if self.config.hints.respect {
            outcome.hint
        } else {
            None
        };
        if let Some(ServerHint::DoNotRetry { .. }) = hint {
            return Decision::GiveUp(self.finish(
                now,
                call,
                StopReason::ServerRefusedRetry,
                Some(observed),
                excerpt,
            ));
        }
        if self.draining {
            return Decision::GiveUp(self.finish(
                now,
                call,
                StopReason::ShuttingDown,
                Some(observed),
                excerpt,
            ));
        }
        if call.attempts >= self.config.max_attempts {
            return Decision::GiveUp(self.finish(
                now,
                call,
                StopReason::AttemptsExhausted,
                Some(observed),
                excerpt,
            ));
        }

        // The backoff is always drawn, hint or not, so a call's jitter stream
        // does not depend on which responses carried hints.
        let retry_number = call.retries.saturating_add(1);
        let backoff_ms = call.backoff.delay_ms(retry_number, &mut call.rng);
        let (delay_ms, source) =
            match hint.and_then(|h| h.delay_with_backoff(backoff_ms).map(|d| (d, h))) {
                Some((hinted, h)) => (
                    hinted.min(self.config.hints.max_delay_ms),
                    DelaySource::Hint(h.source()),
                ),
                None => (
                    backoff_ms,
                    DelaySource::Backoff(call.backoff.spec().strategy),
                ),
            };

        if !call.deadline.leaves_room(now, delay_ms, 1) {
            let reason = match source {
                DelaySource::Hint(_) => StopReason::RetryAfterExceedsDeadline,
                DelaySource::Backoff(_) => StopReason::DeadlineExceeded,
            };
            let mut give_up = self.finish(now, call, reason, Some(observed), excerpt);
            if let DelaySource::Hint(_) = source {
                give_up.retry_at = Some(now.saturating_add(delay_ms));
                if let Phase::Finished(Final::GiveUp(stored)) = &mut call.phase {
                    stored.retry_at = give_up.retry_at;
                }
            }
            return Decision::GiveUp(give_up);
        }

        call.retries = retry_number;
        call.phase = Phase::Waiting {
            until: now.saturating_add(delay_ms),
        };
        Decision::Retry(Retry {
            delay_ms,
            attempt: call.attempts,
            matched,
            class,
            source,
            backoff_ms,
        })
    }

    /// Cancels `call` (the host's caller gave up). Returns the give-up, or
    /// the call's earlier ending if it had already finished.
    pub fn cancel(&mut self, now: Instant, call: &mut Call) -> GiveUp {
        let now = self.clock.observe(now);
        match &call.phase {
            Phase::Finished(Final::GiveUp(g)) => g.clone(),
            _ => self.finish(now, call, StopReason::Cancelled, None, None),
        }
    }

    /// Puts the policy into draining: from now on no attempt is admitted and
    /// no retry is scheduled; calls give up with `shutting_down`. Attempts
    /// already in flight report their outcomes as usual.
    pub fn drain(&mut self) {
        self.draining = true;
    }

    /// Whether [`Policy::drain`] was called.
    #[must_use]
    pub const fn is_draining(&self) -> bool {
        self.draining
    }

    fn classify(&self, outcome: &Outcome<'_>) -> (Matched, Class, Observed<'static>) {
        match outcome.kind {
            OutcomeKind::Success => (Matched::Success, Class::Success, Observed::Status(200)),
            OutcomeKind::Status(status) => {
                let (class, overridden) = self.classifier.status(status);
                (
                    Matched::Status { status, overridden },
                    class,
                    Observed::Status(status),
                )
            }
            OutcomeKind::Network(kind) => (
                Matched::Network(kind),
                self.classifier.network(kind),
                Observed::Network(kind),
            ),
            OutcomeKind::Rejected(class) => (
                Matched::Rejected(class),
                class,
                Observed::Rejected {
                    class,
                    message: None,
                },
            ),
        }
    }

    /// Ends `call` with `reason`, writing its observation.
    fn finish(
        &mut self,
        now: Instant,
        call: &mut Call,
        reason: StopReason,
        observed: Option<Observed<'_>>,
        excerpt: Option<&str>,
    ) -> GiveUp {
        let total_ms = call.deadline.elapsed(now);
        let max_chars =
            usize::try_from(self.config.observation.max_excerpt_chars).unwrap_or(usize::MAX);
        let observed = match (observed, excerpt) {
            (Some(Observed::Rejected { class, .. }), Some(message)) => Some(Observed::Rejected {
                class,
                message: Some(message),
            }),
            (o, _) => o,
        };
        let excerpt = match observed {
            Some(Observed::Rejected { .. }) => None,
            _ => excerpt,
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
        let give_up = GiveUp {
            reason,
            attempts: call.attempts,
            total_ms,
            matched: call.last.map(|(m, _)| m),
            class: call.last.map(|(_, c)| c),
            retry_at: None,
            observation,
        };
        call.phase = Phase::Finished(Final::GiveUp(give_up.clone()));
        give_up
    }
}

/// The clause an observation uses for each stop reason.
const fn stop_explanation(reason: StopReason) -> &'static str {
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
