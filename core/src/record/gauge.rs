//! The `circuit_breaker_state` gauge: what the metrics export and the
//! alert rules read of a scope's breaker.

/// The `circuit_breaker_state` gauge.
///
/// Serialized as its gauge value, the number a metrics backend stores:
/// `0` closed, `1` half_open, `2` open. The order is by badness, so
/// `max_over_time` and "value > 1" mean what they look like.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "u8", into = "u8"))]
pub enum BreakerGauge {
    /// Calls flow (gauge 0). The state of a scope with no breaker.
    #[default]
    Closed,
    /// Probing after a cool-down (gauge 1).
    HalfOpen,
    /// Calls are rejected (gauge 2).
    Open,
}

impl BreakerGauge {
    /// The gauge value: 0 closed, 1 half_open, 2 open.
    #[must_use]
    pub const fn value(self) -> u8 {
        match self {
            BreakerGauge::Closed => 0,
            BreakerGauge::HalfOpen => 1,
            BreakerGauge::Open => 2,
        }
    }

    /// The state with gauge value `value`, if any.
    #[must_use]
    pub const fn from_value(value: u8) -> Option<Self> {
        match value {
            0 => Some(BreakerGauge::Closed),
            1 => Some(BreakerGauge::HalfOpen),
            2 => Some(BreakerGauge::Open),
            _ => None,
        }
    }

    /// The stable snake_case code (the breaker's state name).
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            BreakerGauge::Closed => "closed",
            BreakerGauge::HalfOpen => "half_open",
            BreakerGauge::Open => "open",
        }
    }

    /// The state named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "closed" => Some(BreakerGauge::Closed),
            "half_open" => Some(BreakerGauge::HalfOpen),
            "open" => Some(BreakerGauge::Open),
            _ => None,
        }
    }
}

impl From<BreakerGauge> for u8 {
    fn from(state: BreakerGauge) -> u8 {
        state.value()
    }
}

impl TryFrom<u8> for BreakerGauge {
    type Error = String;

    fn try_from(value: u8) -> Result<Self, Self::Error> {
        BreakerGauge::from_value(value)
            .ok_or_else(|| format!("circuit_breaker_state must be 0, 1 or 2, got {value}"))
    }
}
