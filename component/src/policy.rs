//! `policy`: the engine's per-call decisions, on typed values.

use std::cell::RefCell;
use std::rc::Rc;

use stoic_core::backoff::BackoffSpec;
use stoic_core::hedging::HedgingConfig;
use stoic_core::{
    Call as CoreCall, CallSpec, CallStep, Outcome, OutcomeKind, Policy as CorePolicy, PolicyState,
    WallClock,
};

use crate::bindings::exports::stoic::engine::policy::{
    self as wit, Admission as WitAdmission, CallBorrow, CallSpec as WitSpec,
    Decision as WitDecision, Event, Guest, GuestCall, GuestPolicy, HedgeStep as WitHedgeStep,
    HedgedCallBorrow, HedgedSpec, Outcome as WitOutcome, OutcomeKind as WitKind, RestoreReport,
};
use crate::bindings::exports::stoic::engine::types::{BreakerState, ConfigError, InputError};
use crate::convert::{
    breaker_state, class_in, config, config_error, input_error, instant, json, misuse, network_in,
};
use crate::Engine;

mod decisions;
mod events;
mod hedged;

pub(crate) use events::{log_record, transition};
pub use hedged::HedgedCall;

/// Policies are numbered so a call is only ever driven by the policy that
/// started it (its scope index means nothing to another policy).
static NEXT_POLICY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The `policy` resource. The core's policy is shared (`Rc`) only so a
/// hedged call dropped unfinished can give its copies' permits back to it.
#[derive(Debug)]
pub struct Policy {
    id: u64,
    inner: Rc<RefCell<CorePolicy>>,
}

/// The `call` resource: the core's call, and the policy it belongs to.
#[derive(Debug)]
pub struct Call {
    policy: u64,
    inner: RefCell<CoreCall>,
}

impl Guest for Engine {
    type Policy = Policy;
    type Call = Call;
    type HedgedCall = HedgedCall;

    fn fleet_redis_script() -> String {
        stoic_core::fleet::REDIS_SCRIPT.to_owned()
    }

    fn hedging_settings(hedging_json: String) -> Result<String, ConfigError> {
        hedged::settings_json(&hedging_json)
    }
}

impl GuestCall for Call {
    fn operation(&self) -> String {
        self.inner.borrow().operation().to_owned()
    }

    fn idempotency_key(&self) -> Option<String> {
        self.inner.borrow().idempotency_key().map(str::to_owned)
    }

    fn finished(&self) -> bool {
        self.inner.borrow().is_finished()
    }
}

fn foreign_call() -> InputError {
    misuse("this call was started by another policy")
}

impl Policy {
    /// The call, if this policy started it, with the step checked.
    fn drive<T>(
        &self,
        call: &CallBorrow<'_>,
        step: Option<CallStep>,
        f: impl FnOnce(&mut CorePolicy, &mut CoreCall) -> T,
    ) -> Result<T, InputError> {
        let call: &Call = call.get();
        if call.policy != self.id {
            return Err(foreign_call());
        }
        let mut core = call.inner.borrow_mut();
        if let Some(step) = step {
            core.check_step(step).map_err(|e| input_error(&e))?;
        }
        Ok(f(&mut self.inner.borrow_mut(), &mut core))
    }
}

impl Policy {
    /// An attempt's (or a copy's) outcome as the core's, checked: a
    /// failure of class success is refused (`not_a_failure`).
    fn outcome_in<'a>(&self, outcome: &'a WitOutcome) -> Result<Outcome<'a>, InputError> {
        let detail = outcome.detail.as_deref();
        let simple = |kind| Outcome {
            kind,
            hint: None,
            detail,
        };
        let core = match outcome.kind {
            WitKind::Success => simple(OutcomeKind::Success),
            // Only a response's headers are read, by the core's one rule.
            WitKind::Status(status) => {
                let wall = outcome.wall_now_unix_ms.map(WallClock::from_unix_millis);
                let pairs = outcome
                    .headers
                    .iter()
                    .map(|(n, v)| (n.as_str(), v.as_str()));
                let response = self.inner.borrow().response_outcome(status, pairs, wall);
                Outcome { detail, ..response }
            }
            WitKind::Network(kind) => simple(OutcomeKind::Network(network_in(kind))),
            WitKind::Rejected(class) => simple(OutcomeKind::Rejected(class_in(class))),
            WitKind::Raised(class) => simple(OutcomeKind::Raised(class_in(class))),
        };
        core.check().map_err(|e| input_error(&e))?;
        Ok(core)
    }
}

impl GuestPolicy for Policy {
    fn create(config_json: String) -> Result<wit::Policy, ConfigError> {
        let inner = CorePolicy::from_json(&config_json).map_err(|e| config_error(&e))?;
        let id = NEXT_POLICY.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(wit::Policy::new(Policy {
            id,
            inner: Rc::new(RefCell::new(inner)),
        }))
    }

    fn start(&self, now_ms: u64, spec: WitSpec) -> Result<wit::Call, ConfigError> {
        let mut policy = self.inner.borrow_mut();
        let backoff = match &spec.backoff_json {
            Some(text) => Some(config::<BackoffSpec>(text)?),
            None => None,
        };
        let overrides = match (spec.max_attempts, backoff) {
            (None, None) => None,
            (max_attempts, backoff) => Some(
                policy
                    .overrides(max_attempts, backoff)
                    .map_err(|e| config_error(&e))?,
            ),
        };
        let core = CallSpec::from_host(
            &spec.operation,
            &spec.scope,
            spec.idempotent,
            spec.method.as_deref(),
            spec.idempotency_key.as_deref(),
            overrides.as_ref(),
        );
        let call = policy.start(instant(now_ms), core);
        Ok(wit::Call::new(Call {
            policy: self.id,
            inner: RefCell::new(call),
        }))
    }

    fn before_attempt(
        &self,
        now_ms: u64,
        call: CallBorrow<'_>,
    ) -> Result<WitAdmission, InputError> {
        self.drive(&call, Some(CallStep::BeforeAttempt), |policy, call| {
            decisions::admission(policy.before_attempt(instant(now_ms), call))
        })
    }

    fn on_outcome(
        &self,
        now_ms: u64,
        call: CallBorrow<'_>,
        outcome: WitOutcome,
    ) -> Result<WitDecision, InputError> {
        let core = self.outcome_in(&outcome)?;
        self.drive(&call, Some(CallStep::Outcome), |policy, call| {
            decisions::decision(policy.on_outcome(instant(now_ms), call, core))
        })
    }

    fn cancel(&self, now_ms: u64, call: CallBorrow<'_>) -> Result<wit::GiveUp, InputError> {
        self.drive(&call, None, |policy, call| {
            decisions::give_up(policy.cancel(instant(now_ms), call))
        })
    }

    fn start_hedged(
        &self,
        now_ms: u64,
        spec: HedgedSpec,
        hedging_json: String,
    ) -> Result<wit::HedgedCall, ConfigError> {
        hedged::start(self, now_ms, &spec, &hedging_json)
    }

    fn hedge_poll(
        &self,
        now_ms: u64,
        call: HedgedCallBorrow<'_>,
    ) -> Result<WitHedgeStep, InputError> {
        hedged::drive(self, &call, |policy, call| {
            policy.hedge_poll(instant(now_ms), call)
        })
    }

    fn hedge_outcome(
        &self,
        now_ms: u64,
        call: HedgedCallBorrow<'_>,
        copy: u32,
        outcome: WitOutcome,
    ) -> Result<WitHedgeStep, InputError> {
        let core = self.outcome_in(&outcome)?;
        hedged::drive(self, &call, |policy, call| {
            policy.hedge_outcome(instant(now_ms), call, copy, core)
        })
    }

    fn hedge_cancel(
        &self,
        now_ms: u64,
        call: HedgedCallBorrow<'_>,
    ) -> Result<WitHedgeStep, InputError> {
        hedged::drive(self, &call, |policy, call| {
            policy.hedge_cancel(instant(now_ms), call)
        })
    }

    fn latency_samples(&self, scope: String) -> u32 {
        let samples = self.inner.borrow().latency_samples(&scope);
        u32::try_from(samples).unwrap_or(u32::MAX)
    }

    fn hedge_delay_ms(
        &self,
        scope: String,
        hedging_json: String,
    ) -> Result<Option<u64>, ConfigError> {
        let hedging = config::<HedgingConfig>(&hedging_json)?;
        Ok(self.inner.borrow().hedge_delay_ms(&scope, &hedging))
    }

    fn drain(&self) {
        self.inner.borrow_mut().drain();
    }

    fn set_measuring(&self, on: bool) {
        self.inner.borrow_mut().set_measuring(on);
    }

    fn measuring(&self) -> bool {
        self.inner.borrow().is_measuring()
    }

    fn set_wall_clock(&self, now_ms: u64, wall_unix_ms: u64) {
        self.inner
            .borrow_mut()
            .set_wall_clock(instant(now_ms), WallClock::from_unix_millis(wall_unix_ms));
    }

    fn poll_event(&self) -> Option<Event> {
        self.inner.borrow_mut().poll_event().map(events::event)
    }

    fn next_timeout(&self) -> Option<u64> {
        self.inner
            .borrow()
            .next_timeout()
            .map(stoic_core::Instant::as_millis)
    }

    fn reads_hints(&self, status: u16) -> bool {
        self.inner.borrow().reads_hints(status)
    }

    fn breaker_state(&self, scope: String) -> Option<BreakerState> {
        self.inner.borrow().breaker_state(&scope).map(breaker_state)
    }

    fn budget_status_json(&self, now_ms: u64, scope: String) -> Option<String> {
        let status = self.inner.borrow().budget_status(instant(now_ms), &scope);
        status.map(|s| json(&s))
    }

    fn metrics_json(&self) -> Vec<(String, String)> {
        let metrics = self.inner.borrow().metrics();
        metrics
            .into_iter()
            .map(|(scope, m)| (scope, json(&m)))
            .collect()
    }

    fn snapshot(&self) -> String {
        self.inner.borrow().snapshot_json()
    }

    fn fleet_export(&self, now_ms: u64, store_now_ms: u64) -> (u64, Vec<(String, String)>) {
        let delta = self
            .inner
            .borrow_mut()
            .fleet_export(instant(now_ms), store_now_ms);
        (delta.seq, delta.scope_texts())
    }

    fn fleet_apply(&self, now_ms: u64, replies: Vec<String>) -> Result<(), InputError> {
        let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
        self.inner
            .borrow_mut()
            .fleet_apply_replies(instant(now_ms), &replies)
            .map_err(|e| input_error(&e))
    }

    fn fleet_failed(&self, now_ms: u64) {
        self.inner.borrow_mut().fleet_failed(instant(now_ms));
    }

    fn fleet_health(&self, now_ms: u64) -> String {
        self.inner
            .borrow()
            .fleet_health(instant(now_ms))
            .code()
            .to_owned()
    }

    fn fleet_has_news(&self) -> bool {
        self.inner.borrow().fleet_has_news()
    }

    fn restore(&self, snapshot: String) -> Result<RestoreReport, InputError> {
        let state = PolicyState::from_json(&snapshot).map_err(|e| input_error(&e))?;
        let report = self
            .inner
            .borrow_mut()
            .restore_state(state)
            .map_err(|e| input_error(&e))?;
        Ok(RestoreReport {
            restored: report.restored,
            reset: report.reset,
        })
    }
}
