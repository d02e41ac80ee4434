//! The breaker's states and the plain values it hands out.

use crate::time::Instant;

/// A breaker state, carrying the data that only matters in that state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)
)]
pub enum BreakerState {
    /// Calls flow; outcomes are counted. A failure-rate rule's window lives
    /// beside the state (see [`super::Breaker::window_counts`]).
    Closed {
        /// Failures in a row since the last success (kept for every trip rule).
        consecutive_failures: u32,
    },
    /// Calls are rejected until `until`; the first admission at or after it
    /// turns the breaker half-open.
    Open {
        /// When the breaker opened.
        since: Instant,
        /// When the cooldown ends (`since + cooldown_ms`, saturating).
        until: Instant,
    },
    /// A few probes test the dependency; everything else is rejected.
    HalfOpen {
        /// Probes admitted and not yet finished or released.
        probes_in_flight: u32,
        /// Probes that succeeded in this half-open period.
        successes: u32,
    },
}

impl BreakerState {
    /// The state's stable code.
    #[must_use]
    pub const fn code(&self) -> BreakerStateCode {
        match self {
            BreakerState::Closed { .. } => BreakerStateCode::Closed,
            BreakerState::Open { .. } => BreakerStateCode::Open,
            BreakerState::HalfOpen { .. } => BreakerStateCode::HalfOpen,
        }
    }
}

/// A state's name without its data: what a gauge or a log line shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BreakerStateCode {
    /// `"closed"`.
    Closed,
    /// `"open"`.
    Open,
    /// `"half_open"`.
    HalfOpen,
}

impl BreakerStateCode {
    /// Every state, for reading codes.
    pub const ALL: [BreakerStateCode; 3] = [
        BreakerStateCode::Closed,
        BreakerStateCode::Open,
        BreakerStateCode::HalfOpen,
    ];

    /// The stable code: `"closed"`, `"open"` or `"half_open"`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            BreakerStateCode::Closed => "closed",
            BreakerStateCode::Open => "open",
            BreakerStateCode::HalfOpen => "half_open",
        }
    }

    /// The state named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "closed" => Some(BreakerStateCode::Closed),
            "open" => Some(BreakerStateCode::Open),
            "half_open" => Some(BreakerStateCode::HalfOpen),
            _ => None,
        }
    }
}

/// Permission to make one call. Hand it back exactly once, to
/// [`super::Breaker::on_success`], [`super::Breaker::on_failure`] or
/// [`super::Breaker::release`]. The generation ties it to the state it was
/// issued in: once the breaker has changed state, its outcome is ignored, so a
/// slow call admitted before a trip cannot corrupt the state after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct Permit {
    /// The breaker generation the permit was issued in.
    pub generation: u64,
    /// The permit's serial number (from 1, never reused by a breaker): a
    /// permit handed back twice, or one the breaker never issued, is
    /// ignored instead of counted again.
    #[cfg_attr(feature = "serde", serde(default))]
    pub id: u64,
    /// Whether the call is a half-open probe (it holds a probe slot).
    pub probe: bool,
}

/// Why a call was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RejectReason {
    /// The breaker is open and its cooldown has not elapsed.
    CircuitOpen,
    /// The breaker is half-open and every probe slot is taken.
    HalfOpenFull,
}

impl RejectReason {
    /// The stable code: `"circuit_open"` or `"half_open_full"`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            RejectReason::CircuitOpen => "circuit_open",
            RejectReason::HalfOpenFull => "half_open_full",
        }
    }
}

/// A refused call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct Rejected {
    /// Why.
    pub reason: RejectReason,
    /// When asking again can succeed: the end of the cooldown when open;
    /// `None` when half-open and full, because a slot frees when a probe
    /// finishes, which no clock can predict.
    pub retry_at: Option<Instant>,
}

/// Why the breaker changed state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TransitionReason {
    /// Closed -> open: too many failures in a row.
    ConsecutiveFailures,
    /// Closed -> open: the window's failure rate crossed the threshold.
    FailureRate,
    /// Closed -> open: the window's slow-call rate crossed the threshold.
    SlowCallRate,
    /// Open -> half-open: a call asked for admission after the cooldown.
    CooldownElapsed,
    /// Half-open -> open: a probe failed.
    ProbeFailed,
    /// Half-open -> open: a probe succeeded, but slowly.
    ProbeSlow,
    /// Half-open -> closed: enough probes succeeded.
    ProbesSucceeded,
    /// Closed or half-open -> open: another process of the fleet tripped
    /// (or reopened) the scope's breaker (`crate::fleet`).
    FleetOpened,
    /// Open -> closed: the fleet's probe succeeded in another process.
    FleetClosed,
}

impl TransitionReason {
    /// Every reason, for reading codes.
    pub const ALL: [TransitionReason; 9] = [
        TransitionReason::ConsecutiveFailures,
        TransitionReason::FailureRate,
        TransitionReason::SlowCallRate,
        TransitionReason::CooldownElapsed,
        TransitionReason::ProbeFailed,
        TransitionReason::ProbeSlow,
        TransitionReason::ProbesSucceeded,
        TransitionReason::FleetOpened,
        TransitionReason::FleetClosed,
    ];

    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            TransitionReason::ConsecutiveFailures => "consecutive_failures",
            TransitionReason::FailureRate => "failure_rate",
            TransitionReason::SlowCallRate => "slow_call_rate",
            TransitionReason::CooldownElapsed => "cooldown_elapsed",
            TransitionReason::ProbeFailed => "probe_failed",
            TransitionReason::ProbeSlow => "probe_slow",
            TransitionReason::ProbesSucceeded => "probes_succeeded",
            TransitionReason::FleetOpened => "fleet_opened",
            TransitionReason::FleetClosed => "fleet_closed",
        }
    }
}

/// A state change, queued for the host to drain with
/// [`super::Breaker::poll_transition`] (for logs, metrics and alerts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct Transition {
    /// The state left.
    pub from: BreakerStateCode,
    /// The state entered.
    pub to: BreakerStateCode,
    /// When (the clamped `now` of the call that caused it).
    pub at: Instant,
    /// Why.
    pub reason: TransitionReason,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for c in [
            BreakerStateCode::Closed,
            BreakerStateCode::Open,
            BreakerStateCode::HalfOpen,
        ] {
            assert_eq!(BreakerStateCode::from_code(c.code()), Some(c));
            #[cfg(feature = "serde")]
            assert_eq!(
                serde_json::to_value(c).unwrap(),
                serde_json::json!(c.code())
            );
        }
        assert_eq!(BreakerStateCode::from_code("half-open"), None);
        #[cfg(feature = "serde")]
        for r in [RejectReason::CircuitOpen, RejectReason::HalfOpenFull] {
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::json!(r.code())
            );
        }
        #[cfg(feature = "serde")]
        for r in TransitionReason::ALL {
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::json!(r.code())
            );
        }
    }

    #[test]
    fn state_json_shape() {
        let s = BreakerState::Open {
            since: Instant::from_millis(5),
            until: Instant::from_millis(9),
        };
        assert_eq!(
            crate::schema::json::value(&s),
            serde_json::json!({"kind": "open", "since": 5, "until": 9})
        );
        assert_eq!(s.code(), BreakerStateCode::Open);
        let h: BreakerState =
            crate::schema::json::read(r#"{"kind":"half_open","probes_in_flight":1,"successes":0}"#)
                .unwrap();
        assert_eq!(h.code(), BreakerStateCode::HalfOpen);
    }
}
