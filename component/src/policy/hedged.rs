//! Hedged calls (the core's `hedging` module) as WIT values: the
//! `hedged-call` resource, and the steps the policy's `hedge-*` methods
//! answer. Translation only: the core decides every step.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use stoic_core::hedging::{HedgeStep, HedgedCall as CoreHedged, HedgingConfig};
use stoic_core::schema::Dialect;
use stoic_core::{CallSpec, Instant, Policy as CorePolicy};

use crate::bindings::exports::stoic::engine::policy as wit;
use crate::bindings::exports::stoic::engine::types::{ConfigError, InputError};
use crate::convert::{config, config_error, instant, misuse};

use super::decisions::{done, give_up};
use super::Policy;

/// The `hedged-call` resource: the core's hedged call, the policy that
/// started it (its id, to refuse another policy's hands), and a weak
/// reference to that policy, so a call dropped unfinished gives back its
/// copies' breaker permits and budget slots, as the other bindings do.
#[derive(Debug)]
pub struct HedgedCall {
    policy: u64,
    owner: Weak<RefCell<CorePolicy>>,
    inner: RefCell<CoreHedged>,
}

impl Drop for HedgedCall {
    fn drop(&mut self) {
        let call = self.inner.get_mut();
        if call.is_finished() {
            return;
        }
        // The policy may be gone already (dropped first), and a resource is
        // dropped from outside any method, so the borrow is free; if it were
        // not, leaking the permits beats a panic across the boundary.
        if let Some(policy) = self.owner.upgrade() {
            if let Ok(mut policy) = policy.try_borrow_mut() {
                policy.hedge_abandon(call);
            }
        }
    }
}

impl wit::GuestHedgedCall for HedgedCall {
    fn operation(&self) -> String {
        self.inner.borrow().call().operation().to_owned()
    }

    fn idempotency_key(&self) -> Option<String> {
        self.inner
            .borrow()
            .call()
            .idempotency_key()
            .map(str::to_owned)
    }

    fn finished(&self) -> bool {
        self.inner.borrow().is_finished()
    }

    fn in_flight(&self) -> wit::Copies {
        self.inner.borrow().in_flight().bits()
    }

    fn next_timeout(&self) -> Option<u64> {
        self.inner.borrow().next_timeout().map(Instant::as_millis)
    }
}

/// `hedging-settings`: the settings with every default filled in.
pub(super) fn settings_json(text: &str) -> Result<String, ConfigError> {
    let hedging = config::<HedgingConfig>(text)?;
    Ok(hedging.to_value(Dialect::RUST).to_json_text())
}

/// `start-hedged`: the settings read by the core's schema (errors name the
/// field as the Rust API does), then the core's own refusal of a call that
/// is not safe to repeat.
pub(super) fn start(
    policy: &Policy,
    now_ms: u64,
    spec: &wit::HedgedSpec,
    hedging_json: &str,
) -> Result<wit::HedgedCall, ConfigError> {
    let hedging = config::<HedgingConfig>(hedging_json)?;
    let core = CallSpec::from_host(
        &spec.operation,
        &spec.scope,
        spec.idempotent,
        spec.method.as_deref(),
        spec.idempotency_key.as_deref(),
        None,
    );
    let call = policy
        .inner
        .borrow_mut()
        .start_hedged(instant(now_ms), core, &hedging)
        .map_err(|e| config_error(&e))?;
    Ok(wit::HedgedCall::new(HedgedCall {
        policy: policy.id,
        owner: Rc::downgrade(&policy.inner),
        inner: RefCell::new(call),
    }))
}

/// Runs `f` on the call if `policy` started it; the step it answers, as WIT's.
pub(super) fn drive(
    policy: &Policy,
    call: &wit::HedgedCallBorrow<'_>,
    f: impl FnOnce(&mut CorePolicy, &mut CoreHedged) -> HedgeStep,
) -> Result<wit::HedgeStep, InputError> {
    let call: &HedgedCall = call.get();
    if call.policy != policy.id {
        return Err(misuse("this hedged call was started by another policy"));
    }
    let mut core = call.inner.borrow_mut();
    let step = f(&mut policy.inner.borrow_mut(), &mut core);
    Ok(hedge_step(step))
}

fn hedge_step(step: HedgeStep) -> wit::HedgeStep {
    match step {
        HedgeStep::Send(plan) => wit::HedgeStep::Send(wit::HedgeSend {
            copy: plan.attempt,
            max_copies: plan.max_attempts,
            timeout_ms: plan.timeout_ms,
            connect_timeout_ms: plan.connect_timeout_ms,
            remaining_ms: plan.remaining_ms,
            idempotency_key: plan.idempotency_key.map(|k| k.to_string()),
        }),
        HedgeStep::Wait { until } => wit::HedgeStep::Wait(wit::HedgeWait {
            until_ms: until.map(Instant::as_millis),
        }),
        HedgeStep::Done {
            done: d,
            winner,
            cancel,
        } => wit::HedgeStep::Done(wit::HedgeDone {
            done: done(d),
            winner,
            cancel: cancel.bits(),
        }),
        HedgeStep::GiveUp { give_up: g, cancel } => wit::HedgeStep::GiveUp(wit::HedgeGiveUp {
            give_up: give_up(g),
            cancel: cancel.bits(),
        }),
    }
}
