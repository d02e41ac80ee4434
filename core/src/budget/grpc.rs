//! gRPC A6 `retryThrottling`.

use super::to_milli;
use crate::error::ConfigError;

/// The largest `max_tokens` A6 accepts.
pub const MAX_GRPC_TOKENS: u32 = 1000;

/// Settings of a [`GrpcThrottle`], as in a gRPC service config's
/// `"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}` (snake_case here).
/// The defaults are A6's example.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct GrpcThrottleConfig {
    /// Tokens in a full throttle, an integer in `1..=1000`.
    pub max_tokens: u32,
    /// Tokens a success adds back, in `(0, 1000]`; decimals beyond the third
    /// are ignored (0.5466 -> 0.546), as gRPC does.
    pub token_ratio: f64,
}

impl Default for GrpcThrottleConfig {
    fn default() -> Self {
        GrpcThrottleConfig {
            max_tokens: 10,
            token_ratio: 0.1,
        }
    }
}

impl GrpcThrottleConfig {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }

    fn max_milli_tokens(&self) -> u32 {
        self.max_tokens.saturating_mul(1000)
    }

    fn milli_token_ratio(&self) -> u32 {
        u32::try_from(to_milli(self.token_ratio)).unwrap_or(u32::MAX)
    }
}

/// gRPC A6 retry throttling: failures drain tokens, successes refill them, and
/// retries are allowed only while more than half remain.
///
/// - Starts full (`max_tokens`), always within `[0, max_tokens]`.
/// - Every counted failure (a retryable status, or pushback saying "don't
///   retry") takes 1 token, whether or not a retry follows.
/// - Every success adds `token_ratio`.
/// - A retry is allowed iff `tokens > max_tokens / 2` (strict).
///
/// Stored as integer milli-tokens, as gRPC core does (`max_milli_tokens`,
/// `milli_token_ratio`), so decisions are exact: 4 tokens at ratio 1.6 go
/// 4000 -> 3000 -> ... -> 1600 -> 3200 and never drift.
#[derive(Clone, Debug, PartialEq)]
pub struct GrpcThrottle {
    pub(super) config: GrpcThrottleConfig,
    pub(super) milli_tokens: u32,
}

/// The unchecked wire form, validated into a [`GrpcThrottle`] on deserialization.
pub(super) struct RawGrpc {
    pub(super) config: GrpcThrottleConfig,
    pub(super) milli_tokens: u32,
}

impl TryFrom<RawGrpc> for GrpcThrottle {
    type Error = String;

    fn try_from(raw: RawGrpc) -> Result<Self, Self::Error> {
        raw.config.validate().map_err(|error| error.to_string())?;
        if raw.milli_tokens > raw.config.max_milli_tokens() {
            return Err(format!(
                "milli_tokens {} exceed max_tokens",
                raw.milli_tokens
            ));
        }
        Ok(GrpcThrottle {
            config: raw.config,
            milli_tokens: raw.milli_tokens,
        })
    }
}

impl GrpcThrottle {
    /// A full throttle; validates `config` (fields named `budget.grpc.*`).
    pub fn new(config: GrpcThrottleConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::new_unchecked(config))
    }

    /// A full throttle from a config the caller has validated.
    pub(super) fn new_unchecked(config: GrpcThrottleConfig) -> Self {
        GrpcThrottle {
            config,
            milli_tokens: config.max_milli_tokens(),
        }
    }

    /// The settings in force.
    #[must_use]
    pub const fn config(&self) -> &GrpcThrottleConfig {
        &self.config
    }

    /// Tokens now, in thousandths.
    #[must_use]
    pub const fn milli_tokens(&self) -> u32 {
        self.milli_tokens
    }

    /// A full throttle, in thousandths.
    #[must_use]
    pub fn max_milli_tokens(&self) -> u32 {
        self.config.max_milli_tokens()
    }

    /// Whether a retry (or hedge) is allowed now: `tokens > max_tokens / 2`.
    #[must_use]
    pub fn retry_allowed(&self) -> bool {
        self.milli_tokens > self.max_milli_tokens() / 2
    }

    /// Records a counted failure (-1 token, floor 0) and returns whether a
    /// retry is allowed afterwards, like gRPC core's `RecordFailure`.
    pub fn on_failure(&mut self) -> bool {
        self.milli_tokens = self.milli_tokens.saturating_sub(1000);
        self.retry_allowed()
    }

    /// Records a success (+`token_ratio`, capped at `max_tokens`).
    pub fn on_success(&mut self) {
        self.milli_tokens = self
            .milli_tokens
            .saturating_add(self.config.milli_token_ratio())
            .min(self.max_milli_tokens());
    }

    /// Replaces the settings and keeps the fill fraction, rounded down: gRPC
    /// core does this when a new service config arrives for the same server,
    /// so a throttled client stays throttled (4 tokens of which 3 left, moved
    /// to a maximum of 10, starts at 7.5).
    pub(super) fn reconfigure(&mut self, config: GrpcThrottleConfig) {
        let old_max = u64::from(self.max_milli_tokens().max(1));
        let new_max = config.max_milli_tokens();
        let scaled = u64::from(self.milli_tokens) * u64::from(new_max) / old_max;
        let milli_tokens = u32::try_from(scaled).unwrap_or(new_max).min(new_max);
        *self = GrpcThrottle {
            config,
            milli_tokens,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_core_basic_sequence() {
        // grpc/grpc test/core/client_channel/retry_throttle_test.cc, Basic.
        let mut t = GrpcThrottle::new(GrpcThrottleConfig {
            max_tokens: 4,
            token_ratio: 1.6,
        })
        .unwrap();
        let steps: [(bool, Option<bool>, u32); 15] = [
            (false, Some(true), 3000),
            (true, None, 4000),
            (false, Some(true), 3000),
            (false, Some(false), 2000),
            (false, Some(false), 1000),
            (false, Some(false), 0),
            (false, Some(false), 0),
            (true, None, 1600),
            (true, None, 3200),
            (false, Some(true), 2200),
            (false, Some(false), 1200),
            (true, None, 2800),
            (false, Some(false), 1800),
            (true, None, 3400),
            (false, Some(true), 2400),
        ];
        for (success, allowed, after) in steps {
            if success {
                t.on_success();
            } else {
                assert_eq!(Some(t.on_failure()), allowed);
            }
            assert_eq!(t.milli_tokens(), after);
        }
    }

    #[test]
    fn replacement_keeps_fraction() {
        let mut t = GrpcThrottle::new(GrpcThrottleConfig {
            max_tokens: 4,
            token_ratio: 1.0,
        })
        .unwrap();
        t.on_failure();
        t.reconfigure(GrpcThrottleConfig {
            max_tokens: 10,
            token_ratio: 3.0,
        });
        assert_eq!(t.milli_tokens(), 7500);
        assert!(t.on_failure());
        assert_eq!(t.milli_tokens(), 6500);
    }

    #[test]
    fn validation() {
        let bad = [
            (
                GrpcThrottleConfig {
                    max_tokens: 0,
                    token_ratio: 0.1,
                },
                "max_tokens",
            ),
            (
                GrpcThrottleConfig {
                    max_tokens: 1001,
                    token_ratio: 0.1,
                },
                "max_tokens",
            ),
            (
                GrpcThrottleConfig {
                    max_tokens: 10,
                    token_ratio: 0.0,
                },
                "token_ratio",
            ),
            (
                GrpcThrottleConfig {
                    max_tokens: 10,
                    token_ratio: 0.0004,
                },
                "token_ratio",
            ),
            (
                GrpcThrottleConfig {
                    max_tokens: 10,
                    token_ratio: -1.0,
                },
                "token_ratio",
            ),
            (
                GrpcThrottleConfig {
                    max_tokens: 10,
                    token_ratio: f64::NAN,
                },
                "token_ratio",
            ),
            (
                GrpcThrottleConfig {
                    max_tokens: 10,
                    token_ratio: 1000.5,
                },
                "token_ratio",
            ),
        ];
        for (config, name) in bad {
            assert_eq!(config.validate().unwrap_err().field(), name, "{config:?}");
        }
        let ok = GrpcThrottleConfig {
            max_tokens: 1000,
            token_ratio: 0.5466,
        };
        assert!(ok.validate().is_ok());
        assert_eq!(ok.milli_token_ratio(), 546);
    }

    #[test]
    fn snapshot_round_trip() {
        let mut t = GrpcThrottle::new(GrpcThrottleConfig::default()).unwrap();
        t.on_failure();
        let json = crate::state::write_snapshot(&t);
        assert_eq!(
            json,
            r#"{"config":{"max_tokens":10,"token_ratio":0.1},"milli_tokens":9000}"#
        );
        assert_eq!(
            crate::state::read_snapshot::<GrpcThrottle>(&json).unwrap(),
            t
        );
        let bad = json.replace("9000", "10001");
        assert!(crate::state::read_snapshot::<GrpcThrottle>(&bad).is_err());
    }
}
