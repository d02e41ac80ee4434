//! `backoff`: the strategy and its parameters.

use crate::backoff::{BackoffSpec, Strategy, MAX_DELAY_MS, MAX_MULTIPLIER, MIN_MULTIPLIER};
use crate::error::ConfigErrorCode;
use crate::schema::{Check, Fields, Out, Section, Seg};

impl Section for BackoffSpec {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = BackoffSpec::default();
        BackoffSpec {
            strategy: f.code("strategy", d.strategy, &Strategy::ALL, |s| s.code()),
            base_ms: f.duration("base", d.base_ms),
            cap_ms: f.duration("cap", d.cap_ms),
            multiplier: f.float("multiplier", d.multiplier),
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("strategy", self.strategy.code());
        o.duration("base", self.base_ms);
        o.duration("cap", self.cap_ms);
        o.float("multiplier", self.multiplier);
    }

    fn check(&self, c: &mut Check) {
        for (stem, ms) in [("base", self.base_ms), ("cap", self.cap_ms)] {
            c.ms_at_most(Seg::duration(stem), ms, MAX_DELAY_MS, " (7 days)");
        }
        if self.cap_ms < self.base_ms {
            let text = format!(
                "must be at least `{}` ({}), got {}",
                c.key("base", true),
                c.ms(self.base_ms),
                c.ms(self.cap_ms)
            );
            c.fail_at(Seg::duration("cap"), ConfigErrorCode::Inconsistent, text);
        }
        c.float_from(
            Seg::field("multiplier"),
            self.multiplier,
            MIN_MULTIPLIER,
            MAX_MULTIPLIER,
            "a number ",
        );
    }
}

/// A standalone backoff's settings: the spec's fields and its jitter seed,
/// side by side (`{strategy, base, cap, multiplier, seed}`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SeededSpec {
    pub spec: BackoffSpec,
    /// `None`: the host draws one.
    pub seed: Option<u64>,
}

impl Section for SeededSpec {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        SeededSpec {
            seed: f.opt_u64("seed", None),
            spec: BackoffSpec::read(f),
        }
    }

    fn write(&self, o: &mut Out) {
        self.spec.write(o);
        o.opt_uint("seed", self.seed);
    }

    fn check(&self, c: &mut Check) {
        self.spec.check(c);
    }
}
