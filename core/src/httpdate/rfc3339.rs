//! RFC 3339 timestamps (`2026-12-04T09:30:00Z`, `2026-12-04T10:30:00.25+01:00`),
//! as rate-limit headers send them (Anthropic's `anthropic-ratelimit-*-reset`).
//!
//! Total like the HTTP-date parser beside it: any text in, `None` for
//! anything that is not a full date-time with an offset. Fractional seconds
//! are rounded up to whole milliseconds, because a reset read early makes a
//! client retry into the same refusal.

use super::{days_from_civil, days_in_month, MAX_YEAR, MIN_YEAR, SECONDS_PER_DAY};

/// Unix milliseconds of an RFC 3339 `date-time`, or `None`.
///
/// `T`/`t` and a space separate date and time (RFC 3339 section 5.6 allows
/// the space); the offset is `Z`, `z` or `+hh:mm`/`-hh:mm`. Leap seconds
/// (`:60`) are read as the next second. Dates before 1970 give `None`.
#[must_use]
pub fn parse_rfc3339_millis(value: &str) -> Option<u64> {
    let s = value.trim_ascii().as_bytes();
    let date = s.get(..10)?;
    let year = number(date.get(0..4)?)?;
    let month = number(date.get(5..7)?)?;
    let day = number(date.get(8..10)?)?;
    if date.get(4) != Some(&b'-') || date.get(7) != Some(&b'-') {
        return None;
    }
    if !matches!(s.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let time = s.get(11..)?;
    let hour = number(time.get(0..2)?)?;
    let minute = number(time.get(3..5)?)?;
    let second = number(time.get(6..8)?)?;
    if time.get(2) != Some(&b':') || time.get(5) != Some(&b':') {
        return None;
    }
    let (fraction_ms, rest) = fraction_ceil_ms(time.get(8..)?)?;
    let offset_s = offset_seconds(rest)?;
    let valid = (MIN_YEAR..=MAX_YEAR).contains(&year)
        && (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60
        && second <= 60;
    if !valid {
        return None;
    }
    let seconds =
        days_from_civil(year, month, day) * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second
            - offset_s;
    let seconds = u64::try_from(seconds).ok()?;
    Some(seconds.saturating_mul(1000).saturating_add(fraction_ms))
}

/// Fixed-width ASCII digits as a number.
fn number(digits: &[u8]) -> Option<i64> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0i64, |n, d| n * 10 + i64::from(d - b'0')),
    )
}

/// `.d+` at the start of `s`, as milliseconds rounded up, and what follows.
fn fraction_ceil_ms(s: &[u8]) -> Option<(u64, &[u8])> {
    let Some(b'.') = s.first() else {
        return Some((0, s));
    };
    let digits = s
        .get(1..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return None;
    }
    let all = s.get(1..=digits)?;
    let mut ms = 0u64;
    for i in 0..3 {
        ms = ms * 10 + all.get(i).map_or(0, |d| u64::from(d - b'0'));
    }
    let beyond = all.get(3..).unwrap_or(&[]).iter().any(|d| *d != b'0');
    Some((ms + u64::from(beyond), s.get(digits + 1..)?))
}

/// `Z`, or `+hh:mm` / `-hh:mm`, as seconds east of UTC; nothing may follow.
fn offset_seconds(s: &[u8]) -> Option<i64> {
    match s {
        [b'Z' | b'z'] => Some(0),
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let hours = number(&[*h1, *h2])?;
            let minutes = number(&[*m1, *m2])?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let east = hours * 3600 + minutes * 60;
            Some(if *sign == b'-' { -east } else { east })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::parse_rfc3339_millis as parse;

    #[test]
    fn utc_offsets_and_fractions() {
        assert_eq!(parse("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse("2019-06-03T11:00:00Z"), Some(1_559_559_600_000));
        assert_eq!(parse("2019-06-03t11:00:00z"), Some(1_559_559_600_000));
        assert_eq!(parse("2019-06-03 11:00:00Z"), Some(1_559_559_600_000));
        assert_eq!(parse("2019-06-03T12:00:00+01:00"), Some(1_559_559_600_000));
        assert_eq!(parse("2019-06-03T10:30:00-00:30"), Some(1_559_559_600_000));
        assert_eq!(parse("2019-06-03T11:00:00.5Z"), Some(1_559_559_600_500));
        assert_eq!(parse("2019-06-03T11:00:00.0001Z"), Some(1_559_559_600_001));
        assert_eq!(
            parse("2019-06-03T11:00:00.000000Z"),
            Some(1_559_559_600_000)
        );
        assert_eq!(parse(" 2019-06-03T11:00:00Z "), Some(1_559_559_600_000));
        assert_eq!(parse("2016-12-31T23:59:60Z"), parse("2017-01-01T00:00:00Z"));
        assert_eq!(parse("2024-02-29T00:00:00Z"), Some(1_709_164_800_000));
    }

    #[test]
    fn refuses_what_is_not_a_date_time() {
        for bad in [
            "",
            "2019-06-03",
            "2019-06-03T11:00:00",
            "2019-06-03T11:00Z",
            "2019-06-03T11:00:00.Z",
            "2019-06-03T11:00:00Zjunk",
            "2019-06-03T11:00:00+0100",
            "2019-06-03T11:00:00+24:00",
            "2019-13-03T11:00:00Z",
            "2023-02-29T00:00:00Z",
            "2019-06-03T24:00:00Z",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00+00:01",
            "２019-06-03T11:00:00Z",
            "2019-06-03T11:00:00.١Z",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }
}
