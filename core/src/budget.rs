//! Retry budgets: caps on retries across many operations of one scope.
//!
//! Retries multiply load exactly when a dependency is least able to take it, so
//! besides the per-operation attempt limit (the policy's job, not this module's)
//! a scope (a client, a host, a server name) keeps one [`RetryBudget`] that every
//! operation asks before it retries. Four independent budgets can be enabled, and
//! a retry happens only if *all* enabled ones agree:
//!
//! | code | type | what it caps | from |
//! |------|------|--------------|------|
//! | `ratio` | [`RatioBudget`] | retries as a share of first attempts over a sliding window, plus a small floor | Finagle `RetryBudget`, tower `TpsBudget`, seed "10 % of requests in the last minute" |
//! | `run_cap` | [`RunCap`] | retries for the whole lifetime of the policy ("per run") | seed "cap them twice" |
//! | `token_bucket` | [`TokenBucket`] | AWS SDK standard-mode retry quota (500 tokens, cost per retry, refund on success) | botocore, smithy-python, aws-sdk-js-v3 |
//! | `grpc` | [`GrpcThrottle`] | gRPC A6 `retryThrottling` (failures drain, successes refill, retry while above half) | grpc/proposal A6, grpc core |
//!
//! Everything is sans-IO: time is a host-passed [`Instant`](crate::Instant),
//! clamped so it never runs backwards; every count saturates; every window has a
//! fixed number of slots. All decisions use integers (fixed-point milli-units
//! where a config value is fractional), so Rust, JavaScript and Python agree to
//! the last token.
//!
//! The composed [`RetryBudget`] is what a policy holds:
//!
//! ```
//! use stoic_core::budget::{RetryBudget, RetryBudgetConfig, RetryCost};
//! use stoic_core::Instant;
//!
//! let mut budget = RetryBudget::new(RetryBudgetConfig::default()).unwrap();
//! let now = Instant::from_millis(0);
//! budget.on_first_attempt(now);
//! budget.on_attempt_failure(now);
//! match budget.try_retry(now, RetryCost::Normal) {
//!     Ok(ticket) => { /* retry; pass `Some(ticket)` to on_attempt_success if it works */
//!         budget.on_attempt_success(now, Some(ticket));
//!     }
//!     Err(refusal) => { /* fail fast: refusal.budget.code() says which budget */ }
//! }
//! while let Some(event) = budget.poll_event() { /* log "Retry budget exceeded" */ }
//! ```

mod composed;
mod grpc;
mod ratio;

mod run_cap;
mod snapshot;
mod token_bucket;

pub use crate::ring::{BucketRing, MAX_BUCKETS};
pub use composed::{
    BudgetEvent, BudgetStatus, GrpcStatus, RatioStatus, Refusal, RetryBudget, RetryBudgetConfig,
    RetryTicket, RunCapStatus, TokenBucketStatus, EVENT_QUEUE_CAPACITY,
};
pub use grpc::{GrpcThrottle, GrpcThrottleConfig, MAX_GRPC_TOKENS};
pub use ratio::{
    RatioBudget, RatioConfig, Withdrawal, MAX_CONCURRENT_FLOOR, MAX_RATIO, MAX_RETRIES_PER_SEC,
    MAX_WINDOW_MS,
};
pub use run_cap::{RunCap, RunCapConfig};
pub use token_bucket::{TokenBucket, TokenBucketConfig, TokenBucketParams, TokenBucketProfile};

/// Which budget a refusal, an event or a status line is about.
///
/// The codes are the config keys (`"ratio"`, `"run_cap"`, `"token_bucket"`,
/// `"grpc"`), so a log line names the exact section a user would tune.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BudgetKind {
    /// [`RatioBudget`]: retries as a share of first attempts over a window.
    Ratio,
    /// [`RunCap`]: a lifetime cap on retries.
    RunCap,
    /// [`TokenBucket`]: the AWS standard-mode retry quota.
    TokenBucket,
    /// [`GrpcThrottle`]: gRPC A6 retry throttling.
    Grpc,
}

impl BudgetKind {
    /// Every kind, in the fixed order budgets are consulted and reported.
    pub const ALL: [BudgetKind; 4] = [
        BudgetKind::Ratio,
        BudgetKind::RunCap,
        BudgetKind::TokenBucket,
        BudgetKind::Grpc,
    ];

    /// The stable snake_case code (also the config key).
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            BudgetKind::Ratio => "ratio",
            BudgetKind::RunCap => "run_cap",
            BudgetKind::TokenBucket => "token_bucket",
            BudgetKind::Grpc => "grpc",
        }
    }

    /// The kind named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        BudgetKind::ALL.into_iter().find(|kind| kind.code() == code)
    }

    /// Position in [`BudgetKind::ALL`], used to index per-budget flags without
    /// a map (deterministic, allocation-free).
    const fn index(self) -> usize {
        match self {
            BudgetKind::Ratio => 0,
            BudgetKind::RunCap => 1,
            BudgetKind::TokenBucket => 2,
            BudgetKind::Grpc => 3,
        }
    }
}

/// What kind of failure a retry follows, because the AWS quota charges them
/// differently (classic: timeouts cost 10, the rest 5; 2026: throttling costs 5,
/// the rest, timeouts included, 14). Budgets other than the token bucket ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum RetryCost {
    /// Any retryable failure that is neither a timeout nor throttling.
    Normal,
    /// A connect or read timeout (botocore: `ConnectTimeoutError`, `ReadTimeoutError`).
    Timeout,
    /// A throttling error (HTTP 429-style error codes such as `ThrottlingException`).
    Throttling,
}

impl RetryCost {
    /// Every cost, in code order.
    pub const ALL: [RetryCost; 3] = [RetryCost::Normal, RetryCost::Timeout, RetryCost::Throttling];

    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            RetryCost::Normal => "normal",
            RetryCost::Timeout => "timeout",
            RetryCost::Throttling => "throttling",
        }
    }

    /// The kind named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        RetryCost::ALL.into_iter().find(|kind| kind.code() == code)
    }
}

/// Converts a fractional config value to integer thousandths, ignoring decimals
/// beyond the third as gRPC does for `tokenRatio` (0.5466 -> 546).
///
/// A value that arrived through JSON is a binary double, so `1.005` is really
/// `1.00499999...`; a plain truncation would give 1004. Adding a millionth of a
/// thousandth first absorbs that representation error while still truncating
/// every genuinely longer decimal. Negative and NaN inputs give 0 (validation
/// rejects them before this matters); huge inputs saturate.
pub(crate) fn to_milli(value: f64) -> u64 {
    let scaled = (value * 1000.0 + 1e-6).floor();
    if scaled.is_nan() || scaled <= 0.0 {
        0
    } else if scaled >= u64::MAX as f64 {
        u64::MAX
    } else {
        // In range and integral, so the conversion is exact.
        scaled as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milli_conversion_truncates_and_absorbs_binary_error() {
        assert_eq!(to_milli(0.5466), 546);
        assert_eq!(to_milli(1.005), 1005);
        assert_eq!(to_milli(0.1), 100);
        assert_eq!(to_milli(1.6), 1600);
        assert_eq!(to_milli(0.0), 0);
        assert_eq!(to_milli(-3.0), 0);
        assert_eq!(to_milli(f64::NAN), 0);
        assert_eq!(to_milli(f64::INFINITY), u64::MAX);
        assert_eq!(to_milli(0.0004), 0);
    }

    #[test]
    fn codes_round_trip() {
        for kind in BudgetKind::ALL {
            assert_eq!(BudgetKind::from_code(kind.code()), Some(kind));
            #[cfg(feature = "serde")]
            assert_eq!(
                serde_json::to_string(&kind).unwrap(),
                format!("\"{}\"", kind.code())
            );
        }
        for cost in [RetryCost::Normal, RetryCost::Timeout, RetryCost::Throttling] {
            assert_eq!(RetryCost::from_code(cost.code()), Some(cost));
            #[cfg(feature = "serde")]
            assert_eq!(
                serde_json::to_string(&cost).unwrap(),
                format!("\"{}\"", cost.code())
            );
        }
        for profile in [TokenBucketProfile::AwsStandard, TokenBucketProfile::Aws2026] {
            assert_eq!(TokenBucketProfile::from_code(profile.code()), Some(profile));
            #[cfg(feature = "serde")]
            assert_eq!(
                serde_json::to_string(&profile).unwrap(),
                format!("\"{}\"", profile.code())
            );
        }
        assert_eq!(BudgetKind::from_code("nope"), None);
        assert_eq!(RetryCost::from_code("Normal"), None);
    }
}
