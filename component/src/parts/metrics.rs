//! The `metrics` resource: the metrics and alerts of "Implementing Smart Retry Logic for Transient Errors" for one scope.

use std::cell::RefCell;

use stoic_core::record::{
    AlertConfig, CallOutcome, CallSummary, Metrics as CoreMetrics, RecordEvent,
};

use crate::bindings::exports::stoic::engine::parts::{self as wit, AlertEvent, GuestMetrics};
use crate::bindings::exports::stoic::engine::types::{ConfigError, InputError};
use crate::convert::{config, instant, json, misuse};

#[derive(Debug)]
pub struct Metrics(RefCell<CoreMetrics>);

impl GuestMetrics for Metrics {
    fn create(alert_config_json: String) -> Result<wit::Metrics, ConfigError> {
        let parsed: AlertConfig = config(&alert_config_json)?;
        Ok(wit::Metrics::new(Metrics(RefCell::new(CoreMetrics::new(
            parsed,
        )))))
    }

    fn on_attempt(&self, now_ms: u64, is_retry: bool) {
        self.0.borrow_mut().on_attempt(instant(now_ms), is_retry);
    }

    fn on_retry_scheduled(&self, now_ms: u64) {
        self.0.borrow_mut().on_retry_scheduled(instant(now_ms));
    }

    fn on_call_finished(
        &self,
        now_ms: u64,
        retries: u32,
        outcome: String,
        duration_ms: u64,
    ) -> Result<(), InputError> {
        let outcome = CallOutcome::from_code(&outcome).ok_or_else(|| {
            let codes: Vec<&str> = CallOutcome::ALL.iter().map(|o| o.code()).collect();
            misuse(&format!("outcome must be one of: {}", codes.join(", ")))
        })?;
        let summary = CallSummary {
            retries,
            outcome,
            duration_ms,
        };
        self.0
            .borrow_mut()
            .on_call_finished(instant(now_ms), summary);
        Ok(())
    }

    fn set_breaker_state(&self, state: String) -> bool {
        self.0.borrow_mut().set_breaker_state(&state)
    }

    fn evaluate(&self, now_ms: u64) {
        self.0.borrow_mut().evaluate(instant(now_ms));
    }

    fn poll_event(&self) -> Option<AlertEvent> {
        match self.0.borrow_mut().poll_event()? {
            RecordEvent::AlertChanged {
                rule,
                from,
                to,
                value,
                threshold,
                at,
            } => Some(AlertEvent {
                rule: rule.code().to_owned(),
                from: from.code().to_owned(),
                to: to.code().to_owned(),
                value,
                threshold,
                at: at.as_millis(),
            }),
            // A kind this binding does not know yet: nothing it can type.
            _ => None,
        }
    }

    fn snapshot_json(&self) -> String {
        json(&self.0.borrow().snapshot())
    }
}
