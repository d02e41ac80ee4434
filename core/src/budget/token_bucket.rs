//! The AWS SDK standard-mode retry quota.

use super::RetryCost;
use crate::error::ConfigError;

/// A named set of AWS parameters, so a config says which AWS behaviour it
/// mirrors instead of copying numbers that AWS is about to change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TokenBucketProfile {
    /// Standard mode as shipped 2020-2026 (botocore `quota.py`, aws-sdk-js-v3
    /// `constants.ts`): 500 tokens, a retry costs 5, a retry after a timeout 10,
    /// a success without retry refunds 1.
    #[default]
    AwsStandard,
    /// Updated standard mode (`AWS_NEW_RETRIES_2026=true`, the default from
    /// November 2026): 500 tokens, a retry costs 14 (timeouts included), a retry
    /// after throttling 5, a success without retry refunds 1.
    #[cfg_attr(feature = "serde", serde(rename = "aws_2026"))]
    Aws2026,
}

impl TokenBucketProfile {
    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            TokenBucketProfile::AwsStandard => "aws_standard",
            TokenBucketProfile::Aws2026 => "aws_2026",
        }
    }

    /// The profile named by `code`, if any.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        [TokenBucketProfile::AwsStandard, TokenBucketProfile::Aws2026]
            .into_iter()
            .find(|profile| profile.code() == code)
    }

    /// The profile's parameters.
    #[must_use]
    pub const fn params(self) -> TokenBucketParams {
        match self {
            TokenBucketProfile::AwsStandard => TokenBucketParams {
                capacity: 500,
                retry_cost: 5,
                timeout_retry_cost: 10,
                throttling_retry_cost: 5,
                success_refund: 1,
            },
            TokenBucketProfile::Aws2026 => TokenBucketParams {
                capacity: 500,
                retry_cost: 14,
                timeout_retry_cost: 14,
                throttling_retry_cost: 5,
                success_refund: 1,
            },
        }
    }
}

/// The numbers a [`TokenBucket`] runs on, resolved from a profile and overrides.
///
/// All are whole tokens: both AWS parameter sets are integers, so no
/// fixed-point scaling is needed here (unlike [`GrpcThrottle`](super::GrpcThrottle)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct TokenBucketParams {
    /// Tokens in a full bucket; the bucket starts full.
    pub capacity: u32,
    /// Cost of a retry after a [`RetryCost::Normal`] failure.
    pub retry_cost: u32,
    /// Cost of a retry after a [`RetryCost::Timeout`].
    pub timeout_retry_cost: u32,
    /// Cost of a retry after [`RetryCost::Throttling`].
    pub throttling_retry_cost: u32,
    /// Refund for a success that needed no retry.
    pub success_refund: u32,
}

impl TokenBucketParams {}

/// Settings of a [`TokenBucket`]: a profile, plus optional overrides of any of
/// its numbers (`{"profile": "aws_2026", "capacity": 1000}`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct TokenBucketConfig {
    /// The parameter set to start from.
    pub profile: TokenBucketProfile,
    /// Overrides the profile's capacity (0 is valid: never retry).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub capacity: Option<u32>,
    /// Overrides the profile's retry cost (at least 1).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub retry_cost: Option<u32>,
    /// Overrides the profile's cost after a timeout (at least 1).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub timeout_retry_cost: Option<u32>,
    /// Overrides the profile's cost after throttling (at least 1).
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub throttling_retry_cost: Option<u32>,
    /// Overrides the profile's refund for a success without retry.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub success_refund: Option<u32>,
}

impl TokenBucketConfig {
    /// The profile's numbers with the overrides applied.
    #[must_use]
    pub fn resolve(&self) -> TokenBucketParams {
        let base = self.profile.params();
        TokenBucketParams {
            capacity: self.capacity.unwrap_or(base.capacity),
            retry_cost: self.retry_cost.unwrap_or(base.retry_cost),
            timeout_retry_cost: self.timeout_retry_cost.unwrap_or(base.timeout_retry_cost),
            throttling_retry_cost: self
                .throttling_retry_cost
                .unwrap_or(base.throttling_retry_cost),
            success_refund: self.success_refund.unwrap_or(base.success_refund),
        }
    }

    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }
}

/// The AWS SDK standard-mode retry quota: a bucket of tokens that retries
/// spend and successes refill.
///
/// Semantics (botocore `retries/quota.py` and `standard.py`, smithy-python
/// `StandardRetryQuota`):
/// - it starts full; a retry takes its cost if `cost <= available`, otherwise
///   it is refused and nothing is taken;
/// - a success refunds the cost taken by the retry that produced it (only the
///   *last* retry of an operation: two retries at 14 then a success leave 486
///   of 500), or `success_refund` if the operation succeeded without a retry;
/// - failures refund nothing; refunds are capped at capacity.
///
/// So tokens always stay within `[0, capacity]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenBucket {
    pub(super) params: TokenBucketParams,
    pub(super) tokens: u32,
}

/// The unchecked wire form, validated into a [`TokenBucket`] on deserialization.
pub(super) struct RawTokenBucket {
    pub(super) params: TokenBucketParams,
    pub(super) tokens: u32,
}

impl TryFrom<RawTokenBucket> for TokenBucket {
    type Error = String;

    fn try_from(raw: RawTokenBucket) -> Result<Self, Self::Error> {
        let p = raw.params;
        let as_config = TokenBucketConfig {
            profile: TokenBucketProfile::default(),
            capacity: Some(p.capacity),
            retry_cost: Some(p.retry_cost),
            timeout_retry_cost: Some(p.timeout_retry_cost),
            throttling_retry_cost: Some(p.throttling_retry_cost),
            success_refund: Some(p.success_refund),
        };
        as_config.validate().map_err(|error| error.to_string())?;
        if raw.tokens > raw.params.capacity {
            return Err(format!(
                "tokens {} exceed capacity {}",
                raw.tokens, raw.params.capacity
            ));
        }
        Ok(TokenBucket {
            params: raw.params,
            tokens: raw.tokens,
        })
    }
}

impl TokenBucket {
    /// A full bucket; validates `config` (fields named `budget.token_bucket.*`).
    pub fn new(config: TokenBucketConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::new_unchecked(config))
    }

    /// A full bucket from a config the caller has validated.
    pub(super) fn new_unchecked(config: TokenBucketConfig) -> Self {
        let params = config.resolve();
        TokenBucket {
            params,
            tokens: params.capacity,
        }
    }

    /// The numbers in force.
    #[must_use]
    pub const fn params(&self) -> &TokenBucketParams {
        &self.params
    }

    /// Tokens available now.
    #[must_use]
    pub const fn available(&self) -> u32 {
        self.tokens
    }

    /// Tokens in a full bucket.
    #[must_use]
    pub const fn capacity(&self) -> u32 {
        self.params.capacity
    }

    /// What a retry after a failure of `kind` costs.
    #[must_use]
    pub const fn cost(&self, kind: RetryCost) -> u32 {
        match kind {
            RetryCost::Normal => self.params.retry_cost,
            RetryCost::Timeout => self.params.timeout_retry_cost,
            RetryCost::Throttling => self.params.throttling_retry_cost,
        }
    }

    /// Whether a retry of `kind` would be allowed, without taking it.
    #[must_use]
    pub const fn can_acquire(&self, kind: RetryCost) -> bool {
        self.cost(kind) <= self.tokens
    }

    /// Takes the cost of a retry of `kind` and returns it, or `None` (taking
    /// nothing) if the bucket holds less than the cost.
    #[must_use]
    pub fn try_acquire(&mut self, kind: RetryCost) -> Option<u32> {
        let cost = self.cost(kind);
        let left = self.tokens.checked_sub(cost)?;
        self.tokens = left;
        Some(cost)
    }

    /// Refunds after a successful attempt: `retry_cost_taken` if the attempt
    /// was a retry (the value [`TokenBucket::try_acquire`] returned), else
    /// `success_refund`; capped at capacity.
    pub fn on_success(&mut self, retry_cost_taken: Option<u32>) {
        let refund = retry_cost_taken.unwrap_or(self.params.success_refund);
        self.tokens = self.tokens.saturating_add(refund).min(self.params.capacity);
    }

    /// Replaces the numbers and keeps the bucket's fill fraction (rounded
    /// down), the rule gRPC uses when a throttling config is replaced; an old
    /// bucket of capacity 0 counts as full.
    pub(super) fn reconfigure(&mut self, config: TokenBucketConfig) {
        let params = config.resolve();
        let tokens = if self.params.capacity == 0 {
            params.capacity
        } else {
            let scaled = u64::from(self.tokens) * u64::from(params.capacity)
                / u64::from(self.params.capacity);
            u32::try_from(scaled)
                .unwrap_or(params.capacity)
                .min(params.capacity)
        };
        *self = TokenBucket { params, tokens };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(config: TokenBucketConfig) -> TokenBucket {
        TokenBucket::new(config).unwrap()
    }

    #[test]
    fn classic_costs_and_refunds() {
        let mut b = bucket(TokenBucketConfig::default());
        assert_eq!(b.try_acquire(RetryCost::Normal), Some(5));
        assert_eq!(b.available(), 495);
        b.on_success(Some(5));
        assert_eq!(b.available(), 500);
        assert_eq!(b.try_acquire(RetryCost::Timeout), Some(10));
        assert_eq!(b.available(), 490);
        b.on_success(None);
        assert_eq!(b.available(), 491);
    }

    #[test]
    fn profile_2026_costs() {
        let b = bucket(TokenBucketConfig {
            profile: TokenBucketProfile::Aws2026,
            ..TokenBucketConfig::default()
        });
        assert_eq!(b.cost(RetryCost::Normal), 14);
        assert_eq!(b.cost(RetryCost::Timeout), 14);
        assert_eq!(b.cost(RetryCost::Throttling), 5);
        assert_eq!(b.capacity(), 500);
    }

    #[test]
    fn cannot_go_below_zero_or_above_capacity() {
        // botocore test_cant_go_below_zero with capacity 50: acquire 49, then 10 fails.
        let mut b = bucket(TokenBucketConfig {
            capacity: Some(50),
            retry_cost: Some(49),
            ..TokenBucketConfig::default()
        });
        assert_eq!(b.try_acquire(RetryCost::Normal), Some(49));
        assert_eq!(b.try_acquire(RetryCost::Timeout), None);
        assert_eq!(b.available(), 1);
        b.on_success(Some(u32::MAX));
        assert_eq!(b.available(), 50);
    }

    #[test]
    fn zero_capacity_never_allows() {
        let mut b = bucket(TokenBucketConfig {
            capacity: Some(0),
            ..TokenBucketConfig::default()
        });
        assert!(!b.can_acquire(RetryCost::Normal));
        assert_eq!(b.try_acquire(RetryCost::Normal), None);
        b.on_success(None);
        assert_eq!(b.available(), 0);
    }

    #[test]
    fn zero_cost_is_rejected_with_its_field() {
        let error = TokenBucket::new(TokenBucketConfig {
            timeout_retry_cost: Some(0),
            ..TokenBucketConfig::default()
        })
        .unwrap_err();
        assert_eq!(error.field(), "timeout_retry_cost");
        assert_eq!(error.code().as_str(), "out_of_range");
    }

    #[test]
    fn reconfigure_keeps_fill_fraction() {
        let mut b = bucket(TokenBucketConfig::default());
        for _ in 0..50 {
            assert!(b.try_acquire(RetryCost::Normal).is_some());
        }
        b.reconfigure(TokenBucketConfig {
            capacity: Some(1000),
            ..TokenBucketConfig::default()
        });
        assert_eq!((b.available(), b.capacity()), (500, 1000));
        let mut empty = bucket(TokenBucketConfig {
            capacity: Some(0),
            ..Default::default()
        });
        empty.reconfigure(TokenBucketConfig::default());
        assert_eq!(empty.available(), 500);
    }

    #[test]
    fn profile_codes_and_config_json() {
        for profile in [TokenBucketProfile::AwsStandard, TokenBucketProfile::Aws2026] {
            assert_eq!(TokenBucketProfile::from_code(profile.code()), Some(profile));
        }
        let config: TokenBucketConfig =
            crate::schema::json::read(r#"{"profile":"aws_2026","capacity":30}"#).unwrap();
        assert_eq!(config.resolve().capacity, 30);
        assert_eq!(config.resolve().retry_cost, 14);
        assert_eq!(
            crate::schema::json::text(&config),
            r#"{"profile":"aws_2026","capacity":30}"#
        );
        assert!(crate::schema::json::read::<TokenBucketConfig>(r#"{"capacty":30}"#).is_err());
    }

    #[test]
    fn snapshot_round_trip_and_rejects_overfull() {
        let mut b = bucket(TokenBucketConfig::default());
        assert!(b.try_acquire(RetryCost::Normal).is_some());
        let json = crate::state::write_snapshot(&b);
        assert_eq!(
            crate::state::read_snapshot::<TokenBucket>(&json).unwrap(),
            b
        );
        let overfull = json.replace("\"tokens\":495", "\"tokens\":501");
        assert!(crate::state::read_snapshot::<TokenBucket>(&overfull).is_err());
    }
}
