//! Client-side throttling (Google SRE book, "Handling Overload").
//!
//! Each client remembers, over a sliding window, how many requests it made
//! (`requests`) and how many the dependency accepted (`accepts`), and
//! rejects a new request locally with probability
//!
//! ```text
//! p = max(0, (requests - k * accepts) / (requests + 1))
//! ```
//!
//! so that once the dependency rejects most of what it gets, the client
//! stops sending most of it, without any coordination. Requests rejected
//! locally count as requests: while the dependency stays down, `p` keeps
//! rising towards its cap; once it accepts again, the accepts pull `p` back.

use super::throttle_config::ThrottleConfig;
use crate::classify::Class;
use crate::error::ConfigError;
use crate::ring::BucketRing;
use crate::rng::SplitMix64;
use crate::time::{Instant, MonotonicClamp};

/// Parts per million: the unit of a rejection probability.
const PPM: u64 = 1_000_000;

/// A request the throttle rejected locally: it must not be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Throttled {
    /// The rejection probability it was drawn against, in parts per million.
    pub probability_ppm: u64,
    /// Requests in the window before this one.
    pub requests: u64,
    /// Accepted requests in the window.
    pub accepts: u64,
}

impl Throttled {
    /// The stable reason code of a local rejection.
    pub const CODE: &'static str = "throttled";

    /// [`Throttled::CODE`].
    #[must_use]
    pub const fn code(&self) -> &'static str {
        Self::CODE
    }
}

/// What the window holds at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrottleStatus {
    /// Requests in the window, those rejected locally included.
    pub requests: u64,
    /// Requests the dependency accepted.
    pub accepts: u64,
    /// The probability the next request is rejected, in parts per million.
    pub rejection_ppm: u64,
}

/// One scope's client-side throttle. See the [module docs](self).
///
/// **Exact rule.** With `R` requests and `A` accepts in the window at `now`
/// (before the request being decided), `k` and `max_rejection` read to
/// thousandths (`k_m`, `max_m`):
///
/// ```text
/// p_ppm = 0                                         if R < min_requests
///       = min(max(0, R*1000 - k_m*A) * 10^6 / ((R+1)*1000), max_m * 1000)   otherwise
/// rejected  iff  rng.below(10^6) < p_ppm
/// ```
///
/// in integers (the division truncates), so every host agrees to the last
/// part per million. Every [`Throttle::try_admit`] draws exactly one output
/// of the seeded generator, whatever `p`, so the stream never depends on
/// the counts. The request is counted at `now` either way.
#[derive(Clone, Debug)]
pub struct Throttle {
    config: ThrottleConfig,
    rng: SplitMix64,
    clock: MonotonicClamp,
    requests: BucketRing,
    accepts: BucketRing,
}

impl Throttle {
    /// An empty throttle drawing from `seed`; validates `config`.
    ///
    /// # Errors
    /// A [`ConfigError`] naming each bad field (Rust spelling).
    pub fn new(config: ThrottleConfig, seed: u64) -> Result<Self, ConfigError> {
        config.validate()?;
        let (bucket_ms, buckets) = (config.bucket_ms(), config.buckets);
        Ok(Throttle {
            config,
            rng: SplitMix64::new(seed),
            clock: MonotonicClamp::new(),
            requests: BucketRing::new(bucket_ms, buckets),
            accepts: BucketRing::new(bucket_ms, buckets),
        })
    }

    /// The settings in force.
    #[must_use]
    pub const fn config(&self) -> &ThrottleConfig {
        &self.config
    }

    /// Asks to send one request at `now`, and counts it as a request
    /// whatever the answer.
    ///
    /// # Errors
    /// [`Throttled`] when the request must not be sent; a decision, not a
    /// fault.
    pub fn try_admit(&mut self, now: Instant) -> Result<(), Throttled> {
        let now = self.clock.observe(now);
        let status = self.status_at(now);
        let draw = self.rng.below(PPM);
        self.requests.add(now, 1);
        if draw < status.rejection_ppm {
            Err(Throttled {
                probability_ppm: status.rejection_ppm,
                requests: status.requests,
                accepts: status.accepts,
            })
        } else {
            Ok(())
        }
    }

    /// Counts a request that was sent without asking (a retry or a hedge
    /// the retry budget already admitted), so that its outcome has a
    /// request to weigh against.
    pub fn count_request(&mut self, now: Instant) {
        let now = self.clock.observe(now);
        self.requests.add(now, 1);
    }

    /// Records the class of a sent request's outcome.
    ///
    /// "Accepted" is what the dependency did with the request, not whether
    /// the caller liked the answer: a success and a deterministic failure
    /// (a 404, a validation error) were both processed, so both count. A
    /// transient failure (429, 503, a timeout) and an ambiguous one (a
    /// connection lost after sending) are what overload looks like from the
    /// client, and do not. Returns whether it counted as accepted.
    pub fn on_outcome(&mut self, now: Instant, class: Class) -> bool {
        let accepted = Self::accepts(class);
        if accepted {
            let now = self.clock.observe(now);
            self.accepts.add(now, 1);
        }
        accepted
    }

    /// Whether an outcome of `class` counts as accepted.
    #[must_use]
    pub const fn accepts(class: Class) -> bool {
        matches!(class, Class::Success | Class::Deterministic)
    }

    /// The window's counts and the rejection probability at `now` (a
    /// reading earlier than the latest counts as the latest).
    #[must_use]
    pub fn status(&self, now: Instant) -> ThrottleStatus {
        self.status_at(now.max(self.clock.latest()))
    }

    fn status_at(&self, now: Instant) -> ThrottleStatus {
        let requests = self.requests.total(now);
        let accepts = self.accepts.total(now);
        ThrottleStatus {
            requests,
            accepts,
            rejection_ppm: self.rejection_ppm(requests, accepts),
        }
    }

    /// The exact rule of the type docs, in 128-bit integers.
    fn rejection_ppm(&self, requests: u64, accepts: u64) -> u64 {
        if requests < u64::from(self.config.min_requests) {
            return 0;
        }
        let excess = (u128::from(requests) * 1000)
            .saturating_sub(u128::from(self.config.k_milli()) * u128::from(accepts));
        let over = (u128::from(requests) + 1) * 1000;
        let ppm = excess * u128::from(PPM) / over;
        let cap = u128::from(self.config.max_rejection_milli()) * 1000;
        // Below the cap, so below 10^6: the conversion cannot fail.
        u64::try_from(ppm.min(cap)).unwrap_or(0)
    }
}
