//! Breaker configuration: plain data, validated once.

use crate::error::ConfigError;

/// The largest millisecond value a config accepts: 2^53 - 1, the largest
/// integer a JavaScript number holds exactly, so a config round-trips through
/// the JS binding unchanged.
pub const MAX_MS: u64 = (1 << 53) - 1;

/// The largest count window: it keeps one byte per call, so this bounds a
/// breaker's memory (and its snapshot) whatever the config says.
pub const MAX_COUNT_WINDOW: u32 = 10_000;

/// The largest number of buckets in a time window, for the same reason.
pub const MAX_TIME_BUCKETS: u32 = 1_000;

/// How one breaker decides to trip, how long it stays open, and how it probes.
///
/// The defaults are the seed's: trip after 5 consecutive failures (`>=`), stay
/// open 60 s, then let 1 probe at a time through and close after 2 successes.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct BreakerConfig {
    /// When the closed breaker opens.
    pub trip: TripRule,
    /// How long the breaker stays open before it admits a probe, in ms.
    pub cooldown_ms: u64,
    /// How the half-open breaker probes the dependency.
    pub half_open: HalfOpenConfig,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            trip: TripRule::default(),
            cooldown_ms: 60_000,
            half_open: HalfOpenConfig::default(),
        }
    }
}

/// How the half-open breaker probes: how many calls it lets through at once
/// and how many must succeed before it closes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct HalfOpenConfig {
    /// Probes allowed in flight at the same time (a counting semaphore:
    /// a finished or released probe frees its slot). Must be at least 1.
    pub max_probes: u32,
    /// Probe successes needed to close. Any probe failure reopens. Must be at
    /// least 1; it may exceed `max_probes` (probes then run in turns).
    pub success_threshold: u32,
}

impl Default for HalfOpenConfig {
    fn default() -> Self {
        HalfOpenConfig {
            max_probes: 1,
            success_threshold: 2,
        }
    }
}

/// Whether a trip comparison is `>=` or `>`. Explicit because libraries
/// disagree: pybreaker, resilience4j, Polly and cockatiel's consecutive
/// breaker use `>=`; gobreaker's default and cockatiel's count breaker use `>`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Compare {
    /// Trip when the measure is greater than or equal to the threshold.
    #[default]
    Ge,
    /// Trip only when the measure is strictly greater than the threshold.
    Gt,
}

impl Compare {
    /// The stable code: `"ge"` or `"gt"`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Compare::Ge => "ge",
            Compare::Gt => "gt",
        }
    }

    /// The comparison named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "ge" => Some(Compare::Ge),
            "gt" => Some(Compare::Gt),
            _ => None,
        }
    }

    /// Whether `measure` trips against `threshold`.
    #[must_use]
    pub fn holds<T: PartialOrd>(self, measure: T, threshold: T) -> bool {
        match self {
            Compare::Ge => measure >= threshold,
            Compare::Gt => measure > threshold,
        }
    }
}

fn default_threshold() -> u32 {
    5
}

/// When a closed breaker opens.
///
/// Both rules are evaluated each time an outcome is recorded (a success can
/// trip a failure-rate breaker once it completes the minimum throughput, as in
/// resilience4j; Polly and cockatiel evaluate on failures only).
/// Read from configs through the schema (`crate::schema`), with `kind`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)
)]
pub enum TripRule {
    /// Trip when the number of failures in a row compares against
    /// `threshold` (`failures >= threshold` by default). A success resets it.
    ConsecutiveFailures {
        /// The failure count to compare against; at least 1.
        #[cfg_attr(feature = "serde", serde(default = "default_threshold"))]
        threshold: u32,
        /// `>=` (default) or `>`.
        #[cfg_attr(feature = "serde", serde(default))]
        compare: Compare,
    },
    /// Trip when the window holds at least `minimum_throughput` calls and the
    /// failure rate (or the slow-call rate) compares against its threshold.
    FailureRate {
        /// Which calls the rate is computed over.
        window: Window,
        /// Failures / calls threshold, in `(0, 1]` for `ge`, `[0, 1)` for `gt`
        /// (the excluded ends would trip on every call or on none).
        failure_rate: f64,
        /// Calls the window must hold before the rate is trusted; at least 1.
        minimum_throughput: u32,
        /// `>=` (default) or `>`; also used for the slow-call rate.
        #[cfg_attr(feature = "serde", serde(default))]
        compare: Compare,
        /// Optionally trip on slow successes too.
        #[cfg_attr(feature = "serde", serde(default))]
        slow_call: Option<SlowCall>,
    },
}

impl Default for TripRule {
    fn default() -> Self {
        TripRule::ConsecutiveFailures {
            threshold: default_threshold(),
            compare: Compare::Ge,
        }
    }
}

impl TripRule {
    /// The stable code of the rule's kind.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            TripRule::ConsecutiveFailures { .. } => "consecutive_failures",
            TripRule::FailureRate { .. } => "failure_rate",
        }
    }

    /// The slow-call rule, if the trip rule has one.
    #[must_use]
    pub const fn slow_call(&self) -> Option<&SlowCall> {
        match self {
            TripRule::ConsecutiveFailures { .. } => None,
            #[cfg(feature = "rate_breaker")]
            TripRule::FailureRate { slow_call, .. } => slow_call.as_ref(),
            // Refused at validation in a build without the rule.
            #[cfg(not(feature = "rate_breaker"))]
            TripRule::FailureRate { .. } => None,
        }
    }

    /// The window, if the trip rule has one.
    #[must_use]
    pub const fn window(&self) -> Option<&Window> {
        match self {
            TripRule::ConsecutiveFailures { .. } => None,
            #[cfg(feature = "rate_breaker")]
            TripRule::FailureRate { window, .. } => Some(window),
            #[cfg(not(feature = "rate_breaker"))]
            TripRule::FailureRate { .. } => None,
        }
    }
}

/// Slow successes: a success that took at least `duration_ms` counts as slow,
/// and the breaker trips when slow calls / calls compares against `rate`.
/// Failures are never counted as slow (they already weigh in the failure rate).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct SlowCall {
    /// A success at least this long is slow; at least 1.
    pub duration_ms: u64,
    /// Slow calls / calls threshold, same range rule as `failure_rate`.
    pub rate: f64,
}

/// Which recent calls a failure rate is computed over.
///
/// A **time** window is a ring of `buckets` buckets of `duration_ms / buckets`
/// ms each. A call made at `now` lands in bucket number `now_ms / bucket_ms`
/// (an absolute index on the host's monotonic clock, not relative to the
/// breaker's creation), and the window at `now` is the buckets whose index is
/// greater than `now_ms / bucket_ms - buckets`: the current bucket plus the
/// `buckets - 1` before it. Memory is bounded by `buckets` whatever the
/// traffic. **Merge rule:** because indices are absolute, two snapshots of
/// the same scope (same window config, same clock origin) merge by summing
/// calls, failures and slow calls per bucket index, then dropping the buckets
/// that are not live at the later of the two latest instants.
///
/// A **count** window holds the outcomes of the last `size` calls.
/// Read from configs through the schema (`crate::schema`), with `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)
)]
pub enum Window {
    /// The last `size` calls (1 ..= 10 000).
    Count {
        /// How many calls the window holds.
        size: u32,
    },
    /// The calls of the last `duration_ms`, in `buckets` equal buckets.
    Time {
        /// The window's span in ms; a multiple of `buckets`.
        duration_ms: u64,
        /// How many buckets (1 ..= 1 000) the span is cut into.
        buckets: u32,
    },
}

impl Window {
    /// The stable code of the window's kind.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Window::Count { .. } => "count",
            Window::Time { .. } => "time",
        }
    }
}

impl BreakerConfig {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }
}

#[cfg(test)]
mod tests;
