//! The shared state a `CorePolicy` keeps across calls, as the host reads it:
//! draining, events, breakers, budgets, metrics.

use stoic_core::schema::{emit_json, Dialect};
use stoic_core::Instant;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::object::set;
use crate::units::{instant, opt_ms};
use crate::value::{js_emit, log_record_extras};

use super::CorePolicy;

#[wasm_bindgen]
impl CorePolicy {
    /// No new attempts or retries from now on.
    pub fn drain(&mut self) {
        self.inner.drain();
    }

    /// Whether `drain` was called.
    #[wasm_bindgen(js_name = isDraining)]
    pub fn is_draining(&self) -> bool {
        self.inner.is_draining()
    }

    /// Starts or stops queueing each call's metric points and decisions
    /// as `metric` and `decision` events.
    #[cfg(feature = "measure")]
    #[wasm_bindgen(js_name = setMeasuring)]
    pub fn set_measuring(&mut self, on: bool) {
        self.inner.set_measuring(on);
    }

    /// Whether calls queue their metric points and decisions.
    #[cfg(feature = "measure")]
    #[wasm_bindgen(js_name = isMeasuring)]
    pub fn is_measuring(&self) -> bool {
        self.inner.is_measuring()
    }

    /// Every queued event, oldest first, as one array, or `undefined` when
    /// none: one JSON text crosses and is parsed once, however many events
    /// a call queued (a measured call queues two, and each crossing as its
    /// own object cost as much as writing it). A log event's record also
    /// carries `line` (the one-line JSON) and `text`.
    #[wasm_bindgen(js_name = drainEvents)]
    pub fn drain_events(&mut self) -> JsValue {
        let mut text = String::new();
        while let Some(event) = self.inner.poll_event() {
            text.push(if text.is_empty() { '[' } else { ',' });
            let json = emit_json(&event, Dialect::JS);
            // The record is a log event's last member: its fields end one
            // brace before the event's.
            let record_end = json.len().saturating_sub(2);
            match (&event, json.split_at_checked(record_end)) {
                (stoic_core::Event::Log { record, .. }, Some((head, tail))) if tail == "}}" => {
                    text.push_str(head);
                    text.push_str(&log_record_extras(record));
                    text.push_str(tail);
                }
                _ => text.push_str(&json),
            }
        }
        if text.is_empty() {
            return JsValue::UNDEFINED;
        }
        text.push(']');
        js_sys::JSON::parse(&text).unwrap_or(JsValue::UNDEFINED)
    }

    /// When shared state next changes by itself (ms), -1 if never.
    #[wasm_bindgen(js_name = nextTimeout)]
    pub fn next_timeout(&self) -> f64 {
        opt_ms(self.inner.next_timeout().map(Instant::as_millis))
    }

    /// The breaker state code of `scope`, if it has a breaker.
    #[wasm_bindgen(js_name = breakerState)]
    pub fn breaker_state(&self, scope: &str) -> Option<String> {
        self.inner.breaker_state(scope).map(|s| s.code().to_owned())
    }

    /// The retry budgets' status in `scope`, or null for an unknown scope.
    #[wasm_bindgen(js_name = budgetStatus)]
    pub fn budget_status(&self, now: f64, scope: &str) -> JsValue {
        self.inner
            .budget_status(instant(now), scope)
            .map_or(JsValue::NULL, |s| js_emit(&s))
    }

    /// Metrics per scope: an object keyed by scope name (names kept as given).
    pub fn metrics(&self) -> JsValue {
        let object = js_sys::Object::new();
        for (scope, snapshot) in self.inner.metrics() {
            set(&object, &scope, &js_emit(&snapshot));
        }
        object.into()
    }

    /// Metrics of all scopes added together.
    #[wasm_bindgen(js_name = metricsTotal)]
    pub fn metrics_total(&self) -> JsValue {
        js_emit(&self.inner.metrics_total())
    }
}
