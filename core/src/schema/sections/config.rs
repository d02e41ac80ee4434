//! The whole config, its small sections, and a call's overrides.

use crate::backoff::BackoffSpec;
use crate::config::{Config, HintsConfig, ObservationConfig, CONFIG_VERSION, MAX_ATTEMPTS_LIMIT};
use crate::deadline::{Timeouts, MAX_TIMEOUT_MS};
use crate::error::ConfigErrorCode;
use crate::schema::{Check, Fields, Out, Section, Seg};

/// The most scopes a policy may be configured to track.
const MAX_SCOPES: u32 = 100_000;
/// The longest body excerpt an observation may quote.
const MAX_EXCERPT_CHARS: u32 = 100_000;

impl Section for Config {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = Config::default();
        Config {
            version: f.u32("version", d.version),
            seed: f.opt_u64("seed", d.seed),
            max_attempts: f.u32("max_attempts", d.max_attempts),
            backoff: f.section("backoff", d.backoff),
            timeouts: f.section("timeouts", d.timeouts),
            hints: f.section("hints", d.hints),
            classify: f.section("classify", d.classify),
            observation: f.section("observation", d.observation),
            breaker: f.opt_section("breaker", d.breaker),
            budget: f.section("budget", d.budget),
            alerts: alerts(f, d.alerts),
            max_scopes: f.u32("max_scopes", d.max_scopes),
            log_records: f.bool("log_records", d.log_records),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("version", self.version);
        o.opt_uint("seed", self.seed);
        o.uint("max_attempts", self.max_attempts);
        o.section("backoff", &self.backoff);
        o.section("timeouts", &self.timeouts);
        o.section("hints", &self.hints);
        o.section("classify", &self.classify);
        o.section("observation", &self.observation);
        o.opt_section("breaker", self.breaker.as_ref());
        o.section("budget", &self.budget);
        o.section("alerts", &self.alerts);
        o.uint("max_scopes", self.max_scopes);
        o.bool("log_records", self.log_records);
    }

    fn check(&self, c: &mut Check) {
        if self.version != CONFIG_VERSION {
            c.fail_at(
                Seg::field("version"),
                ConfigErrorCode::UnsupportedVersion,
                format!(
                    "this build implements version {CONFIG_VERSION}, not {}",
                    self.version
                ),
            );
        }
        if self.seed.is_none() {
            c.fail_at(
                Seg::field("seed"),
                ConfigErrorCode::Required,
                "a jitter seed is required; draw it from OS randomness so clients do not retry in lockstep",
            );
        }
        check_attempts(c, self.max_attempts);
        c.within(Seg::field("backoff"), |c| self.backoff.check(c));
        c.within(Seg::field("timeouts"), |c| self.timeouts.check(c));
        c.within(Seg::field("hints"), |c| self.hints.check(c));
        c.within(Seg::field("classify"), |c| self.classify.check(c));
        c.within(Seg::field("observation"), |c| self.observation.check(c));
        if let Some(breaker) = &self.breaker {
            c.within(Seg::field("breaker"), |c| breaker.check(c));
        }
        c.within(Seg::field("budget"), |c| self.budget.check(c));
        #[cfg(feature = "alerts")]
        c.within(Seg::field("alerts"), |c| self.alerts.check(c));
        // Without alerts, only the defaults (which raise none) are accepted.
        #[cfg(not(feature = "alerts"))]
        if self.alerts != crate::record::AlertConfig::default() {
            c.not_in_build(Seg::field("alerts"), ALERTS_LEFT_OUT);
        }
        c.count_from(
            Seg::field("max_scopes"),
            u64::from(self.max_scopes),
            1,
            u64::from(MAX_SCOPES),
        );
    }
}

/// What a build without the `alerts` feature says it left out.
#[cfg(not(feature = "alerts"))]
const ALERTS_LEFT_OUT: &str = "alerting (the `alerts` section)";

/// The `alerts` section. Without the `alerts` feature, giving it at all is
/// refused at its key (`alerts`), its fields unread.
fn alerts(
    f: &mut Fields<'_, '_>,
    default: crate::record::AlertConfig,
) -> crate::record::AlertConfig {
    #[cfg(not(feature = "alerts"))]
    if f.skip("alerts") {
        f.check()
            .not_in_build(Seg::field("alerts"), ALERTS_LEFT_OUT);
    }
    #[cfg(not(feature = "alerts"))]
    return default;
    #[cfg(feature = "alerts")]
    f.section("alerts", default)
}

fn check_attempts(c: &mut Check, n: u32) {
    c.count_from(
        Seg::field("max_attempts"),
        u64::from(n),
        1,
        u64::from(MAX_ATTEMPTS_LIMIT),
    );
}

impl Section for Timeouts {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = Timeouts::default();
        Timeouts {
            connect_ms: f.opt_duration("connect", d.connect_ms),
            read_ms: f.opt_duration("read", d.read_ms),
            total_ms: f.opt_duration("total", d.total_ms),
        }
    }

    fn write(&self, o: &mut Out) {
        o.opt_duration("connect", self.connect_ms);
        o.opt_duration("read", self.read_ms);
        o.opt_duration("total", self.total_ms);
    }

    fn check(&self, c: &mut Check) {
        for (stem, value) in [
            ("connect", self.connect_ms),
            ("read", self.read_ms),
            ("total", self.total_ms),
        ] {
            let Some(ms) = value else { continue };
            c.range(
                (1..=MAX_TIMEOUT_MS).contains(&ms),
                Seg::duration(stem),
                |c| {
                    format!(
                        "must be from {} to {} (30 days), or null for none; got {}",
                        c.ms(1),
                        c.ms(MAX_TIMEOUT_MS),
                        c.ms(ms)
                    )
                },
            );
        }
    }
}

impl Section for HintsConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = HintsConfig::default();
        HintsConfig {
            respect: f.bool("respect", d.respect),
            max_delay_ms: f.duration("max_delay", d.max_delay_ms),
        }
    }

    fn write(&self, o: &mut Out) {
        o.bool("respect", self.respect);
        o.duration("max_delay", self.max_delay_ms);
    }

    fn check(&self, c: &mut Check) {
        c.ms_at_most(
            Seg::duration("max_delay"),
            self.max_delay_ms,
            MAX_TIMEOUT_MS,
            " (30 days)",
        );
    }
}

impl Section for ObservationConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = ObservationConfig::default();
        ObservationConfig {
            max_excerpt_chars: f.u32("max_excerpt_chars", d.max_excerpt_chars),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("max_excerpt_chars", self.max_excerpt_chars);
    }

    fn check(&self, c: &mut Check) {
        c.count_at_most(
            Seg::field("max_excerpt_chars"),
            u64::from(self.max_excerpt_chars),
            u64::from(MAX_EXCERPT_CHARS),
        );
    }
}

/// A call's own settings on a shared policy (`max_attempts`, `backoff`),
/// checked exactly as the policy's own would be.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overrides {
    pub max_attempts: Option<u32>,
    pub backoff: Option<BackoffSpec>,
}

impl Section for Overrides {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        Overrides {
            max_attempts: f.opt_u32("max_attempts"),
            backoff: f.opt_section("backoff", None),
        }
    }

    fn write(&self, o: &mut Out) {
        if let Some(n) = self.max_attempts {
            o.uint("max_attempts", n);
        }
        if let Some(backoff) = &self.backoff {
            o.section("backoff", backoff);
        }
    }

    fn check(&self, c: &mut Check) {
        if let Some(n) = self.max_attempts {
            check_attempts(c, n);
        }
        if let Some(backoff) = &self.backoff {
            c.within(Seg::field("backoff"), |c| backoff.check(c));
        }
    }
}
