//! `hedging`: how many copies of a hedged call go out, and when.

use crate::budget::to_milli;
use crate::deadline::MAX_TIMEOUT_MS;
use crate::error::ConfigErrorCode;
use crate::hedging::{HedgeDelay, HedgingConfig, HedgingOption, MAX_HEDGES, MAX_SAMPLES};
use crate::key::float_text;
use crate::schema::{Check, Fields, Out, Section, Seg};

#[derive(Clone, Copy)]
enum DelayKind {
    Fixed,
    Quantile,
}

const DELAY_KINDS: [DelayKind; 2] = [DelayKind::Fixed, DelayKind::Quantile];

impl DelayKind {
    const fn code(self) -> &'static str {
        match self {
            DelayKind::Fixed => "fixed",
            DelayKind::Quantile => "quantile",
        }
    }
}

/// The settings inside a document `{ hedging }`, so that every error
/// names the field from the option down.
impl Section for HedgingOption {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        HedgingOption(f.section("hedging", HedgingConfig::default()))
    }

    fn write(&self, o: &mut Out) {
        o.section("hedging", &self.0);
    }

    fn check(&self, c: &mut Check) {
        c.within(Seg::field("hedging"), |c| self.0.check(c));
    }
}

impl Section for HedgingConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = HedgingConfig::default();
        HedgingConfig {
            max_hedges: f.u32("max_hedges", d.max_hedges),
            delay: f.section("delay", d.delay),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("max_hedges", self.max_hedges);
        o.section("delay", &self.delay);
    }

    fn check(&self, c: &mut Check) {
        c.count_from(
            Seg::field("max_hedges"),
            u64::from(self.max_hedges),
            1,
            u64::from(MAX_HEDGES),
        );
        c.within(Seg::field("delay"), |c| self.delay.check(c));
    }
}

impl Section for HedgeDelay {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = HedgeDelay::default();
        if !f.require("kind", false, "(\"fixed\" or \"quantile\")") {
            f.ignore_rest();
            return d;
        }
        let Some(kind) = f.opt_code("kind", &DELAY_KINDS, |k| k.code()) else {
            f.ignore_rest();
            return d;
        };
        match kind {
            DelayKind::Fixed => {
                // A fixed delay has no default worth guessing: the service's
                // latency is what sets it.
                f.require("after", true, "for a fixed delay");
                HedgeDelay::Fixed {
                    after_ms: f.duration("after", 0),
                }
            }
            DelayKind::Quantile => {
                let HedgeDelay::Quantile {
                    quantile,
                    min_samples,
                    samples,
                } = d
                else {
                    return d;
                };
                HedgeDelay::Quantile {
                    quantile: f.float("quantile", quantile),
                    min_samples: f.u32("min_samples", min_samples),
                    samples: f.u32("samples", samples),
                }
            }
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("kind", self.code());
        match self {
            HedgeDelay::Fixed { after_ms } => o.duration("after", *after_ms),
            HedgeDelay::Quantile {
                quantile,
                min_samples,
                samples,
            } => {
                o.float("quantile", *quantile);
                o.uint("min_samples", *min_samples);
                o.uint("samples", *samples);
            }
        }
    }

    fn check(&self, c: &mut Check) {
        match *self {
            HedgeDelay::Fixed { after_ms } => {
                c.ms_from(
                    Seg::duration("after"),
                    after_ms,
                    1,
                    MAX_TIMEOUT_MS,
                    " (30 days)",
                );
            }
            HedgeDelay::Quantile {
                quantile,
                min_samples,
                samples,
            } => {
                // Read to thousandths, like every fraction of the schema: a
                // quantile that reads as 0 would hedge every call at once.
                c.range(
                    quantile.is_finite() && quantile <= 1.0 && to_milli(quantile) > 0,
                    Seg::field("quantile"),
                    |_| {
                        format!(
                            "must be from 0.001 to 1 (decimals beyond the third are ignored), got {}",
                            float_text(quantile)
                        )
                    },
                );
                c.count_from(
                    Seg::field("samples"),
                    u64::from(samples),
                    1,
                    u64::from(MAX_SAMPLES),
                );
                c.at_least_one(Seg::field("min_samples"), u64::from(min_samples), "");
                if min_samples > samples && (1..=MAX_SAMPLES).contains(&samples) {
                    let text = format!(
                        "exceeds `{}` ({samples}), so hedging could never start",
                        c.key("samples", false)
                    );
                    c.fail_at(
                        Seg::field("min_samples"),
                        ConfigErrorCode::Inconsistent,
                        text,
                    );
                }
            }
        }
    }
}
