//! Measuring: while a host asks for it, the metric points and decisions of
//! every call are queued as events (`record/measure.rs` says why), at the
//! same places the scope's snapshot counts them, so the two always agree.

//!
//! Without the `measure` feature (the browser build) nothing can turn it
//! on, and the checks below are constant: the code is not compiled in.

use super::Policy;
use crate::call::Call;
use crate::decision::{Matched, StopReason};
use crate::record::CallOutcome;
#[cfg(feature = "measure")]
use crate::{
    event::Event,
    record::{metric, Attributes, DecisionNote, LogOutcome, MetricPoint},
};

#[cfg(feature = "measure")]
impl Policy {
    /// Starts or stops queueing [`Event::Metric`] and [`Event::Decision`]
    /// for every call (an OpenTelemetry exporter turns it on). Off by
    /// default: a call then queues nothing more than it did.
    pub fn set_measuring(&mut self, on: bool) {
        self.measuring = on;
    }

    /// Whether [`Policy::set_measuring`] turned measuring on.
    #[must_use]
    pub const fn is_measuring(&self) -> bool {
        self.measuring
    }
}

#[cfg(not(feature = "measure"))]
impl Policy {
    pub(super) fn measure_attempt(&mut self, _call: &Call) {}
    pub(super) fn measure_retry(&mut self, _call: &Call, _matched: Matched, _delay_ms: u64) {}
    #[cfg(feature = "hedging")]
    pub(super) fn measure_hedge(&mut self, _call: &Call, _waited_ms: u64) {}
    pub(super) fn measure_finish(
        &mut self,
        _call: &Call,
        _outcome: CallOutcome,
        _reason: Option<StopReason>,
        _duration_ms: u64,
    ) {
    }
}

#[cfg(feature = "measure")]
impl Policy {
    /// An attempt was admitted: `stoic.attempts`, and `stoic.retry.attempts`
    /// for a retry.
    pub(super) fn measure_attempt(&mut self, call: &Call) {
        if !self.measuring {
            return;
        }
        self.point(metric::ATTEMPTS, 1.0, self.attributes(call, None, None));
        if call.attempts > 1 {
            self.point(
                metric::RETRY_ATTEMPTS,
                1.0,
                self.attributes(call, None, None),
            );
        }
    }

    /// A retry was scheduled after an attempt that ended as `matched`.
    pub(super) fn measure_retry(&mut self, call: &Call, matched: Matched, delay_ms: u64) {
        if !self.measuring {
            return;
        }
        let attributes =
            self.attributes(call, Some(LogOutcome::Retry.code()), Some(matched.code()));
        self.point(metric::RETRIES, 1.0, attributes.clone());
        self.note(LogOutcome::Retry, call, delay_ms, attributes);
    }

    /// A hedged call sent another copy, `waited_ms` after the one before:
    /// a `stoic.hedge` span event (its metrics are the attempt's, counted
    /// as a retry's by [`Policy::measure_attempt`]).
    #[cfg(feature = "hedging")]
    pub(super) fn measure_hedge(&mut self, call: &Call, waited_ms: u64) {
        if !self.measuring {
            return;
        }
        let attributes = self.attributes(call, None, None);
        let note = DecisionNote::hedge(call.attempts, waited_ms, attributes);
        self.events.push(Event::Decision(note));
    }

    /// `call` ended: `stoic.calls`, and the retry metrics its end adds to.
    /// `reason` is why a call that did not succeed stopped.
    pub(super) fn measure_finish(
        &mut self,
        call: &Call,
        outcome: CallOutcome,
        reason: Option<StopReason>,
        duration_ms: u64,
    ) {
        if !self.measuring {
            return;
        }
        let log_outcome = match outcome {
            CallOutcome::Success => LogOutcome::Success,
            CallOutcome::Exhausted => LogOutcome::Exhausted,
            CallOutcome::GaveUp => LogOutcome::GaveUp,
        };
        let stopped = reason.map(|r| r.code().to_owned());
        let ended = self.attributes(call, Some(log_outcome.code()), stopped.clone());
        self.point(metric::CALLS, 1.0, ended.clone());
        let retried = call.retries > 0;
        match outcome {
            CallOutcome::Success if retried => {
                self.point(
                    metric::RETRY_SUCCESS,
                    1.0,
                    self.attributes(call, None, None),
                );
            }
            CallOutcome::Success => {}
            CallOutcome::Exhausted => {
                // What the call was retrying on when it ran out.
                let last = call.last.map(|(matched, _)| matched.code());
                self.point(
                    metric::RETRY_EXHAUSTED,
                    1.0,
                    self.attributes(call, None, last),
                );
            }
            CallOutcome::GaveUp => {
                self.point(metric::GAVE_UP, 1.0, self.attributes(call, None, stopped));
            }
        }
        if retried {
            let outcome = Some(log_outcome.code());
            let seconds = duration_ms as f64 / 1000.0;
            let attributes = self.attributes(call, outcome, None);
            self.point(metric::RETRY_DURATION, seconds, attributes);
        }
        self.note(log_outcome, call, 0, ended);
    }

    fn attributes(
        &self,
        call: &Call,
        outcome: Option<&'static str>,
        reason: Option<String>,
    ) -> Attributes {
        let scope = self.names.get(call.scope).map_or("", |n| n);
        Attributes {
            scope: scope.to_owned(),
            operation: call.operation.clone(),
            outcome,
            reason,
        }
    }

    fn point(&mut self, metric: &'static str, value: f64, attributes: Attributes) {
        self.events.push(Event::Metric(MetricPoint {
            metric,
            value,
            attributes,
        }));
    }

    fn note(&mut self, outcome: LogOutcome, call: &Call, delay_ms: u64, attributes: Attributes) {
        if let Some(note) = DecisionNote::new(outcome, call.attempts, delay_ms, attributes) {
            self.events.push(Event::Decision(note));
        }
    }
}
