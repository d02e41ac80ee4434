//! HTTP-dates (RFC 9110 §5.6.7), parsed and formatted by hand.
//!
//! Servers put absolute dates in `Retry-After` and `Date`; the core turns them
//! into delays. The calendar arithmetic is Howard Hinnant's days-from-civil,
//! on `i64`, so no date library is needed and nothing can overflow: years are
//! limited to 1970..=9999 before any multiplication happens.
//!
//! # Leniency
//!
//! Recipients MUST accept IMF-fixdate, RFC 850 and asctime. Beyond that we are
//! lenient only where the reading is unambiguous and common in the wild, and
//! strict where accepting would be a guess:
//!
//! - accepted: surrounding whitespace and runs of spaces/tabs between fields;
//!   day, month and zone names in any letter case; short or long weekday names
//!   in every format; a one-digit day; `UTC` or `Z` for `GMT`; a numeric offset
//!   `+hhmm`/`-hhmm` (hh <= 23, mm <= 59), applied to reach UTC; `dd-Mon-yyyy`
//!   (the cookie variant of RFC 850) with a four-digit year taken literally; a
//!   leap second `:60` (RFC 9110's time-of-day allows it), counted as the first
//!   second of the next minute, as POSIX time does.
//! - rejected: a weekday that does not match the date (a corrupted header);
//!   out-of-range fields (hour 24, minute 60, Feb 30, Feb 29 in a non-leap
//!   year); years before 1970 or after 9999, and offsets that push the instant
//!   before 1970; zone names other than GMT/UTC/Z (`EST` is a guess about DST);
//!   a missing zone in IMF-fixdate or RFC 850 (local time is a guess); a zone in
//!   asctime; a missing weekday; two-digit years outside RFC 850; any non-ASCII
//!   character; anything left over.
//!
//! Two-digit RFC 850 years follow RFC 9110 when the caller knows the time: a
//! date more than 50 years in the future means the most recent past year with
//! those digits. Without a clock, a fixed pivot: `yy < 70` is `20yy`, else `19yy`
//! (as the `httpdate` crate does).

/// The last second a four-digit year can express: 9999-12-31T23:59:59Z.
pub const MAX_UNIX_S: u64 = 253_402_300_799;

mod rfc3339;

pub use rfc3339::parse_rfc3339_millis;

const SECONDS_PER_DAY: i64 = 86_400;
const MIN_YEAR: i64 = 1970;
const MAX_YEAR: i64 = 9999;

/// Parses an HTTP-date into Unix seconds, or `None` if it is not one.
///
/// Two-digit RFC 850 years use the fixed pivot (`yy < 70` -> `20yy`); call
/// [`parse_http_date_at`] with the current time to get RFC 9110's rule.
#[must_use]
pub fn parse_http_date(value: &str) -> Option<u64> {
    parse_http_date_at(value, None)
}

/// Parses an HTTP-date into Unix seconds, given the current wall-clock time
/// when known.
///
/// `now_unix_s` only matters for two-digit RFC 850 years: with it, RFC 9110's
/// sliding window (a date more than 50 years after `now` belongs to the
/// previous century); without it, the fixed pivot. Total: never panics, any
/// string in, `None` for anything that is not an HTTP-date (see the module
/// docs for what is accepted).
#[must_use]
pub fn parse_http_date_at(value: &str, now_unix_s: Option<u64>) -> Option<u64> {
    let s = value.trim_ascii();
    // Every HTTP-date is ASCII; rejecting the rest up front also means no
    // slicing below can land inside a multi-byte character.
    if !s.is_ascii() {
        return None;
    }
    let mut tokens = s.split([' ', '\t']).filter(|t| !t.is_empty());
    let first = tokens.next()?;
    let fields = if let Some(weekday) = first.strip_suffix(',') {
        let weekday = parse_weekday(weekday)?;
        let date = tokens.next()?;
        let (day, month, year) = if date.contains('-') {
            // RFC 850: `06-Nov-94` (or the cookie variant `06-Nov-1994`).
            let mut parts = date.split('-');
            let (d, m, y) = (parts.next()?, parts.next()?, parts.next()?);
            if parts.next().is_some() {
                return None;
            }
            (parse_day(d)?, parse_month(m)?, parse_year(y, true)?)
        } else {
            // IMF-fixdate: `06 Nov 1994`.
            let (m, y) = (tokens.next()?, tokens.next()?);
            (parse_day(date)?, parse_month(m)?, parse_year(y, false)?)
        };
        let time = parse_time(tokens.next()?)?;
        let offset_s = parse_zone(tokens.next()?)?;
        Fields {
            weekday,
            day,
            month,
            year,
            time,
            offset_s,
        }
    } else {
        // asctime: `Sun Nov  6 08:49:37 1994`, always GMT.
        let weekday = parse_weekday(first)?;
        let month = parse_month(tokens.next()?)?;
        let day = parse_day(tokens.next()?)?;
        let time = parse_time(tokens.next()?)?;
        let year = parse_year(tokens.next()?, false)?;
        Fields {
            weekday,
            day,
            month,
            year,
            time,
            offset_s: 0,
        }
    };
    if tokens.next().is_some() {
        return None;
    }
    fields.to_unix(now_unix_s)
}

/// Formats Unix seconds as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// the only form RFC 9110 lets senders generate (hosts and tests use it for
/// `Date` and `Retry-After`).
///
/// Seconds past 9999-12-31T23:59:59Z are clamped to that instant, so the
/// output always has a four-digit year and always parses back.
#[must_use]
pub fn format_imf_fixdate(unix_s: u64) -> String {
    let unix_s = unix_s.min(MAX_UNIX_S);
    let (days, secs) = split_days(unix_s);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
        weekday_short(weekday_of(days)),
        day,
        month_short(month),
        year,
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Formats Unix milliseconds as RFC 3339 UTC with milliseconds
/// (`2019-06-03T11:00:00.000Z`), the timestamp of log records: fixed width,
/// sortable as text, and readable by every log tool.
///
/// Instants past 9999-12-31T23:59:59.999Z are clamped to it.
#[must_use]
pub fn format_rfc3339_millis(unix_ms: u64) -> String {
    let unix_ms = unix_ms.min(MAX_UNIX_S.saturating_mul(1000).saturating_add(999));
    let (days, secs) = split_days(unix_ms / 1000);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        year,
        month,
        day,
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        unix_ms % 1000
    )
}

/// A year as written: four digits are literal, two digits need a century.
#[derive(Clone, Copy, Debug)]
enum Year {
    Full(i64),
    TwoDigit(i64),
}

/// Hour, minute, second (second may be 60).
type Time = (i64, i64, i64);

#[derive(Clone, Copy, Debug)]
struct Fields {
    weekday: i64,
    day: i64,
    month: i64,
    year: Year,
    time: Time,
    /// Local time minus UTC, in seconds.
    offset_s: i64,
}

impl Fields {
    fn to_unix(self, now_unix_s: Option<u64>) -> Option<u64> {
        let year = match self.year {
            Year::Full(y) => y,
            Year::TwoDigit(yy) => {
                resolve_two_digit_year(yy, self.month, self.day, self.time, now_unix_s)
            }
        };
        if !(MIN_YEAR..=MAX_YEAR).contains(&year) || self.day > days_in_month(year, self.month) {
            return None;
        }
        let days = days_from_civil(year, self.month, self.day);
        if weekday_of(days) != self.weekday {
            return None;
        }
        let (h, m, s) = self.time;
        let local = days * SECONDS_PER_DAY + h * 3600 + m * 60 + s;
        u64::try_from(local - self.offset_s).ok()
    }
}

/// RFC 9110 §5.6.7: a two-digit year that would put the date more than 50
/// years after `now` is the most recent past year with those digits. The
/// comparison is on the full (month, day, time) tuple, not the year alone.
fn resolve_two_digit_year(
    yy: i64,
    month: i64,
    day: i64,
    time: Time,
    now_unix_s: Option<u64>,
) -> i64 {
    let Some(now) = now_unix_s else {
        return if yy < 70 { 2000 + yy } else { 1900 + yy };
    };
    let (days, secs) = split_days(now);
    let (now_year, now_month, now_day) = civil_from_days(days);
    let now_time = (secs / 3600, secs / 60 % 60, secs % 60);
    let limit = now_year + 50;
    let mut year = limit - (limit - yy).rem_euclid(100);
    if year == limit && (month, day, time) > (now_month, now_day, now_time) {
        year -= 100;
    }
    year
}

/// Whole days since the epoch and the seconds into the last one.
fn split_days(unix_s: u64) -> (i64, i64) {
    // u64::MAX / 86_400 fits an i64; the fallback is unreachable.
    let days = i64::try_from(unix_s / 86_400).unwrap_or(i64::MAX / 2);
    let secs = i64::try_from(unix_s % 86_400).unwrap_or(0);
    (days, secs)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Hinnant).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if month > 2 { month - 3 } else { month + 9 };
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day count since 1970-01-01 (Hinnant).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// 0 = Sunday. 1970-01-01 was a Thursday.
fn weekday_of(days: i64) -> i64 {
    (days + 4).rem_euclid(7)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

const WEEKDAYS: [(&str, &str); 7] = [
    ("Sun", "Sunday"),
    ("Mon", "Monday"),
    ("Tue", "Tuesday"),
    ("Wed", "Wednesday"),
    ("Thu", "Thursday"),
    ("Fri", "Friday"),
    ("Sat", "Saturday"),
];

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

fn weekday_short(weekday: i64) -> &'static str {
    usize::try_from(weekday)
        .ok()
        .and_then(|i| WEEKDAYS.get(i))
        .map_or("???", |w| w.0)
}

fn month_short(month: i64) -> &'static str {
    usize::try_from(month - 1)
        .ok()
        .and_then(|i| MONTHS.get(i))
        .map_or("???", |m| *m)
}

fn parse_weekday(s: &str) -> Option<i64> {
    let i = WEEKDAYS
        .iter()
        .position(|(short, long)| s.eq_ignore_ascii_case(short) || s.eq_ignore_ascii_case(long))?;
    i64::try_from(i).ok()
}

fn parse_month(s: &str) -> Option<i64> {
    let i = MONTHS.iter().position(|m| s.eq_ignore_ascii_case(m))?;
    i64::try_from(i + 1).ok()
}

/// A run of exactly `min..=max` ASCII digits as a number.
fn digits(s: &str, min: usize, max: usize) -> Option<i64> {
    if !(min..=max).contains(&s.len()) || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.bytes().fold(0, |n, b| n * 10 + i64::from(b - b'0')))
}

fn parse_day(s: &str) -> Option<i64> {
    digits(s, 1, 2).filter(|d| (1..=31).contains(d))
}

fn parse_year(s: &str, allow_two_digit: bool) -> Option<Year> {
    match s.len() {
        4 => digits(s, 4, 4).map(Year::Full),
        2 if allow_two_digit => digits(s, 2, 2).map(Year::TwoDigit),
        _ => None,
    }
}

/// `hh:mm:ss`, two digits each; 00:00:00 to 23:59:60.
fn parse_time(s: &str) -> Option<Time> {
    let mut parts = s.split(':');
    let h = digits(parts.next()?, 2, 2).filter(|h| *h <= 23)?;
    let m = digits(parts.next()?, 2, 2).filter(|m| *m <= 59)?;
    let sec = digits(parts.next()?, 2, 2).filter(|s| *s <= 60)?;
    if parts.next().is_some() {
        return None;
    }
    Some((h, m, sec))
}

/// The zone's offset from UTC in seconds (local = UTC + offset).
fn parse_zone(s: &str) -> Option<i64> {
    if ["GMT", "UTC", "Z"]
        .iter()
        .any(|z| s.eq_ignore_ascii_case(z))
    {
        return Some(0);
    }
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, s.get(1..)?),
        b'-' => (-1, s.get(1..)?),
        _ => return None,
    };
    let hours = digits(rest.get(..2)?, 2, 2).filter(|h| *h <= 23)?;
    let minutes = digits(rest.get(2..)?, 2, 2).filter(|m| *m <= 59)?;
    Some(sign * (hours * 3600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RFC: u64 = 784_111_777; // Sun, 06 Nov 1994 08:49:37 GMT

    #[test]
    fn the_three_rfc_formats() {
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(RFC));
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(RFC));
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(RFC));
    }

    #[test]
    fn lenient_where_unambiguous() {
        for s in [
            "  Sun, 06 Nov 1994 08:49:37 GMT\t",
            "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 06 Nov 1994 08:49:37 Z",
            "Sun, 06 Nov 1994 08:49:37 +0000",
            "Sun, 06 Nov 1994 08:49:37 -0000",
            "Sun, 06 Nov 1994 09:49:37 +0100",
            "Sun, 06 Nov 1994 03:19:37 -0530",
            "sun, 06 nov 1994 08:49:37 gmt",
            "Sunday, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06-Nov-1994 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994",
            "Sun Nov 06 08:49:37 1994",
        ] {
            assert_eq!(parse_http_date(s), Some(RFC), "{s:?}");
        }
    }

    #[test]
    fn strict_where_it_would_be_a_guess() {
        for s in [
            "",
            "Mon, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:60:00 GMT",
            "Fri, 30 Feb 2024 00:00:00 GMT",
            "Sun, 29 Feb 2023 00:00:00 GMT",
            "Wed, 31 Dec 1969 23:59:59 GMT",
            "Thu, 01 Jan 1970 00:59:59 +0100",
            "Sun, 06 Nov 1994 08:49:37 EST",
            "Sun, 06 Nov 1994 08:49:37",
            "Sun, 06 Nov 1994 08:49:37 +2400",
            "Sun, 06 Nov 1994 08:49:37 +01:00",
            "06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 94 08:49:37 GMT",
            "Sun, 06 Nov 1994 8:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT extra",
            "Sun Nov  6 08:49:37 1994 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT\u{a0}",
            "Sun, ０6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 10000 08:49:37 GMT",
            "Sun, 06-Nov-994 08:49:37 GMT",
        ] {
            assert_eq!(parse_http_date(s), None, "{s:?}");
        }
    }

    #[test]
    fn leap_second_is_the_next_minute() {
        assert_eq!(
            parse_http_date("Sat, 31 Dec 2016 23:59:60 GMT"),
            some("Sun, 01 Jan 2017 00:00:00 GMT")
        );
    }

    fn some(s: &str) -> Option<u64> {
        let t = parse_http_date(s);
        assert!(t.is_some(), "{s:?} should parse");
        t
    }

    #[test]
    fn two_digit_years() {
        // Fixed pivot without a clock.
        assert_eq!(parse_http_date("Thursday, 01-Jan-70 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_http_date("Tuesday, 31-Dec-69 00:00:00 GMT"),
            some("Tue, 31 Dec 2069 00:00:00 GMT")
        );
        assert_eq!(
            parse_http_date("Saturday, 01-Jan-05 00:00:00 GMT"),
            some("Sat, 01 Jan 2005 00:00:00 GMT")
        );
        // Sliding window: in 2030, "80" is 2080 up to exactly 50 years ahead...
        let now = some("Mon, 03 Jun 2030 11:00:00 GMT");
        assert_eq!(
            parse_http_date_at("Monday, 03-Jun-80 11:00:00 GMT", now),
            some("Mon, 03 Jun 2080 11:00:00 GMT")
        );
        // ...and one second more is the past century (where the pivot says 1980 too).
        assert_eq!(
            parse_http_date_at("Tuesday, 03-Jun-80 11:00:01 GMT", now),
            some("Tue, 03 Jun 1980 11:00:01 GMT")
        );
        assert_eq!(
            parse_http_date_at("Monday, 03-Jun-80 11:00:01 GMT", now),
            None
        );
        // In 2060, "05" is 2105 (45 years ahead), where the pivot says 2005.
        let now_2060 = some("Thu, 01 Jan 2060 00:00:00 GMT");
        assert_eq!(
            parse_http_date_at("Thursday, 01-Jan-05 00:00:00 GMT", now_2060),
            some("Thu, 01 Jan 2105 00:00:00 GMT")
        );
        // A far-future clock cannot overflow; it just yields an out-of-range year.
        assert_eq!(
            parse_http_date_at("Sunday, 06-Nov-94 08:49:37 GMT", Some(u64::MAX)),
            None
        );
    }

    #[test]
    fn formats() {
        assert_eq!(format_imf_fixdate(RFC), "Sun, 06 Nov 1994 08:49:37 GMT");
        assert_eq!(format_imf_fixdate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(
            format_imf_fixdate(u64::MAX),
            "Fri, 31 Dec 9999 23:59:59 GMT"
        );
        assert_eq!(
            format_rfc3339_millis(1_559_559_600_000),
            "2019-06-03T11:00:00.000Z"
        );
        assert_eq!(
            format_rfc3339_millis(951_782_400_007),
            "2000-02-29T00:00:00.007Z"
        );
        assert_eq!(format_rfc3339_millis(u64::MAX), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn calendar_matches_a_naive_count() {
        let mut days = 0;
        for year in 1970..=2500 {
            for month in 1..=12 {
                assert_eq!(days_from_civil(year, month, 1), days);
                assert_eq!(civil_from_days(days), (year, month, 1));
                days += days_in_month(year, month);
            }
        }
    }

    proptest! {
        #[test]
        fn round_trip(unix_s in 0..=MAX_UNIX_S) {
            prop_assert_eq!(parse_http_date(&format_imf_fixdate(unix_s)), Some(unix_s));
        }

        #[test]
        fn rfc3339_agrees_with_imf(unix_ms in 0..=MAX_UNIX_S * 1000) {
            let text = format_rfc3339_millis(unix_ms);
            prop_assert_eq!(text.len(), 24);
            let imf = format_imf_fixdate(unix_ms / 1000);
            // Same day-of-month and time-of-day in both renderings.
            prop_assert_eq!(&text[8..10], &imf[5..7]);
            prop_assert_eq!(&text[11..19], &imf[17..25]);
        }

        #[test]
        fn total_on_any_string(s in any::<String>(), now in any::<Option<u64>>()) {
            let _ = parse_http_date_at(&s, now);
        }

        #[test]
        fn total_on_date_like_strings(
            s in "[A-Za-z]{3,9},? {1,2}[0-9]{1,4}[ -][A-Za-z]{3}[ -][0-9]{1,5} [0-9:]{5,9}( [A-Za-z+0-9-]{1,5})?",
            now in any::<Option<u64>>(),
        ) {
            if let Some(t) = parse_http_date_at(&s, now) {
                prop_assert!(t <= MAX_UNIX_S + 86_400);
            }
        }
    }
}
