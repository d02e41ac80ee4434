//! Retries as a share of first attempts over a sliding window (Finagle / tower).

use serde::{Deserialize, Serialize};

use super::{field, to_milli};
use crate::error::{ConfigError, ConfigErrorCode};
use crate::ring::{BucketRing, MAX_BUCKETS};
use crate::time::{Instant, MonotonicClamp};

/// The largest `ratio` accepted (Finagle and tower accept up to 1000 retries
/// per request; anything above is surely a typo for a percentage).
pub const MAX_RATIO: f64 = 1000.0;

/// The largest `min_retries_per_sec` accepted.
pub const MAX_RETRIES_PER_SEC: f64 = 1_000_000.0;

/// The longest window accepted: one day. A budget exists to react to a storm
/// within minutes; a longer window only delays that.
pub const MAX_WINDOW_MS: u64 = 86_400_000;

/// Settings of a [`RatioBudget`].
///
/// Defaults follow the seed rule "at most 10 % of the requests of the last
/// minute may be retries", with a floor of 0.1 retries per second.
///
/// **Why a floor of 0.1/s (6 per minute).** Without a floor a scope that has
/// sent one request in the last minute may retry 0.1 times, i.e. never; with
/// Finagle's 10/s floor (600 per minute) the ratio would not bite below 100
/// requests per second, which is far more than an agent or a typical client
/// sends. Six retries per window lets one isolated operation use the four
/// retries of a five-attempt policy, while a scope whose every call fails at a
/// few calls per second still stays within about 10-20 % extra load. Services
/// with heavy traffic can raise it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RatioConfig {
    /// Retries allowed per first attempt in the window (0.1 = 10 %). Read to
    /// thousandths: decimals beyond the third are ignored.
    pub ratio: f64,
    /// Length of the sliding window in milliseconds; a multiple of `buckets`.
    pub window_ms: u64,
    /// Retries per second always allowed, whatever the traffic, so a scope with
    /// little traffic can still retry. Read to thousandths.
    pub min_retries_per_sec: f64,
    /// Number of buckets the window is cut into: the window slides by
    /// `window_ms / buckets` at a time, and memory is two counters per bucket.
    pub buckets: u32,
}

impl Default for RatioConfig {
    fn default() -> Self {
        RatioConfig {
            ratio: 0.1,
            window_ms: 60_000,
            min_retries_per_sec: 0.1,
            buckets: 10,
        }
    }
}

impl RatioConfig {
    /// Checks ranges and consistency; fields are named `<prefix>.ratio`, ...
    pub fn validate(&self, field_prefix: &str) -> Result<(), ConfigError> {
        let out_of_range = |name: &str, message: String| {
            ConfigError::new(
                ConfigErrorCode::OutOfRange,
                field(field_prefix, name),
                message,
            )
        };
        if !(self.ratio.is_finite() && (0.0..=MAX_RATIO).contains(&self.ratio)) {
            return Err(out_of_range("ratio", format!("must be in 0..={MAX_RATIO}")));
        }
        if !(self.min_retries_per_sec.is_finite()
            && (0.0..=MAX_RETRIES_PER_SEC).contains(&self.min_retries_per_sec))
        {
            return Err(out_of_range(
                "min_retries_per_sec",
                format!("must be in 0..={MAX_RETRIES_PER_SEC}"),
            ));
        }
        if !(1..=MAX_BUCKETS).contains(&self.buckets) {
            return Err(out_of_range(
                "buckets",
                format!("must be in 1..={MAX_BUCKETS}"),
            ));
        }
        if !(1..=MAX_WINDOW_MS).contains(&self.window_ms) {
            return Err(out_of_range(
                "window_ms",
                format!("must be in 1..={MAX_WINDOW_MS}"),
            ));
        }
        if self.window_ms % u64::from(self.buckets) != 0 {
            return Err(ConfigError::new(
                ConfigErrorCode::Inconsistent,
                field(field_prefix, "window_ms"),
                format!("must be a multiple of buckets ({})", self.buckets),
            ));
        }
        Ok(())
    }

    /// Milliseconds per bucket (`window_ms / buckets`, at least 1).
    fn bucket_ms(&self) -> u64 {
        (self.window_ms / u64::from(self.buckets.max(1))).max(1)
    }
}

/// A retry budget proportional to traffic: each first attempt deposits, each
/// retry withdraws, both expire after the window.
///
/// **Rule.** With `ratio` and `min_retries_per_sec` read to thousandths, a
/// retry at `now` is allowed iff
///
/// ```text
/// retries_in_window < floor(ratio * requests_in_window + min_retries_per_sec * window_ms / 1000)
/// ```
///
/// evaluated exactly in integers (`ratio_milli * 1000 * requests +
/// floor_milli * window_ms`, compared against `(retries + 1) * 1_000_000`).
/// So 100 requests at the defaults allow `floor(10 + 6) = 16` retries, one
/// request allows `floor(0.1 + 6) = 6`. Retries count in the window, so a burst
/// of retries is paid back as the window slides. A refused withdrawal costs
/// nothing and changes nothing (not even the latest time seen).
///
/// The rule holds at every admission. Later, the window may show more retries
/// than it would now allow: retries admitted against older first attempts
/// outlive them by up to a window, and block further retries until they expire.
///
/// Like Finagle's `RetryBudget` and tower's `TpsBudget`, except that the window
/// is a [`BucketRing`] (fixed memory, slides by whole buckets) instead of a
/// per-second token generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawRatio")]
pub struct RatioBudget {
    config: RatioConfig,
    clamp: MonotonicClamp,
    requests: BucketRing,
    retries: BucketRing,
}

/// The unchecked wire form, validated into a [`RatioBudget`] on deserialization.
#[derive(Deserialize)]
struct RawRatio {
    config: RatioConfig,
    clamp: MonotonicClamp,
    requests: BucketRing,
    retries: BucketRing,
}

impl TryFrom<RawRatio> for RatioBudget {
    type Error = String;

    fn try_from(raw: RawRatio) -> Result<Self, Self::Error> {
        raw.config
            .validate("config")
            .map_err(|error| error.to_string())?;
        let geometry = (raw.config.bucket_ms(), raw.config.buckets);
        for ring in [&raw.requests, &raw.retries] {
            if (ring.bucket_ms(), ring.buckets()) != geometry {
                return Err("ring geometry does not match the config".to_owned());
            }
        }
        Ok(RatioBudget {
            config: raw.config,
            clamp: raw.clamp,
            requests: raw.requests,
            retries: raw.retries,
        })
    }
}

impl RatioBudget {
    /// A fresh budget; validates `config` (fields named `budget.ratio.*`).
    pub fn new(config: RatioConfig) -> Result<Self, ConfigError> {
        config.validate("budget.ratio")?;
        Ok(Self::new_unchecked(config))
    }

    /// A fresh budget from a config the caller has validated.
    pub(super) fn new_unchecked(config: RatioConfig) -> Self {
        let (bucket_ms, buckets) = (config.bucket_ms(), config.buckets);
        RatioBudget {
            config,
            clamp: MonotonicClamp::new(),
            requests: BucketRing::new(bucket_ms, buckets),
            retries: BucketRing::new(bucket_ms, buckets),
        }
    }

    /// The settings in force.
    #[must_use]
    pub const fn config(&self) -> &RatioConfig {
        &self.config
    }

    /// `now`, clamped so it never runs backwards, without recording it.
    fn effective(&self, now: Instant) -> Instant {
        now.max(self.clamp.latest())
    }

    /// Records a first attempt (a deposit).
    pub fn on_request(&mut self, now: Instant) {
        let now = self.clamp.observe(now);
        self.requests.add(now, 1);
    }

    /// Whether a retry at `now` would be allowed, without taking it.
    #[must_use]
    pub fn can_withdraw(&self, now: Instant) -> bool {
        let now = self.effective(now);
        self.retries.total(now) < self.max_retries_in_window(now)
    }

    /// Takes one retry from the budget if allowed; a refusal changes nothing.
    #[must_use]
    pub fn try_withdraw(&mut self, now: Instant) -> bool {
        if !self.can_withdraw(now) {
            return false;
        }
        let now = self.clamp.observe(now);
        self.retries.add(now, 1);
        true
    }

    /// First attempts counted in the window ending at `now`.
    #[must_use]
    pub fn requests_in_window(&self, now: Instant) -> u64 {
        self.requests.total(self.effective(now))
    }

    /// Retries counted in the window ending at `now`.
    #[must_use]
    pub fn retries_in_window(&self, now: Instant) -> u64 {
        self.retries.total(self.effective(now))
    }

    /// How many retries the window ending at `now` can hold:
    /// `floor(ratio * requests + min_retries_per_sec * window_s)`, exactly.
    #[must_use]
    pub fn max_retries_in_window(&self, now: Instant) -> u64 {
        let requests = u128::from(self.requests_in_window(now));
        let ratio_milli = u128::from(to_milli(self.config.ratio));
        let floor_milli = u128::from(to_milli(self.config.min_retries_per_sec));
        // Units of a millionth of a retry; u128 holds u64::MAX * 10^9 easily.
        let allowance = ratio_milli
            .saturating_mul(1000)
            .saturating_mul(requests)
            .saturating_add(floor_milli.saturating_mul(u128::from(self.config.window_ms)));
        u64::try_from(allowance / 1_000_000).unwrap_or(u64::MAX)
    }

    /// Merges a snapshot of the same scope taken by another observer: both
    /// rings merge by the [`BucketRing`] rule and the clock keeps the later time.
    pub fn merge(&mut self, other: &Self) {
        self.clamp.observe(other.clamp.latest());
        self.requests.merge(&other.requests);
        self.retries.merge(&other.retries);
    }

    /// Replaces the settings, carrying counts over by the merge rule (so a new
    /// window or bucket size keeps the traffic already seen).
    pub(super) fn reconfigure(&mut self, config: RatioConfig) {
        let mut fresh = Self::new_unchecked(config);
        fresh.merge(self);
        *self = fresh;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    fn budget(ratio: f64, floor: f64) -> RatioBudget {
        RatioBudget::new(RatioConfig {
            ratio,
            min_retries_per_sec: floor,
            ..RatioConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn ten_percent_of_requests_without_floor() {
        let mut b = budget(0.1, 0.0);
        for _ in 0..100 {
            b.on_request(at(0));
        }
        for _ in 0..10 {
            assert!(b.try_withdraw(at(1)));
        }
        assert!(!b.try_withdraw(at(1)));
        assert_eq!(
            (b.requests_in_window(at(1)), b.retries_in_window(at(1))),
            (100, 10)
        );
    }

    #[test]
    fn defaults_floor_allows_six_per_minute() {
        let mut b = RatioBudget::new(RatioConfig::default()).unwrap();
        assert_eq!(b.max_retries_in_window(at(0)), 6);
        b.on_request(at(0));
        assert_eq!(b.max_retries_in_window(at(0)), 6);
        for _ in 0..6 {
            assert!(b.try_withdraw(at(0)));
        }
        assert!(!b.try_withdraw(at(0)));
        for _ in 0..99 {
            b.on_request(at(0));
        }
        assert_eq!(b.max_retries_in_window(at(0)), 16);
    }

    #[test]
    fn refusal_changes_nothing() {
        let mut b = budget(0.0, 0.0);
        b.on_request(at(10));
        let before = b.clone();
        assert!(!b.try_withdraw(at(5000)));
        assert_eq!(b, before);
    }

    #[test]
    fn window_expiry_restores_budget() {
        let mut b = RatioBudget::new(RatioConfig::default()).unwrap();
        for _ in 0..6 {
            assert!(b.try_withdraw(at(0)));
        }
        assert!(!b.try_withdraw(at(59_999)));
        assert!(b.try_withdraw(at(60_000)));
        assert_eq!(b.retries_in_window(at(60_000)), 1);
    }

    #[test]
    fn backwards_time_is_clamped() {
        let mut b = budget(0.1, 0.0);
        for _ in 0..10 {
            b.on_request(at(120_000));
        }
        // A reading from before the requests still sees them.
        assert!(b.try_withdraw(at(0)));
        assert!(!b.try_withdraw(at(0)));
    }

    #[test]
    fn validation_names_fields() {
        let cases = [
            (
                RatioConfig {
                    ratio: -0.1,
                    ..RatioConfig::default()
                },
                "x.ratio",
                "out_of_range",
            ),
            (
                RatioConfig {
                    ratio: f64::NAN,
                    ..RatioConfig::default()
                },
                "x.ratio",
                "out_of_range",
            ),
            (
                RatioConfig {
                    min_retries_per_sec: f64::INFINITY,
                    ..RatioConfig::default()
                },
                "x.min_retries_per_sec",
                "out_of_range",
            ),
            (
                RatioConfig {
                    buckets: 0,
                    ..RatioConfig::default()
                },
                "x.buckets",
                "out_of_range",
            ),
            (
                RatioConfig {
                    window_ms: 0,
                    ..RatioConfig::default()
                },
                "x.window_ms",
                "out_of_range",
            ),
            (
                RatioConfig {
                    window_ms: 60_001,
                    ..RatioConfig::default()
                },
                "x.window_ms",
                "inconsistent",
            ),
        ];
        for (config, name, code) in cases {
            let error = config.validate("x").unwrap_err();
            assert_eq!((error.field(), error.code().as_str()), (name, code));
        }
        assert!(RatioConfig::default().validate("x").is_ok());
    }

    #[test]
    fn reconfigure_keeps_counts() {
        let mut b = RatioBudget::new(RatioConfig::default()).unwrap();
        for _ in 0..50 {
            b.on_request(at(30_000));
        }
        b.reconfigure(RatioConfig {
            window_ms: 120_000,
            buckets: 4,
            ..RatioConfig::default()
        });
        assert_eq!(b.requests_in_window(at(30_000)), 50);
        assert_eq!(b.config().window_ms, 120_000);
    }

    #[test]
    fn serde_round_trip() {
        let mut b = RatioBudget::new(RatioConfig::default()).unwrap();
        b.on_request(at(7));
        assert!(b.try_withdraw(at(9)));
        let json = serde_json::to_string(&b).unwrap();
        let back: RatioBudget = serde_json::from_str(&json).unwrap();
        assert_eq!(back, b);
        let tampered = json.replace("\"buckets\":10", "\"buckets\":5");
        assert!(serde_json::from_str::<RatioBudget>(&tampered).is_err());
    }
}
