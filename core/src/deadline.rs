//! Deadlines: connect, per-attempt (read) and total timeouts.
//!
//! "Implementing Smart Retry Logic for Transient Errors": connect 5 s, read 30
//! s, total 120 s; the per-attempt timeout is `min(read, remaining total)`;
//! once the total is spent, stop regardless of attempts left. The engine also
//! refuses to schedule a retry whose delay would end at or past the deadline:
//! sleeping only to give up is waste.

use crate::error::ConfigError;
use crate::time::Instant;

/// The longest any timeout may be: 30 days. A bound that keeps every sum of
/// instants far from overflow and catches seconds-for-milliseconds mistakes.
pub const MAX_TIMEOUT_MS: u64 = 30 * 24 * 3600 * 1000;

/// Timeout settings. `None` disables a timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct Timeouts {
    /// How long establishing a connection may take (hosts that can separate it).
    pub connect_ms: Option<u64>,
    /// How long one attempt may wait for its response.
    pub read_ms: Option<u64>,
    /// How long the whole call may take, every attempt and wait included.
    pub total_ms: Option<u64>,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect_ms: Some(5_000),
            read_ms: Some(30_000),
            total_ms: Some(120_000),
        }
    }
}

impl Timeouts {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }
}

/// One call's deadline, fixed when the call starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Deadline {
    started: Instant,
    ends: Option<Instant>,
}

impl Deadline {
    /// The deadline of a call that starts at `now` under `timeouts`.
    #[must_use]
    pub fn start(now: Instant, timeouts: &Timeouts) -> Deadline {
        Deadline {
            started: now,
            ends: timeouts.total_ms.map(|ms| now.saturating_add(ms)),
        }
    }

    /// When the call started.
    #[must_use]
    pub const fn started(&self) -> Instant {
        self.started
    }

    /// When the call must end, if it has a total timeout.
    #[must_use]
    pub const fn ends(&self) -> Option<Instant> {
        self.ends
    }

    /// Milliseconds since the call started.
    #[must_use]
    pub const fn elapsed(&self, now: Instant) -> u64 {
        now.saturating_since(self.started)
    }

    /// Milliseconds left, or `None` without a total timeout.
    #[must_use]
    pub fn remaining(&self, now: Instant) -> Option<u64> {
        self.ends.map(|end| end.saturating_since(now))
    }

    /// Whether the total timeout is spent.
    #[must_use]
    pub fn is_expired(&self, now: Instant) -> bool {
        self.remaining(now) == Some(0)
    }

    /// The per-attempt timeout: `min(read, remaining total)`.
    #[must_use]
    pub fn attempt_timeout(&self, now: Instant, timeouts: &Timeouts) -> Option<u64> {
        match (timeouts.read_ms, self.remaining(now)) {
            (Some(read), Some(left)) => Some(read.min(left)),
            (read, left) => read.or(left),
        }
    }

    /// The connect timeout for an attempt, never longer than the attempt's.
    #[must_use]
    pub fn connect_timeout(&self, now: Instant, timeouts: &Timeouts) -> Option<u64> {
        match (timeouts.connect_ms, self.attempt_timeout(now, timeouts)) {
            (Some(connect), Some(attempt)) => Some(connect.min(attempt)),
            (connect, attempt) => connect.or(attempt),
        }
    }

    /// Whether an attempt that starts after waiting `delay_ms` from `now`
    /// would still have at least `min_attempt_ms` before the deadline (and at
    /// least 1 ms: an attempt with no time left cannot finish).
    #[must_use]
    pub fn leaves_room(&self, now: Instant, delay_ms: u64, min_attempt_ms: u64) -> bool {
        match self.remaining(now) {
            None => true,
            Some(left) => left > delay_ms.saturating_add(min_attempt_ms.saturating_sub(1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    #[test]
    fn attempt_timeout_is_min_of_read_and_remaining() {
        let t = Timeouts::default();
        let d = Deadline::start(at(1_000), &t);
        assert_eq!(d.attempt_timeout(at(1_000), &t), Some(30_000));
        assert_eq!(d.attempt_timeout(at(101_000), &t), Some(20_000));
        assert_eq!(d.attempt_timeout(at(500_000), &t), Some(0));
        assert!(d.is_expired(at(121_000)));
        assert!(!d.is_expired(at(120_999)));
        assert_eq!(d.connect_timeout(at(118_000), &t), Some(3_000));
    }

    #[test]
    fn disabled_timeouts() {
        let t = Timeouts {
            connect_ms: None,
            read_ms: None,
            total_ms: None,
        };
        let d = Deadline::start(at(0), &t);
        assert_eq!(d.attempt_timeout(at(5), &t), None);
        assert!(d.leaves_room(at(5), u64::MAX, u64::MAX));
        let t = Timeouts {
            connect_ms: None,
            read_ms: None,
            total_ms: Some(100),
        };
        let d = Deadline::start(at(0), &t);
        assert_eq!(d.attempt_timeout(at(30), &t), Some(70));
    }

    #[test]
    fn room_for_another_attempt() {
        let t = Timeouts {
            total_ms: Some(1_000),
            ..Timeouts::default()
        };
        let d = Deadline::start(at(0), &t);
        assert!(d.leaves_room(at(0), 999, 0));
        assert!(!d.leaves_room(at(0), 1_000, 0));
        assert!(d.leaves_room(at(0), 900, 100));
        assert!(!d.leaves_room(at(0), 901, 100));
        assert!(!d.leaves_room(at(0), u64::MAX, 0));
    }

    #[test]
    fn validation_names_the_field() {
        let t = Timeouts {
            read_ms: Some(0),
            ..Timeouts::default()
        };
        assert_eq!(t.validate().unwrap_err().field(), "read_ms");
        assert!(Timeouts::default().validate().is_ok());
    }
}
