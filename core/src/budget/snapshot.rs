//! The retry budgets in a snapshot: each budget's config (or resolved
//! parameters) with its counts, the composed budget's queue and open
//! tickets, read back with the checks each budget's raw form makes (config
//! valid, counts within it, rings shaped by the config).

use super::composed::RetryBudget;
use super::grpc::RawGrpc;
use super::ratio::RawRatio;
use super::run_cap::RunCap;
use super::token_bucket::{RawTokenBucket, TokenBucketParams};
use super::{BudgetKind, GrpcThrottle, RatioBudget, TokenBucket, TokenBucketConfig};
use super::{GrpcThrottleConfig, RatioConfig, RunCapConfig, EVENT_QUEUE_CAPACITY};
use crate::ring::BucketRing;
use crate::schema::{Check, Fields, Out, Section, Seg};
use crate::serials::Serials;
use crate::state::{checked, AS_WRITTEN};
use crate::time::MonotonicClamp;

impl Section for RetryBudget {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require("clamp", false, AS_WRITTEN);
        let (events, dropped_events) = f.queue("events", "dropped_events", EVENT_QUEUE_CAPACITY);
        let mut exhausted = f.codes("exhausted", &BudgetKind::ALL, |k| k.code());
        exhausted.dedup();
        RetryBudget {
            clamp: f.section("clamp", MonotonicClamp::new()),
            ratio: f.opt_section("ratio", None),
            run_cap: f.opt_section("run_cap", None),
            token_bucket: f.opt_section("token_bucket", None),
            grpc: f.opt_section("grpc", None),
            exhausted,
            events,
            dropped_events,
            tickets: f.section("tickets", Serials::default()),
        }
    }

    fn write(&self, o: &mut Out) {
        o.section("clamp", &self.clamp);
        o.opt_section("ratio", self.ratio.as_ref());
        o.opt_section("run_cap", self.run_cap.as_ref());
        o.opt_section("token_bucket", self.token_bucket.as_ref());
        o.opt_section("grpc", self.grpc.as_ref());
        let exhausted = self
            .exhausted
            .iter()
            .map(|k| crate::schema::Value::Text(k.code().to_owned()))
            .collect();
        o.list("exhausted", exhausted);
        o.sections("events", &self.events);
        o.uint("dropped_events", self.dropped_events);
        o.section("tickets", &self.tickets);
    }

    fn check(&self, _: &mut Check) {}
}

impl Section for RatioBudget {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["config", "clamp", "requests", "retries"], AS_WRITTEN);
        let config = f.section("config", RatioConfig::default());
        let raw = RawRatio {
            config,
            clamp: f.section("clamp", MonotonicClamp::new()),
            requests: f.section("requests", BucketRing::new(1, 1)),
            retries: f.section("retries", BucketRing::new(1, 1)),
        };
        let fallback = RatioBudget::new_unchecked(config);
        checked(f, RatioBudget::try_from(raw), fallback)
    }

    fn write(&self, o: &mut Out) {
        o.section("config", &self.config);
        o.section("clamp", &self.clamp);
        o.section("requests", &self.requests);
        o.section("retries", &self.retries);
    }

    fn check(&self, _: &mut Check) {}
}

impl Section for RunCap {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["config", "used"], AS_WRITTEN);
        RunCap {
            config: f.section("config", RunCapConfig::default()),
            used: f.u32("used", 0),
        }
    }

    fn write(&self, o: &mut Out) {
        o.section("config", &self.config);
        o.uint("used", self.used);
    }

    fn check(&self, c: &mut Check) {
        c.within(Seg::field("config"), |c| self.config.check(c));
    }
}

impl Section for TokenBucket {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["params", "tokens"], AS_WRITTEN);
        let params: TokenBucketParams = f.section("params", TokenBucketConfig::default().resolve());
        let raw = RawTokenBucket {
            params,
            tokens: f.u32("tokens", 0),
        };
        let fallback = TokenBucket::new_unchecked(TokenBucketConfig::default());
        checked(f, TokenBucket::try_from(raw), fallback)
    }

    fn write(&self, o: &mut Out) {
        o.section("params", &self.params);
        o.uint("tokens", self.tokens);
    }

    fn check(&self, _: &mut Check) {}
}

/// A token bucket keeps its resolved numbers, not its profile: a snapshot
/// restores the bucket it was, whatever a profile later means.
impl Section for TokenBucketParams {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        let names = [
            "capacity",
            "retry_cost",
            "timeout_retry_cost",
            "throttling_retry_cost",
            "success_refund",
        ];
        f.require_all(&names, AS_WRITTEN);
        TokenBucketParams {
            capacity: f.u32("capacity", 0),
            retry_cost: f.u32("retry_cost", 0),
            timeout_retry_cost: f.u32("timeout_retry_cost", 0),
            throttling_retry_cost: f.u32("throttling_retry_cost", 0),
            success_refund: f.u32("success_refund", 0),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("capacity", self.capacity);
        o.uint("retry_cost", self.retry_cost);
        o.uint("timeout_retry_cost", self.timeout_retry_cost);
        o.uint("throttling_retry_cost", self.throttling_retry_cost);
        o.uint("success_refund", self.success_refund);
    }

    fn check(&self, _: &mut Check) {}
}

impl Section for GrpcThrottle {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["config", "milli_tokens"], AS_WRITTEN);
        let config = f.section("config", GrpcThrottleConfig::default());
        let raw = RawGrpc {
            config,
            milli_tokens: f.u32("milli_tokens", 0),
        };
        let fallback = GrpcThrottle::new_unchecked(config);
        checked(f, GrpcThrottle::try_from(raw), fallback)
    }

    fn write(&self, o: &mut Out) {
        o.section("config", &self.config);
        o.uint("milli_tokens", self.milli_tokens);
    }

    fn check(&self, _: &mut Check) {}
}
