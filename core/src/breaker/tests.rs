use super::*;

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

fn fail(b: &mut Breaker, t: u64) -> Result<(), Rejected> {
    let p = b.try_acquire(at(t))?;
    b.on_failure(at(t), p, 0);
    Ok(())
}

fn succeed(b: &mut Breaker, t: u64, duration_ms: u64) -> Result<(), Rejected> {
    let p = b.try_acquire(at(t))?;
    b.on_success(at(t), p, duration_ms);
    Ok(())
}

fn drain(b: &mut Breaker) -> Vec<(BreakerStateCode, BreakerStateCode, u64, TransitionReason)> {
    std::iter::from_fn(|| b.poll_transition())
        .map(|t| (t.from, t.to, t.at.as_millis(), t.reason))
        .collect()
}

fn rate_config(window: Window, rate: f64, min: u32, compare: Compare) -> BreakerConfig {
    BreakerConfig {
        trip: TripRule::FailureRate {
            window,
            failure_rate: rate,
            minimum_throughput: min,
            compare,
            slow_call: None,
        },
        cooldown_ms: 1000,
        half_open: HalfOpenConfig {
            max_probes: 1,
            success_threshold: 1,
        },
    }
}

use BreakerStateCode::{Closed as C, HalfOpen as H, Open as O};

#[test]
fn seed_defaults_full_cycle() {
    let mut b = Breaker::new(BreakerConfig::default());
    for _ in 0..4 {
        fail(&mut b, 0).unwrap();
    }
    assert_eq!(
        b.state(),
        &BreakerState::Closed {
            consecutive_failures: 4
        }
    );
    assert_eq!(b.next_timeout(), None);
    fail(&mut b, 10).unwrap();
    assert_eq!(
        b.state(),
        &BreakerState::Open {
            since: at(10),
            until: at(60_010)
        }
    );
    assert_eq!(b.next_timeout(), Some(at(60_010)));
    assert_eq!(
        drain(&mut b),
        vec![(C, O, 10, TransitionReason::ConsecutiveFailures)]
    );
    assert_eq!(
        b.try_acquire(at(60_009)),
        Err(Rejected {
            reason: RejectReason::CircuitOpen,
            retry_at: Some(at(60_010))
        })
    );
    assert_eq!(b.state_at(at(70_000)), O, "reading never transitions");
    let probe = b.try_acquire(at(60_010)).unwrap();
    assert!(probe.probe);
    assert_eq!(
        b.state(),
        &BreakerState::HalfOpen {
            probes_in_flight: 1,
            successes: 0
        }
    );
    assert_eq!(
        b.try_acquire(at(60_011)),
        Err(Rejected {
            reason: RejectReason::HalfOpenFull,
            retry_at: None
        })
    );
    assert!(b.on_success(at(60_020), probe, 5));
    assert_eq!(
        b.state(),
        &BreakerState::HalfOpen {
            probes_in_flight: 0,
            successes: 1
        }
    );
    succeed(&mut b, 60_030, 5).unwrap();
    assert_eq!(
        b.state(),
        &BreakerState::Closed {
            consecutive_failures: 0
        }
    );
    assert_eq!(
        drain(&mut b),
        vec![
            (O, H, 60_010, TransitionReason::CooldownElapsed),
            (H, C, 60_030, TransitionReason::ProbesSucceeded)
        ]
    );
}

#[test]
fn half_open_failure_reopens_with_a_fresh_cooldown() {
    let mut b = Breaker::new(BreakerConfig::default());
    for _ in 0..5 {
        fail(&mut b, 0).unwrap();
    }
    let probe = b.try_acquire(at(60_000)).unwrap();
    b.on_failure(at(61_000), probe, 0);
    assert_eq!(
        b.state(),
        &BreakerState::Open {
            since: at(61_000),
            until: at(121_000)
        }
    );
    assert_eq!(
        b.try_acquire(at(120_999)).unwrap_err().retry_at,
        Some(at(121_000))
    );
    assert!(b.try_acquire(at(121_000)).is_ok());
}

#[test]
fn ge_and_gt_differ_by_one_failure() {
    for (compare, trips_at) in [(Compare::Ge, 3), (Compare::Gt, 4)] {
        let mut b = Breaker::new(BreakerConfig {
            trip: TripRule::ConsecutiveFailures {
                threshold: 3,
                compare,
            },
            ..BreakerConfig::default()
        });
        for i in 1..=trips_at {
            assert_eq!(b.state_at(at(0)), C, "{compare:?} before failure {i}");
            fail(&mut b, 0).unwrap();
        }
        assert_eq!(b.state_at(at(0)), O, "{compare:?}");
    }
}

#[test]
fn success_resets_consecutive_failures() {
    let mut b = Breaker::new(BreakerConfig::default());
    for _ in 0..4 {
        fail(&mut b, 0).unwrap();
    }
    succeed(&mut b, 0, 0).unwrap();
    for _ in 0..4 {
        fail(&mut b, 0).unwrap();
    }
    assert_eq!(
        b.state(),
        &BreakerState::Closed {
            consecutive_failures: 4
        }
    );
}

#[test]
fn stale_generation_outcomes_are_ignored() {
    let mut b = Breaker::new(BreakerConfig {
        trip: TripRule::ConsecutiveFailures {
            threshold: 2,
            compare: Compare::Ge,
        },
        cooldown_ms: 100,
        half_open: HalfOpenConfig {
            max_probes: 2,
            success_threshold: 1,
        },
    });
    let old = b.try_acquire(at(0)).unwrap();
    fail(&mut b, 0).unwrap();
    fail(&mut b, 0).unwrap();
    let open = *b.state();
    assert!(!b.on_failure(at(50), old, 0));
    assert!(!b.on_success(at(50), old, 0));
    assert!(!b.release(old));
    assert_eq!(b.state(), &open, "a pre-trip call cannot move the cooldown");
    let probe = b.try_acquire(at(100)).unwrap();
    assert!(
        !b.on_failure(at(100), old, 0),
        "nor reopen a half-open breaker"
    );
    assert_eq!(
        b.state(),
        &BreakerState::HalfOpen {
            probes_in_flight: 1,
            successes: 0
        }
    );
    let second = b.try_acquire(at(100)).unwrap();
    assert!(b.on_success(at(101), probe, 0));
    assert_eq!(b.state_at(at(101)), C);
    assert!(
        !b.on_failure(at(102), second, 0),
        "a late probe cannot reopen a closed breaker"
    );
    assert_eq!(
        b.state(),
        &BreakerState::Closed {
            consecutive_failures: 0
        }
    );
}

#[test]
fn release_frees_a_probe_slot_and_records_nothing() {
    let mut b = Breaker::new(BreakerConfig::default());
    let closed = b.try_acquire(at(0)).unwrap();
    assert!(!b.release(closed));
    assert_eq!(
        b.state(),
        &BreakerState::Closed {
            consecutive_failures: 0
        }
    );
    for _ in 0..5 {
        fail(&mut b, 0).unwrap();
    }
    let probe = b.try_acquire(at(60_000)).unwrap();
    assert!(b.try_acquire(at(60_000)).is_err());
    assert!(b.release(probe));
    assert_eq!(
        b.state(),
        &BreakerState::HalfOpen {
            probes_in_flight: 0,
            successes: 0
        }
    );
    let forged = Permit {
        generation: b.generation(),
        id: 0,
        probe: false,
    };
    assert!(!b.release(forged));
    assert!(!b.on_failure(at(60_000), forged, 0));
    assert!(b.try_acquire(at(60_000)).is_ok());
}

#[test]
fn time_is_clamped() {
    let mut b = Breaker::new(BreakerConfig {
        trip: TripRule::ConsecutiveFailures {
            threshold: 1,
            compare: Compare::Ge,
        },
        cooldown_ms: 1000,
        ..BreakerConfig::default()
    });
    fail(&mut b, 10_000).unwrap();
    assert_eq!(b.try_acquire(at(0)).unwrap_err().retry_at, Some(at(11_000)));
    let probe = b.try_acquire(at(11_000)).unwrap();
    b.on_failure(at(500), probe, 0);
    assert_eq!(
        b.state(),
        &BreakerState::Open {
            since: at(11_000),
            until: at(12_000)
        }
    );
}

#[test]
fn the_far_future_neither_overflows_nor_freezes_the_clock() {
    let mut b = Breaker::new(BreakerConfig {
        trip: TripRule::ConsecutiveFailures {
            threshold: 1,
            compare: Compare::Ge,
        },
        cooldown_ms: MAX_MS,
        ..BreakerConfig::default()
    });
    let last = crate::time::MAX_READING_MS;
    fail(&mut b, last).unwrap();
    assert_eq!(b.next_timeout(), Some(at(last + MAX_MS)), "no overflow");
    // A reading past any clock's (a saturated infinity) is ignored: the
    // breaker is not fooled into thinking the cooldown is over.
    assert!(b.try_acquire(at(u64::MAX)).is_err());
}

#[test]
fn failure_rate_needs_minimum_throughput() {
    let cfg = rate_config(Window::Count { size: 10 }, 0.5, 4, Compare::Ge);
    let mut b = Breaker::new(cfg);
    for _ in 0..3 {
        fail(&mut b, 0).unwrap();
    }
    assert_eq!(b.state_at(at(0)), C);
    assert_eq!(
        b.window_counts(at(0)),
        Some(WindowCounts {
            calls: 3,
            failures: 3,
            slow: 0
        })
    );
    succeed(&mut b, 0, 0).unwrap(); // 3/4 >= 0.5, tripped by a success
    assert_eq!(b.state_at(at(0)), O);
    assert_eq!(
        drain(&mut b),
        vec![(C, O, 0, TransitionReason::FailureRate)]
    );
    assert_eq!(b.window_counts(at(0)), Some(WindowCounts::default()));
}

#[test]
fn slow_calls_trip_and_slow_probes_reopen() {
    let mut cfg = rate_config(Window::Count { size: 4 }, 1.0, 4, Compare::Ge);
    if let TripRule::FailureRate { slow_call, .. } = &mut cfg.trip {
        *slow_call = Some(SlowCall {
            duration_ms: 1000,
            rate: 0.5,
        });
    }
    let mut b = Breaker::new(cfg);
    succeed(&mut b, 0, 999).unwrap();
    succeed(&mut b, 0, 1000).unwrap();
    fail(&mut b, 0).unwrap();
    assert_eq!(
        b.window_counts(at(0)),
        Some(WindowCounts {
            calls: 3,
            failures: 1,
            slow: 1
        })
    );
    succeed(&mut b, 0, 5000).unwrap();
    assert_eq!(
        drain(&mut b),
        vec![(C, O, 0, TransitionReason::SlowCallRate)]
    );
    succeed(&mut b, 1000, 1500).unwrap();
    assert_eq!(
        drain(&mut b),
        vec![
            (O, H, 1000, TransitionReason::CooldownElapsed),
            (H, O, 1000, TransitionReason::ProbeSlow)
        ]
    );
    succeed(&mut b, 2000, 10).unwrap();
    assert_eq!(b.state_at(at(2000)), C);
}

#[test]
fn consecutive_rule_has_no_window() {
    let b = Breaker::new(BreakerConfig::default());
    assert_eq!(b.window_counts(at(0)), None);
}

#[test]
fn transition_queue_is_bounded() {
    let mut b = Breaker::new(BreakerConfig {
        trip: TripRule::ConsecutiveFailures {
            threshold: 1,
            compare: Compare::Ge,
        },
        cooldown_ms: 0,
        ..BreakerConfig::default()
    });
    for t in 0..20 {
        fail(&mut b, t).unwrap(); // closed -> open, then open -> half-open -> open
    }
    assert_eq!(b.transitions_dropped(), 39 - 16);
    assert_eq!(drain(&mut b).len(), MAX_QUEUED_TRANSITIONS);
    assert_eq!(b.poll_transition(), None);
}

#[test]
fn snapshot_round_trips_exactly() {
    let mut cfg = rate_config(
        Window::Time {
            duration_ms: 1000,
            buckets: 4,
        },
        0.5,
        3,
        Compare::Gt,
    );
    cfg.half_open.max_probes = 2;
    let mut b = Breaker::new(cfg);
    fail(&mut b, 0).unwrap();
    succeed(&mut b, 300, 0).unwrap();
    let text = crate::state::write_snapshot(&b);
    let mut back: Breaker = crate::state::read_snapshot(&text).unwrap();
    assert_eq!(back, b);
    assert_eq!(crate::state::write_snapshot(&back), text);
    for t in [400, 500, 600] {
        assert_eq!(fail(&mut back, t), fail(&mut b, t));
        assert_eq!(back, b);
    }
    assert_eq!(drain(&mut back), drain(&mut b));
}

#[test]
fn restore_validates() {
    let b = Breaker::new(BreakerConfig::default());
    let mut v =
        serde_json::from_str::<serde_json::Value>(&crate::state::write_snapshot(&b)).unwrap();
    v["config"]["half_open"]["max_probes"] = serde_json::json!(0);
    let err = crate::state::read_snapshot::<Breaker>(&v.to_string())
        .unwrap_err()
        .to_string();
    assert!(err.contains("half_open.max_probes"), "{err}");

    let mut v =
        serde_json::from_str::<serde_json::Value>(&crate::state::write_snapshot(&b)).unwrap();
    v["window"] = serde_json::json!({"kind": "count", "marks": []});
    assert!(crate::state::read_snapshot::<Breaker>(&v.to_string()).is_err());

    let mut v =
        serde_json::from_str::<serde_json::Value>(&crate::state::write_snapshot(&b)).unwrap();
    v["extra"] = serde_json::json!(1);
    assert!(crate::state::read_snapshot::<Breaker>(&v.to_string()).is_err());

    let cfg = rate_config(Window::Count { size: 2 }, 0.5, 2, Compare::Ge);
    let mut v = serde_json::from_str::<serde_json::Value>(&crate::state::write_snapshot(
        &Breaker::new(cfg),
    ))
    .unwrap();
    v["window"] = serde_json::json!({"kind": "count", "marks": ["err", "err", "ok"]});
    let restored: Breaker = crate::state::read_snapshot(&v.to_string()).unwrap();
    assert_eq!(
        restored.window_counts(at(0)),
        Some(WindowCounts {
            calls: 2,
            failures: 1,
            slow: 0
        }),
        "an oversized ring is trimmed to the window size"
    );
}

#[test]
fn merge_window_sums_time_buckets() {
    let cfg = rate_config(
        Window::Time {
            duration_ms: 4000,
            buckets: 4,
        },
        0.5,
        4,
        Compare::Ge,
    );
    let mut a = Breaker::new(cfg.clone());
    let mut b = Breaker::new(cfg.clone());
    succeed(&mut a, 0, 0).unwrap();
    fail(&mut a, 1000).unwrap();
    succeed(&mut b, 1500, 0).unwrap();
    succeed(&mut b, 2000, 0).unwrap();
    assert!(a.merge_window(&b));
    assert_eq!(
        a.window_counts(at(2000)),
        Some(WindowCounts {
            calls: 4,
            failures: 1,
            slow: 0
        })
    );
    fail(&mut a, 2000).unwrap(); // 2/5 < 0.5
    assert_eq!(a.state_at(at(2000)), C);
    let count = rate_config(Window::Count { size: 4 }, 0.5, 4, Compare::Ge);
    assert!(!Breaker::new(count.clone()).merge_window(&Breaker::new(count)));
    assert!(!a.merge_window(&Breaker::new(BreakerConfig::default())));
}

#[test]
fn a_permit_counts_once() {
    let mut b = Breaker::new(BreakerConfig {
        trip: TripRule::ConsecutiveFailures {
            threshold: 2,
            compare: Compare::Ge,
        },
        cooldown_ms: 1000,
        ..BreakerConfig::default()
    });
    let permit = b.try_acquire(at(0)).unwrap();
    assert!(b.on_failure(at(1), permit, 0));
    // Reported again, or under a serial number never issued: ignored.
    assert!(!b.on_failure(at(2), permit, 0));
    let forged = Permit {
        id: permit.id + 100,
        ..permit
    };
    assert!(!b.on_failure(at(2), forged, 0));
    assert_eq!(b.state_at(at(3)), BreakerStateCode::Closed);
}

#[test]
fn a_probe_handed_back_twice_frees_one_slot() {
    let mut b = Breaker::new(BreakerConfig {
        trip: TripRule::ConsecutiveFailures {
            threshold: 1,
            compare: Compare::Ge,
        },
        cooldown_ms: 1000,
        half_open: HalfOpenConfig {
            max_probes: 1,
            success_threshold: 2,
        },
    });
    fail(&mut b, 0).unwrap();
    let probe = b.try_acquire(at(1000)).unwrap();
    assert!(b.on_success(at(1001), probe, 0));
    // A second success report of the same probe must not close the breaker.
    assert!(!b.on_success(at(1002), probe, 0));
    assert_eq!(b.state_at(at(1003)), BreakerStateCode::HalfOpen);
    let second = b.try_acquire(at(1003)).unwrap();
    assert!(b.release(second));
    assert!(!b.release(second));
    assert!(b.try_acquire(at(1004)).is_ok());
    assert!(b.try_acquire(at(1004)).is_err());
}

#[test]
fn unreturned_permits_stay_bounded() {
    let mut b = Breaker::new(BreakerConfig::default());
    let first = b.try_acquire(at(0)).unwrap();
    for _ in 0..crate::serials::MAX_OPEN_SERIALS {
        b.try_acquire(at(0)).unwrap();
    }
    // The oldest was forgotten: its report is ignored, the newest counts.
    assert!(!b.on_success(at(1), first, 0));
    let last = b.try_acquire(at(1)).unwrap();
    assert!(b.on_success(at(2), last, 0));
}
