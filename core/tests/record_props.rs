//! Property tests for `stoic_core::record`: counters are monotone, the
//! histogram counts exactly the calls that retried, alert events appear only
//! on level changes, memory stays bounded, and plain data round-trips.

// Test helpers live outside #[test] fns, where clippy's test allowances do
// not reach; a panic is how a test helper reports a broken vector.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use proptest::prelude::*;
use stoic_core::record::{
    AlertConfig, AlertLevel, AlertRule, CallOutcome, CallSummary, LogOutcome, LogRecord, Metrics,
    MetricsSnapshot, RecordEvent, EVENT_QUEUE_CAPACITY,
};
use stoic_core::{Instant, WallClock};

#[derive(Clone, Debug)]
enum Op {
    Attempt(u64, bool),
    RetryScheduled(u64),
    Finished(u64, u32, CallOutcome, u64),
    Breaker(&'static str),
    Evaluate(u64),
}

fn time() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..200_000, any::<u64>(), Just(u64::MAX)]
}

fn outcome() -> impl Strategy<Value = CallOutcome> {
    prop_oneof![
        Just(CallOutcome::Success),
        Just(CallOutcome::Exhausted),
        Just(CallOutcome::GaveUp)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (time(), any::<bool>()).prop_map(|(t, r)| Op::Attempt(t, r)),
        2 => time().prop_map(Op::RetryScheduled),
        3 => (time(), 0u32..4, outcome(), prop_oneof![0u64..200_000, any::<u64>()])
            .prop_map(|(t, r, o, d)| Op::Finished(t, r, o, d)),
        1 => prop_oneof![Just("closed"), Just("half_open"), Just("open"), Just("bogus")]
            .prop_map(Op::Breaker),
        3 => time().prop_map(Op::Evaluate),
    ]
}

fn config() -> impl Strategy<Value = AlertConfig> {
    (1_000u64..=120_000, 0.0f64..=1.0, 0.0f64..=1.0, 0u32..30).prop_map(|(w, r, e, m)| {
        AlertConfig {
            window_ms: w,
            retry_rate_warning: r,
            exhausted_rate_critical: e,
            min_requests: m,
        }
    })
}

fn apply(m: &mut Metrics, op: &Op) {
    match *op {
        Op::Attempt(t, r) => m.on_attempt(Instant::from_millis(t), r),
        Op::RetryScheduled(t) => m.on_retry_scheduled(Instant::from_millis(t)),
        Op::Finished(t, retries, outcome, duration_ms) => m.on_call_finished(
            Instant::from_millis(t),
            CallSummary {
                retries,
                outcome,
                duration_ms,
            },
        ),
        Op::Breaker(s) => {
            m.set_breaker_state(s);
        }
        Op::Evaluate(t) => m.evaluate(Instant::from_millis(t)),
    }
}

fn counters(s: &MetricsSnapshot) -> [u64; 10] {
    [
        s.as_of_ms,
        s.calls_total,
        s.attempts_total,
        s.retry_total,
        s.retry_attempts_total,
        s.retry_success,
        s.retry_exhausted,
        s.gave_up_total,
        s.retry_duration.count,
        s.retry_duration.sum_ms,
    ]
}

fn rule_index(rule: AlertRule) -> usize {
    match rule {
        AlertRule::RetryRate => 0,
        AlertRule::ExhaustedRate => 1,
        AlertRule::CircuitOpen => 2,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn counters_are_monotone_and_histogram_counts_retried_calls(
        config in config(),
        ops in prop::collection::vec(op(), 0..200),
    ) {
        let mut m = Metrics::new(config);
        let mut previous = m.snapshot();
        let mut retried_calls = 0u64;
        let mut finished = 0u64;
        for op in &ops {
            apply(&mut m, op);
            if let Op::Finished(_, retries, _, _) = op {
                finished += 1;
                if *retries > 0 {
                    retried_calls += 1;
                }
            }
            let now = m.snapshot();
            for (before, after) in counters(&previous).iter().zip(counters(&now).iter()) {
                prop_assert!(after >= before);
            }
            for (before, after) in
                previous.retry_duration.counts.iter().zip(now.retry_duration.counts.iter())
            {
                prop_assert!(after >= before);
            }
            previous = now;
            while m.poll_event().is_some() {}
        }
        let s = m.snapshot();
        prop_assert_eq!(s.retry_duration.count, retried_calls);
        prop_assert_eq!(s.retry_duration.counts.iter().sum::<u64>(), retried_calls);
        prop_assert_eq!(s.retry_duration.cumulative()[12], retried_calls);
        prop_assert_eq!(s.calls_total, finished);
        prop_assert!(s.retry_success + s.retry_exhausted + s.gave_up_total <= s.calls_total);
        prop_assert!(s.retry_attempts_total <= s.attempts_total);
    }

    #[test]
    fn alert_events_only_on_level_changes(
        config in config(),
        ops in prop::collection::vec(op(), 0..300),
    ) {
        let mut m = Metrics::new(config);
        let mut levels = [AlertLevel::Ok; 3];
        for op in &ops {
            apply(&mut m, op);
            let mut changed = [false; 3];
            while let Some(event) = m.poll_event() {
                let RecordEvent::AlertChanged { rule, from, to, value, threshold, .. } = event
                else {
                    unreachable!("only alert events exist");
                };
                prop_assert!(matches!(op, Op::Evaluate(_)), "event outside evaluate: {op:?}");
                let i = rule_index(rule);
                prop_assert!(!changed[i], "two events for one rule in one evaluation");
                changed[i] = true;
                prop_assert_eq!(from, levels[i]);
                prop_assert_ne!(from, to);
                prop_assert!(to == AlertLevel::Ok || to == rule.firing_level());
                if to != AlertLevel::Ok {
                    prop_assert!(value > threshold);
                }
                levels[i] = to;
            }
            let current = m.alerts();
            for (i, alert) in current.iter().enumerate() {
                prop_assert_eq!(alert.rule, AlertRule::ALL[i]);
                prop_assert_eq!(alert.level, levels[i]);
            }
        }
        prop_assert_eq!(m.dropped_events(), 0);
    }

    #[test]
    fn memory_is_bounded(
        config in config(),
        ops in prop::collection::vec(op(), 0..600),
    ) {
        // Never drained: the queue must still stay within its capacity, and
        // the whole state (its serialized form as a proxy) must not grow with
        // the number of operations.
        let mut m = Metrics::new(config);
        for op in &ops {
            apply(&mut m, op);
            prop_assert!(m.pending_events() <= EVENT_QUEUE_CAPACITY);
        }
        let json = stoic_core::state::write_snapshot(&m);
        prop_assert!(json.len() < 16_384, "state grew to {} bytes", json.len());
    }

    #[test]
    fn snapshots_round_trip_and_merge_adds(
        a_ops in prop::collection::vec(op(), 0..100),
        b_ops in prop::collection::vec(op(), 0..100),
    ) {
        let mut a = Metrics::new(AlertConfig { min_requests: 0, ..AlertConfig::default() });
        let mut b = Metrics::default();
        for op in &a_ops { apply(&mut a, op); }
        for op in &b_ops { apply(&mut b, op); }
        let (sa, sb) = (a.snapshot(), b.snapshot());
        let json = stoic_core::state::write_snapshot(&sa);
        let back: MetricsSnapshot = stoic_core::state::read_snapshot(&json).unwrap();
        prop_assert_eq!(back, sa);
        prop_assert_eq!(stoic_core::state::write_snapshot(&back), json);

        let mut ab = sa;
        ab.merge(&sb);
        let mut ba = sb;
        ba.merge(&sa);
        let (ca, cb, cab, cba) = (counters(&sa), counters(&sb), counters(&ab), counters(&ba));
        for i in 1..10 {
            prop_assert_eq!(cab[i], ca[i].saturating_add(cb[i]));
            prop_assert_eq!(cab[i], cba[i]);
        }
        prop_assert_eq!(ab.as_of_ms, sa.as_of_ms.max(sb.as_of_ms));
        let newer = if sb.as_of_ms >= sa.as_of_ms { sb } else { sa };
        prop_assert_eq!(ab.circuit_breaker_state, newer.circuit_breaker_state);

        // Pending events carry f64 rates; serde_json (without its
        // `float_roundtrip` feature) may read those back one ulp off, so a
        // host drains events before saving state. Everything else in the
        // state is integers and must restore exactly.
        while a.poll_event().is_some() {}
        let state = stoic_core::state::write_snapshot(&a);
        let restored: Metrics = stoic_core::state::read_snapshot(&state).unwrap();
        prop_assert_eq!(restored, a);
    }

    #[test]
    fn log_lines_are_one_line_of_json(
        wall in any::<u64>(),
        operation in any::<String>(),
        message in any::<String>(),
        attempt in any::<u32>(),
        max_attempts in any::<u32>(),
        delay_ms in any::<u64>(),
        total in any::<u64>(),
        with_error in any::<bool>(),
        outcome in prop_oneof![
            Just(LogOutcome::Success),
            Just(LogOutcome::Retry),
            Just(LogOutcome::Exhausted),
            Just(LogOutcome::GaveUp),
        ],
    ) {
        let error = with_error.then_some(("status_503", message.as_str()));
        let record = LogRecord::new(
            WallClock::from_unix_millis(wall),
            &operation,
            attempt,
            max_attempts,
            delay_ms,
            error,
            "full_jitter",
            outcome,
            total,
        );
        let line = record.to_json_line();
        prop_assert!(!line.contains('\n') && !line.contains('\r'));
        // The line is the schema's Rust dialect; its operation reads back.
        prop_assert_eq!(&line, &stoic_core::schema::emit_json(&record, stoic_core::schema::Dialect::RUST));
        let back: serde_json::Value = serde_json::from_str(&line).unwrap();
        prop_assert_eq!(back["operation"].as_str(), Some(operation.as_str()));
        prop_assert_eq!(&record.operation, &operation);
        prop_assert_eq!(record.timestamp.len(), 24);
        prop_assert!(record.timestamp.ends_with('Z'));
        if outcome != LogOutcome::Retry {
            prop_assert_eq!(record.delay_ms, 0);
        }
        let shown = record.to_string();
        prop_assert!(!shown.contains('\n') && !shown.contains('\r'));
    }
}
