//! Per-quota rate-limit resets, as the model APIs send them.
//!
//! OpenAI answers every request with `x-ratelimit-remaining-requests` /
//! `x-ratelimit-reset-requests` and the same pair for `tokens`, the reset a
//! Go duration (`1s`, `6m0s`, `20ms`). Anthropic sends
//! `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-remaining`
//! and `-reset`, the reset an RFC 3339 time. A reset is a reason to wait only
//! for a quota that is spent (its `remaining` is 0 or absent, as the generic
//! `X-RateLimit-Reset` rule reads it); among spent quotas the longest reset
//! wins, since the call cannot go through before every one of them refills.

use crate::httpdate::parse_rfc3339_millis;

/// The quotas the two APIs name, in one index space.
const QUOTAS: [&str; 4] = ["requests", "tokens", "input-tokens", "output-tokens"];

/// Which API's header family a name belongs to, which quota, and whether it
/// is the reset or the remaining count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct QuotaHeader {
    pub(super) family: Family,
    quota: usize,
    reset: bool,
}

/// The header families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Family {
    /// `x-ratelimit-{reset,remaining}-{quota}`, resets as Go durations.
    OpenAi,
    /// `anthropic-ratelimit-{quota}-{reset,remaining}`, resets as RFC 3339.
    Anthropic,
}

impl QuotaHeader {
    /// The quota header `name` (any case) is, if it is one.
    pub(super) fn from_name(name: &str) -> Option<QuotaHeader> {
        let lower = |prefix: &str| {
            name.get(..prefix.len())
                .filter(|head| head.eq_ignore_ascii_case(prefix))
                .and_then(|_| name.get(prefix.len()..))
        };
        let quota = |text: &str| QUOTAS.iter().position(|q| q.eq_ignore_ascii_case(text));
        if let Some(rest) = lower("x-ratelimit-reset-") {
            return quota(rest).map(|quota| QuotaHeader {
                family: Family::OpenAi,
                quota,
                reset: true,
            });
        }
        if let Some(rest) = lower("x-ratelimit-remaining-") {
            return quota(rest).map(|quota| QuotaHeader {
                family: Family::OpenAi,
                quota,
                reset: false,
            });
        }
        let rest = lower("anthropic-ratelimit-")?;
        let (name, reset) = if let Some(n) = strip_suffix_ci(rest, "-reset") {
            (n, true)
        } else {
            (strip_suffix_ci(rest, "-remaining")?, false)
        };
        quota(name).map(|quota| QuotaHeader {
            family: Family::Anthropic,
            quota,
            reset,
        })
    }
}

fn strip_suffix_ci<'a>(text: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = text.len().checked_sub(suffix.len())?;
    text.get(cut..)
        .filter(|tail| tail.eq_ignore_ascii_case(suffix))
        .and_then(|_| text.get(..cut))
}

/// One family's resets and remaining counts, first valid value of each.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Quotas {
    /// Relative resets (ms) or absolute ones (Unix ms), by quota.
    reset: [Option<u64>; 4],
    remaining: [Option<u64>; 4],
}

impl Quotas {
    /// Takes one header of this family.
    pub(super) fn offer(&mut self, header: QuotaHeader, value: &str) {
        let parsed = match (header.reset, header.family) {
            (false, _) => parse_count(value),
            (true, Family::OpenAi) => parse_go_duration_ms(value),
            (true, Family::Anthropic) => parse_rfc3339_millis(value),
        };
        let slots = if header.reset {
            &mut self.reset
        } else {
            &mut self.remaining
        };
        if let Some(slot) = slots.get_mut(header.quota) {
            if slot.is_none() {
                *slot = parsed;
            }
        }
    }

    /// The longest reset among spent quotas, in ms from now. Absolute resets
    /// (`absolute`) need `reference_unix_ms`; without it they are ignored.
    pub(super) fn delay_ms(&self, absolute: bool, reference_unix_ms: Option<u64>) -> Option<u64> {
        let mut longest: Option<u64> = None;
        for (reset, remaining) in self.reset.iter().zip(self.remaining) {
            let Some(reset) = *reset else { continue };
            if remaining.is_some_and(|r| r > 0) {
                continue;
            }
            let ms = if absolute {
                match reference_unix_ms {
                    Some(now) => reset.saturating_sub(now),
                    None => continue,
                }
            } else {
                reset
            };
            longest = Some(longest.map_or(ms, |l| l.max(ms)));
        }
        longest
    }
}

/// A remaining count: ASCII digits (whole).
fn parse_count(value: &str) -> Option<u64> {
    let value = value.trim_ascii();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(value.bytes().fold(0u64, |n, b| {
        n.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    }))
}

/// A Go `time.Duration` string (`6m0s`, `1h2m3.5s`, `20ms`, `0`) as whole
/// milliseconds, rounded up; `None` for anything else (signs included: a
/// reset in the past is no reason to wait, and no server sends one).
#[must_use]
pub fn parse_go_duration_ms(value: &str) -> Option<u64> {
    let mut rest = value.trim_ascii().as_bytes();
    if rest == b"0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    // Nanoseconds (u64 holds 584 years), so `1.5us` and `100ns` sum
    // exactly before rounding.
    let mut total_ns: u64 = 0;
    while !rest.is_empty() {
        let (number, after) = split_while(rest, |b| b.is_ascii_digit() || b == b'.');
        let (unit, after) = split_while(after, |b| !b.is_ascii_digit() && b != b'.');
        let unit_ns: u64 = match unit {
            b"h" => 3_600_000_000_000,
            b"m" => 60_000_000_000,
            b"s" => 1_000_000_000,
            b"ms" => 1_000_000,
            // Go accepts the micro sign and the Greek mu alike.
            b"us" | [0xC2, 0xB5, b's'] | [0xCE, 0xBC, b's'] => 1_000,
            b"ns" => 1,
            _ => return None,
        };
        total_ns = total_ns.saturating_add(scaled(number, unit_ns)?);
        rest = after;
    }
    Some(total_ns.div_ceil(1_000_000))
}

/// `digits["." digits]` times `unit_ns`, saturating; `None` if malformed.
fn scaled(number: &[u8], unit_ns: u64) -> Option<u64> {
    let (whole, fraction) = match number.iter().position(|b| *b == b'.') {
        Some(dot) => (number.get(..dot)?, number.get(dot + 1..)?),
        None => (number, &[][..]),
    };
    let has_dot = whole.len() < number.len();
    if (whole.is_empty() && fraction.is_empty())
        || (has_dot && fraction.is_empty())
        || fraction.contains(&b'.')
    {
        return None;
    }
    let mut ns = whole.iter().fold(0u64, |n, d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    ns = ns.saturating_mul(unit_ns);
    let mut scale = unit_ns;
    for d in fraction {
        scale /= 10;
        ns = ns.saturating_add(u64::from(d - b'0').saturating_mul(scale));
    }
    Some(ns)
}

/// The longest prefix of `bytes` whose bytes pass `keep`, and the rest.
fn split_while(bytes: &[u8], keep: impl Fn(u8) -> bool) -> (&[u8], &[u8]) {
    let n = bytes.iter().take_while(|b| keep(**b)).count();
    bytes.split_at_checked(n).unwrap_or((bytes, &[]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration_ms("0"), Some(0));
        assert_eq!(parse_go_duration_ms("1s"), Some(1000));
        assert_eq!(parse_go_duration_ms("6m0s"), Some(360_000));
        assert_eq!(parse_go_duration_ms("20ms"), Some(20));
        assert_eq!(parse_go_duration_ms("1h2m3.5s"), Some(3_723_500));
        assert_eq!(parse_go_duration_ms("0.5ms"), Some(1));
        assert_eq!(parse_go_duration_ms("1500us"), Some(2));
        assert_eq!(parse_go_duration_ms("2µs"), Some(1));
        assert_eq!(parse_go_duration_ms("100ns"), Some(1));
        assert_eq!(parse_go_duration_ms(" 7.25s "), Some(7250));
        for bad in [
            "", "s", "1", "1x", "-1s", "+1s", "1.s", ".s", "1s2", "1 s", "1d",
        ] {
            assert_eq!(parse_go_duration_ms(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn names() {
        let openai = QuotaHeader::from_name("X-RateLimit-Reset-Tokens").unwrap();
        assert_eq!(
            (openai.family, openai.quota, openai.reset),
            (Family::OpenAi, 1, true)
        );
        let anthropic =
            QuotaHeader::from_name("anthropic-ratelimit-input-tokens-remaining").unwrap();
        assert_eq!(
            (anthropic.family, anthropic.quota, anthropic.reset),
            (Family::Anthropic, 2, false)
        );
        assert_eq!(QuotaHeader::from_name("x-ratelimit-reset"), None);
        assert_eq!(QuotaHeader::from_name("anthropic-ratelimit-reset"), None);
        assert_eq!(
            QuotaHeader::from_name("anthropic-ratelimit-requests-limit"),
            None
        );
        assert_eq!(QuotaHeader::from_name("anthropic-ratelimit-é-reset"), None);
    }
}
