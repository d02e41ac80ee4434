//! Time as the host passes it in.
//!
//! The core never reads a clock. Hosts pass a *monotonic* `now` in integer
//! milliseconds since an origin of their choosing (`performance.now()`,
//! `time.monotonic() * 1000`, `Instant::elapsed`), and, only where an absolute
//! date matters (HTTP-date hints, log timestamps), a separate *wall clock* in
//! Unix milliseconds. Milliseconds are the one unit of the wire contract: they
//! are what JavaScript timers take and they are exact in an `f64`.

/// A point on the host's monotonic clock, in milliseconds since the host's origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct Instant(u64);

impl Instant {
    /// The host's origin.
    pub const ZERO: Instant = Instant(0);

    /// An instant `ms` milliseconds after the host's origin.
    #[must_use]
    pub const fn from_millis(ms: u64) -> Self {
        Instant(ms)
    }

    /// Milliseconds since the host's origin.
    #[must_use]
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Milliseconds from `earlier` to `self`, or 0 if `earlier` is later
    /// (time never runs backwards inside the core).
    #[must_use]
    pub const fn saturating_since(self, earlier: Instant) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// `self + ms`, saturating at the far future instead of overflowing.
    #[must_use]
    pub const fn saturating_add(self, ms: u64) -> Instant {
        Instant(self.0.saturating_add(ms))
    }
}

/// Clamps a host's monotonic readings so that time never goes backwards.
///
/// A host clock can step back (a VM migration, a buggy polyfill, two hosts
/// sharing a restored snapshot). Trusting it would reopen breakers early or
/// make durations negative, so every mutating entry point passes `now` through
/// this first: a reading earlier than the latest one seen counts as the latest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MonotonicClamp {
    latest: Instant,
}

impl MonotonicClamp {
    /// A clamp that has seen nothing yet.
    #[must_use]
    pub const fn new() -> Self {
        MonotonicClamp {
            latest: Instant::ZERO,
        }
    }

    /// The reading to use: `now`, or the latest reading if `now` is earlier.
    ///
    /// A reading beyond [`MAX_READING_MS`] is not a clock's (a NaN or an
    /// infinity a host saturated, a unit mistake): taken as the latest, it
    /// would freeze the clock for good, since readings never go back. It is
    /// ignored, and the latest plausible reading is used instead.
    pub fn observe(&mut self, now: Instant) -> Instant {
        if now > self.latest && now.as_millis() <= MAX_READING_MS {
            self.latest = now;
        }
        self.latest
    }

    /// The latest reading seen.
    #[must_use]
    pub const fn latest(&self) -> Instant {
        self.latest
    }

    /// A clamp resumed from a snapshot, `latest` taken as written.
    pub(crate) const fn resumed(latest: Instant) -> Self {
        MonotonicClamp { latest }
    }
}

/// The largest plausible monotonic reading: 2^53 ms (285,000 years), the
/// largest integer a JavaScript number holds exactly.
pub const MAX_READING_MS: u64 = (1 << 53) - 1;

/// A wall-clock reading in Unix milliseconds (UTC), passed by the host where
/// an absolute date matters. It is never used to measure durations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct WallClock(u64);

impl WallClock {
    /// The wall clock at `unix_ms` milliseconds since 1970-01-01T00:00:00Z.
    #[must_use]
    pub const fn from_unix_millis(unix_ms: u64) -> Self {
        WallClock(unix_ms)
    }

    /// Milliseconds since the Unix epoch.
    #[must_use]
    pub const fn as_unix_millis(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backwards_time_is_clamped() {
        let mut clamp = MonotonicClamp::new();
        assert_eq!(
            clamp.observe(Instant::from_millis(100)),
            Instant::from_millis(100)
        );
        assert_eq!(
            clamp.observe(Instant::from_millis(40)),
            Instant::from_millis(100)
        );
        assert_eq!(
            clamp.observe(Instant::from_millis(150)),
            Instant::from_millis(150)
        );
    }

    #[test]
    fn arithmetic_saturates() {
        let far = Instant::from_millis(u64::MAX - 1);
        assert_eq!(far.saturating_add(10).as_millis(), u64::MAX);
        assert_eq!(
            Instant::from_millis(5).saturating_since(Instant::from_millis(9)),
            0
        );
        assert_eq!(
            Instant::from_millis(9).saturating_since(Instant::from_millis(5)),
            4
        );
    }
}
