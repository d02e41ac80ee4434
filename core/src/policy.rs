//! The policy: shared state and the two questions every attempt asks.
//!
//! Composition order, the same on every path (tested by the
//! `a_refused_retry_costs_no_budget` and `breaker_opening_mid_call_fails_fast`
//! scenarios of `tests/vectors/policy_shared_state.json`):
//!
//! `before_attempt`: finished? -> draining -> deadline -> breaker admission
//! -> admit (the budget counts a first attempt; metrics count every attempt).
//!
//! `on_outcome`: classification (the breaker and the budget record the
//! attempt's result) -> success? -> retryable class? (deterministic and
//! unsafe ambiguous failures stop here, with an observation) -> server
//! refusal -> draining -> attempts left? -> backoff and server hint ->
//! deadline -> open breaker -> retry budget.
//!
//! The budget is asked last, so a retry refused for any other reason costs
//! no budget, and a refused retry changes no budget.

use std::sync::Arc;

use crate::backoff::{Backoff, BackoffSpec};
use crate::breaker::Breaker;
use crate::budget::{RetryBudget, RetryCost};
use crate::call::{Call, CallOverrides, CallSpec, Final, Phase};
use crate::classify::{Class, Classifier, NetworkErrorKind};
use crate::config::Config;
use crate::deadline::Deadline;
use crate::decision::{
    Admission, AttemptPlan, Decision, DelaySource, Done, GiveUp, Matched, Retry, StopReason,
};
use crate::error::ConfigError;
use crate::event::{Event, EventQueue};
#[cfg(feature = "fleet")]
use crate::fleet::FleetLink;
use crate::fleet::Tally;
use crate::hints::ServerHint;
use crate::observation::{self, Observed};
use crate::outcome::{Outcome, OutcomeKind};
use crate::record::{CallOutcome, LogOutcome, Metrics};
use crate::rng::SplitMix64;
use crate::scope::ScopeState;
use crate::sorted::SortedMap;
use crate::time::{Instant, MonotonicClamp, WallClock};

mod fleet;
mod give_up;
#[cfg(feature = "hedging")]
mod hedging;
mod measure;
mod records;
mod response;
mod shared_state;

pub(crate) use give_up::stop_explanation;

/// A validated config and the state that many calls share.
///
/// Build it once (`Policy::new` is the engine's only fallible step), then for
/// each logical operation: [`Policy::start`] a [`Call`], and loop on
/// [`Policy::before_attempt`] and [`Policy::on_outcome`] until a decision
/// ends it. Drain [`Policy::poll_event`] whenever convenient.
#[derive(Debug)]
pub struct Policy {
    config: Config,
    classifier: Classifier,
    rng: SplitMix64,
    clock: MonotonicClamp,
    wall_anchor: Option<(Instant, WallClock)>,
    next_call_id: u64,
    draining: bool,
    template: ScopeState,
    names: Vec<Box<str>>,
    scopes: Vec<ScopeState>,
    index: SortedMap<Box<str>, usize>,
    events: EventQueue,
    /// The operation name of the last call started: hosts start many calls
    /// of one operation in a row, and reusing its name saves an allocation
    /// per call on the hot path.
    last_operation: Option<Arc<str>>,
    /// The name of every call started without one (most calls), shared so
    /// that such a call neither allocates nor compares a name.
    default_operation: Arc<str>,
    /// The default scope's index once a call has used it: an unnamed call
    /// finds its scope without a lookup by name (scopes are never removed,
    /// so an index, once given, stays right).
    default_scope: Option<usize>,
    /// The fleet exchange, from the first `fleet_export` on
    /// (`policy/fleet.rs`).
    #[cfg(feature = "fleet")]
    fleet: Option<FleetLink>,
    /// Whether calls queue their metric points and decisions
    /// (`policy/measure.rs`).
    #[cfg(feature = "measure")]
    measuring: bool,
    /// Each scope's recent latencies, from which hedged calls take their
    /// delay (`policy/hedging.rs`).
    #[cfg(feature = "hedging")]
    latencies: crate::hedging::Latencies,
}

impl Policy {
    /// Validates `config` and builds the policy.
    pub fn new(config: Config) -> Result<Policy, ConfigError> {
        config.validate()?;
        let template = ScopeState {
            breaker: config.breaker.clone().map(Breaker::new),
            budget: RetryBudget::new(config.budget)?,
            metrics: Metrics::new(config.alerts),
        };
        Ok(Policy {
            classifier: Classifier::new(&config.classify),
            rng: SplitMix64::new(config.seed.unwrap_or_default()),
            clock: MonotonicClamp::new(),
            wall_anchor: None,
            next_call_id: 1,
            draining: false,
            template,
            names: Vec::new(),
            scopes: Vec::new(),
            index: SortedMap::new(),
            events: EventQueue::default(),
            last_operation: None,
            default_operation: Arc::from(crate::scope::DEFAULT_OPERATION),
            default_scope: None,
            #[cfg(feature = "fleet")]
            fleet: None,
            #[cfg(feature = "measure")]
            measuring: false,
            #[cfg(feature = "hedging")]
            latencies: crate::hedging::Latencies::default(),
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

    /// Tells the policy which wall-clock time goes with a monotonic reading,
    /// for log timestamps. Hosts call it once (bindings do it for you); the
    /// hot path then stays numeric. Without it, timestamps count from the
    /// Unix epoch as if the monotonic origin were 1970.
    pub fn set_wall_clock(&mut self, now: Instant, wall: WallClock) {
        self.wall_anchor = Some((now, wall));
    }

    /// Starts a logical operation at `now`. Its deadline, key, scope and
    /// jitter stream are fixed here: each call draws its own stream from the
    /// policy's seed, so interleaving calls does not change their delays.
    pub fn start(&mut self, now: Instant, spec: CallSpec<'_>) -> Call {
        let now = self.clock.observe(now);
        let overrides = spec.overrides;
        let id = self.next_call_id;
        self.next_call_id = self.next_call_id.saturating_add(1);
        Call {
            id,
            operation: self.operation_name(spec.operation),
            scope: if spec.scope.is_empty() && spec.operation.is_empty() {
                self.default_scope_index()
            } else {
                self.scope_index(crate::scope::scope_of(spec.scope, spec.operation))
            },
            ticket: None,
            idempotent: spec.idempotent,
            // An empty or overlong key is no key: no server honours it.
            key: spec
                .idempotency_key
                .filter(|key| crate::key::is_valid_key(key))
                .map(Arc::from),
            deadline: Deadline::start(now, &self.config.timeouts),
            attempts: 0,
            max_attempts: overrides
                .and_then(|o| o.max_attempts)
                .unwrap_or(self.config.max_attempts),
            retries: 0,
            backoff: Backoff::new(
                overrides
                    .and_then(|o| o.backoff)
                    .unwrap_or(self.config.backoff),
            ),
            rng: self.rng.split(),
            phase: Phase::Ready,
            last: None,
            run: None,
        }
    }

    /// Per-call settings to start calls with ([`CallSpec::with_overrides`]),
    /// checked by the same rules as the policy's own `max_attempts` and
    /// `backoff` (the schema's `Overrides` section): the errors name
    /// `max_attempts` and `backoff.*` as a config error does.
    pub fn overrides(
        &self,
        max_attempts: Option<u32>,
        backoff: Option<BackoffSpec>,
    ) -> Result<CallOverrides, ConfigError> {
        crate::schema::validate(&crate::schema::sections::Overrides {
            max_attempts,
            backoff,
        })?;
        Ok(CallOverrides {
            max_attempts,
            backoff,
        })
    }

    /// `operation` as a shared name, reusing the last call's if equal.
    fn operation_name(&mut self, operation: &str) -> Arc<str> {
        if operation.is_empty() {
            return Arc::clone(&self.default_operation);
        }
        match &self.last_operation {
            Some(last) if **last == *operation => Arc::clone(last),
            _ => {
                let name: Arc<str> = Arc::from(operation);
                self.last_operation = Some(Arc::clone(&name));
                name
            }
        }
    }

    /// May the next attempt of `call` go out now? If so, under which limits.
    pub fn before_attempt(&mut self, now: Instant, call: &mut Call) -> Admission {
        let now = self.clock.observe(now);
        #[cfg(feature = "fleet")]
        if self.fleet.is_some() {
            self.watch_fleet(now);
        }
        match &call.phase {
            Phase::Finished(Final::GiveUp(g)) => return Admission::Reject(g.clone()),
            Phase::Finished(Final::Done(_)) => {
                // Asking to send again after success is misuse; refuse
                // without rewriting how the call ended.
                let mut g =
                    self.give_up_value(now, call, StopReason::AttemptsExhausted, None, None);
                g.observation =
                    "The call already succeeded; no further attempt is needed.".to_owned();
                return Admission::Reject(g);
            }
            // An attempt abandoned without an outcome frees its probe slot.
            Phase::InFlight { permit, .. } => {
                if let (Some(permit), Some(breaker)) = (*permit, self.breaker_mut(call.scope)) {
                    breaker.release(permit);
                }
            }
            Phase::Ready | Phase::Waiting { .. } => {}
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
        // Attempts abandoned without an outcome still count.
        if call.attempts >= call.max_attempts {
            let reason = StopReason::AttemptsExhausted;
            return Admission::Reject(self.finish(now, call, reason, None, None));
        }
        let permit = match self.breaker_mut(call.scope).map(|b| b.try_acquire(now)) {
            None => None,
            Some(Ok(permit)) => Some(permit),
            Some(Err(rejected)) => {
                let reason = StopReason::CircuitOpen;
                let g = self.finish_at(now, call, reason, None, None, rejected.retry_at);
                return Admission::Reject(g);
            }
        };
        call.attempts = call.attempts.saturating_add(1);
        call.phase = Phase::InFlight {
            started: now,
            permit,
        };
        let first = call.attempts == 1;
        if let Some(scope) = self.scopes.get_mut(call.scope) {
            if first {
                scope.budget.on_first_attempt(now);
            }
            scope.metrics.on_attempt(now, !first);
        }
        self.measure_attempt(call);
        if first {
            self.count_for_fleet(call.scope, now, Tally::REQUEST);
        }
        self.flush(call.scope, now);
        let timeouts = &self.config.timeouts;
        Admission::Proceed(AttemptPlan {
            attempt: call.attempts,
            max_attempts: call.max_attempts,
            timeout_ms: call.deadline.attempt_timeout(now, timeouts),
            connect_timeout_ms: call.deadline.connect_timeout(now, timeouts),
            remaining_ms: call.deadline.remaining(now),
            idempotency_key: call.key.clone(),
        })
    }

    /// What to do after an attempt of `call` ended with `outcome`.
    pub fn on_outcome(&mut self, now: Instant, call: &mut Call, outcome: Outcome<'_>) -> Decision {
        let now = self.clock.observe(now);
        let (started, permit) = match &call.phase {
            Phase::Finished(Final::Done(done)) => return Decision::Done(*done),
            Phase::Finished(Final::GiveUp(g)) => return Decision::GiveUp(g.clone()),
            // An outcome without an admitted attempt still counts: attempts are
            // counted where they are observed, so misuse cannot buy extra tries.
            Phase::Ready | Phase::Waiting { .. } => {
                call.attempts = call.attempts.saturating_add(1);
                (now, None)
            }
            Phase::InFlight { started, permit } => (*started, *permit),
        };

        let safe_to_repeat = call.idempotent || call.key.is_some();
        let (matched, class, observed) = self.classify(&outcome, safe_to_repeat);
        call.last = Some((matched, class));
        self.record_attempt(
            now,
            call,
            matched,
            class,
            permit,
            now.saturating_since(started),
        );
        let excerpt = outcome.detail;

        let retryable = match class {
            Class::Success => {
                let done = Done {
                    attempts: call.attempts,
                    total_ms: call.deadline.elapsed(now),
                };
                call.phase = Phase::Finished(Final::Done(done));
                self.call_finished(now, call, CallOutcome::Success, None);
                self.log(now, call, LogOutcome::Success, 0, None, None);
                self.flush(call.scope, now);
                return Decision::Done(done);
            }
            Class::Deterministic => Err(StopReason::NotRetryable),
            Class::Ambiguous if !self.classifier.may_retry_ambiguous(safe_to_repeat) => {
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
            let reason = StopReason::ServerRefusedRetry;
            return Decision::GiveUp(self.finish(now, call, reason, Some(observed), excerpt));
        }
        if self.draining {
            let reason = StopReason::ShuttingDown;
            return Decision::GiveUp(self.finish(now, call, reason, Some(observed), excerpt));
        }
        if call.attempts >= call.max_attempts {
            let reason = StopReason::AttemptsExhausted;
            return Decision::GiveUp(self.finish(now, call, reason, Some(observed), excerpt));
        }

        // The backoff is always drawn, hint or not, so a call's jitter stream
        // does not depend on which responses carried hints.
        let retry_number = call.retries.saturating_add(1);
        let backoff_ms = call.backoff.delay_ms(retry_number, &mut call.rng);
        let hinted = hint.and_then(|h| h.delay_with_backoff(backoff_ms).map(|d| (d, h.source())));
        let (delay_ms, source) = match hinted {
            Some((ms, s)) => (ms.min(self.config.hints.max_delay_ms), DelaySource::Hint(s)),
            None => (
                backoff_ms,
                DelaySource::Backoff(call.backoff.spec().strategy),
            ),
        };
        let retry_at = now.saturating_add(delay_ms);

        if !call.deadline.leaves_room(now, delay_ms, 1) {
            let (reason, at) = match source {
                DelaySource::Hint(_) => (StopReason::RetryAfterExceedsDeadline, Some(retry_at)),
                DelaySource::Backoff(_) => (StopReason::DeadlineExceeded, None),
            };
            return Decision::GiveUp(self.finish_at(
                now,
                call,
                reason,
                Some(observed),
                excerpt,
                at,
            ));
        }
        // An open breaker would reject the retry anyway: fail fast instead of
        // sleeping first, and say when the breaker may let calls through.
        if let Some(until) = self
            .open_until(call.scope)
            .filter(|until| *until > retry_at)
        {
            let (reason, at) = (StopReason::CircuitOpen, Some(until));
            return Decision::GiveUp(self.finish_at(
                now,
                call,
                reason,
                Some(observed),
                excerpt,
                at,
            ));
        }
        let cost = match matched {
            Matched::Network(NetworkErrorKind::ReadTimeout | NetworkErrorKind::ConnectTimeout) => {
                RetryCost::Timeout
            }
            Matched::Status { status: 429, .. } => RetryCost::Throttling,
            _ => RetryCost::Normal,
        };
        // The run's quota is asked before the scope's budget, so a spent
        // run costs the service's budget nothing.
        if call.run.as_ref().is_some_and(|run| run.remaining() == 0) {
            return Decision::GiveUp(self.run_spent(now, call, observed, excerpt));
        }
        let ticket = match self
            .scopes
            .get_mut(call.scope)
            .map(|s| s.budget.try_retry(now, cost))
        {
            Some(Err(_refusal)) => {
                // A rate limit's wait is the server's schedule: the caller
                // learns when it may try again.
                let at = matches!(source, DelaySource::Hint(_)).then_some(retry_at);
                let reason = StopReason::BudgetExhausted;
                let observed = Some(observed);
                return Decision::GiveUp(self.finish_at(now, call, reason, observed, excerpt, at));
            }
            Some(Ok(ticket)) => {
                self.count_for_fleet(call.scope, now, Tally::RETRY);
                Some(ticket)
            }
            None => None,
        };
        // Another call of the run (in another policy or thread) may have
        // taken the last retry since the check above.
        if call.run.as_ref().is_some_and(|run| !run.try_withdraw()) {
            if let (Some(ticket), Some(scope)) = (ticket, self.scopes.get_mut(call.scope)) {
                scope.budget.release(ticket);
            }
            return Decision::GiveUp(self.run_spent(now, call, observed, excerpt));
        }

        call.ticket = ticket;
        call.retries = retry_number;
        call.phase = Phase::Waiting { until: retry_at };
        let retry = Retry {
            delay_ms,
            attempt: call.attempts,
            matched,
            class,
            source,
            backoff_ms,
        };
        if let Some(scope) = self.scopes.get_mut(call.scope) {
            scope.metrics.on_retry_scheduled(now);
        }
        self.measure_retry(call, matched, delay_ms);
        if self.config.log_records {
            let description = observation::describe(observed);
            let error = Some((matched, description.as_str()));
            self.log(now, call, LogOutcome::Retry, delay_ms, error, Some(source));
        }
        self.flush(call.scope, now);
        Decision::Retry(retry)
    }

    /// Notes that `call`'s request arrived already retried by a layer above
    /// (`retries_above`, from [`crate::host::retries_above`]): a
    /// `nested_retries` event, so the multiplication is seen, not silent.
    /// The host notes it once per call, when it plans the request.
    pub fn note_nested_retries(&mut self, now: Instant, call: &Call, retries_above: u32) {
        let now = self.clock.observe(now);
        let scope = self.names.get(call.scope).map_or("", |n| n).to_owned();
        self.events.push(Event::NestedRetries {
            scope,
            operation: call.operation().to_owned(),
            retries_above,
            at: now,
            message: crate::event::NESTED_RETRIES_MESSAGE,
        });
    }

    /// Cancels `call` (the host's caller gave up). An attempt in flight
    /// releases its breaker slot without counting. Returns the give-up, or
    /// the call's earlier ending if it had already finished.
    pub fn cancel(&mut self, now: Instant, call: &mut Call) -> GiveUp {
        let now = self.clock.observe(now);
        match &call.phase {
            Phase::Finished(Final::GiveUp(g)) => g.clone(),
            Phase::Finished(Final::Done(_)) => {
                self.give_up_value(now, call, StopReason::Cancelled, None, None)
            }
            Phase::InFlight { permit, .. } => {
                if let (Some(permit), Some(breaker)) = (*permit, self.breaker_mut(call.scope)) {
                    breaker.release(permit);
                }
                self.finish(now, call, StopReason::Cancelled, None, None)
            }
            Phase::Ready | Phase::Waiting { .. } => {
                self.finish(now, call, StopReason::Cancelled, None, None)
            }
        }
    }

    /// The host dropped `call` without ending it (its handle was freed, a
    /// hook raised, the caller lost interest): cancels it at the latest
    /// time the policy has seen, so an attempt in flight gives back its
    /// breaker permit (a half-open probe slot above all) and a pending retry
    /// its budget slot. A finished call is left as it ended.
    pub fn abandon(&mut self, call: &mut Call) {
        if !call.is_finished() {
            let now = self.clock.latest();
            let _ = self.cancel(now, call);
        }
    }

    /// Puts the policy into draining: from now on no attempt is admitted and
    /// no retry is scheduled; calls give up with `shutting_down`. Attempts
    /// already in flight report their outcomes as usual, so nothing they
    /// committed is lost.
    pub fn drain(&mut self) {
        self.draining = true;
    }

    /// Whether [`Policy::drain`] was called.
    #[must_use]
    pub const fn is_draining(&self) -> bool {
        self.draining
    }

    /// The next queued event, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop()
    }

    /// Events waiting to be polled.
    #[must_use]
    pub fn pending_events(&self) -> usize {
        self.events.len()
    }

    /// Events dropped because nobody polled the full queue.
    #[must_use]
    pub const fn dropped_events(&self) -> u64 {
        self.events.dropped()
    }

    /// Whether a decision about a response with `status` can depend on its
    /// headers. Only a status this policy may retry (transient, or
    /// ambiguous) takes its wait, or a refusal, from the server's hints, and
    /// only while hints are respected; a 200's or a 404's headers change
    /// nothing. So a host need not gather and pass them: on every response,
    /// that work was most of what reporting a success cost.
    #[must_use]
    pub fn reads_hints(&self, status: u16) -> bool {
        self.config.hints.respect
            && matches!(
                self.classifier.status(status).0,
                Class::Transient | Class::Ambiguous
            )
    }

    /// Tells the breaker and the budget how the attempt went. Only transient
    /// and ambiguous failures count against the service: a 4xx shows it is
    /// up and answering. A 429 counts for neither side of the breaker: the
    /// service answered, and only this client's share is spent, so a burst
    /// of rate limits (which say when to come back) must not cut a whole
    /// API host off for the breaker's cooldown. The retry budget still
    /// counts it: a rate limit is a reason to send less, not more.
    fn record_attempt(
        &mut self,
        now: Instant,
        call: &mut Call,
        matched: Matched,
        class: Class,
        permit: Option<crate::breaker::Permit>,
        duration_ms: u64,
    ) {
        let ticket = call.ticket.take();
        self.record_result(now, call.scope, ticket, matched, class, permit, duration_ms);
    }

    /// [`Policy::record_attempt`] for any attempt of scope `index` (a
    /// hedged call's copies hold their own permits and tickets).
    #[allow(clippy::too_many_arguments)]
    fn record_result(
        &mut self,
        now: Instant,
        index: usize,
        ticket: Option<crate::budget::RetryTicket>,
        matched: Matched,
        class: Class,
        permit: Option<crate::breaker::Permit>,
        duration_ms: u64,
    ) {
        let Some(scope) = self.scopes.get_mut(index) else {
            return;
        };
        let failed = matches!(class, Class::Transient | Class::Ambiguous);
        let rate_limited = matches!(matched, Matched::Status { status: 429, .. });
        if let (Some(permit), Some(breaker)) = (permit, scope.breaker.as_mut()) {
            if rate_limited {
                breaker.release(permit);
            } else if failed {
                breaker.on_failure(now, permit, duration_ms);
            } else {
                breaker.on_success(now, permit, duration_ms);
            }
        }
        if failed {
            scope.budget.on_attempt_failure(now);
            if let Some(ticket) = ticket {
                scope.budget.release(ticket);
            }
        } else {
            scope.budget.on_attempt_success(now, ticket);
        }
    }

    fn classify(
        &self,
        outcome: &Outcome<'_>,
        safe_to_repeat: bool,
    ) -> (Matched, Class, Observed<'static>) {
        match outcome.kind {
            OutcomeKind::Success => (Matched::Success, Class::Success, Observed::Status(200)),
            OutcomeKind::Status(status) => {
                let (class, overridden) = self.classifier.status_for(status, safe_to_repeat);
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
            OutcomeKind::Raised(class) => (
                Matched::Raised(class),
                class,
                Observed::Raised { message: None },
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
}
