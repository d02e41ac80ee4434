//! What the policy records about each decision: metrics when a call ends,
//! and (when `log_records` is on) one log record per decision. Measuring
//! (`measure.rs`) hooks in at the same places.

use super::{stop_explanation, Policy};
use crate::call::Call;
use crate::decision::{DelaySource, Matched, StopReason};
use crate::event::Event;
use crate::record::{CallOutcome, CallSummary, LogOutcome, LogRecord};
use crate::time::{Instant, WallClock};

impl Policy {
    /// `reason` is why a call that did not succeed stopped.
    pub(super) fn call_finished(
        &mut self,
        now: Instant,
        call: &Call,
        outcome: CallOutcome,
        reason: Option<StopReason>,
    ) {
        let duration_ms = call.deadline.elapsed(now);
        if let Some(scope) = self.scopes.get_mut(call.scope) {
            let summary = CallSummary {
                retries: call.retries,
                outcome,
                duration_ms,
            };
            scope.metrics.on_call_finished(now, summary);
        }
        self.measure_finish(call, outcome, reason, duration_ms);
    }

    pub(super) fn log_reason(
        &mut self,
        now: Instant,
        call: &Call,
        outcome: LogOutcome,
        error: Option<(Matched, &str)>,
        reason: StopReason,
    ) {
        if !self.config.log_records {
            return;
        }
        // A stop without an observed failure (breaker, deadline, draining)
        // logs the stop reason as its error.
        let code;
        let error = match error {
            Some((matched, text)) => {
                code = matched.code();
                Some((code.as_str(), text))
            }
            None => Some((reason.code(), stop_explanation(reason))),
        };
        self.push_log(now, call, outcome, 0, error, None);
    }

    pub(super) fn log(
        &mut self,
        now: Instant,
        call: &Call,
        outcome: LogOutcome,
        delay_ms: u64,
        error: Option<(Matched, &str)>,
        source: Option<DelaySource>,
    ) {
        if !self.config.log_records {
            return;
        }
        let code = error.map(|(m, _)| m.code());
        let error = match (&code, error) {
            (Some(code), Some((_, text))) => Some((code.as_str(), text)),
            _ => None,
        };
        self.push_log(now, call, outcome, delay_ms, error, source);
    }

    pub(super) fn push_log(
        &mut self,
        now: Instant,
        call: &Call,
        outcome: LogOutcome,
        delay_ms: u64,
        error: Option<(&str, &str)>,
        source: Option<DelaySource>,
    ) {
        let strategy = source.unwrap_or(DelaySource::Backoff(call.backoff.spec().strategy));
        let record = LogRecord::new(
            self.wall_at(now),
            &call.operation,
            call.attempts,
            self.config.max_attempts,
            delay_ms,
            error,
            strategy.code(),
            outcome,
            call.deadline.elapsed(now),
        );
        let scope = self
            .names
            .get(call.scope)
            .map_or_else(String::new, |n| n.to_string());
        self.events.push(Event::Log { scope, record });
    }

    pub(super) fn wall_at(&self, now: Instant) -> WallClock {
        match self.wall_anchor {
            None => WallClock::from_unix_millis(now.as_millis()),
            Some((mono, wall)) => {
                let wall_ms = wall.as_unix_millis();
                let ms = if now >= mono {
                    wall_ms.saturating_add(now.saturating_since(mono))
                } else {
                    wall_ms.saturating_sub(mono.saturating_since(now))
                };
                WallClock::from_unix_millis(ms)
            }
        }
    }
}
