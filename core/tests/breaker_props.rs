//! Property tests for the breaker: random configs and random sequences of
//! acquire / success / failure / release / time moves (forwards and back).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proptest::prelude::*;
use serde_json::{json, Value};
use stoic_core::breaker::{
    Breaker, BreakerConfig, BreakerState, BreakerStateCode, Compare, HalfOpenConfig, Permit,
    SlowCall, TripRule, Window,
};
use stoic_core::schema::{emit_json, Dialect, Emit};
use stoic_core::Instant;

/// A value as the schema writes it for Rust (the bindings' wire form).
fn wire(item: &dyn Emit) -> Value {
    serde_json::from_str(&emit_json(item, Dialect::RUST)).unwrap()
}

#[derive(Clone, Debug)]
enum Op {
    Acquire,
    Success { pick: usize, duration_ms: u64 },
    Failure { pick: usize },
    Release { pick: usize },
    Advance(u64),
    Back(u64),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Acquire),
        3 => (any::<usize>(), 0u64..40).prop_map(|(pick, duration_ms)| Op::Success { pick, duration_ms }),
        3 => any::<usize>().prop_map(|pick| Op::Failure { pick }),
        1 => any::<usize>().prop_map(|pick| Op::Release { pick }),
        3 => prop_oneof![0u64..30, 0u64..300, Just(u64::MAX / 3)].prop_map(Op::Advance),
        1 => (0u64..100).prop_map(Op::Back),
    ]
}

fn compare() -> impl Strategy<Value = Compare> {
    prop_oneof![Just(Compare::Ge), Just(Compare::Gt)]
}

fn rate(compare: Compare) -> BoxedStrategy<f64> {
    match compare {
        Compare::Ge => prop_oneof![Just(0.25), Just(0.5), Just(0.75), Just(1.0)].boxed(),
        Compare::Gt => prop_oneof![Just(0.0), Just(0.25), Just(0.5), Just(0.75)].boxed(),
    }
}

fn trip() -> impl Strategy<Value = TripRule> {
    let consecutive = (1u32..6, compare())
        .prop_map(|(threshold, compare)| TripRule::ConsecutiveFailures { threshold, compare });
    let window = prop_oneof![
        (1u32..12).prop_map(|size| Window::Count { size }),
        (1u32..6, 1u64..40).prop_map(|(buckets, ms)| Window::Time {
            duration_ms: ms * u64::from(buckets),
            buckets
        }),
    ];
    let failure_rate = (window, compare(), 1u32..12, proptest::option::of(1u64..30))
        .prop_flat_map(|(window, compare, min, slow_ms)| {
            let min = match window {
                Window::Count { size } => min.min(size),
                Window::Time { .. } => min,
            };
            (
                Just(window),
                Just(compare),
                Just(min),
                rate(compare),
                rate(compare),
                Just(slow_ms),
            )
        })
        .prop_map(
            |(window, compare, minimum_throughput, failure_rate, slow_rate, slow_ms)| {
                TripRule::FailureRate {
                    window,
                    failure_rate,
                    minimum_throughput,
                    compare,
                    slow_call: slow_ms.map(|duration_ms| SlowCall {
                        duration_ms,
                        rate: slow_rate,
                    }),
                }
            },
        );
    prop_oneof![consecutive, failure_rate]
}

fn config() -> impl Strategy<Value = BreakerConfig> {
    (trip(), 0u64..200, 1u32..4, 1u32..4).prop_map(|(trip, cooldown_ms, max_probes, success)| {
        BreakerConfig {
            trip,
            cooldown_ms,
            half_open: HalfOpenConfig {
                max_probes,
                success_threshold: success,
            },
        }
    })
}

/// A host that uses the breaker correctly: every permit comes back once.
struct Driver {
    breaker: Breaker,
    now: u64,
    outstanding: Vec<Permit>,
    last_state: BreakerStateCode,
}

impl Driver {
    fn new(config: BreakerConfig) -> Self {
        config.validate().unwrap();
        Driver {
            breaker: Breaker::new(config),
            now: 0,
            outstanding: Vec::new(),
            last_state: BreakerStateCode::Closed,
        }
    }

    fn take(&mut self, pick: usize) -> Option<Permit> {
        if self.outstanding.is_empty() {
            None
        } else {
            Some(self.outstanding.swap_remove(pick % self.outstanding.len()))
        }
    }

    /// Applies one op and returns everything observable about it.
    fn apply(&mut self, op: &Op) -> Value {
        let at = Instant::from_millis(self.now);
        let result = match *op {
            Op::Acquire => match self.breaker.try_acquire(at) {
                Ok(p) => {
                    self.outstanding.push(p);
                    json!({"admitted": wire(&p)})
                }
                Err(r) => json!({"rejected": wire(&r)}),
            },
            Op::Success { pick, duration_ms } => match self.take(pick) {
                Some(p) => json!(self.breaker.on_success(at, p, duration_ms)),
                None => Value::Null,
            },
            Op::Failure { pick } => match self.take(pick) {
                Some(p) => json!(self.breaker.on_failure(at, p, 0)),
                None => Value::Null,
            },
            Op::Release { pick } => match self.take(pick) {
                Some(p) => json!(self.breaker.release(p)),
                None => Value::Null,
            },
            Op::Advance(ms) => {
                self.now = self.now.saturating_add(ms);
                Value::Null
            }
            Op::Back(ms) => {
                self.now = self.now.saturating_sub(ms);
                Value::Null
            }
        };
        let transitions: Vec<_> = std::iter::from_fn(|| self.breaker.poll_transition()).collect();
        self.check(&transitions);
        json!({
            "result": result,
            "state": wire(self.breaker.state()),
            "generation": self.breaker.generation(),
            "transitions": transitions.iter().map(|t| wire(t)).collect::<Vec<_>>(),
            "window": self.breaker.window_counts(Instant::from_millis(self.now)).map(|w| wire(&w)),
            "next_timeout": self.breaker.next_timeout().map(Instant::as_millis),
        })
    }

    fn check(&mut self, transitions: &[stoic_core::breaker::Transition]) {
        let b = &self.breaker;
        let config = b.config();
        // Transitions chain from the last observed state to the current one.
        let mut state = self.last_state;
        for t in transitions {
            assert_eq!(t.from, state, "{transitions:?}");
            assert_ne!(t.from, t.to);
            state = t.to;
        }
        assert_eq!(state, b.state().code());
        self.last_state = state;
        assert_eq!(b.transitions_dropped(), 0);

        let current_probes = self
            .outstanding
            .iter()
            .filter(|p| p.probe && p.generation == b.generation())
            .count();
        match *b.state() {
            BreakerState::HalfOpen {
                probes_in_flight,
                successes,
            } => {
                assert!(probes_in_flight <= config.half_open.max_probes);
                assert_eq!(usize::try_from(probes_in_flight).unwrap(), current_probes);
                assert!(successes < config.half_open.success_threshold);
                assert_eq!(b.next_timeout(), None);
            }
            BreakerState::Open { since, until } => {
                assert_eq!(current_probes, 0);
                assert_eq!(until, since.saturating_add(config.cooldown_ms));
                assert_eq!(b.next_timeout(), Some(until));
            }
            BreakerState::Closed { .. } => {
                assert_eq!(current_probes, 0);
                assert_eq!(b.next_timeout(), None);
            }
        }
        let bound = match config.trip.window() {
            None => 0,
            Some(Window::Count { size }) => usize::try_from(*size).unwrap(),
            Some(Window::Time { buckets, .. }) => usize::try_from(*buckets).unwrap(),
        };
        assert!(b.window_len() <= bound, "{} > {bound}", b.window_len());
    }
}

fn run(config: &BreakerConfig, ops: &[Op]) -> Vec<Value> {
    let mut d = Driver::new(config.clone());
    ops.iter().map(|op| d.apply(op)).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// No panic, probe accounting exact, transitions chained, memory bounded
    /// (all checked inside `Driver::apply`).
    #[test]
    fn invariants_hold(config in config(), ops in proptest::collection::vec(op(), 0..300)) {
        run(&config, &ops);
    }

    #[test]
    fn same_inputs_same_outputs(config in config(), ops in proptest::collection::vec(op(), 0..200)) {
        prop_assert_eq!(run(&config, &ops), run(&config, &ops));
    }

    #[test]
    fn snapshot_restore_mid_sequence_changes_nothing(
        config in config(),
        ops in proptest::collection::vec(op(), 1..200),
        cut in any::<usize>(),
    ) {
        let cut = cut % ops.len();
        let mut original = Driver::new(config.clone());
        for op in &ops[..cut] {
            original.apply(op);
        }
        let text = stoic_core::state::write_snapshot(&original.breaker);
        let restored_breaker: Breaker = stoic_core::state::read_snapshot(&text).unwrap();
        prop_assert_eq!(&restored_breaker, &original.breaker);
        let mut restored = Driver {
            breaker: restored_breaker,
            now: original.now,
            outstanding: original.outstanding.clone(),
            last_state: original.last_state,
        };
        for op in &ops[cut..] {
            prop_assert_eq!(original.apply(op), restored.apply(op));
        }
        prop_assert_eq!(
            stoic_core::state::write_snapshot(&original.breaker),
            stoic_core::state::write_snapshot(&restored.breaker)
        );
    }

    /// A time window holds at most `buckets` buckets however many calls it
    /// sees; a count window at most `size` marks.
    #[test]
    fn window_memory_is_bounded_under_heavy_traffic(
        buckets in 1u32..8,
        bucket_ms in 1u64..20,
        size in 1u32..8,
        gaps in proptest::collection::vec(0u64..7, 500..1500),
    ) {
        let windows = [
            Window::Time { duration_ms: bucket_ms * u64::from(buckets), buckets },
            Window::Count { size },
        ];
        for window in windows {
            let config = BreakerConfig {
                trip: TripRule::FailureRate {
                    window,
                    failure_rate: 1.0,
                    minimum_throughput: 1,
                    compare: Compare::Ge,
                    slow_call: None,
                },
                ..BreakerConfig::default()
            };
            let mut b = Breaker::new(config);
            let mut now = 0u64;
            for gap in &gaps {
                now += gap;
                let p = b.try_acquire(Instant::from_millis(now)).unwrap();
                b.on_success(Instant::from_millis(now), p, 0);
                let bound = match window {
                    Window::Time { buckets, .. } => buckets,
                    Window::Count { size } => size,
                };
                prop_assert!(b.window_len() <= usize::try_from(bound).unwrap());
            }
            let snapshot = serde_json::from_str::<serde_json::Value>(&stoic_core::state::write_snapshot(&b)).unwrap();
            let held = match window {
                Window::Time { .. } => snapshot["window"]["buckets"].as_array().unwrap().len(),
                Window::Count { .. } => snapshot["window"]["marks"].as_array().unwrap().len(),
            };
            prop_assert_eq!(held, b.window_len());
        }
    }
}
