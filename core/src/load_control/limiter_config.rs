//! Settings of the adaptive concurrency [`Limiter`](super::Limiter).

use crate::budget::to_milli;
use crate::error::ConfigError;
use crate::schema::{self, Dialect, Value};

/// The highest limit accepted (Envoy's default `max_concurrency_limit`).
/// It also bounds the permits a limiter tracks, so every permit it admits
/// is remembered until it comes back.
pub const MAX_LIMIT: u32 = 1000;

/// The most callers that may wait for a permit.
pub const MAX_QUEUE: u32 = 10_000;

/// The most latencies one gradient interval keeps; later ones in the same
/// interval are not sampled (8 bytes each).
pub const MAX_INTERVAL_SAMPLES: u32 = 1000;

/// The most samples a min-RTT measurement may ask for.
pub const MAX_PROBE_SAMPLES: u32 = 10_000;

/// How the limit adapts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LimitAlgorithm {
    /// Envoy's gradient controller: every `update_interval_ms` the limit is
    /// scaled by `(min_rtt * (1 + buffer)) / sample_rtt` (clamped to
    /// `[0.5, 2]`) plus `sqrt` of the result as burst headroom, where
    /// `sample_rtt` is a percentile of the interval's latencies and
    /// `min_rtt` the no-load latency (the same percentile of
    /// `probe_samples` latencies sent at low concurrency), re-measured
    /// about every `probe_interval_ms`.
    Gradient {
        /// How often the limit is recomputed.
        update_interval_ms: u64,
        /// The percentile of an interval's latencies taken as its sample
        /// (0.5: the median), and of a min-RTT measurement's latencies
        /// taken as `min_rtt`, read to thousandths.
        percentile: f64,
        /// How far above `min_rtt` latency may rise before the limit
        /// shrinks (0.25: 25 %), read to thousandths.
        buffer: f64,
        /// How often the min RTT is re-measured, before jitter.
        probe_interval_ms: u64,
        /// Up to this fraction of `probe_interval_ms` is added at random
        /// to each wait, so a fleet started together does not probe in
        /// step; read to thousandths.
        probe_jitter: f64,
        /// Latencies a min-RTT measurement takes its percentile of (sent
        /// with at most `min_limit` in flight, for a re-measurement).
        probe_samples: u32,
    },
    /// Additive increase, multiplicative decrease on drops (429, 503,
    /// timeouts): `+1` after a limit's worth of successes sent while at
    /// least half the limit was in use, `* backoff` on a drop, at most
    /// once per limit change.
    Aimd {
        /// The factor a drop multiplies the limit by, read to thousandths.
        backoff: f64,
    },
}

impl LimitAlgorithm {
    /// The stable code of the `kind` field: `gradient` or `aimd`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            LimitAlgorithm::Gradient { .. } => "gradient",
            LimitAlgorithm::Aimd { .. } => "aimd",
        }
    }

    /// AIMD with its default backoff (0.9, as Netflix's `AIMDLimit`).
    #[must_use]
    pub const fn aimd() -> LimitAlgorithm {
        LimitAlgorithm::Aimd { backoff: 0.9 }
    }
}

impl Default for LimitAlgorithm {
    /// Envoy's recommended values (median sample, 25 % buffer, a min-RTT
    /// measurement of 50 requests every minute with up to 15 % jitter),
    /// except the update interval: 1 s, not 100 ms, because a client sends
    /// far fewer requests than the proxy Envoy's default was made for.
    fn default() -> Self {
        LimitAlgorithm::Gradient {
            update_interval_ms: 1_000,
            percentile: 0.5,
            buffer: 0.25,
            probe_interval_ms: 60_000,
            probe_jitter: 0.15,
            probe_samples: 50,
        }
    }
}

/// Settings of a [`Limiter`](super::Limiter).
///
/// JSON shape (Rust dialect): `{"initial_limit": 20, "min_limit": 3,
/// "max_limit": 1000, "max_queue": 0, "max_wait_ms": 1000, "algorithm":
/// {"kind": "gradient", ...}}` or `{"algorithm": {"kind": "aimd",
/// "backoff": 0.9}}`.
///
/// **No queue by default.** A waiting caller spends its own deadline in a
/// local queue where the policy cannot see it; rejecting at once lets the
/// caller's policy decide (fail fast, or retry after a backoff). A host
/// that prefers to smooth bursts sets `max_queue`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LimiterConfig {
    /// The limit before anything is learned.
    pub initial_limit: u32,
    /// The limit never goes below this (at least 1).
    pub min_limit: u32,
    /// The limit never goes above this (at most [`MAX_LIMIT`]).
    pub max_limit: u32,
    /// Callers that may wait for a permit when the limit is reached
    /// (0: reject at once).
    pub max_queue: u32,
    /// The longest a caller waits in the queue.
    pub max_wait_ms: u64,
    /// How the limit adapts.
    pub algorithm: LimitAlgorithm,
}

impl Default for LimiterConfig {
    fn default() -> Self {
        LimiterConfig {
            initial_limit: 20,
            min_limit: 3,
            max_limit: MAX_LIMIT,
            max_queue: 0,
            max_wait_ms: 1_000,
            algorithm: LimitAlgorithm::default(),
        }
    }
}

impl LimiterConfig {
    /// Parses and checks a limiter document (the Rust dialect).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem of the document.
    pub fn from_json(text: &str) -> Result<LimiterConfig, ConfigError> {
        LimiterConfig::from_value(&Value::from_json(text)?, Dialect::RUST)
    }

    /// Reads and checks a limiter document in a caller's dialect.
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, written for that caller.
    pub fn from_value(value: &Value, dialect: Dialect) -> Result<LimiterConfig, ConfigError> {
        schema::decode(value, dialect)
    }

    /// The settings as a document in `dialect`, every default filled in.
    #[must_use]
    pub fn to_value(&self, dialect: Dialect) -> Value {
        schema::encode(self, dialect)
    }

    /// Checks every value (settings built in Rust).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        schema::validate(self)
    }

    /// `min_limit..=max_limit`, repaired so that an unvalidated config
    /// still gives a usable range (`1 <= lo <= hi <= MAX_LIMIT`).
    pub(super) fn bounds(&self) -> (u32, u32) {
        let hi = self.max_limit.clamp(1, MAX_LIMIT);
        (self.min_limit.clamp(1, hi), hi)
    }
}

/// A fraction read to thousandths, at most 1000.
pub(super) fn milli(value: f64) -> u64 {
    to_milli(value).min(1000)
}
