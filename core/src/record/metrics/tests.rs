//! Unit tests of `metrics`.

use super::*;

fn t(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

fn finished(retries: u32, outcome: CallOutcome, duration_ms: u64) -> CallSummary {
    CallSummary {
        retries,
        outcome,
        duration_ms,
    }
}

#[test]
fn bucket_bounds_are_inclusive() {
    assert_eq!(HistogramSnapshot::bucket_index(0), 0);
    assert_eq!(HistogramSnapshot::bucket_index(10), 0);
    assert_eq!(HistogramSnapshot::bucket_index(11), 1);
    assert_eq!(HistogramSnapshot::bucket_index(120_000), 11);
    assert_eq!(HistogramSnapshot::bucket_index(120_001), 12);
    assert_eq!(HistogramSnapshot::bucket_index(u64::MAX), 12);
}

#[test]
fn counters_follow_the_seed_definitions() {
    let mut m = Metrics::default();
    // Call 1: succeeds first time.
    m.on_attempt(t(0), false);
    m.on_call_finished(t(5), finished(0, CallOutcome::Success, 5));
    // Call 2: one retry, then success.
    m.on_attempt(t(10), false);
    m.on_retry_scheduled(t(20));
    m.on_attempt(t(120), true);
    m.on_call_finished(t(130), finished(1, CallOutcome::Success, 120));
    // Call 3: exhausted after two retries.
    m.on_attempt(t(200), false);
    m.on_retry_scheduled(t(210));
    m.on_attempt(t(300), true);
    m.on_retry_scheduled(t(310));
    m.on_attempt(t(500), true);
    m.on_call_finished(t(505), finished(2, CallOutcome::Exhausted, 305));
    // Call 4: gives up at once (not retryable).
    m.on_attempt(t(600), false);
    m.on_call_finished(t(601), finished(0, CallOutcome::GaveUp, 1));

    let s = m.snapshot();
    assert_eq!(s.as_of_ms, 601);
    assert_eq!(s.calls_total, 4);
    assert_eq!(s.attempts_total, 7);
    assert_eq!(s.retry_total, 3);
    assert_eq!(s.retry_attempts_total, 3);
    assert_eq!(s.retry_success, 1);
    assert_eq!(s.retry_exhausted, 1);
    assert_eq!(s.gave_up_total, 1);
    assert_eq!(s.retry_duration.count, 2);
    assert_eq!(s.retry_duration.sum_ms, 425);
    assert_eq!(s.retry_duration.counts[3], 1); // 120 -> le 250
    assert_eq!(s.retry_duration.counts[4], 1); // 305 -> le 500
    assert_eq!(s.retry_duration.cumulative()[12], 2);
    assert_eq!(s.retry_duration.cumulative()[2], 0);
    assert_eq!(s.retry_duration.cumulative()[3], 1);
}

#[test]
fn breaker_state_codes_and_gauge() {
    let mut m = Metrics::default();
    assert_eq!(m.breaker_state(), BreakerGauge::Closed);
    assert!(m.set_breaker_state("open"));
    assert_eq!(m.snapshot().circuit_breaker_state.value(), 2);
    assert!(m.set_breaker_state("half_open"));
    assert_eq!(m.snapshot().circuit_breaker_state.value(), 1);
    assert!(!m.set_breaker_state("OPEN"));
    assert_eq!(m.breaker_state(), BreakerGauge::HalfOpen);
    for state in [
        BreakerGauge::Closed,
        BreakerGauge::HalfOpen,
        BreakerGauge::Open,
    ] {
        assert_eq!(BreakerGauge::from_code(state.code()), Some(state));
        assert_eq!(BreakerGauge::from_value(state.value()), Some(state));
        #[cfg(feature = "serde")]
        assert_eq!(
            serde_json::to_string(&state).unwrap(),
            state.value().to_string()
        );
    }
    assert_eq!(BreakerGauge::from_value(3), None);
    #[cfg(feature = "serde")]
    {
        assert!(serde_json::from_str::<BreakerGauge>("3").is_err());
        assert!(serde_json::from_str::<BreakerGauge>("\"open\"").is_err());
    }
}

#[test]
fn counters_saturate() {
    let mut s = MetricsSnapshot {
        attempts_total: u64::MAX - 1,
        retry_duration: HistogramSnapshot {
            sum_ms: u64::MAX - 1,
            ..HistogramSnapshot::default()
        },
        ..MetricsSnapshot::default()
    };
    let other = s;
    s.merge(&other);
    assert_eq!(s.attempts_total, u64::MAX);
    assert_eq!(s.retry_duration.sum_ms, u64::MAX);
    let mut h = HistogramSnapshot {
        sum_ms: u64::MAX,
        ..HistogramSnapshot::default()
    };
    h.observe(u64::MAX);
    assert_eq!((h.sum_ms, h.count, h.counts[12]), (u64::MAX, 1, 1));
}

#[test]
fn merge_adds_counters_and_takes_newer_gauge() {
    let mut a = Metrics::default();
    a.on_attempt(t(100), false);
    a.on_retry_scheduled(t(110));
    a.on_attempt(t(200), true);
    a.on_call_finished(t(200), finished(1, CallOutcome::Success, 100));
    a.set_breaker(BreakerGauge::Open);
    let mut b = Metrics::default();
    b.on_attempt(t(50), false);
    b.on_call_finished(t(60), finished(1, CallOutcome::Exhausted, 20_000));
    b.set_breaker(BreakerGauge::HalfOpen);

    let mut merged = a.snapshot();
    merged.merge(&b.snapshot());
    assert_eq!(merged.as_of_ms, 200);
    assert_eq!(merged.circuit_breaker_state, BreakerGauge::Open); // a is newer
    assert_eq!(merged.attempts_total, 3);
    assert_eq!(merged.calls_total, 2);
    assert_eq!(merged.retry_duration.count, 2);
    assert_eq!(merged.retry_duration.sum_ms, 20_100);

    let mut other_way = b.snapshot();
    other_way.merge(&a.snapshot());
    assert_eq!(other_way, merged);
}

#[test]
fn snapshot_round_trips_exactly() {
    let mut m = Metrics::default();
    m.on_attempt(t(1), false);
    m.on_retry_scheduled(t(2));
    m.on_attempt(t(3), true);
    m.on_call_finished(t(4), finished(1, CallOutcome::Success, 3));
    m.set_breaker(BreakerGauge::HalfOpen);
    let snapshot = m.snapshot();
    let json = crate::schema::json::text(&snapshot);
    let back: MetricsSnapshot = crate::schema::json::read(&json).unwrap();
    assert_eq!(back, snapshot);
    assert_eq!(crate::schema::json::text(&back), json);
}

#[test]
fn whole_metrics_state_round_trips() {
    let mut m = Metrics::default();
    m.on_attempt(t(1), false);
    m.set_breaker(BreakerGauge::Open);
    m.evaluate(t(2));
    let json = crate::state::write_snapshot(&m);
    let mut back: Metrics = crate::state::read_snapshot(&json).unwrap();
    assert_eq!(back, m);
    assert!(back.poll_event().is_some());
}

#[test]
fn time_going_backwards_is_clamped() {
    let mut m = Metrics::default();
    m.on_attempt(t(1_000), false);
    m.on_attempt(t(10), false);
    assert_eq!(m.snapshot().as_of_ms, 1_000);
    m.set_breaker(BreakerGauge::Open);
    m.evaluate(t(5));
    match m.poll_event() {
        Some(RecordEvent::AlertChanged { at, .. }) => assert_eq!(at, t(1_000)),
        other => panic!("unexpected {other:?}"),
    }
}
