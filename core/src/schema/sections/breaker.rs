//! `breaker`: when the circuit opens, how long it stays open, how it closes.

use crate::breaker::{
    BreakerConfig, Compare, HalfOpenConfig, SlowCall, TripRule, Window, MAX_COUNT_WINDOW, MAX_MS,
};
use crate::error::ConfigErrorCode;
#[cfg(feature = "rate_breaker")]
use crate::key::float_text;
use crate::schema::{Check, Fields, Out, Section, Seg};

const COMPARE: [Compare; 2] = [Compare::Ge, Compare::Gt];

use crate::breaker::MAX_TIME_BUCKETS;

#[derive(Clone, Copy)]
enum TripKind {
    ConsecutiveFailures,
    FailureRate,
}

const TRIP_KINDS: [TripKind; 2] = [TripKind::ConsecutiveFailures, TripKind::FailureRate];

impl TripKind {
    const fn code(self) -> &'static str {
        match self {
            TripKind::ConsecutiveFailures => "consecutive_failures",
            TripKind::FailureRate => "failure_rate",
        }
    }
}

/// What a build without the `rate_breaker` feature says it left out.
#[cfg(not(feature = "rate_breaker"))]
const FAILURE_RATE_LEFT_OUT: &str = "the \"failure_rate\" trip rule";

/// A window's `kind`, in the config and in a breaker's snapshot.
#[derive(Clone, Copy)]
pub(crate) enum WindowKind {
    Count,
    Time,
}

pub(crate) const WINDOW_KINDS: [WindowKind; 2] = [WindowKind::Count, WindowKind::Time];

impl WindowKind {
    pub(crate) const fn code(self) -> &'static str {
        match self {
            WindowKind::Count => "count",
            WindowKind::Time => "time",
        }
    }
}

impl Section for BreakerConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = BreakerConfig::default();
        BreakerConfig {
            trip: f.section("trip", d.trip),
            cooldown_ms: f.duration("cooldown", d.cooldown_ms),
            half_open: f.section("half_open", d.half_open),
        }
    }

    fn write(&self, o: &mut Out) {
        o.section("trip", &self.trip);
        o.duration("cooldown", self.cooldown_ms);
        o.section("half_open", &self.half_open);
    }

    fn check(&self, c: &mut Check) {
        c.within(Seg::field("trip"), |c| self.trip.check(c));
        let cooldown = self.cooldown_ms;
        c.ms_at_most(Seg::duration("cooldown"), cooldown, MAX_MS, "");
        c.within(Seg::field("half_open"), |c| self.half_open.check(c));
    }
}

impl Section for HalfOpenConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = HalfOpenConfig::default();
        HalfOpenConfig {
            max_probes: f.u32("max_probes", d.max_probes),
            success_threshold: f.u32("success_threshold", d.success_threshold),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("max_probes", self.max_probes);
        o.uint("success_threshold", self.success_threshold);
    }

    fn check(&self, c: &mut Check) {
        for (name, n) in [
            ("max_probes", self.max_probes),
            ("success_threshold", self.success_threshold),
        ] {
            c.at_least_one(Seg::field(name), u64::from(n), "");
        }
    }
}

impl Section for TripRule {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = TripRule::default();
        if !f.require(
            "kind",
            false,
            "(\"consecutive_failures\" or \"failure_rate\")",
        ) {
            return d;
        }
        let Some(kind) = f.opt_code("kind", &TRIP_KINDS, |k| k.code()) else {
            f.ignore_rest();
            return d;
        };
        let compare = f.code("compare", Compare::Ge, &COMPARE, |c| c.code());
        match kind {
            TripKind::ConsecutiveFailures => TripRule::ConsecutiveFailures {
                threshold: f.u32("threshold", 5),
                compare,
            },
            #[cfg(not(feature = "rate_breaker"))]
            TripKind::FailureRate => {
                f.check()
                    .not_in_build(Seg::field("kind"), FAILURE_RATE_LEFT_OUT);
                f.ignore_rest();
                d
            }
            #[cfg(feature = "rate_breaker")]
            TripKind::FailureRate => {
                let why = "for a failure_rate rule";
                f.require("window", false, why);
                f.require("failure_rate", false, why);
                f.require("minimum_throughput", false, why);
                TripRule::FailureRate {
                    window: f.section("window", Window::Count { size: 100 }),
                    failure_rate: f.float("failure_rate", 0.5),
                    minimum_throughput: f.u32("minimum_throughput", 1),
                    compare,
                    slow_call: f.opt_section("slow_call", None),
                }
            }
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("kind", self.code());
        match self {
            TripRule::ConsecutiveFailures { threshold, compare } => {
                o.uint("threshold", *threshold);
                o.code("compare", compare.code());
            }
            #[cfg(not(feature = "rate_breaker"))]
            TripRule::FailureRate { .. } => {}
            #[cfg(feature = "rate_breaker")]
            TripRule::FailureRate {
                window,
                failure_rate,
                minimum_throughput,
                compare,
                slow_call,
            } => {
                o.section("window", window);
                o.float("failure_rate", *failure_rate);
                o.uint("minimum_throughput", *minimum_throughput);
                o.code("compare", compare.code());
                o.opt_section("slow_call", slow_call.as_ref());
            }
        }
    }

    fn check(&self, c: &mut Check) {
        match self {
            TripRule::ConsecutiveFailures { threshold, .. } => {
                c.at_least_one(Seg::field("threshold"), u64::from(*threshold), "");
            }
            #[cfg(not(feature = "rate_breaker"))]
            TripRule::FailureRate { .. } => {
                c.not_in_build(Seg::field("kind"), FAILURE_RATE_LEFT_OUT);
            }
            #[cfg(feature = "rate_breaker")]
            TripRule::FailureRate {
                window,
                failure_rate,
                minimum_throughput,
                compare,
                slow_call,
            } => {
                check_rate(c, Seg::field("failure_rate"), *failure_rate, *compare);
                c.at_least_one(
                    Seg::field("minimum_throughput"),
                    u64::from(*minimum_throughput),
                    "",
                );
                c.within(Seg::field("window"), |c| window.check(c));
                if let Window::Count { size } = window {
                    if minimum_throughput > size && *size >= 1 {
                        c.fail_at(
                            Seg::field("minimum_throughput"),
                            ConfigErrorCode::Inconsistent,
                            "exceeds the count window's size, so the breaker could never trip",
                        );
                    }
                }
                if let Some(slow) = slow_call {
                    c.within(Seg::field("slow_call"), |c| {
                        slow.check(c);
                        check_rate(c, Seg::field("rate"), slow.rate, *compare);
                    });
                }
            }
        }
    }
}

/// A failure rate's valid range depends on how it is compared: the
/// excluded end would trip on every call or on none.
#[cfg(feature = "rate_breaker")]
fn check_rate(c: &mut Check, seg: Seg, rate: f64, compare: Compare) {
    let ok = rate.is_finite()
        && match compare {
            Compare::Ge => rate > 0.0 && rate <= 1.0,
            Compare::Gt => (0.0..1.0).contains(&rate),
        };
    c.range(ok, seg, |_| {
        format!(
            "must be in (0, 1] with compare \"ge\" or in [0, 1) with \"gt\" \
             (the excluded end trips on every call or on none), got {}",
            float_text(rate)
        )
    });
}

impl Section for Window {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = Window::Count { size: 100 };
        if !f.require("kind", false, "(\"count\" or \"time\")") {
            return d;
        }
        let Some(kind) = f.opt_code("kind", &WINDOW_KINDS, |k| k.code()) else {
            f.ignore_rest();
            return d;
        };
        match kind {
            WindowKind::Count => {
                f.require("size", false, "for a count window");
                Window::Count {
                    size: f.u32("size", 100),
                }
            }
            WindowKind::Time => {
                f.require("duration", true, "for a time window");
                f.require("buckets", false, "for a time window");
                Window::Time {
                    duration_ms: f.duration("duration", 60_000),
                    buckets: f.u32("buckets", 10),
                }
            }
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("kind", self.code());
        match self {
            Window::Count { size } => o.uint("size", *size),
            Window::Time {
                duration_ms,
                buckets,
            } => {
                o.duration("duration", *duration_ms);
                o.uint("buckets", *buckets);
            }
        }
    }

    fn check(&self, c: &mut Check) {
        match *self {
            Window::Count { size } => {
                c.count_from(
                    Seg::field("size"),
                    u64::from(size),
                    1,
                    u64::from(MAX_COUNT_WINDOW),
                );
            }
            Window::Time {
                duration_ms,
                buckets,
            } => {
                c.ms_from(Seg::duration("duration"), duration_ms, 1, MAX_MS, "");
                let ok = (1..=MAX_TIME_BUCKETS).contains(&buckets);
                c.count_from(
                    Seg::field("buckets"),
                    u64::from(buckets),
                    1,
                    u64::from(MAX_TIME_BUCKETS),
                );
                if ok && duration_ms % u64::from(buckets) != 0 {
                    let text = format!(
                        "must divide `{}` into whole milliseconds",
                        c.key("duration", true)
                    );
                    c.fail_at(Seg::field("buckets"), ConfigErrorCode::Inconsistent, text);
                }
            }
        }
    }
}

impl Section for SlowCall {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let why = "for a slow_call rule";
        f.require("duration", true, why);
        f.require("rate", false, why);
        SlowCall {
            duration_ms: f.duration("duration", 1),
            rate: f.float("rate", 1.0),
        }
    }

    fn write(&self, o: &mut Out) {
        o.duration("duration", self.duration_ms);
        o.float("rate", self.rate);
    }

    /// The rate's range depends on the rule's `compare`: checked there.
    fn check(&self, c: &mut Check) {
        let ms = self.duration_ms;
        c.ms_from(Seg::duration("duration"), ms, 1, MAX_MS, "");
    }
}
