//! `alerts`: the alert rules' window and thresholds.

use crate::record::AlertConfig;
use crate::schema::{Check, Fields, Out, Section, Seg};

const MIN_WINDOW_MS: u64 = 1_000;
const MAX_WINDOW_MS: u64 = 86_400_000;

impl Section for AlertConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = AlertConfig::default();
        AlertConfig {
            window_ms: f.duration("window", d.window_ms),
            retry_rate_warning: f.float("retry_rate_warning", d.retry_rate_warning),
            exhausted_rate_critical: f.float("exhausted_rate_critical", d.exhausted_rate_critical),
            min_requests: f.u32("min_requests", d.min_requests),
        }
    }

    fn write(&self, o: &mut Out) {
        o.duration("window", self.window_ms);
        o.float("retry_rate_warning", self.retry_rate_warning);
        o.float("exhausted_rate_critical", self.exhausted_rate_critical);
        o.uint("min_requests", self.min_requests);
    }

    fn check(&self, c: &mut Check) {
        let window = self.window_ms;
        c.ms_from(
            Seg::duration("window"),
            window,
            MIN_WINDOW_MS,
            MAX_WINDOW_MS,
            "",
        );
        for (name, rate) in [
            ("retry_rate_warning", self.retry_rate_warning),
            ("exhausted_rate_critical", self.exhausted_rate_critical),
        ] {
            c.float_from(Seg::field(name), rate, 0.0, 1.0, "a fraction ");
        }
    }
}
