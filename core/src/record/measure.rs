//! Measurements: each call's metric points and decisions, one at a time,
//! for exporters that aggregate by attributes themselves (OpenTelemetry).
//!
//! A [`super::MetricsSnapshot`] is kept per scope so that its memory is
//! fixed, which is what a scrape (Prometheus) wants. An OpenTelemetry meter
//! aggregates on its own, by whatever attributes the points carry, so it
//! can be told each point with the operation, the outcome and the reason
//! too. The policy queues these only while a host asks for them
//! ([`crate::Policy::set_measuring`]); which points a decision adds, with
//! which attributes, is decided here, so every language's exporter only
//! hands them to its SDK. Summed over their attributes, the points of a
//! metric equal the snapshot's value.

use std::sync::Arc;

use super::LogOutcome;

/// One point of a catalogue metric: add `value` to the counter, or record
/// it in the histogram, under `attributes`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MetricPoint {
    /// The metric's OpenTelemetry name, as in [`super::METRICS`].
    pub metric: &'static str,
    /// 1 for a counter; seconds for the duration histogram.
    pub value: f64,
    /// The attributes.
    pub attributes: Attributes,
}

/// What a point or a decision is about. `outcome` and `reason` are codes
/// from fixed lists (they are safe as metric attributes: their number is
/// bounded); `scope` and `operation` are the caller's names.
#[derive(Clone, Debug, PartialEq)]
pub struct Attributes {
    /// The scope (service) the call belongs to.
    pub scope: String,
    /// The call's operation name.
    pub operation: Arc<str>,
    /// How the call or attempt ended (`success`, `retry`, `exhausted`,
    /// `gave_up`), where the metric has one.
    pub outcome: Option<&'static str>,
    /// Why: the error retried on (`status_503`, `network_connect_timeout`)
    /// or the reason a call stopped (`not_retryable`, `circuit_open`).
    pub reason: Option<String>,
}

impl Attributes {
    /// The attributes that are set, in their order: what an exporter hands
    /// its SDK (an absent one is left out, not null).
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("scope", Some(self.scope.as_str())),
            ("operation", Some(&*self.operation)),
            ("outcome", self.outcome),
            ("reason", self.reason.as_deref()),
        ]
        .into_iter()
        .filter_map(|(name, value)| Some((name, value?)))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Attributes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.entries())
    }
}

/// A decision worth a span event: a retry, a call's end after retries, or
/// a stop. A first attempt's success is not one (nothing happened to it).
/// Its wire form is the span event: `name`, and `attributes` with the
/// attempt and the delay in seconds beside the others.
#[derive(Clone, Debug, PartialEq)]
pub struct DecisionNote {
    /// The span event's name: `stoic.retry`, `stoic.success` (after
    /// retries), `stoic.exhausted`, `stoic.gave_up`, or `stoic.hedge` (a
    /// hedged call sent another copy).
    pub name: &'static str,
    /// The attempt the decision is about (1-based); 0 for a call that
    /// stopped before its first (an open breaker, a cancellation).
    pub attempt: u32,
    /// The wait before the next attempt (a retry's; 0 otherwise).
    pub delay_ms: u64,
    /// Scope, operation, outcome and reason.
    pub attributes: Attributes,
}

#[cfg(feature = "serde")]
impl serde::Serialize for DecisionNote {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;

        struct All<'a>(&'a DecisionNote);
        impl serde::Serialize for All<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.entries())
            }
        }
        let mut out = s.serialize_struct("DecisionNote", 2)?;
        out.serialize_field("name", self.name)?;
        out.serialize_field("attributes", &All(self))?;
        out.end()
    }
}

/// A span event attribute's value (OpenTelemetry's attribute types, as
/// far as a note needs them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AttributeValue<'a> {
    /// A code or a name.
    Text(&'a str),
    /// A count.
    Int(u64),
    /// Seconds.
    Float(f64),
}

#[cfg(feature = "serde")]
impl serde::Serialize for AttributeValue<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            AttributeValue::Text(text) => s.serialize_str(text),
            AttributeValue::Int(n) => s.serialize_u64(n),
            AttributeValue::Float(x) => s.serialize_f64(x),
        }
    }
}

impl DecisionNote {
    /// The note for a decision with `outcome`, or `None` when it is a
    /// first attempt's success.
    #[must_use]
    pub fn new(
        outcome: LogOutcome,
        attempt: u32,
        delay_ms: u64,
        attributes: Attributes,
    ) -> Option<Self> {
        let name = match outcome {
            LogOutcome::Success if attempt <= 1 => return None,
            LogOutcome::Success => "stoic.success",
            LogOutcome::Retry => "stoic.retry",
            LogOutcome::Exhausted => "stoic.exhausted",
            LogOutcome::GaveUp => "stoic.gave_up",
        };
        Some(DecisionNote {
            name,
            attempt,
            delay_ms,
            attributes,
        })
    }

    /// The note for a hedge: copy `copy` of a hedged call went out
    /// `waited_ms` after the one before it (the hedge delay, or less when a
    /// copy failed first).
    #[must_use]
    pub const fn hedge(copy: u32, waited_ms: u64, attributes: Attributes) -> Self {
        DecisionNote {
            name: "stoic.hedge",
            attempt: copy,
            delay_ms: waited_ms,
            attributes,
        }
    }

    /// The span event's attributes: the call's, then `attempt` and
    /// `delay_seconds` (OpenTelemetry carries durations in seconds).
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, AttributeValue<'_>)> {
        let call = self
            .attributes
            .entries()
            .map(|(name, value)| (name, AttributeValue::Text(value)));
        let own = [
            ("attempt", AttributeValue::Int(u64::from(self.attempt))),
            ("delay_seconds", AttributeValue::Float(self.delay_seconds())),
        ];
        call.chain(own)
    }

    /// The delay in seconds, as span events and OpenTelemetry carry
    /// durations.
    #[must_use]
    pub fn delay_seconds(&self) -> f64 {
        self.delay_ms as f64 / 1000.0
    }
}
