//! The retry log line ("Implementing Smart Retry Logic for Transient Errors",
//! "Retry Log Format").

use std::fmt;

use crate::time::WallClock;

/// What a retry decision concluded, as written in the log line.
///
/// The seed names `SUCCESS / RETRY / EXHAUSTED`; `gave_up` is added because a
/// call also stops for reasons that are not "out of attempts" (a
/// deterministic error, a deadline, an open breaker, an empty budget), and
/// folding those into `exhausted` would inflate the exhausted alert.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LogOutcome {
    /// The attempt succeeded; the call is done.
    Success,
    /// The attempt failed and another attempt is scheduled.
    Retry,
    /// The attempt failed and it was the last one allowed.
    Exhausted,
    /// The call stopped before using all its attempts (not retryable,
    /// deadline, breaker, budget).
    GaveUp,
}

impl LogOutcome {
    /// The stable snake_case code, as it appears in the JSON line.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            LogOutcome::Success => "success",
            LogOutcome::Retry => "retry",
            LogOutcome::Exhausted => "exhausted",
            LogOutcome::GaveUp => "gave_up",
        }
    }

    /// The outcome named by `code`, if any (bindings pass codes, not enums).
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "success" => Some(LogOutcome::Success),
            "retry" => Some(LogOutcome::Retry),
            "exhausted" => Some(LogOutcome::Exhausted),
            "gave_up" => Some(LogOutcome::GaveUp),
            _ => None,
        }
    }
}

/// The error an attempt ended with: a stable code for machines (`status_503`,
/// `connect_timeout`) and a message for people.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LogError {
    /// Stable snake_case code (what dashboards group by).
    pub code: String,
    /// Free text (what a person reads); never parsed.
    pub message: String,
}

/// One retry decision as a structured log record ("Implementing Smart Retry
/// Logic for Transient Errors", "Retry Log Format").
///
/// One record is emitted per decision, i.e. after each attempt's outcome.
/// Serialized by [`LogRecord::to_json_line`] as one JSON object with the
/// fields in declaration order, so log pipelines that diff or grep lines see
/// a stable shape in every language.
///
/// `delay_ms` semantics: the seed calls it "delay before this attempt". Since
/// a record describes a *decision*, the useful number is the delay that
/// decision schedules: for outcome `retry` it is the wait before the next
/// attempt (attempt N+1); for every other outcome no further attempt is
/// made, so it is always 0 ([`LogRecord::new`] enforces this). The delay that
/// preceded attempt N is the `delay_ms` of the previous record for the same
/// operation.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct LogRecord {
    /// ISO 8601 UTC with milliseconds (`2026-11-30T05:43:25.123Z`), from the
    /// host's wall clock. Years past 9999 are clamped to the last millisecond
    /// of 9999 so the string keeps its fixed width.
    pub timestamp: String,
    /// What was being done (the operation name the host gave the call).
    pub operation: String,
    /// `"N of MAX"`, e.g. `"2 of 5"`: attempt N (1-based) of at most MAX.
    pub attempt: String,
    /// The delay this decision schedules before the next attempt; 0 unless
    /// `outcome` is `retry` (see the type docs).
    pub delay_ms: u64,
    /// The attempt's error; `null` on success.
    pub error: Option<LogError>,
    /// The code of the delay source (`exponential`, `linear`, `retry_after`,
    /// `full_jitter`, ...).
    pub strategy: String,
    /// What the decision concluded.
    pub outcome: LogOutcome,
    /// Milliseconds since the call started (monotonic), including this
    /// attempt but not the delay it schedules.
    pub total_duration_ms: u64,
}

impl LogRecord {
    /// Builds a record. `error` is `(code, message)`. A non-zero `delay_ms`
    /// with an outcome other than `retry` is written as 0, keeping the field's
    /// meaning fixed whatever the caller passes.
    #[allow(clippy::too_many_arguments)] // one argument per log field, fixed by the seed
    #[must_use]
    pub fn new(
        wall_now: WallClock,
        operation: &str,
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error: Option<(&str, &str)>,
        strategy: &str,
        outcome: LogOutcome,
        total_duration_ms: u64,
    ) -> Self {
        let delay_ms = match outcome {
            LogOutcome::Retry => delay_ms,
            LogOutcome::Success | LogOutcome::Exhausted | LogOutcome::GaveUp => 0,
        };
        LogRecord {
            timestamp: format_timestamp(wall_now.as_unix_millis()),
            operation: operation.to_owned(),
            attempt: format!("{attempt} of {max_attempts}"),
            delay_ms,
            error: error.map(|(code, message)| LogError {
                code: code.to_owned(),
                message: message.to_owned(),
            }),
            strategy: strategy.to_owned(),
            outcome,
            total_duration_ms,
        }
    }

    /// The record as one line of JSON (no trailing newline). Strings are
    /// JSON-escaped (quotes, backslashes and control characters, so a
    /// newline in an operation name cannot split the line); non-ASCII text
    /// is kept as UTF-8.
    #[must_use]
    pub fn to_json_line(&self) -> String {
        // The record's one declaration (`schema/results/event.rs`), in the
        // core's spelling: the fields in the seed's order.
        crate::schema::emit_json(self, crate::schema::Dialect::RUST)
    }
}

impl fmt::Display for LogRecord {
    /// A compact human line, e.g. `2026-11-30T05:43:25.123Z create_order
    /// attempt=2 of 5 outcome=retry delay_ms=250 strategy=full_jitter
    /// error=status_503: Service Unavailable total_ms=1203`. Control
    /// characters in caller text are escaped so the line stays one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.timestamp)?;
        f.write_str(" ")?;
        write_escaped(f, &self.operation)?;
        write!(
            f,
            " attempt={} outcome={} delay_ms={} strategy=",
            self.attempt,
            self.outcome.code(),
            self.delay_ms
        )?;
        write_escaped(f, &self.strategy)?;
        if let Some(error) = &self.error {
            f.write_str(" error=")?;
            write_escaped(f, &error.code)?;
            f.write_str(": ")?;
            write_escaped(f, &error.message)?;
        }
        write!(f, " total_ms={}", self.total_duration_ms)
    }
}

/// Writes `text`, escaping control characters as JSON does (`\n`, `\r`,
/// `\t`, otherwise `\u0001`) so that caller-supplied text cannot forge extra
/// log lines, and the escapes read the same to users of every language.
fn write_escaped(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    for c in text.chars() {
        match c {
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c.is_control() => write!(f, "\\u{:04x}", u32::from(c))?,
            c => fmt::Write::write_char(f, c)?,
        }
    }
    Ok(())
}

/// Log timestamps use the one ISO 8601 formatter of the crate (UTC, ms,
/// clamped to year 9999).
use crate::httpdate::format_rfc3339_millis as format_timestamp;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(operation: &str, outcome: LogOutcome) -> LogRecord {
        LogRecord::new(
            WallClock::from_unix_millis(1_796_017_405_123),
            operation,
            2,
            5,
            250,
            Some(("status_503", "Service Unavailable")),
            "full_jitter",
            outcome,
            1203,
        )
    }

    #[test]
    fn known_instants() {
        assert_eq!(format_timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_timestamp(951_782_400_000),
            "2000-02-29T00:00:00.000Z"
        );
        assert_eq!(
            format_timestamp(253_402_300_799_999),
            "9999-12-31T23:59:59.999Z"
        );
        assert_eq!(
            format_timestamp(1_796_017_405_123),
            "2026-11-30T05:43:25.123Z"
        );
        assert_eq!(
            format_timestamp(951_868_799_999),
            "2000-02-29T23:59:59.999Z"
        );
        assert_eq!(
            format_timestamp(951_868_800_000),
            "2000-03-01T00:00:00.000Z"
        );
        assert_eq!(
            format_timestamp(4_107_542_400_000),
            "2100-03-01T00:00:00.000Z"
        );
        assert_eq!(
            format_timestamp(1_704_067_199_999),
            "2023-12-31T23:59:59.999Z"
        );
    }

    #[test]
    fn far_future_is_clamped() {
        assert_eq!(
            format_timestamp(253_402_300_800_000),
            "9999-12-31T23:59:59.999Z"
        );
        assert_eq!(format_timestamp(u64::MAX), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn every_day_round_trips_through_a_naive_calendar() {
        // Walk day by day from 1970 to 2400 with a calendar built from the
        // leap-year rule alone, and compare.
        let mut expected = (1970u64, 1u64, 1u64);
        for days in 0..157_000u64 {
            let (y, m, d) = expected;
            let date = format_timestamp(days * 86_400_000);
            assert_eq!(&date[..10], format!("{y:04}-{m:02}-{d:02}"), "day {days}");
            let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
            let len = match m {
                2 if leap => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            expected = if d < len {
                (y, m, d + 1)
            } else if m < 12 {
                (y, m + 1, 1)
            } else {
                (y + 1, 1, 1)
            };
        }
    }

    #[test]
    fn json_line_has_fields_in_seed_order() {
        assert_eq!(
            sample("create_order", LogOutcome::Retry).to_json_line(),
            r#"{"timestamp":"2026-11-30T05:43:25.123Z","operation":"create_order","attempt":"2 of 5","delay_ms":250,"error":{"code":"status_503","message":"Service Unavailable"},"strategy":"full_jitter","outcome":"retry","total_duration_ms":1203}"#
        );
    }

    #[test]
    fn success_has_null_error_and_zero_delay() {
        let record = LogRecord::new(
            WallClock::from_unix_millis(0),
            "get",
            1,
            3,
            999,
            None,
            "exponential",
            LogOutcome::Success,
            12,
        );
        assert_eq!(
            record.to_json_line(),
            r#"{"timestamp":"1970-01-01T00:00:00.000Z","operation":"get","attempt":"1 of 3","delay_ms":0,"error":null,"strategy":"exponential","outcome":"success","total_duration_ms":12}"#
        );
    }

    #[test]
    fn delay_is_zero_unless_retry() {
        for outcome in [
            LogOutcome::Success,
            LogOutcome::Exhausted,
            LogOutcome::GaveUp,
        ] {
            assert_eq!(sample("x", outcome).delay_ms, 0, "{outcome:?}");
        }
        assert_eq!(sample("x", LogOutcome::Retry).delay_ms, 250);
    }

    #[test]
    fn json_escapes_quotes_newlines_and_keeps_unicode() {
        let line = sample("say \"hi\"\n\\ \u{1} café 🚀", LogOutcome::Retry).to_json_line();
        assert!(!line.contains('\n'));
        assert!(
            line.contains(r#""operation":"say \"hi\"\n\\ \u0001 café 🚀""#),
            "{line}"
        );
        #[cfg(feature = "serde")]
        {
            let back: LogRecord = serde_json::from_str(&line).unwrap();
            assert_eq!(
                back,
                sample("say \"hi\"\n\\ \u{1} café 🚀", LogOutcome::Retry)
            );
        }
    }

    #[test]
    fn display_is_one_compact_line() {
        assert_eq!(
            sample("create_order", LogOutcome::Retry).to_string(),
            "2026-11-30T05:43:25.123Z create_order attempt=2 of 5 outcome=retry delay_ms=250 \
             strategy=full_jitter error=status_503: Service Unavailable total_ms=1203"
        );
        let line = sample("a\nb", LogOutcome::Exhausted).to_string();
        assert!(!line.contains('\n'));
        assert!(
            line.contains("a\\nb attempt=2 of 5 outcome=exhausted delay_ms=0"),
            "{line}"
        );
        let ok = LogRecord::new(
            WallClock::from_unix_millis(0),
            "get",
            1,
            1,
            0,
            None,
            "exponential",
            LogOutcome::Success,
            5,
        );
        assert_eq!(
            ok.to_string(),
            "1970-01-01T00:00:00.000Z get attempt=1 of 1 outcome=success delay_ms=0 \
             strategy=exponential total_ms=5"
        );
    }

    #[test]
    fn outcome_codes_round_trip() {
        for outcome in [
            LogOutcome::Success,
            LogOutcome::Retry,
            LogOutcome::Exhausted,
            LogOutcome::GaveUp,
        ] {
            assert_eq!(LogOutcome::from_code(outcome.code()), Some(outcome));
            #[cfg(feature = "serde")]
            assert_eq!(
                serde_json::to_string(&outcome).unwrap(),
                format!("\"{}\"", outcome.code())
            );
        }
        assert_eq!(LogOutcome::from_code("Success"), None);
    }
}
