//! Hedged calls (`stoic_core::hedging`): a call sent as several copies, the
//! first answer winning. Not in the browser build (the `hedging` feature).
//!
//! Kept apart from plain calls: their own slab of handles, and their own
//! area of memory where each step's figures lie (copy, timeout, when to ask
//! again, the copies to cancel), so the host reads a step without an object
//! crossing; `hedgeStep` and `hedgeGiveUp` give the whole step as an object.

use stoic_core::hedging::{HedgeStep, HedgedCall, HedgingConfig};
use stoic_core::schema::{Dialect, Emit, Out};
use stoic_core::{CallSpec, Decision};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::abi::{
    HEDGE_CANCEL, HEDGE_COPY, HEDGE_DONE, HEDGE_GIVE_UP, HEDGE_SEND, HEDGE_SLOTS, HEDGE_TIMEOUT_MS,
    HEDGE_UNTIL_MS, HEDGE_WAIT, NO_MS, UNKNOWN_CALL,
};
use crate::errors::config_error;
use crate::text::{step, text_at};
use crate::units::{instant, opt_ms};
use crate::value::{config_doc, js_emit, read_config};

use super::boundary::unknown_call;
use super::reported::reported;
use super::CorePolicy;

/// A hedged call and the last step the core answered about it.
#[derive(Debug)]
struct Hedged {
    call: HedgedCall,
    last: Option<HedgeStep>,
}

/// The hedged calls of a policy, by handle, and the hedge area.
#[derive(Debug)]
pub(super) struct Hedges {
    calls: Vec<Option<Hedged>>,
    free: Vec<u32>,
    area: Box<[f64; HEDGE_SLOTS]>,
    /// The last `hedging` object read, and what it read as: the same
    /// object again (a `createFetch` factory's, a constant passed to
    /// `retry()`) is not walked again. Reading it was most of what hedging
    /// cost a call whose first copy answered in time (about 6 of 8.5 us).
    last_option: Option<(JsValue, HedgingConfig)>,
}

impl Default for Hedges {
    fn default() -> Self {
        Hedges {
            calls: Vec::new(),
            free: Vec::new(),
            area: Box::new([NO_MS; HEDGE_SLOTS]),
            last_option: None,
        }
    }
}

impl Hedges {
    fn insert(&mut self, call: HedgedCall) -> u32 {
        let entry = Some(Hedged { call, last: None });
        if let Some(handle) = self.free.pop() {
            if let Some(slot) = self.calls.get_mut(handle as usize) {
                *slot = entry;
                return handle;
            }
        }
        self.calls.push(entry);
        u32::try_from(self.calls.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    fn get(&self, handle: u32) -> Option<&Hedged> {
        self.calls.get(handle as usize).and_then(Option::as_ref)
    }
}

/// Reads and checks a call's `hedging` option.
/// Every error names the field from the option down (`hedging.maxHedges`,
/// `hedging.delay.kind`).
fn read_option(hedging: &JsValue) -> Result<HedgingConfig, JsValue> {
    HedgingConfig::from_option(&config_doc(hedging)?, Dialect::JS).map_err(|e| config_error(&e))
}

/// Keeps `step` as the call's last and writes its figures to the area;
/// returns its kind.
fn keep(area: &mut [f64; HEDGE_SLOTS], hedged: &mut Hedged, step: HedgeStep) -> u32 {
    *area = [NO_MS; HEDGE_SLOTS];
    area[HEDGE_CANCEL] = f64::from(step.cancel().bits());
    let kind = match &step {
        HedgeStep::Send(plan) => {
            area[HEDGE_COPY] = f64::from(plan.attempt);
            area[HEDGE_TIMEOUT_MS] = opt_ms(plan.timeout_ms);
            HEDGE_SEND
        }
        HedgeStep::Wait { until } => {
            area[HEDGE_UNTIL_MS] = opt_ms(until.map(|at| at.as_millis()));
            HEDGE_WAIT
        }
        HedgeStep::Done { winner, .. } => {
            area[HEDGE_COPY] = f64::from(*winner);
            HEDGE_DONE
        }
        HedgeStep::GiveUp { .. } => HEDGE_GIVE_UP,
    };
    hedged.last = Some(step);
    kind
}

/// A step as an object: `kind` (`send`, `wait`, `done`, `give_up`), the
/// copy's plan, the wait's `untilMs`, the winner and `done`, or the
/// give-up's fields; `cancel`, and the call's `inFlight` and
/// `nextTimeoutMs` after it.
struct StepView<'a>(&'a HedgeStep, &'a HedgedCall);

impl Emit for StepView<'_> {
    fn emit(&self, o: &mut Out) {
        let StepView(step, call) = self;
        o.code("kind", step.kind());
        match step {
            HedgeStep::Send(plan) => plan.emit(o),
            HedgeStep::Wait { until } => o.opt_instant("until", *until),
            HedgeStep::Done { done, winner, .. } => {
                o.uint("winner", *winner);
                done.emit(o);
            }
            HedgeStep::GiveUp { give_up, .. } => give_up.emit(o),
        }
        o.uints("cancel", step.cancel().iter().map(u64::from));
        o.uints("in_flight", call.in_flight().iter().map(u64::from));
        o.opt_instant("next_timeout", call.next_timeout());
    }
}

#[wasm_bindgen]
impl CorePolicy {
    /// Starts a hedged call named by the text area as `startNamed` reads
    /// it, with `hedging` (`{ maxHedges, delay }`, checked by the core; its
    /// errors name the field as `hedging.maxHedges`, ...).
    /// Returns its handle for the `hedge*` methods. A call not safe to
    /// repeat is refused (`not_idempotent` at `idempotent`).
    #[wasm_bindgen(js_name = startHedged)]
    #[allow(clippy::too_many_arguments)] // as `startWith`: the texts' lengths, not an object
    pub fn start_hedged(
        &mut self,
        now: f64,
        operation_len: i32,
        scope_len: i32,
        idempotent: Option<bool>,
        key_len: i32,
        method: Option<String>,
        hedging: JsValue,
    ) -> Result<u32, JsValue> {
        let config = match &self.hedges.last_option {
            Some((given, config)) if *given == hedging => *config,
            _ => {
                let config = read_option(&hedging)?;
                self.hedges.last_option = Some((hedging, config));
                config
            }
        };
        let operation = text_at(&self.text, 0, operation_len).unwrap_or_default();
        let scope_at = step(operation_len);
        let scope = text_at(&self.text, scope_at, scope_len).unwrap_or_default();
        let key_at = scope_at.saturating_add(step(scope_len));
        let key = text_at(&self.text, key_at, key_len);
        let spec = CallSpec::from_host(operation, scope, idempotent, method.as_deref(), key, None);
        let call = self
            .inner
            .start_hedged(instant(now), spec, &config)
            .map_err(|e| config_error(&e))?;
        Ok(self.hedges.insert(call))
    }

    /// What the hedged call needs now: a `HEDGE_*` step kind, its figures
    /// in the hedge area; [`UNKNOWN_CALL`] for a closed handle.
    #[wasm_bindgen(js_name = hedgePoll)]
    pub fn hedge_poll(&mut self, handle: u32, now: f64) -> u32 {
        let CorePolicy { inner, hedges, .. } = self;
        let Hedges { calls, area, .. } = hedges;
        let Some(hedged) = calls.get_mut(handle as usize).and_then(Option::as_mut) else {
            return UNKNOWN_CALL;
        };
        let step = inner.hedge_poll(instant(now), &mut hedged.call);
        keep(area, hedged, step)
    }

    /// Copy `copy` ended: `kind` is a `COPY_*` code and `code` its status,
    /// network kind or class index; for a status the text area holds the
    /// headers (`name\nvalue\n...`, `headers_len` bytes) then the detail,
    /// otherwise the detail alone (`detail_len` bytes, -1: none). `wall`:
    /// Unix ms now, -1 if unknown. Answers as `hedgePoll` does.
    #[wasm_bindgen(js_name = hedgeOutcome)]
    #[allow(clippy::too_many_arguments)] // numbers cross without an object to read
    pub fn hedge_outcome(
        &mut self,
        handle: u32,
        copy: u32,
        now: f64,
        kind: u32,
        code: u32,
        wall: f64,
        headers_len: i32,
        detail_len: i32,
    ) -> u32 {
        let CorePolicy {
            inner,
            hedges,
            text,
            ..
        } = self;
        let outcome = match reported(inner, text, kind, code, wall, headers_len, detail_len) {
            Ok(outcome) => outcome,
            Err(code) => return code,
        };
        let Hedges { calls, area, .. } = hedges;
        let Some(hedged) = calls.get_mut(handle as usize).and_then(Option::as_mut) else {
            return UNKNOWN_CALL;
        };
        let step = inner.hedge_outcome(instant(now), &mut hedged.call, copy, outcome);
        keep(area, hedged, step)
    }

    /// The caller gave up: ends the hedged call (`cancelled`); every copy
    /// in flight is in `HEDGE_CANCEL`. Answers as `hedgePoll` does.
    #[wasm_bindgen(js_name = hedgeCancel)]
    pub fn hedge_cancel(&mut self, handle: u32, now: f64) -> u32 {
        let CorePolicy { inner, hedges, .. } = self;
        let Hedges { calls, area, .. } = hedges;
        let Some(hedged) = calls.get_mut(handle as usize).and_then(Option::as_mut) else {
            return UNKNOWN_CALL;
        };
        let step = inner.hedge_cancel(instant(now), &mut hedged.call);
        keep(area, hedged, step)
    }

    /// Frees a hedged call's handle; one not ended is abandoned first (its
    /// copies' permits and budget slots given back). Twice is harmless.
    #[wasm_bindgen(js_name = hedgeClose)]
    pub fn hedge_close(&mut self, handle: u32) {
        let CorePolicy { inner, hedges, .. } = self;
        if let Some(entry) = hedges.calls.get_mut(handle as usize) {
            if let Some(hedged) = entry.as_mut() {
                inner.hedge_abandon(&mut hedged.call);
                *entry = None;
                hedges.free.push(handle);
            }
        }
    }

    /// The last step as an object (see `StepView`), or null.
    #[wasm_bindgen(js_name = hedgeStep)]
    pub fn hedge_step(&self, handle: u32) -> Result<JsValue, JsValue> {
        let hedged = self.hedges.get(handle).ok_or_else(unknown_call)?;
        Ok(hedged
            .last
            .as_ref()
            .map_or(JsValue::NULL, |step| js_emit(&StepView(step, &hedged.call))))
    }

    /// The give-up decision (`{ kind: "give_up", reason, ... }`) if the
    /// last step gave up, else null.
    #[wasm_bindgen(js_name = hedgeGiveUp)]
    pub fn hedge_give_up(&self, handle: u32) -> Result<JsValue, JsValue> {
        let hedged = self.hedges.get(handle).ok_or_else(unknown_call)?;
        Ok(match &hedged.last {
            Some(HedgeStep::GiveUp { give_up, .. }) => js_emit(&Decision::GiveUp(give_up.clone())),
            _ => JsValue::NULL,
        })
    }

    /// Where the hedge area's `HEDGE_SLOTS` `f64` lie in the module's
    /// memory: the last step's copy, timeout, time to ask again and copies
    /// to cancel, read right after a `hedge*` method returns.
    #[wasm_bindgen(js_name = hedgeArea)]
    pub fn hedge_area(&self) -> u32 {
        u32::try_from(self.hedges.area.as_ptr() as usize).unwrap_or(0)
    }

    /// The latencies `scope` holds for quantile hedge delays.
    #[wasm_bindgen(js_name = latencySamples)]
    pub fn latency_samples(&self, scope: &str) -> u32 {
        u32::try_from(self.inner.latency_samples(scope)).unwrap_or(u32::MAX)
    }

    /// The hedge delay a call of `scope` with `hedging` would wait now, in
    /// ms; -1 while a quantile delay has too few latencies.
    #[wasm_bindgen(js_name = hedgeDelayMs)]
    pub fn hedge_delay_ms(&self, scope: &str, hedging: JsValue) -> Result<f64, JsValue> {
        let config: HedgingConfig = read_config(&hedging)?;
        Ok(opt_ms(self.inner.hedge_delay_ms(scope, &config)))
    }
}

/// Hedging settings with every default filled in (`{ maxHedges, delay }`),
/// or the core's `ConfigError` naming the field as the caller spelled it.
#[wasm_bindgen(js_name = hedgingConfig)]
pub fn hedging_config(hedging: JsValue) -> Result<JsValue, JsValue> {
    let config: HedgingConfig = read_config(&hedging)?;
    Ok(js_emit(&config))
}
