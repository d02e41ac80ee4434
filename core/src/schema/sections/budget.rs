//! `budget`: the retry budgets a scope gets.

use crate::budget::{
    to_milli, GrpcThrottleConfig, RatioConfig, RetryBudgetConfig, RunCapConfig, TokenBucketConfig,
    TokenBucketProfile, MAX_BUCKETS, MAX_CONCURRENT_FLOOR, MAX_GRPC_TOKENS, MAX_RATIO,
    MAX_RETRIES_PER_SEC, MAX_WINDOW_MS,
};
use crate::error::ConfigErrorCode;
use crate::key::float_text;
use crate::schema::{Check, Fields, Out, Section, Seg};

const PROFILES: [TokenBucketProfile; 2] =
    [TokenBucketProfile::AwsStandard, TokenBucketProfile::Aws2026];

impl Section for RetryBudgetConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = RetryBudgetConfig::default();
        RetryBudgetConfig {
            ratio: f.opt_section("ratio", d.ratio),
            run_cap: f.opt_section("run_cap", d.run_cap),
            token_bucket: opt_bucket(f, "token_bucket", d.token_bucket),
            grpc: opt_bucket(f, "grpc", d.grpc),
        }
    }

    fn write(&self, o: &mut Out) {
        o.opt_section("ratio", self.ratio.as_ref());
        o.opt_section("run_cap", self.run_cap.as_ref());
        #[cfg(feature = "token_buckets")]
        {
            o.opt_section("token_bucket", self.token_bucket.as_ref());
            o.opt_section("grpc", self.grpc.as_ref());
        }
        // Always off without the `token_buckets` feature (refused when read):
        // `null`, the document's shape unchanged.
        #[cfg(not(feature = "token_buckets"))]
        for name in ["token_bucket", "grpc"] {
            o.opt_text(name, None);
        }
    }

    fn check(&self, c: &mut Check) {
        if let Some(ratio) = &self.ratio {
            c.within(Seg::field("ratio"), |c| ratio.check(c));
        }
        #[cfg(feature = "token_buckets")]
        {
            if let Some(bucket) = &self.token_bucket {
                c.within(Seg::field("token_bucket"), |c| bucket.check(c));
            }
            if let Some(grpc) = &self.grpc {
                c.within(Seg::field("grpc"), |c| grpc.check(c));
            }
        }
        #[cfg(not(feature = "token_buckets"))]
        for (name, on, what) in [
            (
                "token_bucket",
                self.token_bucket.is_some(),
                "the AWS token bucket",
            ),
            ("grpc", self.grpc.is_some(), "the gRPC throttle"),
        ] {
            if on {
                c.not_in_build(Seg::field(name), what);
            }
        }
    }
}

/// A token bucket's section. Without the `token_buckets` feature, turning
/// one on is refused at its own key (`budget.token_bucket`), its fields
/// unread: there is no bucket here to read them for.
fn opt_bucket<T: Section>(
    f: &mut Fields<'_, '_>,
    name: &'static str,
    default: Option<T>,
) -> Option<T> {
    #[cfg(not(feature = "token_buckets"))]
    {
        let _ = default;
        if f.skip(name) {
            let what = if name == "grpc" {
                "the gRPC throttle"
            } else {
                "the AWS token bucket"
            };
            f.check().not_in_build(Seg::field(name), what);
        }
        None
    }
    #[cfg(feature = "token_buckets")]
    f.opt_section(name, default)
}

impl Section for RatioConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = RatioConfig::default();
        RatioConfig {
            ratio: f.float("ratio", d.ratio),
            window_ms: f.duration("window", d.window_ms),
            min_retries_per_sec: f.float("min_retries_per_sec", d.min_retries_per_sec),
            buckets: f.u32("buckets", d.buckets),
            min_concurrent_retries: f.u32("min_concurrent_retries", d.min_concurrent_retries),
        }
    }

    fn write(&self, o: &mut Out) {
        o.float("ratio", self.ratio);
        o.duration("window", self.window_ms);
        o.float("min_retries_per_sec", self.min_retries_per_sec);
        o.uint("buckets", self.buckets);
        o.uint("min_concurrent_retries", self.min_concurrent_retries);
    }

    fn check(&self, c: &mut Check) {
        c.float_from(Seg::field("ratio"), self.ratio, 0.0, MAX_RATIO, "");
        c.float_from(
            Seg::field("min_retries_per_sec"),
            self.min_retries_per_sec,
            0.0,
            MAX_RETRIES_PER_SEC,
            "",
        );
        c.count_from(
            Seg::field("min_concurrent_retries"),
            u64::from(self.min_concurrent_retries),
            0,
            u64::from(MAX_CONCURRENT_FLOOR),
        );
        let buckets = self.buckets;
        let buckets_ok = (1..=MAX_BUCKETS).contains(&buckets);
        c.count_from(
            Seg::field("buckets"),
            u64::from(buckets),
            1,
            u64::from(MAX_BUCKETS),
        );
        let window = self.window_ms;
        let window_ok = (1..=MAX_WINDOW_MS).contains(&window);
        c.ms_from(Seg::duration("window"), window, 1, MAX_WINDOW_MS, "");
        if buckets_ok && window_ok && window % u64::from(buckets) != 0 {
            let text = format!(
                "must split into `{}` ({buckets}) whole milliseconds",
                c.key("buckets", false)
            );
            c.fail_at(Seg::duration("window"), ConfigErrorCode::Inconsistent, text);
        }
    }
}

impl Section for RunCapConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        RunCapConfig {
            max_retries: f.u32("max_retries", RunCapConfig::default().max_retries),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("max_retries", self.max_retries);
    }

    /// Every count is a valid cap (0: never retry).
    fn check(&self, _: &mut Check) {}
}

impl Section for TokenBucketConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        TokenBucketConfig {
            profile: f.code("profile", TokenBucketProfile::default(), &PROFILES, |p| {
                p.code()
            }),
            capacity: f.opt_u32("capacity"),
            retry_cost: f.opt_u32("retry_cost"),
            timeout_retry_cost: f.opt_u32("timeout_retry_cost"),
            throttling_retry_cost: f.opt_u32("throttling_retry_cost"),
            success_refund: f.opt_u32("success_refund"),
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("profile", self.profile.code());
        for (name, value) in [
            ("capacity", self.capacity),
            ("retry_cost", self.retry_cost),
            ("timeout_retry_cost", self.timeout_retry_cost),
            ("throttling_retry_cost", self.throttling_retry_cost),
            ("success_refund", self.success_refund),
        ] {
            if let Some(value) = value {
                o.uint(name, value);
            }
        }
    }

    fn check(&self, c: &mut Check) {
        let params = self.resolve();
        for (name, cost) in [
            ("retry_cost", params.retry_cost),
            ("timeout_retry_cost", params.timeout_retry_cost),
            ("throttling_retry_cost", params.throttling_retry_cost),
        ] {
            c.at_least_one(
                Seg::field(name),
                u64::from(cost),
                " (a free retry is never limited; disable the bucket instead)",
            );
        }
    }
}

impl Section for GrpcThrottleConfig {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let d = GrpcThrottleConfig::default();
        GrpcThrottleConfig {
            max_tokens: f.u32("max_tokens", d.max_tokens),
            token_ratio: f.float("token_ratio", d.token_ratio),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("max_tokens", self.max_tokens);
        o.float("token_ratio", self.token_ratio);
    }

    fn check(&self, c: &mut Check) {
        let tokens = self.max_tokens;
        c.range(
            (1..=MAX_GRPC_TOKENS).contains(&tokens),
            Seg::field("max_tokens"),
            |_| format!("must be a whole number from 1 to {MAX_GRPC_TOKENS}, got {tokens}"),
        );
        let ratio = self.token_ratio;
        c.range(
            ratio.is_finite() && ratio <= 1000.0 && to_milli(ratio) > 0,
            Seg::field("token_ratio"),
            |_| {
                format!(
                    "must be from 0.001 to 1000 (decimals beyond the third are ignored), got {}",
                    float_text(ratio)
                )
            },
        );
    }
}
