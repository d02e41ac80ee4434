//! The client policies the overload simulator compares, as stoic configs.
//!
//! Each variant is a real [`stoic_core::Config`]: the simulator feeds it to
//! [`stoic_core::Policy`] and follows its decisions, so the chart shows what
//! stoic does, not a model of it. Everything not listed keeps stoic's
//! defaults (full jitter over 1 s, 2 s, 4 s ... capped at 30 s; a 120 s total
//! deadline).

use stoic_core::breaker::{BreakerConfig, Compare, TripRule, Window};
use stoic_core::budget::{RatioConfig, RetryBudgetConfig, TokenBucketConfig};
use stoic_core::Config;

/// Attempts per call in the retrying variants: stoic's default (5, so N = 4
/// retries).
pub const RETRY_ATTEMPTS: u32 = 5;

/// One client policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// One attempt, no retries.
    NoRetries,
    /// Up to N retries, nothing else limiting them.
    Retries,
    /// N retries under stoic's default ratio budget (10 % of first attempts
    /// over a minute, plus 0.1 retries per second).
    RatioBudget,
    /// N retries under the AWS standard-mode token bucket (500 tokens, 5 per
    /// retry, 1 back per success without retry).
    TokenBucket,
    /// N retries behind a failure-rate circuit breaker (opens at >= 50 %
    /// failures over 10 s with at least 20 calls, 5 s cooldown, then stoic's
    /// default probing: 1 probe at a time, 2 successes to close).
    Breaker,
}

impl Variant {
    /// Every variant, in chart order.
    pub const ALL: [Variant; 5] = [
        Variant::NoRetries,
        Variant::Retries,
        Variant::RatioBudget,
        Variant::TokenBucket,
        Variant::Breaker,
    ];

    /// A stable short name for tables, CSV and legends.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Variant::NoRetries => "no_retries",
            Variant::Retries => "retries",
            Variant::RatioBudget => "retries+ratio_budget",
            Variant::TokenBucket => "retries+token_bucket",
            Variant::Breaker => "retries+breaker",
        }
    }

    /// The stoic config of this variant, seeded with `seed`.
    #[must_use]
    pub fn config(self, seed: u64) -> Config {
        let no_budget = RetryBudgetConfig {
            ratio: None,
            run_cap: None,
            token_bucket: None,
            grpc: None,
        };
        let base = Config {
            max_attempts: RETRY_ATTEMPTS,
            breaker: None,
            budget: no_budget,
            ..Config::with_seed(seed)
        };
        match self {
            Variant::NoRetries => Config {
                max_attempts: 1,
                ..base
            },
            Variant::Retries => base,
            Variant::RatioBudget => Config {
                budget: RetryBudgetConfig {
                    ratio: Some(RatioConfig::default()),
                    ..no_budget
                },
                ..base
            },
            Variant::TokenBucket => Config {
                budget: RetryBudgetConfig {
                    token_bucket: Some(TokenBucketConfig::default()),
                    ..no_budget
                },
                ..base
            },
            Variant::Breaker => Config {
                breaker: Some(BreakerConfig {
                    trip: TripRule::FailureRate {
                        window: Window::Time {
                            duration_ms: 10_000,
                            buckets: 10,
                        },
                        failure_rate: 0.5,
                        minimum_throughput: 20,
                        compare: Compare::Ge,
                        slow_call: None,
                    },
                    cooldown_ms: 5_000,
                    ..BreakerConfig::default()
                }),
                ..base
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_a_valid_config() {
        for v in Variant::ALL {
            assert!(v.config(1).validate().is_ok(), "{}", v.code());
        }
    }
}
