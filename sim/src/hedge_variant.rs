//! The hedging settings the two hedging models compare, as stoic configs.
//!
//! Each is a real [`HedgingConfig`] (or none) plus the policy [`Config`] its
//! calls run under; the models follow what the policy decides.

use stoic_core::budget::{RatioConfig, RetryBudgetConfig, MAX_RATIO};
use stoic_core::hedging::{HedgeDelay, HedgingConfig};
use stoic_core::Config;

/// The fixed hedge delay of the fan-out model: the paper's 10 ms.
pub const FIXED_DELAY_MS: u64 = 10;

/// A fixed delay of [`FIXED_DELAY_MS`] with `max_hedges` hedges.
const fn fixed(max_hedges: u32) -> HedgingConfig {
    HedgingConfig {
        max_hedges,
        delay: HedgeDelay::Fixed {
            after_ms: FIXED_DELAY_MS,
        },
    }
}

/// stoic's default delay (the 95th percentile of the scope's last 100
/// latencies, once 20 are known) with `max_hedges` hedges.
fn p95(max_hedges: u32) -> HedgingConfig {
    HedgingConfig {
        max_hedges,
        ..HedgingConfig::default()
    }
}

/// The policy both models start from: stoic's defaults without the breaker.
/// The models' servers never fail, so a breaker would only ever admit; it
/// is left out to keep each run's state to what hedging uses.
fn base(seed: u64) -> Config {
    Config {
        breaker: None,
        ..Config::with_seed(seed)
    }
}

/// A setting of the fan-out model (a).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FanoutVariant {
    /// Each sub-request sent once.
    None,
    /// One hedge after 10 ms, as in the paper.
    Fixed,
    /// One hedge at stoic's default delay, the 95th percentile.
    P95,
    /// Up to two hedges, each 10 ms after the copy before.
    FixedTwice,
    /// Up to two hedges, each a 95th percentile after the copy before.
    P95Twice,
}

impl FanoutVariant {
    /// Every setting, in table order.
    pub const ALL: [FanoutVariant; 5] = [
        FanoutVariant::None,
        FanoutVariant::Fixed,
        FanoutVariant::P95,
        FanoutVariant::FixedTwice,
        FanoutVariant::P95Twice,
    ];

    /// A stable short name for tables, CSV and legends.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            FanoutVariant::None => "no_hedging",
            FanoutVariant::Fixed => "fixed_10ms",
            FanoutVariant::P95 => "p95",
            FanoutVariant::FixedTwice => "fixed_10ms_x2",
            FanoutVariant::P95Twice => "p95_x2",
        }
    }

    /// How calls hedge; `None` for no hedging.
    #[must_use]
    pub fn hedging(self) -> Option<HedgingConfig> {
        match self {
            FanoutVariant::None => None,
            FanoutVariant::Fixed => Some(fixed(1)),
            FanoutVariant::P95 => Some(p95(1)),
            FanoutVariant::FixedTwice => Some(fixed(2)),
            FanoutVariant::P95Twice => Some(p95(2)),
        }
    }

    /// The policy: stoic's defaults (its ratio budget included), no breaker.
    #[must_use]
    pub fn config(self, seed: u64) -> Config {
        Config {
            max_attempts: 1,
            ..base(seed)
        }
    }
}

/// A setting of the saturation model (b).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SaturationVariant {
    /// Each call sent once.
    None,
    /// One hedge at the 95th percentile, the retry budget effectively off:
    /// a ratio of [`MAX_RATIO`] hedges per first attempt, which one hedge
    /// per call can never reach.
    Unbudgeted,
    /// One hedge at the 95th percentile under stoic's default ratio budget
    /// (10 % of first attempts over a minute, plus 0.1 per second and 3
    /// outstanding).
    Budgeted,
}

impl SaturationVariant {
    /// Every setting, in table order.
    pub const ALL: [SaturationVariant; 3] = [
        SaturationVariant::None,
        SaturationVariant::Unbudgeted,
        SaturationVariant::Budgeted,
    ];

    /// A stable short name for tables, CSV and legends.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            SaturationVariant::None => "no_hedging",
            SaturationVariant::Unbudgeted => "p95_unbudgeted",
            SaturationVariant::Budgeted => "p95_ratio_budget",
        }
    }

    /// How calls hedge; `None` for no hedging.
    #[must_use]
    pub fn hedging(self) -> Option<HedgingConfig> {
        match self {
            SaturationVariant::None => None,
            SaturationVariant::Unbudgeted | SaturationVariant::Budgeted => Some(p95(1)),
        }
    }

    /// The policy: stoic's defaults, no breaker, and for `Unbudgeted` a
    /// ratio budget too large to refuse.
    #[must_use]
    pub fn config(self, seed: u64) -> Config {
        let config = Config {
            max_attempts: 1,
            ..base(seed)
        };
        match self {
            SaturationVariant::None | SaturationVariant::Budgeted => config,
            SaturationVariant::Unbudgeted => Config {
                budget: RetryBudgetConfig {
                    ratio: Some(RatioConfig {
                        ratio: MAX_RATIO,
                        ..RatioConfig::default()
                    }),
                    ..config.budget
                },
                ..config
            },
        }
    }
}

/// The default ratio budget's share: the extra load it allows on top of
/// first attempts (0.1).
#[must_use]
pub fn default_budget_ratio() -> f64 {
    RetryBudgetConfig::default()
        .ratio
        .map_or(0.0, |ratio| ratio.ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_is_valid() {
        for v in FanoutVariant::ALL {
            assert!(v.config(1).validate().is_ok(), "{}", v.code());
            assert!(v.hedging().is_none_or(|h| h.validate().is_ok()));
        }
        for v in SaturationVariant::ALL {
            assert!(v.config(1).validate().is_ok(), "{}", v.code());
            assert!(v.hedging().is_none_or(|h| h.validate().is_ok()));
        }
    }

    #[test]
    fn only_the_unbudgeted_setting_changes_the_budget() {
        let ratio = |v: SaturationVariant| v.config(1).budget.ratio.map(|r| r.ratio);
        assert_eq!(ratio(SaturationVariant::Budgeted), Some(0.1));
        assert_eq!(ratio(SaturationVariant::Unbudgeted), Some(MAX_RATIO));
        assert!((default_budget_ratio() - 0.1).abs() < 1e-12);
    }
}
