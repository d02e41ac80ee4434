//! TEMP stand-in until the backoff module lands (replaced at merge).
use crate::error::ConfigError;
use crate::rng::SplitMix64;
use serde::{Deserialize, Serialize};
/// TEMP
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// TEMP
    FullJitter,
    /// TEMP
    Exponential,
}
impl Strategy {
    /// TEMP
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Strategy::FullJitter => "full_jitter",
            Strategy::Exponential => "exponential",
        }
    }
}
/// TEMP
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BackoffSpec {
    /// TEMP
    pub strategy: Strategy,
    /// TEMP
    pub base_ms: u64,
    /// TEMP
    pub cap_ms: u64,
    /// TEMP
    pub multiplier: f64,
}
impl Default for BackoffSpec {
    fn default() -> Self {
        BackoffSpec {
            strategy: Strategy::FullJitter,
            base_ms: 1000,
            cap_ms: 30000,
            multiplier: 2.0,
        }
    }
}
impl BackoffSpec {
    /// TEMP
    pub fn validate(&self, _p: &str) -> Result<(), ConfigError> {
        Ok(())
    }
}
/// TEMP
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Backoff {
    spec: BackoffSpec,
    prev_ms: u64,
}
impl Backoff {
    /// TEMP
    #[must_use]
    pub fn new(spec: BackoffSpec) -> Self {
        Backoff {
            spec,
            prev_ms: spec.base_ms,
        }
    }
    /// TEMP
    #[must_use]
    pub fn spec(&self) -> &BackoffSpec {
        &self.spec
    }
    /// TEMP
    pub fn delay_ms(&mut self, retry: u32, rng: &mut SplitMix64) -> u64 {
        let c = self
            .spec
            .base_ms
            .saturating_mul(1u64 << retry.saturating_sub(1).min(40))
            .min(self.spec.cap_ms);
        match self.spec.strategy {
            Strategy::Exponential => c,
            Strategy::FullJitter => rng.next_u64() % c.saturating_add(1),
        }
    }
}
