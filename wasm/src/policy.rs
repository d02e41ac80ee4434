//! `CorePolicy`: one `stoic_core::Policy` and the calls in flight.
//!
//! Calls live in a slab inside the policy and JavaScript holds integer
//! handles, so starting a call allocates no JS object and registers nothing
//! with the garbage collector. The TypeScript runtime closes every handle it
//! opens (`close`), and wraps public `Call` objects in a finalizer.

use stoic_core::{
    Admission, Call, CallSpec, CallStep, Config, Decision, Outcome, Policy, WallClock,
};

use stoic_core::schema::sections::Overrides;
use stoic_core::schema::{Dialect, Value};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::abi::{
    ABSENT_TEXT, COPY_NETWORK, COPY_RAISED, COPY_REJECTED, COPY_STATUS, MISUSE, TEXT_AREA_BYTES,
    UNKNOWN_CALL,
};
use crate::errors::config_error;
use crate::object::set;
use crate::random;
use crate::run::CoreRunQuota;
use crate::text::{step, text_at};
use crate::units::{instant, ms, opt_ms};
use crate::value::{config_doc, read_config};
use crate::value::{js_emit, MAX_SAFE_INTEGER};

use areas::{admit, keep, Plan, NO_PLAN};
pub use boundary::boundary_error;
use boundary::unknown_call;
use reported::reported;

mod areas;
mod boundary;
#[cfg(feature = "fleet")]
pub(crate) mod fleet;
#[cfg(feature = "hedging")]
pub(crate) mod hedging;
mod reported;
mod shared_state;
#[cfg(feature = "snapshot")]
mod snapshot;

/// A call in flight and the core's last answers about it, kept per call:
/// no callback run between a report and its reading (an event handler that
/// decides another call on the same policy) can make one call read
/// another's answer.
#[derive(Debug)]
struct Slot {
    call: Call,
    admission: Option<Admission>,
    decision: Option<Decision>,
}

/// The open call behind `handle`.
fn slot(calls: &mut [Option<Slot>], handle: u32) -> Result<&mut Slot, JsValue> {
    calls
        .get_mut(handle as usize)
        .and_then(Option::as_mut)
        .ok_or_else(unknown_call)
}

/// The open call behind `handle`, for hot paths that answer with codes.
fn open(calls: &mut [Option<Slot>], handle: u32) -> Option<&mut Slot> {
    calls.get_mut(handle as usize).and_then(Option::as_mut)
}

/// A policy: config, shared state (breakers, budgets, metrics per scope),
/// and the calls in flight.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CorePolicy {
    inner: Policy,
    calls: Vec<Option<Slot>>,
    free: Vec<u32>,
    text: Vec<u8>,
    /// The last admission's attempt number and timeout, and the last
    /// decision's delay, where the host reads them without a call (see
    /// `planArea`).
    plan: Box<Plan>,
    /// The hedged calls, in a slab of their own (`policy/hedging.rs`).
    #[cfg(feature = "hedging")]
    hedges: hedging::Hedges,
}

impl CorePolicy {
    /// Starts a call named by the text area: `operation`, then `scope`,
    /// then the idempotency key (`key_len` -1: none), each `*_len` bytes;
    /// idempotent as the caller said, else as its HTTP `method` is, else
    /// not (`CallSpec::from_host`, the rule every binding follows).
    #[allow(clippy::too_many_arguments)]
    fn start_from_text(
        &mut self,
        now: f64,
        operation_len: i32,
        scope_len: i32,
        idempotent: Option<bool>,
        key_len: i32,
        method: Option<&str>,
        overrides: Option<&stoic_core::CallOverrides>,
    ) -> u32 {
        let operation = text_at(&self.text, 0, operation_len).unwrap_or_default();
        let scope_at = step(operation_len);
        let scope = text_at(&self.text, scope_at, scope_len).unwrap_or_default();
        let key = text_at(
            &self.text,
            scope_at.saturating_add(step(scope_len)),
            key_len,
        );
        let spec = CallSpec::from_host(operation, scope, idempotent, method, key, overrides);
        let call = self.inner.start(instant(now), spec);
        self.insert(call)
    }
}

#[wasm_bindgen]
impl CorePolicy {
    /// Builds a policy from a config object (camelCase keys; the core's
    /// snake_case is accepted too). A config without `seed` gets one from
    /// `crypto.getRandomValues`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<CorePolicy, JsValue> {
        let mut doc = config_doc(&config)?;
        doc.set_default("seed", || random::seed().map(|s| Value::Int(i128::from(s))))?;
        let parsed = Config::from_value(&doc, Dialect::JS).map_err(|e| config_error(&e))?;
        let inner = Policy::new(parsed).map_err(|e| config_error(&e))?;
        Ok(CorePolicy {
            inner,
            calls: Vec::new(),
            free: Vec::new(),
            text: vec![0; TEXT_AREA_BYTES],
            plan: Box::new(NO_PLAN),
            #[cfg(feature = "hedging")]
            hedges: hedging::Hedges::default(),
        })
    }

    /// The effective config (defaults filled in), camelCase keys; a seed
    /// beyond 2^53 is a BigInt (a number would round it).
    pub fn config(&self) -> JsValue {
        let config = self.inner.config();
        let value = js_emit(config);
        // The one integer of a config that may pass 2^53, where the JSON
        // the object crossed as stops being exact.
        if let Some(seed) = config.seed.filter(|&s| s > MAX_SAFE_INTEGER) {
            set(
                &value.clone().into(),
                "seed",
                &js_sys::BigInt::from(seed).into(),
            );
        }
        value
    }

    /// The most characters of a body excerpt an observation quotes, so the
    /// host reads no more of a failed response than that.
    #[wasm_bindgen(js_name = maxExcerptChars)]
    pub fn max_excerpt_chars(&self) -> u32 {
        self.inner.config().observation.max_excerpt_chars
    }

    /// Pairs a monotonic reading with Unix milliseconds, for log timestamps.
    #[wasm_bindgen(js_name = setWallClock)]
    pub fn set_wall_clock(&mut self, now: f64, wall: f64) {
        self.inner
            .set_wall_clock(instant(now), WallClock::from_unix_millis(ms(wall)));
    }

    /// Keeps a new call in a free slot (or a new one); returns its handle.
    fn insert(&mut self, call: Call) -> u32 {
        let slot = Slot {
            call,
            admission: None,
            decision: None,
        };
        if let Some(handle) = self.free.pop() {
            if let Some(free) = self.calls.get_mut(handle as usize) {
                *free = Some(slot);
                return handle;
            }
        }
        self.calls.push(Some(slot));
        u32::try_from(self.calls.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// Starts an unnamed call in the default scope (all numbers: the hot path).
    pub fn start(&mut self, now: f64, idempotent: bool) -> u32 {
        let call = self
            .inner
            .start(instant(now), CallSpec::new("").idempotent(idempotent));
        self.insert(call)
    }

    /// Starts a call named by the text area: `operation`, then `scope`, then
    /// the idempotency key (`key_len` -1: none), each `*_len` bytes long.
    /// `idempotent` undefined: as the HTTP `method` is (none: not).
    #[wasm_bindgen(js_name = startNamed)]
    pub fn start_named(
        &mut self,
        now: f64,
        operation_len: i32,
        scope_len: i32,
        idempotent: Option<bool>,
        key_len: i32,
        method: Option<String>,
    ) -> u32 {
        self.start_from_text(
            now,
            operation_len,
            scope_len,
            idempotent,
            key_len,
            method.as_deref(),
            None,
        )
    }

    /// `startNamed` with per-call settings: `overrides` is `{ maxAttempts,
    /// backoff }` (either may be absent), checked as the policy's own config
    /// would be; the breaker and the budget stay the policy's.
    #[wasm_bindgen(js_name = startWith)]
    // Flat arguments: numbers cross the boundary without an object to read.
    #[allow(clippy::too_many_arguments)]
    pub fn start_with(
        &mut self,
        now: f64,
        operation_len: i32,
        scope_len: i32,
        idempotent: Option<bool>,
        key_len: i32,
        method: Option<String>,
        given: JsValue,
    ) -> Result<u32, JsValue> {
        let wire: Overrides = read_config(&given)?;
        let overrides = self
            .inner
            .overrides(wire.max_attempts, wire.backoff)
            .map_err(|e| config_error(&e))?;
        Ok(self.start_from_text(
            now,
            operation_len,
            scope_len,
            idempotent,
            key_len,
            method.as_deref(),
            Some(&overrides),
        ))
    }

    /// Frees a call's slot. Closing twice is harmless.
    pub fn close(&mut self, handle: u32) {
        let CorePolicy {
            inner, calls, free, ..
        } = self;
        if let Some(entry) = calls.get_mut(handle as usize) {
            if let Some(open) = entry.as_mut() {
                // An unfinished call gives back its breaker permit and
                // budget slot (a hook threw, the runtime lost it).
                inner.abandon(&mut open.call);
                // Dropped where it lies, not moved out first.
                *entry = None;
                free.push(handle);
            }
        }
    }

    /// Makes the call one of a run's: each retry it is granted also takes
    /// one of the run's (`stoic/agents`). Join before the first outcome.
    #[wasm_bindgen(js_name = joinRun)]
    pub fn join_run(&mut self, handle: u32, run: &CoreRunQuota) -> Result<(), JsValue> {
        slot(&mut self.calls, handle)?.call.join_run(&run.quota);
        Ok(())
    }

    /// Reads the value of the header a layer above marks its retries with
    /// (`nestedRetryHeader()`) on the call's request: when it says the
    /// request is already a retry, queues a `nested_retries` event and
    /// returns which retry it was; else 0 (garbage is ignored).
    #[wasm_bindgen(js_name = noteRetriesAbove)]
    pub fn note_retries_above(
        &mut self,
        handle: u32,
        now: f64,
        value: &str,
    ) -> Result<u32, JsValue> {
        let CorePolicy { inner, calls, .. } = self;
        let slot = slot(calls, handle)?;
        let Some(n) = stoic_core::host::retries_above(value) else {
            return Ok(0);
        };
        inner.note_nested_retries(instant(now), &slot.call, n);
        Ok(n)
    }

    /// The call's idempotency key, if it has one.
    #[wasm_bindgen(js_name = callKey)]
    pub fn call_key(&mut self, handle: u32) -> Result<Option<String>, JsValue> {
        Ok(slot(&mut self.calls, handle)?
            .call
            .idempotency_key()
            .map(str::to_owned))
    }

    /// May the next attempt go out? Returns its number (1 for the first),
    /// or 0 when the call is over; details via `plan*` and `admission`.
    /// [`UNKNOWN_CALL`] for a closed handle, [`MISUSE`] while an attempt is
    /// in flight (see [`boundary_error`]).
    #[wasm_bindgen(js_name = beforeAttempt)]
    pub fn before_attempt(&mut self, handle: u32, now: f64) -> u32 {
        // Disjoint field borrows: the call stays in its slot (no moves).
        let CorePolicy {
            inner, calls, plan, ..
        } = self;
        let Some(slot) = open(calls, handle) else {
            return UNKNOWN_CALL;
        };
        if slot.call.check_step(CallStep::BeforeAttempt).is_err() {
            return MISUSE;
        }
        let admission = inner.before_attempt(instant(now), &mut slot.call);
        admit(plan, slot, admission)
    }
}

/// Reports `outcome` for the call in `slot`, refusing a report with no
/// admitted attempt; returns the decision kind or [`MISUSE`].
fn decide(
    inner: &mut Policy,
    plan: &mut Plan,
    slot: &mut Slot,
    now: f64,
    outcome: Outcome<'_>,
) -> u32 {
    if slot.call.check_step(CallStep::Outcome).is_err() {
        return MISUSE;
    }
    let decision = inner.on_outcome(instant(now), &mut slot.call, outcome);
    keep(plan, slot, decision)
}

#[wasm_bindgen]
impl CorePolicy {
    /// `start` and the first `beforeAttempt` in one call (the hot path of
    /// `retry()`): returns the handle; the attempt number (0: not admitted)
    /// and its timeout are in the plan area.
    pub fn begin(&mut self, now: f64, idempotent: bool) -> u32 {
        let at = instant(now);
        let call = self
            .inner
            .start(at, CallSpec::new("").idempotent(idempotent));
        // Admitted where it is kept: a call is a few hundred bytes, and each
        // move of it is a `memory.copy` on the hot path.
        let handle = self.insert(call);
        let CorePolicy {
            inner, calls, plan, ..
        } = self;
        if let Some(slot) = open(calls, handle) {
            let admission = inner.before_attempt(at, &mut slot.call);
            admit(plan, slot, admission);
        }
        handle
    }

    /// `onSuccess`, then `close` if that ended the call (the hot path of
    /// `retry()`). Returns the decision kind, or a misuse code.
    pub fn succeed(&mut self, handle: u32, now: f64) -> u32 {
        let kind = self.on_success(handle, now);
        if kind == 0 {
            self.close(handle);
        }
        kind
    }

    /// The call's last admission as an object (`{kind: "proceed", attempt,
    /// ...}` or `{kind: "reject", reason, observation, ...}`), or null.
    pub fn admission(&self, handle: u32) -> JsValue {
        self.calls
            .get(handle as usize)
            .and_then(Option::as_ref)
            .and_then(|slot| slot.admission.as_ref())
            .map_or(JsValue::NULL, |item| js_emit(item))
    }

    /// Reports attempt `handle`'s outcome as the host gave it (see
    /// [`reported`]); answers the decision kind, or a misuse code.
    #[allow(clippy::too_many_arguments)] // the host's numbers, one per argument
    fn report(
        &mut self,
        handle: u32,
        now: f64,
        kind: u32,
        code: u32,
        wall: f64,
        headers_len: i32,
        detail_len: i32,
    ) -> u32 {
        let CorePolicy {
            inner,
            calls,
            text,
            plan,
            ..
        } = self;
        let outcome = match reported(inner, text, kind, code, wall, headers_len, detail_len) {
            Ok(outcome) => outcome,
            Err(code) => return code,
        };
        let Some(slot) = open(calls, handle) else {
            return UNKNOWN_CALL;
        };
        decide(inner, plan, slot, now, outcome)
    }

    /// The attempt succeeded. Returns the decision kind (0 done, 1 retry,
    /// 2 give up).
    #[wasm_bindgen(js_name = onSuccess)]
    pub fn on_success(&mut self, handle: u32, now: f64) -> u32 {
        let CorePolicy {
            inner, calls, plan, ..
        } = self;
        let Some(slot) = open(calls, handle) else {
            return UNKNOWN_CALL;
        };
        decide(inner, plan, slot, now, Outcome::success())
    }

    /// Whether the decision on a response with `status` can depend on its
    /// headers (`Policy::reads_hints`): when not, the host passes none, and
    /// saves gathering them on every success.
    #[wasm_bindgen(js_name = readsHints)]
    pub fn reads_hints(&self, status: u16) -> bool {
        self.inner.reads_hints(status)
    }

    /// An HTTP response arrived. `headers` is `name\nvalue\n...` (for server
    /// hints), `wall` the Unix ms now (-1 if unknown), `detail` a body excerpt.
    /// Text arrives as UTF-8 bytes: the host encodes with `TextEncoder`, which
    /// is many times faster than the glue's per-character string copy.
    #[wasm_bindgen(js_name = onStatus)]
    pub fn on_status(
        &mut self,
        handle: u32,
        now: f64,
        status: u16,
        wall: f64,
        headers_len: i32,
        detail_len: i32,
    ) -> u32 {
        let code = u32::from(status);
        self.report(
            handle,
            now,
            COPY_STATUS,
            code,
            wall,
            headers_len,
            detail_len,
        )
    }

    /// A failure without a response; `kind` indexes `networkKinds()`; the
    /// detail (`detail_len` bytes, -1: none) is at the start of the text area.
    #[wasm_bindgen(js_name = onNetwork)]
    pub fn on_network(&mut self, handle: u32, now: f64, kind: u32, detail_len: i32) -> u32 {
        self.report(
            handle,
            now,
            COPY_NETWORK,
            kind,
            -1.0,
            ABSENT_TEXT,
            detail_len,
        )
    }

    /// The host rejected the result as a failure of a class; `class` indexes
    /// `classes()`; the detail is at the start of the text area.
    #[wasm_bindgen(js_name = onRejected)]
    pub fn on_rejected(&mut self, handle: u32, now: f64, class: u32, detail_len: i32) -> u32 {
        self.report(
            handle,
            now,
            COPY_REJECTED,
            class,
            -1.0,
            ABSENT_TEXT,
            detail_len,
        )
    }

    /// The caller's own code raised an exception the host classified as
    /// `class` (indexes `classes()`); its type and message are at the start
    /// of the text area.
    #[wasm_bindgen(js_name = onRaised)]
    pub fn on_raised(&mut self, handle: u32, now: f64, class: u32, detail_len: i32) -> u32 {
        self.report(
            handle,
            now,
            COPY_RAISED,
            class,
            -1.0,
            ABSENT_TEXT,
            detail_len,
        )
    }

    /// The call's last decision's delay if it was a retry, else -1.
    #[wasm_bindgen(js_name = delayMs)]
    pub fn delay_ms(&self, handle: u32) -> f64 {
        match self.calls.get(handle as usize).and_then(Option::as_ref) {
            Some(Slot {
                decision: Some(Decision::Retry(retry)),
                ..
            }) => opt_ms(Some(retry.delay_ms)),
            _ => -1.0,
        }
    }

    /// The call's last decision as an object (`{kind: "retry", delayMs,
    /// ...}`), or null.
    pub fn decision(&self, handle: u32) -> JsValue {
        self.calls
            .get(handle as usize)
            .and_then(Option::as_ref)
            .and_then(|slot| slot.decision.as_ref())
            .map_or(JsValue::NULL, |item| js_emit(item))
    }

    /// Cancels the call; returns the give-up object (`kind: "give_up"`).
    pub fn cancel(&mut self, handle: u32, now: f64) -> Result<JsValue, JsValue> {
        let CorePolicy {
            inner, calls, plan, ..
        } = self;
        let slot = slot(calls, handle)?;
        let give_up = inner.cancel(instant(now), &mut slot.call);
        let decision = Decision::GiveUp(give_up);
        let value = js_emit(&decision);
        keep(plan, slot, decision);
        Ok(value)
    }
}
