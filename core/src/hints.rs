//! Server hints: how long the server asked us to wait before retrying.
//!
//! "When the server tells you the number, use it": sleeping our own guess when
//! the answer is in the response is how a client gets rate-limited harder. This
//! module reads every header we know of and returns one [`ServerHint`]. Parsing
//! is total (an invalid header is ignored, never an error) and allocation-free.
//!
//! # Precedence
//!
//! The first *present and valid* source in this order wins; among duplicate
//! headers of one source, the first valid value wins, and a value that lists
//! several (duplicates a runtime joined with `, `) counts as its elements:
//!
//! 1. `grpc-retry-pushback-ms` negative or unparseable: [`ServerHint::DoNotRetry`]
//!    (gRPC A6: an explicit refusal). It outranks even a valid `Retry-After`: a
//!    server that says both "never" and "later" gets the safer reading.
//! 2. `Retry-After` (delay-seconds or HTTP-date),
//! 3. `retry-after-ms`,
//! 4. `x-ms-retry-after-ms` (2 to 4 in the order azure-core uses),
//! 5. `x-amz-retry-after` ([`ServerHint::Bounded`], botocore's rule),
//! 6. `grpc-retry-pushback-ms` non-negative,
//! 7. `RateLimit` (draft-ietf-httpapi-ratelimit-headers): the longest reset
//!    among quotas with nothing remaining, across all `RateLimit` lines,
//! 8. `RateLimit-Reset`, 9. `X-RateLimit-Reset`: seconds, or a Unix epoch at
//!    or above [`EPOCH_THRESHOLD_S`]; voided when the matching `*-Remaining`
//!    header says quota is left (the quota is then not why the call failed).
//! 10. OpenAI's `x-ratelimit-reset-{requests,tokens}` (Go durations, `6m0s`),
//! 11. Anthropic's `anthropic-ratelimit-*-reset` (RFC 3339 times): the longest
//!     reset among the quotas whose `remaining` is 0 (see `hints/quotas.rs`).
//!
//! `x-should-retry: false` (sent by the OpenAI and Anthropic APIs) is a
//! refusal like a negative gRPC pushback, and outranks everything. Its
//! `true` is not read: it cannot make a request that may have been applied
//! safe to repeat (only the caller can say that), and the statuses these APIs
//! mark retryable (408, 429, 5xx, 529) are retried by the default table
//! anyway. An API that means "try again" by a 409 gets `409: transient` in the
//! policy's status table.
//!
//! `*-ms` headers and delay-seconds accept a non-negative decimal fraction and
//! round it up to whole milliseconds: we never wait less than asked.
//!
//! # Clocks
//!
//! An absolute value (an HTTP-date, an epoch in a reset header) becomes a delay
//! against the response's own `Date` header when it has a valid one, because
//! both were written by the same (possibly skewed) server clock; else against
//! the host's `wall_now`; with neither, that value is ignored. Two-digit RFC 850
//! years are read with RFC 9110's 50-year window around `wall_now` when the
//! host gives it, else with the fixed pivot of [`crate::httpdate`].

use crate::httpdate::parse_http_date_at;
use crate::time::WallClock;

mod quotas;

pub use quotas::parse_go_duration_ms;
use quotas::{Family, QuotaHeader, Quotas};

/// botocore's cap on how far `x-amz-retry-after` may stretch the backoff:
/// the final delay is at most the computed backoff plus this.
pub const AMZ_RETRY_AFTER_MAX_EXTRA_MS: u64 = 5000;

/// Reset values at or above this many seconds are Unix epochs, not deltas.
///
/// 10^9 s is 2001-09-09 as an epoch and 31.7 years as a delta: no server means
/// the latter, and every epoch a live server sends is above it.
pub const EPOCH_THRESHOLD_S: u64 = 1_000_000_000;

/// Which header a hint came from, for logs and metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum HintSource {
    /// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
    #[cfg_attr(feature = "serde", serde(rename = "retry_after"))]
    RetryAfter,
    /// `retry-after-ms` (Azure): milliseconds.
    #[cfg_attr(feature = "serde", serde(rename = "retry_after_ms"))]
    RetryAfterMs,
    /// `x-ms-retry-after-ms` (Azure): milliseconds.
    #[cfg_attr(feature = "serde", serde(rename = "x_ms_retry_after_ms"))]
    XMsRetryAfterMs,
    /// `x-amz-retry-after` (AWS): milliseconds, bounded by the backoff.
    #[cfg_attr(feature = "serde", serde(rename = "x_amz_retry_after"))]
    XAmzRetryAfter,
    /// `grpc-retry-pushback-ms` (gRPC A6): milliseconds, or "do not retry".
    #[cfg_attr(feature = "serde", serde(rename = "grpc_retry_pushback_ms"))]
    GrpcRetryPushbackMs,
    /// `RateLimit` (IETF draft): seconds until an exhausted quota resets.
    #[cfg_attr(feature = "serde", serde(rename = "ratelimit"))]
    RateLimit,
    /// `RateLimit-Reset` (early IETF drafts): seconds until the quota resets.
    #[cfg_attr(feature = "serde", serde(rename = "ratelimit_reset"))]
    RateLimitReset,
    /// `X-RateLimit-Reset` (GitHub, many others): seconds, or a Unix epoch.
    #[cfg_attr(feature = "serde", serde(rename = "x_ratelimit_reset"))]
    XRateLimitReset,
    /// `x-should-retry: false` (OpenAI, Anthropic): a refusal.
    #[cfg_attr(feature = "serde", serde(rename = "x_should_retry"))]
    XShouldRetry,
    /// OpenAI's `x-ratelimit-reset-{requests,tokens}`: Go durations.
    #[cfg_attr(feature = "serde", serde(rename = "openai_ratelimit_reset"))]
    OpenAiRateLimitReset,
    /// Anthropic's `anthropic-ratelimit-*-reset`: RFC 3339 times.
    #[cfg_attr(feature = "serde", serde(rename = "anthropic_ratelimit_reset"))]
    AnthropicRateLimitReset,
}

impl HintSource {
    /// Every source: the first eight in precedence order, then the ones
    /// added later (see the module docs for where each ranks).
    pub const ALL: [HintSource; 11] = [
        HintSource::RetryAfter,
        HintSource::RetryAfterMs,
        HintSource::XMsRetryAfterMs,
        HintSource::XAmzRetryAfter,
        HintSource::GrpcRetryPushbackMs,
        HintSource::RateLimit,
        HintSource::RateLimitReset,
        HintSource::XRateLimitReset,
        HintSource::XShouldRetry,
        HintSource::OpenAiRateLimitReset,
        HintSource::AnthropicRateLimitReset,
    ];

    /// The stable snake_case code (the same in every language and log).
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            HintSource::RetryAfter => "retry_after",
            HintSource::RetryAfterMs => "retry_after_ms",
            HintSource::XMsRetryAfterMs => "x_ms_retry_after_ms",
            HintSource::XAmzRetryAfter => "x_amz_retry_after",
            HintSource::GrpcRetryPushbackMs => "grpc_retry_pushback_ms",
            HintSource::RateLimit => "ratelimit",
            HintSource::RateLimitReset => "ratelimit_reset",
            HintSource::XRateLimitReset => "x_ratelimit_reset",
            HintSource::XShouldRetry => "x_should_retry",
            HintSource::OpenAiRateLimitReset => "openai_ratelimit_reset",
            HintSource::AnthropicRateLimitReset => "anthropic_ratelimit_reset",
        }
    }

    /// The source with this code, so configs can name sources.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        HintSource::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The header name, lowercase (HTTP/2 and HTTP/3 spell them so); for a
    /// family of per-quota headers, its pattern with `*` for the quota.
    #[must_use]
    pub const fn header_name(self) -> &'static str {
        match self {
            HintSource::RetryAfter => "retry-after",
            HintSource::RetryAfterMs => "retry-after-ms",
            HintSource::XMsRetryAfterMs => "x-ms-retry-after-ms",
            HintSource::XAmzRetryAfter => "x-amz-retry-after",
            HintSource::GrpcRetryPushbackMs => "grpc-retry-pushback-ms",
            HintSource::RateLimit => "ratelimit",
            HintSource::RateLimitReset => "ratelimit-reset",
            HintSource::XRateLimitReset => "x-ratelimit-reset",
            HintSource::XShouldRetry => "x-should-retry",
            HintSource::OpenAiRateLimitReset => "x-ratelimit-reset-*",
            HintSource::AnthropicRateLimitReset => "anthropic-ratelimit-*-reset",
        }
    }
}

/// What the server asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum ServerHint {
    /// Wait exactly this long: the server's number replaces our backoff.
    Delay {
        /// The delay in milliseconds (unclamped: capping is the policy's job).
        delay_ms: u64,
        /// Where it came from.
        source: HintSource,
    },
    /// A hint that may only stretch our backoff by a bounded amount
    /// (`x-amz-retry-after`): see [`ServerHint::delay_with_backoff`].
    Bounded {
        /// The server's hint in milliseconds.
        hint_ms: u64,
        /// Where it came from.
        source: HintSource,
    },
    /// The server refused retries outright.
    DoNotRetry {
        /// Where it came from.
        source: HintSource,
    },
}

impl ServerHint {
    /// Which header the hint came from.
    #[must_use]
    pub const fn source(&self) -> HintSource {
        match *self {
            ServerHint::Delay { source, .. }
            | ServerHint::Bounded { source, .. }
            | ServerHint::DoNotRetry { source } => source,
        }
    }

    /// The delay to sleep given the backoff `backoff_ms` we computed ourselves,
    /// or `None` if the server said not to retry.
    ///
    /// `Delay` ignores the backoff: the server's number wins. `Bounded` follows
    /// botocore's standard retry: `max(t, min(hint, t + 5000))`, so the hint can
    /// lengthen the wait by at most 5 s and never shorten it.
    #[must_use]
    pub fn delay_with_backoff(&self, backoff_ms: u64) -> Option<u64> {
        match *self {
            ServerHint::Delay { delay_ms, .. } => Some(delay_ms),
            ServerHint::Bounded { hint_ms, .. } => Some(
                hint_ms
                    .min(backoff_ms.saturating_add(AMZ_RETRY_AFTER_MAX_EXTRA_MS))
                    .max(backoff_ms),
            ),
            ServerHint::DoNotRetry { .. } => None,
        }
    }
}

/// Parses a `Retry-After` value into a delay in milliseconds, or `None` if it
/// is neither delay-seconds nor an HTTP-date.
///
/// delay-seconds is `1*DIGIT` with surrounding whitespace; we also accept a
/// decimal fraction (`0.9`, as azure-core does; urllib3 rejects it) because it
/// is unambiguous, and round it up to whole milliseconds so we never wait less
/// than asked. Signs, exponents and non-ASCII digits are rejected; digit
/// strings too large for `u64` saturate at `u64::MAX` ms. An HTTP-date gives
/// `max(date - now, 0)`: a date in the past means "now", `Some(0)`.
#[must_use]
pub fn parse_retry_after(value: &str, now_unix_ms: u64) -> Option<u64> {
    let value = value.trim_ascii();
    if let Some(ms) = parse_decimal_ceil(value, 3) {
        return Some(ms);
    }
    let date_s = parse_http_date_at(value, Some(now_unix_ms / 1000))?;
    Some(date_s.saturating_mul(1000).saturating_sub(now_unix_ms))
}

/// Reads the server's hint from response headers (any name case, any order).
///
/// See the module docs for the precedence and the reference clock. Headers
/// that are invalid are ignored; `None` means no usable hint, so the caller
/// uses its own backoff.
#[must_use]
pub fn server_hint<'a, I>(headers: I, wall_now: Option<WallClock>) -> Option<ServerHint>
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    let wall_now_s = wall_now.map(|w| w.as_unix_millis() / 1000);
    let mut seen = Seen::default();
    for (index, (name, value)) in headers.into_iter().enumerate() {
        let Some(header) = Header::from_name(name.trim_ascii()) else {
            continue;
        };
        seen.offer_listed(index, header, value.trim_ascii(), wall_now_s);
    }
    seen.resolve(wall_now.map(WallClock::as_unix_millis))
}

/// The headers [`server_hint`] reads.
#[derive(Clone, Copy, Debug)]
enum Header {
    RetryAfter,
    RetryAfterMs,
    XMsRetryAfterMs,
    XAmzRetryAfter,
    GrpcRetryPushbackMs,
    RateLimit,
    RateLimitReset,
    XRateLimitReset,
    RateLimitRemaining,
    XRateLimitRemaining,
    Date,
    XShouldRetry,
    Quota(QuotaHeader),
}

impl Header {
    const NAMES: [(&'static str, Header); 12] = [
        ("retry-after", Header::RetryAfter),
        ("retry-after-ms", Header::RetryAfterMs),
        ("x-ms-retry-after-ms", Header::XMsRetryAfterMs),
        ("x-amz-retry-after", Header::XAmzRetryAfter),
        ("grpc-retry-pushback-ms", Header::GrpcRetryPushbackMs),
        ("ratelimit", Header::RateLimit),
        ("ratelimit-reset", Header::RateLimitReset),
        ("x-ratelimit-reset", Header::XRateLimitReset),
        ("ratelimit-remaining", Header::RateLimitRemaining),
        ("x-ratelimit-remaining", Header::XRateLimitRemaining),
        ("date", Header::Date),
        ("x-should-retry", Header::XShouldRetry),
    ];

    fn from_name(name: &str) -> Option<Header> {
        Header::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, h)| *h)
            .or_else(|| QuotaHeader::from_name(name).map(Header::Quota))
    }
}

/// The first valid relative and absolute value of one source, each with its
/// position, so the earlier wins once we know whether absolutes are usable.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    relative_ms: Option<(usize, u64)>,
    absolute_unix_ms: Option<(usize, u64)>,
}

impl Slot {
    fn offer_relative(&mut self, index: usize, ms: u64) {
        self.relative_ms.get_or_insert((index, ms));
    }

    fn offer_absolute(&mut self, index: usize, unix_ms: u64) {
        self.absolute_unix_ms.get_or_insert((index, unix_ms));
    }

    /// A reset value: seconds, or an epoch at or above [`EPOCH_THRESHOLD_S`].
    fn offer_reset(&mut self, index: usize, value: &str) {
        if let Some(ms) = parse_decimal_ceil(value, 3) {
            if ms >= EPOCH_THRESHOLD_S * 1000 {
                self.offer_absolute(index, ms);
            } else {
                self.offer_relative(index, ms);
            }
        }
    }

    fn delay_ms(&self, reference_unix_ms: Option<u64>) -> Option<u64> {
        let absolute = self.absolute_unix_ms.and_then(|(index, at)| {
            reference_unix_ms.map(|reference| (index, at.saturating_sub(reference)))
        });
        match (self.relative_ms, absolute) {
            (Some((ri, r)), Some((ai, a))) => Some(if ri < ai { r } else { a }),
            (Some((_, ms)), None) | (None, Some((_, ms))) => Some(ms),
            (None, None) => None,
        }
    }
}

/// Everything one pass over the headers collects.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    date_unix_ms: Option<u64>,
    /// First `grpc-retry-pushback-ms`: `Some(None)` is a refusal.
    grpc_pushback_ms: Option<Option<u64>>,
    retry_after: Slot,
    retry_after_ms: Option<u64>,
    x_ms_retry_after_ms: Option<u64>,
    x_amz_retry_after_ms: Option<u64>,
    /// Largest reset among exhausted quotas, across all `RateLimit` lines.
    ratelimit_ms: Option<u64>,
    ratelimit_reset: Slot,
    x_ratelimit_reset: Slot,
    ratelimit_remaining: Option<u64>,
    x_ratelimit_remaining: Option<u64>,
    /// First valid `x-should-retry`: `Some(false)` is a refusal.
    should_retry: Option<bool>,
    openai_quotas: Quotas,
    anthropic_quotas: Quotas,
}

impl Seen {
    /// Offers a header's value, or, when it lists several (a runtime
    /// joined duplicate headers: `Retry-After: 1, 100`), each element in
    /// order, so the first valid one wins as among separate duplicates. A
    /// value with dates (`Retry-After`, `Date`) is offered whole first, and
    /// each pair of neighbouring elements too: an HTTP-date has a comma of
    /// its own. A `RateLimit` value is a list by its own grammar.
    fn offer_listed(&mut self, index: usize, header: Header, value: &str, wall_now_s: Option<u64>) {
        if matches!(header, Header::RateLimit) || !value.contains(',') {
            self.offer(index, header, value, wall_now_s);
            return;
        }
        let dated = matches!(header, Header::RetryAfter | Header::Date);
        if dated {
            self.offer(index, header, value, wall_now_s);
        }
        let ends = value
            .match_indices(',')
            .map(|(at, _)| at)
            .chain(core::iter::once(value.len()));
        let (mut start, mut before) = (0usize, None::<usize>);
        for end in ends {
            let element = value.get(start..end).unwrap_or("").trim_ascii();
            self.offer(index, header, element, wall_now_s);
            if let (true, Some(pair_start)) = (dated, before) {
                let pair = value.get(pair_start..end).unwrap_or("").trim_ascii();
                self.offer(index, header, pair, wall_now_s);
            }
            before = Some(start);
            start = end.saturating_add(1);
        }
    }

    fn offer(&mut self, index: usize, header: Header, value: &str, wall_now_s: Option<u64>) {
        match header {
            Header::Date => {
                if self.date_unix_ms.is_none() {
                    self.date_unix_ms =
                        parse_http_date_at(value, wall_now_s).map(|s| s.saturating_mul(1000));
                }
            }
            Header::RetryAfter => {
                if let Some(ms) = parse_decimal_ceil(value, 3) {
                    self.retry_after.offer_relative(index, ms);
                } else if let Some(s) = parse_http_date_at(value, wall_now_s) {
                    self.retry_after
                        .offer_absolute(index, s.saturating_mul(1000));
                }
            }
            Header::RetryAfterMs => first(&mut self.retry_after_ms, parse_decimal_ceil(value, 0)),
            Header::XMsRetryAfterMs => {
                first(&mut self.x_ms_retry_after_ms, parse_decimal_ceil(value, 0));
            }
            Header::XAmzRetryAfter => {
                first(&mut self.x_amz_retry_after_ms, parse_decimal_ceil(value, 0));
            }
            Header::GrpcRetryPushbackMs => {
                // Every value means something (a refusal if not a non-negative
                // int32), so the first one decides.
                self.grpc_pushback_ms
                    .get_or_insert_with(|| parse_pushback(value));
            }
            Header::RateLimit => {
                if let Some(ms) = parse_ratelimit(value) {
                    self.ratelimit_ms = Some(self.ratelimit_ms.map_or(ms, |m| m.max(ms)));
                }
            }
            Header::RateLimitReset => self.ratelimit_reset.offer_reset(index, value),
            Header::XRateLimitReset => self.x_ratelimit_reset.offer_reset(index, value),
            Header::RateLimitRemaining => {
                first(&mut self.ratelimit_remaining, parse_decimal_ceil(value, 0));
            }
            Header::XRateLimitRemaining => {
                first(
                    &mut self.x_ratelimit_remaining,
                    parse_decimal_ceil(value, 0),
                );
            }
            Header::XShouldRetry => {
                if self.should_retry.is_none() {
                    self.should_retry = parse_bool(value);
                }
            }
            Header::Quota(quota) => match quota.family {
                Family::OpenAi => self.openai_quotas.offer(quota, value),
                Family::Anthropic => self.anthropic_quotas.offer(quota, value),
            },
        }
    }

    fn resolve(&self, wall_now_ms: Option<u64>) -> Option<ServerHint> {
        let reference = self.date_unix_ms.or(wall_now_ms);
        let delay = |delay_ms, source| Some(ServerHint::Delay { delay_ms, source });
        if self.should_retry == Some(false) {
            return Some(ServerHint::DoNotRetry {
                source: HintSource::XShouldRetry,
            });
        }
        if let Some(None) = self.grpc_pushback_ms {
            return Some(ServerHint::DoNotRetry {
                source: HintSource::GrpcRetryPushbackMs,
            });
        }
        if let Some(ms) = self.retry_after.delay_ms(reference) {
            return delay(ms, HintSource::RetryAfter);
        }
        if let Some(ms) = self.retry_after_ms {
            return delay(ms, HintSource::RetryAfterMs);
        }
        if let Some(ms) = self.x_ms_retry_after_ms {
            return delay(ms, HintSource::XMsRetryAfterMs);
        }
        if let Some(hint_ms) = self.x_amz_retry_after_ms {
            return Some(ServerHint::Bounded {
                hint_ms,
                source: HintSource::XAmzRetryAfter,
            });
        }
        if let Some(Some(ms)) = self.grpc_pushback_ms {
            return delay(ms, HintSource::GrpcRetryPushbackMs);
        }
        if let Some(ms) = self.ratelimit_ms {
            return delay(ms, HintSource::RateLimit);
        }
        // A reset only says when the window ends; it is a reason to wait only
        // if the quota is spent, so a matching `*-Remaining` above 0 voids it.
        let exhausted = |remaining: Option<u64>| remaining.map_or(true, |r| r == 0);
        if exhausted(self.ratelimit_remaining) {
            if let Some(ms) = self.ratelimit_reset.delay_ms(reference) {
                return delay(ms, HintSource::RateLimitReset);
            }
        }
        if exhausted(self.x_ratelimit_remaining) {
            if let Some(ms) = self.x_ratelimit_reset.delay_ms(reference) {
                return delay(ms, HintSource::XRateLimitReset);
            }
        }
        if let Some(ms) = self.openai_quotas.delay_ms(false, reference) {
            return delay(ms, HintSource::OpenAiRateLimitReset);
        }
        if let Some(ms) = self.anthropic_quotas.delay_ms(true, reference) {
            return delay(ms, HintSource::AnthropicRateLimitReset);
        }
        None
    }
}

/// `true` or `false` in any case; anything else is ignored.
fn parse_bool(value: &str) -> Option<bool> {
    if value.eq_ignore_ascii_case("true") {
        Some(true)
    } else if value.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

fn first(slot: &mut Option<u64>, value: Option<u64>) {
    if slot.is_none() {
        *slot = value;
    }
}

/// `1*DIGIT ["." 1*DIGIT]` times `10^scale`, rounded up, saturating at
/// `u64::MAX`. `scale` 3 turns seconds into milliseconds; 0 rounds
/// milliseconds up to whole ones.
fn parse_decimal_ceil(value: &str, scale: usize) -> Option<u64> {
    let (whole, fraction) = match value.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (value, None),
    };
    let is_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !is_digits(whole) || !fraction.map_or(true, is_digits) {
        return None;
    }
    let mut n = whole
        .bytes()
        .fold(0u64, |n, b| n.saturating_mul(10).saturating_add(digit(b)));
    let mut fraction = fraction.unwrap_or("").bytes();
    for _ in 0..scale {
        n = n
            .saturating_mul(10)
            .saturating_add(fraction.next().map_or(0, digit));
    }
    // Digits beyond the scale: any non-zero one means "a little more".
    let round_up = fraction.any(|b| b != b'0');
    Some(n.saturating_add(u64::from(round_up)))
}

fn digit(b: u8) -> u64 {
    u64::from(b.saturating_sub(b'0'))
}

/// gRPC A6 pushback: a non-negative ASCII int32 is a delay in ms; anything
/// else (negative, empty, non-numeric, out of int32 range) is a refusal.
fn parse_pushback(value: &str) -> Option<u64> {
    let ms: i32 = value.parse().ok()?;
    u64::try_from(ms).ok()
}

/// The `RateLimit` header: the largest reset, in ms, among quotas with
/// nothing remaining, or `None` if no quota is exhausted or the value is not
/// understood.
///
/// Two shapes are read. The structured-field list of draft-07 and later,
/// `"default";r=0;t=30` (item = policy name, `r` remaining, `t` seconds to
/// reset; several items may be listed), and the dictionary of the earlier
/// drafts, `limit=10, remaining=0, reset=30`.
fn parse_ratelimit(value: &str) -> Option<u64> {
    if !value.is_ascii() {
        return None;
    }
    let mut longest: Option<u64> = None;
    let mut legacy_remaining = None;
    let mut legacy_reset = None;
    for member in split_unquoted(value, b',') {
        let mut params = split_unquoted(member.trim_ascii(), b';');
        let item = params.next().unwrap_or("");
        if let Some((key, val)) = item.split_once('=').filter(|_| !item.starts_with('"')) {
            match key.trim_ascii() {
                "remaining" => legacy_remaining = parse_decimal_ceil(val.trim_ascii(), 0),
                "reset" => legacy_reset = parse_decimal_ceil(val.trim_ascii(), 3),
                _ => {}
            }
            continue;
        }
        let (mut remaining, mut reset_ms) = (None, None);
        for param in params {
            match param.trim_ascii().split_once('=') {
                Some(("r", v)) => remaining = parse_decimal_ceil(v, 0),
                Some(("t", v)) => reset_ms = parse_decimal_ceil(v, 3),
                _ => {}
            }
        }
        if let (Some(0), Some(ms)) = (remaining, reset_ms) {
            longest = Some(longest.map_or(ms, |l| l.max(ms)));
        }
    }
    if let (Some(0), Some(ms)) = (legacy_remaining, legacy_reset) {
        longest = Some(longest.map_or(ms, |l| l.max(ms)));
    }
    longest
}

/// Splits on `sep` outside double-quoted strings (with `\` escapes), as
/// structured fields need: a policy name may contain `,` or `;`. Splitting an
/// ASCII string on ASCII bytes never cuts a character.
fn split_unquoted(s: &str, sep: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let current = rest?;
        let (mut quoted, mut escaped) = (false, false);
        for (i, b) in current.bytes().enumerate() {
            match b {
                _ if escaped => escaped = false,
                b'\\' if quoted => escaped = true,
                b'"' => quoted = !quoted,
                _ if b == sep && !quoted => {
                    rest = current.get(i + 1..);
                    return current.get(..i);
                }
                _ => {}
            }
        }
        rest = None;
        Some(current)
    })
}

#[cfg(test)]
mod tests;
