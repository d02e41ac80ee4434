//! Property tests for the retry budgets.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proptest::prelude::*;
use serde_json::Value;
use stoic_core::budget::{
    BucketRing, GrpcThrottleConfig, RatioBudget, RatioConfig, RetryBudget, RetryBudgetConfig,
    RetryCost, RetryTicket, RunCapConfig, TokenBucketConfig, TokenBucketProfile,
};
use stoic_core::Instant;

#[derive(Clone, Debug)]
enum Op {
    First,
    Failure,
    Retry(RetryCost),
    Success { after_retry: bool },
}

/// A step: an op at a time offset; `back` makes the clock step backwards.
#[derive(Clone, Debug)]
struct Step {
    dt: u64,
    back: bool,
    op: Op,
}

fn cost() -> impl Strategy<Value = RetryCost> {
    prop_oneof![
        Just(RetryCost::Normal),
        Just(RetryCost::Timeout),
        Just(RetryCost::Throttling)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::First),
        3 => Just(Op::Failure),
        4 => cost().prop_map(Op::Retry),
        2 => any::<bool>().prop_map(|after_retry| Op::Success { after_retry }),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    (
        prop_oneof![3 => 0u64..50, 2 => 0u64..5_000, 1 => 0u64..200_000],
        prop::bool::weighted(0.1),
        op(),
    )
        .prop_map(|(dt, back, op)| Step { dt, back, op })
}

fn ratio_config() -> impl Strategy<Value = RatioConfig> {
    (0u32..=3000, 0u32..=2000, 1u32..=12, 1u64..=20_000).prop_map(
        |(ratio_milli, floor_milli, buckets, bucket_ms)| RatioConfig {
            ratio: f64::from(ratio_milli) / 1000.0,
            min_retries_per_sec: f64::from(floor_milli) / 1000.0,
            buckets,
            window_ms: bucket_ms * u64::from(buckets),
            // The model checks the window rule; the floor has its own tests.
            min_concurrent_retries: 0,
        },
    )
}

fn token_bucket_config() -> impl Strategy<Value = TokenBucketConfig> {
    (
        prop_oneof![
            Just(TokenBucketProfile::AwsStandard),
            Just(TokenBucketProfile::Aws2026)
        ],
        proptest::option::of(0u32..=600),
        proptest::option::of(1u32..=20),
        proptest::option::of(1u32..=20),
        proptest::option::of(1u32..=20),
        proptest::option::of(0u32..=20),
    )
        .prop_map(|(profile, capacity, retry, timeout, throttling, refund)| {
            TokenBucketConfig {
                profile,
                capacity,
                retry_cost: retry,
                timeout_retry_cost: timeout,
                throttling_retry_cost: throttling,
                success_refund: refund,
            }
        })
}

fn grpc_config() -> impl Strategy<Value = GrpcThrottleConfig> {
    (1u32..=1000, 1u32..=5000).prop_map(|(max_tokens, ratio_milli)| GrpcThrottleConfig {
        max_tokens,
        token_ratio: f64::from(ratio_milli) / 1000.0,
    })
}

fn config() -> impl Strategy<Value = RetryBudgetConfig> {
    (
        proptest::option::of(ratio_config()),
        proptest::option::of((0u32..=30).prop_map(|max_retries| RunCapConfig { max_retries })),
        proptest::option::of(token_bucket_config()),
        proptest::option::of(grpc_config()),
    )
        .prop_map(|(ratio, run_cap, token_bucket, grpc)| RetryBudgetConfig {
            ratio,
            run_cap,
            token_bucket,
            grpc,
        })
}

/// What a step produced, for determinism checks.
#[derive(Debug, PartialEq)]
enum Output {
    None,
    Retry(Result<RetryTicket, String>),
}

/// The budget's serialized state without the event bookkeeping.
fn budgets_only(budget: &RetryBudget) -> Value {
    let mut value: Value =
        serde_json::from_str(&stoic_core::state::write_snapshot(budget)).unwrap();
    let object = value.as_object_mut().unwrap();
    for key in ["exhausted", "events", "dropped_events"] {
        assert!(object.remove(key).is_some(), "snapshot lost {key}");
    }
    value
}

/// Applies `steps`, checking invariants after each; returns outputs and events.
fn drive(budget: &mut RetryBudget, steps: &[Step]) -> (Vec<Output>, Vec<Value>) {
    let mut t: u64 = 1_000_000;
    let mut ticket: Option<RetryTicket> = None;
    let mut outputs = Vec::new();
    let mut events = Vec::new();
    for step in steps {
        t = if step.back {
            t.saturating_sub(step.dt)
        } else {
            t.saturating_add(step.dt)
        };
        let now = Instant::from_millis(t);
        let output = match &step.op {
            Op::First => {
                budget.on_first_attempt(now);
                ticket = None;
                Output::None
            }
            Op::Failure => {
                budget.on_attempt_failure(now);
                Output::None
            }
            Op::Success { after_retry } => {
                budget.on_attempt_success(now, if *after_retry { ticket.take() } else { None });
                Output::None
            }
            Op::Retry(kind) => {
                let before = budgets_only(budget);
                let result = budget.try_retry(now, *kind);
                match result {
                    Ok(granted) => {
                        ticket = Some(granted);
                        // The ratio budget never holds more retries than it allows.
                        if let Some(ratio) = budget.status(now).ratio {
                            assert!(ratio.retries <= ratio.max_retries, "{ratio:?}");
                        }
                    }
                    Err(_) => assert_eq!(budgets_only(budget), before, "refusal changed state"),
                }
                Output::Retry(result.map_err(|refusal| refusal.code().to_owned()))
            }
        };
        let status = budget.status(now);
        if let Some(bucket) = status.token_bucket {
            assert!(bucket.tokens <= bucket.capacity);
        }
        if let Some(grpc) = status.grpc {
            assert!(grpc.milli_tokens <= grpc.max_milli_tokens);
        }
        if let Some(cap) = status.run_cap {
            assert!(cap.used <= cap.max_retries);
        }
        outputs.push(output);
        events.extend(std::iter::from_fn(|| budget.poll_event()).map(|e| {
            let text = stoic_core::schema::emit_json(&e, stoic_core::schema::Dialect::RUST);
            serde_json::from_str::<Value>(&text).unwrap()
        }));
    }
    (outputs, events)
}

/// A naive model of the ratio budget: every event remembered with its bucket.
struct RatioModel {
    ratio_milli: u128,
    floor_milli: u128,
    window_ms: u128,
    bucket_ms: u64,
    buckets: u64,
    latest: u64,
    events: Vec<(u64, bool)>,
}

impl RatioModel {
    /// Window counts at `now`, clamped by the latest *recorded* time.
    fn counts(&self, now: u64) -> (u128, u128) {
        let current = now.max(self.latest) / self.bucket_ms;
        let live = self
            .events
            .iter()
            .filter(|(index, _)| *index <= current && *index + self.buckets > current);
        let retries = live.clone().filter(|(_, retry)| *retry).count() as u128;
        let requests = live.filter(|(_, retry)| !*retry).count() as u128;
        (requests, retries)
    }

    fn allows(&self, now: u64) -> bool {
        let (requests, retries) = self.counts(now);
        (retries + 1) * 1_000_000
            <= self.ratio_milli * 1000 * requests + self.floor_milli * self.window_ms
    }

    /// Records an event; a refused retry records nothing, not even the time.
    fn record(&mut self, now: u64, retry: bool) {
        self.latest = self.latest.max(now);
        self.events.push((self.latest / self.bucket_ms, retry));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_sequences_keep_invariants_and_are_deterministic(
        config in config(),
        steps in prop::collection::vec(step(), 0..200),
    ) {
        let mut first = RetryBudget::new(config).unwrap();
        let mut second = RetryBudget::new(config).unwrap();
        let run1 = drive(&mut first, &steps);
        let run2 = drive(&mut second, &steps);
        prop_assert_eq!(&run1, &run2);
        prop_assert_eq!(&first, &second);
        prop_assert_eq!(
            stoic_core::state::write_snapshot(&first),
            stoic_core::state::write_snapshot(&second)
        );
    }

    #[test]
    fn snapshot_mid_run_continues_identically(
        config in config(),
        before in prop::collection::vec(step(), 0..80),
        after in prop::collection::vec(step(), 0..80),
    ) {
        let mut live = RetryBudget::new(config).unwrap();
        drive(&mut live, &before);
        let json = stoic_core::state::write_snapshot(&live);
        let mut restored: RetryBudget = stoic_core::state::read_snapshot(&json).unwrap();
        prop_assert_eq!(&restored, &live);
        prop_assert_eq!(drive(&mut restored, &after), drive(&mut live, &after));
        prop_assert_eq!(restored, live);
    }

    #[test]
    fn ratio_budget_matches_naive_model(
        config in ratio_config(),
        steps in prop::collection::vec((0u64..30_000, prop::bool::weighted(0.1), any::<bool>()), 0..300),
    ) {
        let mut budget = RatioBudget::new(config).unwrap();
        let mut model = RatioModel {
            ratio_milli: u128::from((config.ratio * 1000.0).round() as u32),
            floor_milli: u128::from((config.min_retries_per_sec * 1000.0).round() as u32),
            window_ms: u128::from(config.window_ms),
            bucket_ms: config.window_ms / u64::from(config.buckets),
            buckets: u64::from(config.buckets),
            latest: 0,
            events: Vec::new(),
        };
        let mut t = 0u64;
        for (dt, back, is_retry) in steps {
            t = if back { t.saturating_sub(dt) } else { t + dt };
            let now = Instant::from_millis(t);
            if is_retry {
                let expected = model.allows(t);
                prop_assert_eq!(budget.try_withdraw(now).granted(), expected);
                if expected {
                    model.record(t, true);
                    // At admission the window holds no more than it allows.
                    prop_assert!(
                        budget.retries_in_window(now) <= budget.max_retries_in_window(now)
                    );
                }
            } else {
                budget.on_request(now);
                model.record(t, false);
            }
            let (requests, retries) = model.counts(t);
            prop_assert_eq!(u128::from(budget.requests_in_window(now)), requests);
            prop_assert_eq!(u128::from(budget.retries_in_window(now)), retries);
        }
    }

    #[test]
    fn ring_merge_sums_windows(
        bucket_ms in 1u64..1000,
        buckets in 1u32..12,
        a_adds in prop::collection::vec((0u64..20_000, 1u64..5), 0..40),
        b_adds in prop::collection::vec((0u64..20_000, 1u64..5), 0..40),
        later in 0u64..20_000,
    ) {
        let mut a = BucketRing::new(bucket_ms, buckets);
        let mut b = BucketRing::new(bucket_ms, buckets);
        let mut sorted_a = a_adds.clone();
        sorted_a.sort_unstable();
        let mut sorted_b = b_adds.clone();
        sorted_b.sort_unstable();
        for (t, n) in sorted_a {
            a.add(Instant::from_millis(t), n);
        }
        for (t, n) in sorted_b {
            b.add(Instant::from_millis(t), n);
        }
        // Any time at or after both heads sees the same window in all three rings.
        let head_ms = a.head().max(b.head()) * bucket_ms;
        let now = Instant::from_millis(head_ms + later);
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        prop_assert_eq!(ab.total(now), a.total(now) + b.total(now));
        prop_assert_eq!(ab.live_buckets(now), ba.live_buckets(now));
        let json = stoic_core::state::write_snapshot(&ab);
        prop_assert_eq!(stoic_core::state::read_snapshot::<BucketRing>(&json).unwrap(), ab);
    }
}
