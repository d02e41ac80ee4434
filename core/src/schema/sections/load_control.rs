//! The load-control machines' settings: `throttle` and `limiter` documents
//! of their own (not keys of the policy config yet).

use crate::budget::{to_milli, MAX_BUCKETS, MAX_WINDOW_MS};
use crate::deadline::MAX_TIMEOUT_MS;
use crate::error::ConfigErrorCode;
use crate::key::float_text;
use crate::load_control::{
    LimitAlgorithm, LimiterConfig, ThrottleConfig, MAX_K, MAX_LIMIT, MAX_PROBE_SAMPLES, MAX_QUEUE,
};
use crate::schema::{Check, Fields, Out, Section, Seg};

impl Section for ThrottleConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = ThrottleConfig::default();
        ThrottleConfig {
            k: f.float("k", d.k),
            window_ms: f.duration("window", d.window_ms),
            buckets: f.u32("buckets", d.buckets),
            min_requests: f.u32("min_requests", d.min_requests),
            max_rejection: f.float("max_rejection", d.max_rejection),
        }
    }

    fn write(&self, o: &mut Out) {
        o.float("k", self.k);
        o.duration("window", self.window_ms);
        o.uint("buckets", self.buckets);
        o.uint("min_requests", self.min_requests);
        o.float("max_rejection", self.max_rejection);
    }

    /// Every `min_requests` is valid (0: act from the first request).
    fn check(&self, c: &mut Check) {
        c.float_from(Seg::field("k"), self.k, 1.0, MAX_K, "");
        // Below 1: a throttle that may reject every request never learns
        // that the dependency recovered.
        c.float_from(
            Seg::field("max_rejection"),
            self.max_rejection,
            0.0,
            0.999,
            "a fraction ",
        );
        let buckets = self.buckets;
        c.count_from(
            Seg::field("buckets"),
            u64::from(buckets),
            1,
            u64::from(MAX_BUCKETS),
        );
        let window = self.window_ms;
        c.ms_from(
            Seg::duration("window"),
            window,
            1,
            MAX_WINDOW_MS,
            " (1 day)",
        );
        let shapes_ok =
            (1..=MAX_BUCKETS).contains(&buckets) && (1..=MAX_WINDOW_MS).contains(&window);
        if shapes_ok && window % u64::from(buckets) != 0 {
            let text = format!(
                "must split into `{}` ({buckets}) whole milliseconds",
                c.key("buckets", false)
            );
            c.fail_at(Seg::duration("window"), ConfigErrorCode::Inconsistent, text);
        }
    }
}

impl Section for LimiterConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = LimiterConfig::default();
        LimiterConfig {
            initial_limit: f.u32("initial_limit", d.initial_limit),
            min_limit: f.u32("min_limit", d.min_limit),
            max_limit: f.u32("max_limit", d.max_limit),
            max_queue: f.u32("max_queue", d.max_queue),
            max_wait_ms: f.duration("max_wait", d.max_wait_ms),
            algorithm: f.section("algorithm", d.algorithm),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("initial_limit", self.initial_limit);
        o.uint("min_limit", self.min_limit);
        o.uint("max_limit", self.max_limit);
        o.uint("max_queue", self.max_queue);
        o.duration("max_wait", self.max_wait_ms);
        o.section("algorithm", &self.algorithm);
    }

    fn check(&self, c: &mut Check) {
        let max = u64::from(MAX_LIMIT);
        let (initial, lo, hi) = (self.initial_limit, self.min_limit, self.max_limit);
        for (name, value) in [
            ("initial_limit", initial),
            ("min_limit", lo),
            ("max_limit", hi),
        ] {
            c.count_from(Seg::field(name), u64::from(value), 1, max);
        }
        let in_range = |v: u32| (1..=MAX_LIMIT).contains(&v);
        if in_range(lo) && in_range(hi) && lo > hi {
            let text = format!("exceeds `{}` ({hi})", c.key("max_limit", false));
            c.fail_at(Seg::field("min_limit"), ConfigErrorCode::Inconsistent, text);
        } else if in_range(initial) && in_range(lo) && in_range(hi) && !(lo..=hi).contains(&initial)
        {
            let text = format!(
                "must lie from `{}` ({lo}) to `{}` ({hi})",
                c.key("min_limit", false),
                c.key("max_limit", false)
            );
            c.fail_at(
                Seg::field("initial_limit"),
                ConfigErrorCode::Inconsistent,
                text,
            );
        }
        c.count_at_most(
            Seg::field("max_queue"),
            u64::from(self.max_queue),
            u64::from(MAX_QUEUE),
        );
        c.ms_from(
            Seg::duration("max_wait"),
            self.max_wait_ms,
            1,
            MAX_TIMEOUT_MS,
            " (30 days)",
        );
        c.within(Seg::field("algorithm"), |c| self.algorithm.check(c));
    }
}

#[derive(Clone, Copy)]
enum AlgorithmKind {
    Gradient,
    Aimd,
}

const ALGORITHM_KINDS: [AlgorithmKind; 2] = [AlgorithmKind::Gradient, AlgorithmKind::Aimd];

impl AlgorithmKind {
    const fn code(self) -> &'static str {
        match self {
            AlgorithmKind::Gradient => "gradient",
            AlgorithmKind::Aimd => "aimd",
        }
    }
}

impl Section for LimitAlgorithm {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = LimitAlgorithm::default();
        if !f.require("kind", false, "(\"gradient\" or \"aimd\")") {
            f.ignore_rest();
            return d;
        }
        let Some(kind) = f.opt_code("kind", &ALGORITHM_KINDS, |k| k.code()) else {
            f.ignore_rest();
            return d;
        };
        match (kind, LimitAlgorithm::default(), LimitAlgorithm::aimd()) {
            (
                AlgorithmKind::Gradient,
                LimitAlgorithm::Gradient {
                    update_interval_ms,
                    percentile,
                    buffer,
                    probe_interval_ms,
                    probe_jitter,
                    probe_samples,
                },
                _,
            ) => LimitAlgorithm::Gradient {
                update_interval_ms: f.duration("update_interval", update_interval_ms),
                percentile: f.float("percentile", percentile),
                buffer: f.float("buffer", buffer),
                probe_interval_ms: f.duration("probe_interval", probe_interval_ms),
                probe_jitter: f.float("probe_jitter", probe_jitter),
                probe_samples: f.u32("probe_samples", probe_samples),
            },
            (AlgorithmKind::Aimd, _, LimitAlgorithm::Aimd { backoff }) => LimitAlgorithm::Aimd {
                backoff: f.float("backoff", backoff),
            },
            // The defaults are of the kinds named: never reached.
            (_, d, _) => d,
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("kind", self.code());
        match *self {
            LimitAlgorithm::Gradient {
                update_interval_ms,
                percentile,
                buffer,
                probe_interval_ms,
                probe_jitter,
                probe_samples,
            } => {
                o.duration("update_interval", update_interval_ms);
                o.float("percentile", percentile);
                o.float("buffer", buffer);
                o.duration("probe_interval", probe_interval_ms);
                o.float("probe_jitter", probe_jitter);
                o.uint("probe_samples", probe_samples);
            }
            LimitAlgorithm::Aimd { backoff } => o.float("backoff", backoff),
        }
    }

    fn check(&self, c: &mut Check) {
        match *self {
            LimitAlgorithm::Gradient {
                update_interval_ms,
                percentile,
                buffer,
                probe_interval_ms,
                probe_jitter,
                probe_samples,
            } => {
                c.ms_from(
                    Seg::duration("update_interval"),
                    update_interval_ms,
                    1,
                    MAX_WINDOW_MS,
                    " (1 day)",
                );
                // Read to thousandths, like every fraction of the schema: a
                // percentile that reads as 0 would have no rank.
                c.range(
                    percentile.is_finite() && percentile <= 1.0 && to_milli(percentile) > 0,
                    Seg::field("percentile"),
                    |_| {
                        format!(
                            "must be from 0.001 to 1 (decimals beyond the third are ignored), got {}",
                            float_text(percentile)
                        )
                    },
                );
                c.float_from(Seg::field("buffer"), buffer, 0.0, 1.0, "a fraction ");
                c.ms_from(
                    Seg::duration("probe_interval"),
                    probe_interval_ms,
                    1,
                    MAX_WINDOW_MS,
                    " (1 day)",
                );
                c.float_from(
                    Seg::field("probe_jitter"),
                    probe_jitter,
                    0.0,
                    1.0,
                    "a fraction ",
                );
                c.count_from(
                    Seg::field("probe_samples"),
                    u64::from(probe_samples),
                    1,
                    u64::from(MAX_PROBE_SAMPLES),
                );
            }
            // At least halving-free: below 0.5 one drop would more than
            // halve the limit; 1 would never shrink it.
            LimitAlgorithm::Aimd { backoff } => {
                c.float_from(Seg::field("backoff"), backoff, 0.5, 0.999, "a fraction ");
            }
        }
    }
}
