//! Settings of the client-side [`Throttle`](super::Throttle).

use crate::budget::to_milli;
use crate::error::ConfigError;
use crate::schema::{self, Dialect, Value};

/// The largest `k` accepted. The SRE book uses 2 and suggests 1.1 for
/// aggressive throttling; past a few dozen the throttle never acts.
pub const MAX_K: f64 = 100.0;

/// Settings of a [`Throttle`](super::Throttle).
///
/// JSON shape (Rust dialect): `{"k": 2, "window_ms": 120000, "buckets":
/// 120, "min_requests": 10, "max_rejection": 0.9}`; JavaScript writes
/// `windowMs`, `minRequests`, `maxRejection`, Python `window` in seconds.
///
/// **Defaults.** `k = 2` over the last two minutes, as in the SRE book and
/// grpc-go's RLS throttler. The window is cut into 1 s buckets, so a burst
/// leaves it within a second of its two minutes. No rejection before 10
/// requests are in the window (grpc-go pads with 8, failsafe-go defaults
/// to a minimum of 10): with a handful of requests one failure would
/// otherwise throttle the next. The rejection probability is capped at
/// 0.9 (Envoy's admission control caps at 0.8, failsafe-go at 0.9): at 1,
/// a dependency that recovered would never see a request again, since only
/// sent requests can be accepted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrottleConfig {
    /// Requests sent per accepted request before rejection starts, from 1
    /// to [`MAX_K`], read to thousandths.
    pub k: f64,
    /// The sliding window over which requests and accepts are counted.
    pub window_ms: u64,
    /// Buckets the window is cut into; `window_ms` must split into them.
    pub buckets: u32,
    /// Requests the window must hold before any is rejected.
    pub min_requests: u32,
    /// The highest rejection probability, from 0 to 0.999 (below 1),
    /// read to thousandths.
    pub max_rejection: f64,
}

impl Default for ThrottleConfig {
    fn default() -> Self {
        ThrottleConfig {
            k: 2.0,
            window_ms: 120_000,
            buckets: 120,
            min_requests: 10,
            max_rejection: 0.9,
        }
    }
}

impl ThrottleConfig {
    /// Parses and checks a throttle document (the Rust dialect).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem of the document.
    pub fn from_json(text: &str) -> Result<ThrottleConfig, ConfigError> {
        ThrottleConfig::from_value(&Value::from_json(text)?, Dialect::RUST)
    }

    /// Reads and checks a throttle document in a caller's dialect.
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, written for that caller.
    pub fn from_value(value: &Value, dialect: Dialect) -> Result<ThrottleConfig, ConfigError> {
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

    /// `k` in thousandths.
    pub(super) fn k_milli(&self) -> u64 {
        to_milli(self.k)
    }

    /// `max_rejection` in thousandths, never 1000 or more.
    pub(super) fn max_rejection_milli(&self) -> u64 {
        to_milli(self.max_rejection).min(999)
    }

    /// Milliseconds per bucket (at least 1).
    pub(super) fn bucket_ms(&self) -> u64 {
        (self.window_ms / u64::from(self.buckets.max(1))).max(1)
    }
}
