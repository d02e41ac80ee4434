//! Property tests for the load-control machines: whatever the hosts do
//! (any order of acquires, polls, cancels and releases, clocks stepping
//! back, permits handed back twice), the limit stays within its bounds,
//! nothing is admitted at or above the limit, every admitted permit
//! counts exactly once, the min RTT moves only when a measurement
//! completes and is always a latency some success reported, and the
//! throttle's probability stays under its cap.
#![cfg(feature = "load_control")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use proptest::prelude::*;
use stoic_core::load_control::{
    Acquired, LimitAlgorithm, LimitOutcome, Limiter, LimiterConfig, Permit, QueueEvent, Throttle,
    ThrottleConfig, Ticket,
};
use stoic_core::{Class, Instant};

#[derive(Clone, Debug)]
enum Op {
    Acquire,
    Poll,
    Cancel(usize),
    Release {
        which: usize,
        outcome: u8,
        latency: u64,
    },
    ReleaseTwice(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Acquire),
        2 => Just(Op::Poll),
        1 => (0..8usize).prop_map(Op::Cancel),
        4 => (0..64usize, 0..3u8, 0..400u64)
            .prop_map(|(which, outcome, latency)| Op::Release { which, outcome, latency }),
        1 => (0..8usize).prop_map(Op::ReleaseTwice),
    ]
}

fn config() -> impl Strategy<Value = LimiterConfig> {
    (
        1..20u32,
        0..40u32,
        0..20u32,
        1..300u64,
        any::<bool>(),
        1..6u32,
    )
        .prop_map(|(lo, span, queue, wait, aimd, samples)| {
            let algorithm = if aimd {
                LimitAlgorithm::Aimd { backoff: 0.7 }
            } else {
                LimitAlgorithm::Gradient {
                    update_interval_ms: 50,
                    percentile: 0.5,
                    buffer: 0.25,
                    probe_interval_ms: 500,
                    probe_jitter: 0.5,
                    probe_samples: samples,
                }
            };
            LimiterConfig {
                initial_limit: lo + span / 2,
                min_limit: lo,
                max_limit: lo + span,
                max_queue: queue,
                max_wait_ms: wait,
                algorithm,
            }
        })
}

fn admitted(permit: Permit, cfg: &LimiterConfig) {
    assert!(permit.in_flight() <= permit.limit(), "{permit:?}");
    assert!(permit.limit() >= cfg.min_limit && permit.limit() <= cfg.max_limit);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn limiter_invariants(
        cfg in config(),
        seed in any::<u64>(),
        steps in prop::collection::vec((0..60u64, any::<bool>(), op()), 1..300),
    ) {
        let mut limiter = Limiter::new(cfg, seed).unwrap();
        let mut out: Vec<Permit> = Vec::new();
        let mut back: Vec<Permit> = Vec::new();
        let mut waiting: Vec<Ticket> = Vec::new();
        // Every latency a success reported (as the limiter reads it).
        let mut reported: Vec<u64> = Vec::new();
        let mut t = 0u64;
        for (dt, backwards, op) in steps {
            let before = limiter.status();
            t = if backwards { t.saturating_sub(dt) } else { t + dt };
            let now = Instant::from_millis(t);
            match op {
                Op::Acquire => match limiter.acquire(now) {
                    Acquired::Admitted(p) => { admitted(p, &cfg); out.push(p); }
                    Acquired::Queued(ticket) => waiting.push(ticket),
                    Acquired::Rejected(_) => {}
                },
                Op::Poll => {
                    while let Some(event) = limiter.poll(now) {
                        match event {
                            QueueEvent::Admitted { ticket, permit } => {
                                admitted(permit, &cfg);
                                out.push(permit);
                                waiting.retain(|w| w.id != ticket.id);
                            }
                            QueueEvent::TimedOut { ticket } => {
                                waiting.retain(|w| w.id != ticket.id);
                            }
                        }
                    }
                }
                Op::Cancel(i) => {
                    if !waiting.is_empty() {
                        let ticket = waiting.remove(i % waiting.len());
                        prop_assert!(limiter.cancel(ticket));
                        prop_assert!(!limiter.cancel(ticket));
                    }
                }
                Op::Release { which, outcome, latency } => {
                    if !out.is_empty() {
                        let permit = out.remove(which % out.len());
                        let outcome = match outcome {
                            0 => LimitOutcome::Success { latency_ms: latency },
                            1 => LimitOutcome::Dropped,
                            _ => LimitOutcome::Ignored,
                        };
                        prop_assert!(limiter.release(now, permit, outcome));
                        back.push(permit);
                        if let LimitOutcome::Success { latency_ms } = outcome {
                            reported.push(latency_ms.max(1));
                        }
                    }
                }
                Op::ReleaseTwice(i) => {
                    if !back.is_empty() {
                        let permit = back[i % back.len()];
                        prop_assert!(!limiter.release(now, permit, LimitOutcome::Dropped));
                    }
                }
            }
            let s = limiter.status();
            prop_assert!(s.limit >= cfg.min_limit && s.limit <= cfg.max_limit, "{s:?}");
            prop_assert_eq!(s.in_flight as usize, out.len());
            prop_assert!(s.in_flight <= cfg.max_limit);
            prop_assert_eq!(s.waiting as usize, waiting.len());
            prop_assert!(s.waiting <= cfg.max_queue);
            // The baseline is one of the latencies (a percentile of some),
            // and no single sample moves it between measurements: it
            // changes only as one completes (which reschedules the next).
            if let Some(min_rtt) = s.min_rtt_ms {
                prop_assert!(reported.contains(&min_rtt), "{s:?}");
            }
            let between = !before.measuring && !s.measuring;
            if between && before.next_probe_at == s.next_probe_at {
                prop_assert_eq!(before.min_rtt_ms, s.min_rtt_ms);
            }
        }
    }

    #[test]
    fn throttle_stays_under_its_cap_and_counts_every_request(
        min_requests in 0..20u32,
        cap in 0..=999u32,
        seed in any::<u64>(),
        steps in prop::collection::vec((0..3000u64, 0..4usize, any::<bool>()), 1..300),
    ) {
        let config = ThrottleConfig {
            min_requests,
            max_rejection: f64::from(cap) / 1000.0,
            window_ms: 10_000,
            buckets: 10,
            ..ThrottleConfig::default()
        };
        let mut throttle = Throttle::new(config, seed).unwrap();
        let mut t = 0u64;
        for (dt, class, admit) in steps {
            t += dt;
            let now = Instant::from_millis(t);
            let before = throttle.status(now);
            prop_assert!(before.rejection_ppm <= u64::from(cap) * 1000);
            if before.requests < u64::from(min_requests) {
                prop_assert_eq!(before.rejection_ppm, 0);
            }
            if admit {
                let answer = throttle.try_admit(now);
                if before.rejection_ppm == 0 {
                    prop_assert!(answer.is_ok());
                }
            } else {
                throttle.count_request(now);
            }
            // Admitted or not, the request is in the window.
            prop_assert_eq!(throttle.status(now).requests, before.requests + 1);
            throttle.on_outcome(now, Class::ALL[class]);
        }
    }
}
