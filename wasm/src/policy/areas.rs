//! The two areas of the module's memory a policy shares with its host
//! (their layout is [`crate::abi`]'s): the text area, where the host writes
//! a call's texts, and the plan area, where it reads the last admission's
//! attempt number and timeout and the last decision's delay without a call.

use stoic_core::{Admission, Decision};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{
    DONE, GIVE_UP, MIN_MISUSE_CODE, NOT_ADMITTED, NO_MS, PLAN_ATTEMPT, PLAN_DELAY_MS, PLAN_SLOTS,
    PLAN_TIMEOUT_MS, RETRY, TEXT_AREA_MAX,
};
use crate::units::opt_ms;

use super::{CorePolicy, Slot};

/// The plan area's slots.
pub(super) type Plan = [f64; PLAN_SLOTS];

/// The plan area before any admission: not admitted, no timeout, no delay.
#[allow(clippy::cast_lossless)] // `f64::from` is not a const fn
pub(super) const NO_PLAN: Plan = {
    let mut plan = [NO_MS; PLAN_SLOTS];
    plan[PLAN_ATTEMPT] = NOT_ADMITTED as f64;
    plan
};

/// Keeps `admission` in the call's slot (for `admission()` / `plan*`) and
/// the plan area; returns the attempt number ([`NOT_ADMITTED`]: refused).
pub(super) fn admit(plan: &mut Plan, slot: &mut Slot, admission: Admission) -> u32 {
    let (attempt, timeout) = match &admission {
        // Below the misuse codes, which the runtime would read as misuse.
        Admission::Proceed(plan) => (
            plan.attempt.clamp(1, MIN_MISUSE_CODE - 1),
            opt_ms(plan.timeout_ms),
        ),
        Admission::Reject(_) => (NOT_ADMITTED, NO_MS),
    };
    plan[PLAN_ATTEMPT] = f64::from(attempt);
    plan[PLAN_TIMEOUT_MS] = timeout;
    slot.admission = Some(admission);
    attempt
}

/// Keeps `decision` in the call's slot (for `decision()` / `delayMs()`)
/// and its delay in the plan area; returns its kind ([`DONE`], [`RETRY`],
/// [`GIVE_UP`]).
pub(super) fn keep(plan: &mut Plan, slot: &mut Slot, decision: Decision) -> u32 {
    let (kind, delay) = match &decision {
        Decision::Done(_) => (DONE, NO_MS),
        Decision::Retry(retry) => (RETRY, opt_ms(Some(retry.delay_ms))),
        Decision::GiveUp(_) => (GIVE_UP, NO_MS),
    };
    plan[PLAN_DELAY_MS] = delay;
    slot.decision = Some(decision);
    kind
}

#[wasm_bindgen]
impl CorePolicy {
    /// Where the host writes text for the next call, as an address in the
    /// module's memory. Strings cross the boundary as UTF-8 the host writes
    /// there with `TextEncoder.encodeInto` (tens of ns) rather than through
    /// the glue's string copy (about 20 ns per character) or a fresh
    /// allocation per string; calls then take byte lengths (-1: absent).
    #[wasm_bindgen(js_name = textArea)]
    pub fn text_area(&self) -> u32 {
        u32::try_from(self.text.as_ptr() as usize).unwrap_or(0)
    }

    /// The text area's size in bytes.
    #[wasm_bindgen(js_name = textCapacity)]
    pub fn text_capacity(&self) -> u32 {
        u32::try_from(self.text.len()).unwrap_or(u32::MAX)
    }

    /// Grows the text area to at least `bytes` (up to 16 MiB); the area may
    /// move, so the host reads `textArea()` again.
    #[wasm_bindgen(js_name = reserveText)]
    pub fn reserve_text(&mut self, bytes: u32) {
        let bytes = (bytes as usize).min(TEXT_AREA_MAX);
        if bytes > self.text.len() {
            self.text.resize(bytes, 0);
        }
    }

    /// Where the last admission's attempt number and timeout (ms, -1:
    /// unbounded), then the last decision's delay (ms, -1: not a retry), lie
    /// in the module's memory, as three `f64`: the host reads them right
    /// after `beforeAttempt`, `begin` or an outcome (before running any
    /// callback) instead of calling `admission` or `delayMs`.
    #[wasm_bindgen(js_name = planArea)]
    pub fn plan_area(&self) -> u32 {
        u32::try_from(self.plan.as_ptr() as usize).unwrap_or(0)
    }
}
