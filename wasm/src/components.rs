//! The core's standalone components, for hosts that want one piece without
//! a whole policy (a circuit breaker around a client, a retry budget, the
//! metrics record, a seeded backoff schedule). Each wraps a core type and
//! converts in and out; tokens the host hands back (permits, tickets) cross
//! as the plain objects the core serializes.

use stoic_core::backoff::SeededBackoff;
use stoic_core::breaker::{Breaker, BreakerConfig, Permit};
use stoic_core::budget::{RetryBudget, RetryBudgetConfig, RetryCost, RetryTicket};
use stoic_core::record::{AlertConfig, CallOutcome, CallSummary, Metrics};
use stoic_core::schema::sections::SeededSpec;
use stoic_core::state::{read_snapshot, write_snapshot};
use stoic_core::Instant;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::data::read_data;
use crate::errors::{config_error, input_error, not_one_of};
use crate::object::set;
use crate::random;
use crate::units::{instant, ms, opt_ms};
use crate::value::js_emit;
use crate::value::read_config;

/// A seeded backoff schedule (`new Backoff({strategy, baseMs, capMs,
/// multiplier, seed})`); stateful for decorrelated jitter.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CoreBackoff {
    inner: SeededBackoff,
}

#[wasm_bindgen]
impl CoreBackoff {
    /// Validates the spec (`{strategy, baseMs, capMs, multiplier, seed}`);
    /// `seed` (number or BigInt) defaults to a random one.
    #[wasm_bindgen(constructor)]
    pub fn new(spec: JsValue) -> Result<CoreBackoff, JsValue> {
        let given: SeededSpec = read_config(&spec)?;
        let seed = match given.seed {
            Some(seed) => seed,
            None => random::seed()?,
        };
        let inner = SeededBackoff::new(given.spec, seed).map_err(|e| config_error(&e))?;
        Ok(CoreBackoff { inner })
    }

    /// The delay before retry `retry` (1 for the first retry), in ms.
    #[wasm_bindgen(js_name = delayMs)]
    pub fn delay_ms(&mut self, retry: u32) -> f64 {
        opt_ms(Some(self.inner.delay_ms(retry)))
    }
}

/// A standalone circuit breaker.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CoreBreaker {
    inner: Breaker,
}

#[wasm_bindgen]
impl CoreBreaker {
    /// Validates the breaker config (the `breaker` part of a policy config).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<CoreBreaker, JsValue> {
        let parsed: BreakerConfig = read_config(&config)?;
        Ok(CoreBreaker {
            inner: Breaker::new(parsed),
        })
    }

    /// Restores a breaker from `snapshot()` text.
    #[wasm_bindgen(js_name = fromSnapshot)]
    pub fn from_snapshot(text: &str) -> Result<CoreBreaker, JsValue> {
        read_snapshot(text)
            .map(|inner| CoreBreaker { inner })
            .map_err(|e| input_error(&e))
    }

    /// The breaker as JSON text.
    pub fn snapshot(&self) -> String {
        write_snapshot(&self.inner)
    }

    /// `{admitted: true, permit}` or `{admitted: false, reason, retryAt}`.
    #[wasm_bindgen(js_name = tryAcquire)]
    pub fn try_acquire(&mut self, now: f64) -> JsValue {
        let object = js_sys::Object::new();
        match self.inner.try_acquire(instant(now)) {
            Ok(permit) => {
                set(&object, "admitted", &JsValue::TRUE);
                set(&object, "permit", &js_emit(&permit));
            }
            Err(rejected) => {
                set(&object, "admitted", &JsValue::FALSE);
                set(
                    &object,
                    "reason",
                    &JsValue::from_str(rejected.reason.code()),
                );
                let at = rejected.retry_at.map(Instant::as_millis);
                set(
                    &object,
                    "retryAt",
                    &at.map_or(JsValue::NULL, |v| opt_ms(Some(v)).into()),
                );
            }
        }
        object.into()
    }

    /// Reports a success; returns whether it counted (a stale permit does not).
    #[wasm_bindgen(js_name = onSuccess)]
    pub fn on_success(
        &mut self,
        now: f64,
        permit: JsValue,
        duration_ms: f64,
    ) -> Result<bool, JsValue> {
        let permit: Permit = read_data(&permit)?;
        Ok(self.inner.on_success(instant(now), permit, ms(duration_ms)))
    }

    /// Reports a failure; returns whether it counted.
    #[wasm_bindgen(js_name = onFailure)]
    pub fn on_failure(
        &mut self,
        now: f64,
        permit: JsValue,
        duration_ms: f64,
    ) -> Result<bool, JsValue> {
        let permit: Permit = read_data(&permit)?;
        Ok(self.inner.on_failure(instant(now), permit, ms(duration_ms)))
    }

    /// Returns a permit without an outcome (the call was abandoned).
    pub fn release(&mut self, permit: JsValue) -> Result<bool, JsValue> {
        let permit: Permit = read_data(&permit)?;
        Ok(self.inner.release(permit))
    }

    /// The state code at `now` (`closed`, `open`, `half_open`).
    #[wasm_bindgen(js_name = stateAt)]
    pub fn state_at(&self, now: f64) -> String {
        self.inner.state_at(instant(now)).code().to_owned()
    }

    /// The state with its data (`{kind: "closed", consecutiveFailures}`...).
    pub fn state(&self) -> JsValue {
        js_emit(self.inner.state())
    }

    /// The failure-rate window's counts at `now`, or null without a window.
    #[wasm_bindgen(js_name = windowCounts)]
    pub fn window_counts(&self, now: f64) -> JsValue {
        self.inner
            .window_counts(instant(now))
            .map_or(JsValue::NULL, |c| js_emit(&c))
    }

    /// When the state next changes by itself (ms), -1 if never.
    #[wasm_bindgen(js_name = nextTimeout)]
    pub fn next_timeout(&self) -> f64 {
        opt_ms(self.inner.next_timeout().map(Instant::as_millis))
    }

    /// The oldest state transition not yet polled, or `undefined`.
    #[wasm_bindgen(js_name = pollTransition)]
    pub fn poll_transition(&mut self) -> JsValue {
        self.inner
            .poll_transition()
            .map_or(JsValue::UNDEFINED, |t| js_emit(&t))
    }
}

/// The composed retry budget (ratio window, run cap, token bucket, gRPC
/// throttle), standalone.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CoreBudget {
    inner: RetryBudget,
}

#[wasm_bindgen]
impl CoreBudget {
    /// Validates the budget config (the `budget` part of a policy config).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<CoreBudget, JsValue> {
        let parsed: RetryBudgetConfig = read_config(&config)?;
        let inner = RetryBudget::new(parsed).map_err(|e| config_error(&e))?;
        Ok(CoreBudget { inner })
    }

    /// Applies a new config, keeping state where it can.
    pub fn reconfigure(&mut self, config: JsValue) -> Result<(), JsValue> {
        let parsed: RetryBudgetConfig = read_config(&config)?;
        self.inner.reconfigure(parsed).map_err(|e| config_error(&e))
    }

    /// A first attempt went out.
    #[wasm_bindgen(js_name = onFirstAttempt)]
    pub fn on_first_attempt(&mut self, now: f64) {
        self.inner.on_first_attempt(instant(now));
    }

    /// May a retry of `cost` (`normal`, `timeout`, `throttling`) go out?
    /// `{allowed: true, ticket}` or `{allowed: false, refusedBy}`.
    #[wasm_bindgen(js_name = tryRetry)]
    pub fn try_retry(&mut self, now: f64, cost: &str) -> Result<JsValue, JsValue> {
        let cost = RetryCost::from_code(cost)
            .ok_or_else(|| not_one_of("cost", cost, RetryCost::ALL.map(RetryCost::code)))?;
        let object = js_sys::Object::new();
        match self.inner.try_retry(instant(now), cost) {
            Ok(ticket) => {
                set(&object, "allowed", &JsValue::TRUE);
                set(&object, "ticket", &js_emit(&ticket));
            }
            Err(refusal) => {
                set(&object, "allowed", &JsValue::FALSE);
                set(&object, "refusedBy", &JsValue::from_str(refusal.code()));
            }
        }
        Ok(object.into())
    }

    /// An attempt succeeded; `ticket` is the retry's ticket, or null.
    #[wasm_bindgen(js_name = onAttemptSuccess)]
    pub fn on_attempt_success(&mut self, now: f64, ticket: JsValue) -> Result<(), JsValue> {
        let ticket: Option<RetryTicket> = if ticket.is_null() || ticket.is_undefined() {
            None
        } else {
            Some(read_data(&ticket)?)
        };
        self.inner.on_attempt_success(instant(now), ticket);
        Ok(())
    }

    /// An attempt failed.
    #[wasm_bindgen(js_name = onAttemptFailure)]
    pub fn on_attempt_failure(&mut self, now: f64) {
        self.inner.on_attempt_failure(instant(now));
    }

    /// The budgets' status at `now`.
    pub fn status(&self, now: f64) -> JsValue {
        js_emit(&self.inner.status(instant(now)))
    }

    /// The oldest budget event not yet polled, or `undefined`.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> JsValue {
        self.inner
            .poll_event()
            .map_or(JsValue::UNDEFINED, |e| js_emit(&e))
    }
}

/// The metrics record (counters, histogram, gauge, alert windows), standalone.
#[wasm_bindgen]
#[derive(Debug)]
pub struct CoreMetrics {
    inner: Metrics,
}

#[wasm_bindgen]
impl CoreMetrics {
    /// Validates the alert config (the `alerts` part of a policy config).
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<CoreMetrics, JsValue> {
        let parsed: AlertConfig = read_config(&config)?;
        Ok(CoreMetrics {
            inner: Metrics::new(parsed),
        })
    }

    /// An attempt went out (a retry or a first attempt).
    #[wasm_bindgen(js_name = onAttempt)]
    pub fn on_attempt(&mut self, now: f64, is_retry: bool) {
        self.inner.on_attempt(instant(now), is_retry);
    }

    /// A retry was scheduled.
    #[wasm_bindgen(js_name = onRetryScheduled)]
    pub fn on_retry_scheduled(&mut self, now: f64) {
        self.inner.on_retry_scheduled(instant(now));
    }

    /// A call finished with `outcome` (`success`, `exhausted`, `gave_up`).
    #[wasm_bindgen(js_name = onCallFinished)]
    pub fn on_call_finished(
        &mut self,
        now: f64,
        retries: u32,
        outcome: &str,
        duration_ms: f64,
    ) -> Result<(), JsValue> {
        let outcome = CallOutcome::from_code(outcome).ok_or_else(|| {
            let codes = CallOutcome::ALL.map(CallOutcome::code);
            not_one_of("summary.outcome", outcome, codes)
        })?;
        let summary = CallSummary {
            retries,
            outcome,
            duration_ms: ms(duration_ms),
        };
        self.inner.on_call_finished(instant(now), summary);
        Ok(())
    }

    /// Sets the breaker gauge from a state code; false for an unknown code.
    #[wasm_bindgen(js_name = setBreakerState)]
    pub fn set_breaker_state(&mut self, state: &str) -> bool {
        self.inner.set_breaker_state(state)
    }

    /// Evaluates the alert rules at `now`.
    pub fn evaluate(&mut self, now: f64) {
        self.inner.evaluate(instant(now));
    }

    /// The oldest alert event not yet polled, or `undefined`.
    #[wasm_bindgen(js_name = pollEvent)]
    pub fn poll_event(&mut self) -> JsValue {
        self.inner
            .poll_event()
            .map_or(JsValue::UNDEFINED, |e| js_emit(&e))
    }

    /// The counters as a snapshot object.
    pub fn snapshot(&self) -> JsValue {
        js_emit(&self.inner.snapshot())
    }
}
