//! Retries as a share of first attempts over a sliding window (Finagle / tower).

use super::to_milli;
use crate::error::ConfigError;
use crate::ring::BucketRing;
use crate::time::{Instant, MonotonicClamp};

/// The largest `ratio` accepted (Finagle and tower accept up to 1000 retries
/// per request; anything above is surely a typo for a percentage).
pub const MAX_RATIO: f64 = 1000.0;

/// The largest `min_retries_per_sec` accepted.
pub const MAX_RETRIES_PER_SEC: f64 = 1_000_000.0;

/// The largest `min_concurrent_retries` accepted.
pub const MAX_CONCURRENT_FLOOR: u32 = 1_000;

/// The longest window accepted: one day. A budget exists to react to a storm
/// within minutes; a longer window only delays that.
pub const MAX_WINDOW_MS: u64 = 86_400_000;

/// Settings of a [`RatioBudget`].
///
/// Defaults follow the seed rule "at most 10 % of the requests of the last
/// minute may be retries", with two floors: 0.1 retries per second, and up
/// to 3 retries outstanding at any time whatever the window holds.
///
/// **Why a concurrency floor (Envoy's `min_retry_concurrency`, 3).** A ratio
/// over first attempts punishes work that is healthy but sequential: 40 jobs
/// run one after another, each failing transiently twice before it succeeds,
/// need 80 retries against 40 first attempts, and a ratio of 10 % (or
/// Finagle's 20 %) refuses almost all of them. Such work never has more than
/// one retry outstanding, so a floor counted in *outstanding* retries lets it
/// through at any speed, while a storm (many callers retrying at once) gains
/// at most 3 retries in flight beyond the ratio. A per-second floor cannot
/// tell the two apart: Finagle's and tower's 10/s passes the batch but lets
/// 600 retries a minute into an outage; a floor low enough to stop the storm
/// fails the batch. A floor slot is held from the retry decision until that
/// retry's attempt ends (or its call does), and expires after the window, so
/// a call the host forgets cannot hold one for ever. gRPC's retry throttling
/// (A6, the `grpc` budget here) reaches the same place from the other side: a
/// token bucket of 10 that a healthy call refills, so sparse sequential
/// failures never empty it, but it has no notion of traffic volume; the ratio
/// keeps the seed's 10 % rule and the floor covers the low-traffic case.
/// Measured in `core/tests/budget_defaults.rs`: the batch completes 40/40, and
/// 50 callers against an always-503 service send 1.10 attempts per first
/// attempt over a minute with the breaker off (1.00 with it on).
///
/// **Why a floor of 0.1/s (6 per minute).** Without a floor a scope that has
/// sent one request in the last minute may retry 0.1 times, i.e. never; with
/// Finagle's 10/s floor (600 per minute) the ratio would not bite below 100
/// requests per second, which is far more than an agent or a typical client
/// sends. Six retries per window lets one isolated operation use the four
/// retries of a five-attempt policy, while a scope whose every call fails at a
/// few calls per second still stays within about 10-20 % extra load. Services
/// with heavy traffic can raise it.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
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
    /// Retries always allowed while fewer than this many granted retries
    /// are outstanding (decided, not yet ended), whatever the window holds.
    pub min_concurrent_retries: u32,
}

impl Default for RatioConfig {
    fn default() -> Self {
        RatioConfig {
            ratio: 0.1,
            window_ms: 60_000,
            min_retries_per_sec: 0.1,
            buckets: 10,
            min_concurrent_retries: 3,
        }
    }
}

impl RatioConfig {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
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
#[derive(Clone, Debug)]
pub struct RatioBudget {
    pub(super) config: RatioConfig,
    pub(super) clamp: MonotonicClamp,
    pub(super) requests: BucketRing,
    pub(super) retries: BucketRing,
    /// When each outstanding floor retry was granted. Process-local (a
    /// snapshot does not carry calls in flight, so it does not carry their
    /// slots) and at most `min_concurrent_retries` long.
    floor_slots: Vec<Instant>,
    /// The other processes' first attempts and retries, from the fleet's
    /// last view (`crate::fleet`), in this budget's geometry: added to the
    /// own counts in every decision. Process-local, like the floor slots;
    /// they age out of the window like own counts when no view comes.
    remote: Option<(BucketRing, BucketRing)>,
}

/// Equal when the portable state is: floor slots belong to calls in flight,
/// which a snapshot does not carry.
impl PartialEq for RatioBudget {
    fn eq(&self, other: &Self) -> bool {
        self.config == other.config
            && self.clamp == other.clamp
            && self.requests == other.requests
            && self.retries == other.retries
    }
}

/// How a withdrawal was granted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Withdrawal {
    /// Refused: the window is full and every floor slot is taken.
    Refused,
    /// Within the window's allowance.
    Ratio,
    /// On the concurrency floor, holding the slot granted at this instant
    /// until [`RatioBudget::release`].
    Floor(Instant),
}

impl Withdrawal {
    /// Whether the retry was granted.
    #[must_use]
    pub const fn granted(self) -> bool {
        !matches!(self, Withdrawal::Refused)
    }
}

/// The unchecked wire form, validated into a [`RatioBudget`] on deserialization.
pub(super) struct RawRatio {
    pub(super) config: RatioConfig,
    pub(super) clamp: MonotonicClamp,
    pub(super) requests: BucketRing,
    pub(super) retries: BucketRing,
}

impl TryFrom<RawRatio> for RatioBudget {
    type Error = String;

    fn try_from(raw: RawRatio) -> Result<Self, Self::Error> {
        raw.config.validate().map_err(|error| error.to_string())?;
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
            floor_slots: Vec::new(),
            remote: None,
        })
    }
}

impl RatioBudget {
    /// A fresh budget; validates `config` (fields named `budget.ratio.*`).
    pub fn new(config: RatioConfig) -> Result<Self, ConfigError> {
        config.validate()?;
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
            floor_slots: Vec::new(),
            remote: None,
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
        self.grant(now).granted()
    }

    /// How a retry at `now` would be granted, without taking it: what
    /// [`RatioBudget::take`] then charges, so that a caller asking first
    /// (every budget must agree before any is charged) counts the window
    /// once, not twice.
    pub fn grant(&self, now: Instant) -> Withdrawal {
        let effective = self.effective(now);
        if self.within_window(effective) {
            Withdrawal::Ratio
        } else if self.floor_slot_free(effective) {
            Withdrawal::Floor(effective)
        } else {
            Withdrawal::Refused
        }
    }

    fn within_window(&self, now: Instant) -> bool {
        self.retries_in_window(now) < self.max_retries_in_window(now)
    }

    /// Whether a concurrency-floor slot is free at `now` (slots older than
    /// the window count as free: their call was abandoned).
    fn floor_slot_free(&self, now: Instant) -> bool {
        let live = self
            .floor_slots
            .iter()
            .filter(|at| now.saturating_since(**at) < self.config.window_ms)
            .count();
        live < usize::try_from(self.config.min_concurrent_retries).unwrap_or(usize::MAX)
    }

    /// Takes one retry from the budget if allowed; a refusal changes nothing.
    /// Every granted retry counts in the window; one granted on the floor
    /// holds a slot until [`RatioBudget::release`].
    pub fn try_withdraw(&mut self, now: Instant) -> Withdrawal {
        let grant = self.grant(now);
        self.take(now, grant);
        grant
    }

    /// Charges `grant`, what [`RatioBudget::grant`] answered at this `now`
    /// (a refusal charges nothing).
    pub fn take(&mut self, now: Instant, grant: Withdrawal) {
        if grant == Withdrawal::Refused {
            return;
        }
        let now = self.clamp.observe(now);
        self.retries.add(now, 1);
        if let Withdrawal::Floor(at) = grant {
            let window = self.config.window_ms;
            self.floor_slots
                .retain(|slot| now.saturating_since(*slot) < window);
            self.floor_slots.push(at);
        }
    }

    /// Frees the floor slot granted at `at` (the retry's attempt ended, or
    /// its call did). Releasing a slot that expired is harmless.
    pub fn release(&mut self, at: Instant) {
        if let Some(index) = self.floor_slots.iter().position(|slot| *slot == at) {
            self.floor_slots.swap_remove(index);
        }
    }

    /// Floor slots held now.
    #[must_use]
    pub fn floor_slots_held(&self) -> usize {
        self.floor_slots.len()
    }

    /// First attempts counted in the window ending at `now`, the fleet's
    /// other processes' included when a view is attached.
    #[must_use]
    pub fn requests_in_window(&self, now: Instant) -> u64 {
        let now = self.effective(now);
        let remote = self
            .remote
            .as_ref()
            .map_or(0, |(requests, _)| requests.total(now));
        self.requests.total(now).saturating_add(remote)
    }

    /// Retries counted in the window ending at `now`, the fleet's other
    /// processes' included when a view is attached.
    #[must_use]
    pub fn retries_in_window(&self, now: Instant) -> u64 {
        let now = self.effective(now);
        let remote = self
            .remote
            .as_ref()
            .map_or(0, |(_, retries)| retries.total(now));
        self.retries.total(now).saturating_add(remote)
    }

    /// The window's geometry: bucket width (ms) and bucket count.
    #[must_use]
    pub fn geometry(&self) -> (u64, u32) {
        (self.config.bucket_ms(), self.config.buckets)
    }

    /// Replaces the other processes' counts (`(first attempts, retries)`
    /// rings of this budget's geometry), or drops them.
    pub fn set_remote(&mut self, remote: Option<(BucketRing, BucketRing)>) {
        self.remote = remote.filter(|(requests, retries)| {
            [requests, retries]
                .iter()
                .all(|ring| (ring.bucket_ms(), ring.buckets()) == self.geometry())
        });
    }

    /// How many retries the window ending at `now` can hold:
    /// `floor(ratio * requests + min_retries_per_sec * window_s)`, exactly.
    #[must_use]
    pub fn max_retries_in_window(&self, now: Instant) -> u64 {
        allowance(
            self.requests_in_window(now),
            to_milli(self.config.ratio),
            to_milli(self.config.min_retries_per_sec),
            self.config.window_ms,
        )
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

mod allowance;

use allowance::allowance;

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// A budget without the concurrency floor, so the window rule alone decides.
    fn budget(ratio: f64, floor: f64) -> RatioBudget {
        RatioBudget::new(RatioConfig {
            ratio,
            min_retries_per_sec: floor,
            min_concurrent_retries: 0,
            ..RatioConfig::default()
        })
        .unwrap()
    }

    #[test]
    fn concurrency_floor_passes_sequential_retries_and_caps_concurrent_ones() {
        let mut b = RatioBudget::new(RatioConfig {
            ratio: 0.0,
            min_retries_per_sec: 0.0,
            ..RatioConfig::default()
        })
        .unwrap();
        // Sequential: each retry's slot is released before the next is asked.
        for t in 0..200 {
            match b.try_withdraw(at(t * 10)) {
                Withdrawal::Floor(slot) => b.release(slot),
                other => panic!("sequential retry {t} was {other:?}"),
            }
        }
        // Concurrent: three slots, then refusals until one is released.
        let slots: Vec<_> = (0..3).map(|_| b.try_withdraw(at(5_000))).collect();
        assert!(slots.iter().all(|w| matches!(w, Withdrawal::Floor(_))));
        assert_eq!(b.try_withdraw(at(5_000)), Withdrawal::Refused);
        if let Withdrawal::Floor(slot) = slots[0] {
            b.release(slot);
        }
        assert!(b.try_withdraw(at(5_001)).granted());
        assert_eq!(b.try_withdraw(at(5_001)), Withdrawal::Refused);
        // A slot the host forgot expires after the window.
        assert!(b.try_withdraw(at(5_000 + 60_000)).granted());
    }

    #[test]
    fn ten_percent_of_requests_without_floor() {
        let mut b = budget(0.1, 0.0);
        for _ in 0..100 {
            b.on_request(at(0));
        }
        for _ in 0..10 {
            assert!(b.try_withdraw(at(1)).granted());
        }
        assert!(!b.try_withdraw(at(1)).granted());
        assert_eq!(
            (b.requests_in_window(at(1)), b.retries_in_window(at(1))),
            (100, 10)
        );
    }

    #[test]
    fn defaults_floor_allows_six_per_minute_then_three_outstanding() {
        let mut b = RatioBudget::new(RatioConfig::default()).unwrap();
        assert_eq!(b.max_retries_in_window(at(0)), 6);
        b.on_request(at(0));
        assert_eq!(b.max_retries_in_window(at(0)), 6);
        for _ in 0..6 {
            assert_eq!(b.try_withdraw(at(0)), Withdrawal::Ratio);
        }
        for _ in 0..3 {
            assert_eq!(b.try_withdraw(at(0)), Withdrawal::Floor(at(0)));
        }
        assert!(!b.try_withdraw(at(0)).granted());
        assert_eq!(b.floor_slots_held(), 3);
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
        assert!(!b.try_withdraw(at(5000)).granted());
        assert_eq!(b, before);
    }

    #[test]
    fn window_expiry_restores_budget() {
        let mut b = budget(0.1, 0.1);
        for _ in 0..6 {
            assert!(b.try_withdraw(at(0)).granted());
        }
        assert!(!b.try_withdraw(at(59_999)).granted());
        assert!(b.try_withdraw(at(60_000)).granted());
        assert_eq!(b.retries_in_window(at(60_000)), 1);
    }

    #[test]
    fn backwards_time_is_clamped() {
        let mut b = budget(0.1, 0.0);
        for _ in 0..10 {
            b.on_request(at(120_000));
        }
        // A reading from before the requests still sees them.
        assert!(b.try_withdraw(at(0)).granted());
        assert!(!b.try_withdraw(at(0)).granted());
    }

    #[test]
    fn validation_names_fields() {
        let cases = [
            (
                RatioConfig {
                    ratio: -0.1,
                    ..RatioConfig::default()
                },
                "ratio",
                "out_of_range",
            ),
            (
                RatioConfig {
                    ratio: f64::NAN,
                    ..RatioConfig::default()
                },
                "ratio",
                "out_of_range",
            ),
            (
                RatioConfig {
                    min_retries_per_sec: f64::INFINITY,
                    ..RatioConfig::default()
                },
                "min_retries_per_sec",
                "out_of_range",
            ),
            (
                RatioConfig {
                    buckets: 0,
                    ..RatioConfig::default()
                },
                "buckets",
                "out_of_range",
            ),
            (
                RatioConfig {
                    window_ms: 0,
                    ..RatioConfig::default()
                },
                "window_ms",
                "out_of_range",
            ),
            (
                RatioConfig {
                    window_ms: 60_001,
                    ..RatioConfig::default()
                },
                "window_ms",
                "inconsistent",
            ),
        ];
        for (config, name, code) in cases {
            let error = config.validate().unwrap_err();
            assert_eq!((error.field(), error.code().as_str()), (name, code));
        }
        assert!(RatioConfig::default().validate().is_ok());
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
    fn snapshot_round_trip() {
        let mut b = RatioBudget::new(RatioConfig::default()).unwrap();
        b.on_request(at(7));
        assert!(b.try_withdraw(at(9)).granted());
        let json = crate::state::write_snapshot(&b);
        let back: RatioBudget = crate::state::read_snapshot(&json).unwrap();
        assert_eq!(back, b);
        let tampered = json.replace("\"buckets\":10", "\"buckets\":5");
        assert!(crate::state::read_snapshot::<RatioBudget>(&tampered).is_err());
    }
}
