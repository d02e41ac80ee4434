//! The ring's unit tests, and a property test of its head-bucket cache.

use super::*;

fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}

#[test]
fn counts_expire_bucket_by_bucket() {
    let mut ring = BucketRing::new(1000, 3);
    ring.add(at(0), 1);
    ring.add(at(999), 1);
    ring.add(at(1500), 5);
    assert_eq!(ring.total(at(2999)), 7);
    // Bucket 0 leaves the window when bucket 3 starts.
    assert_eq!(ring.total(at(3000)), 5);
    assert_eq!(ring.total(at(3999)), 5);
    assert_eq!(ring.total(at(4000)), 0);
    assert_eq!(ring.window_ms(), 3000);
}

#[test]
fn recycled_slot_forgets_old_bucket() {
    let mut ring = BucketRing::new(10, 2);
    ring.add(at(0), 4); // bucket 0, slot 0
    ring.add(at(20), 1); // bucket 2, slot 0 again
    assert_eq!(ring.total(at(20)), 1);
    assert_eq!(ring.live_buckets(at(20)), vec![(2, 1)]);
}

#[test]
fn backwards_time_counts_in_newest_bucket() {
    let mut ring = BucketRing::new(10, 2);
    ring.add(at(50), 1); // bucket 5
    ring.add(at(0), 1); // clamped to bucket 5, must not recycle anything
    assert_eq!(ring.live_buckets(at(0)), vec![(5, 2)]);
    assert_eq!(ring.head(), 5);
}

#[test]
fn counts_saturate() {
    let mut ring = BucketRing::new(10, 2);
    ring.add(at(0), u64::MAX);
    ring.add(at(0), 1);
    ring.add(at(10), u64::MAX);
    assert_eq!(ring.total(at(10)), u64::MAX);
}

#[test]
fn extreme_times_do_not_overflow() {
    let mut ring = BucketRing::new(1, MAX_BUCKETS);
    ring.add(at(u64::MAX), 3);
    assert_eq!(ring.total(at(u64::MAX)), 3);
    assert_eq!(ring.total(at(0)), 3);
    let mut other = BucketRing::new(u64::MAX, 1);
    other.add(at(u64::MAX), 1);
    ring.merge(&other);
    other.merge(&ring);
}

#[test]
fn constructor_clamps_geometry() {
    let ring = BucketRing::new(0, 0);
    assert_eq!((ring.bucket_ms(), ring.buckets()), (1, 1));
    let ring = BucketRing::new(5, u32::MAX);
    assert_eq!(ring.buckets(), MAX_BUCKETS);
}

#[test]
fn merge_sums_per_bucket_and_drops_outside_newer_window() {
    let mut a = BucketRing::new(1000, 3);
    a.add(at(0), 1); // bucket 0
    a.add(at(1000), 2); // bucket 1
    let mut b = BucketRing::new(1000, 3);
    b.add(at(1500), 10); // bucket 1
    b.add(at(3000), 20); // bucket 3: b's window is buckets 1..=3
    a.merge(&b);
    assert_eq!(a.head(), 3);
    assert_eq!(a.live_buckets(at(3000)), vec![(1, 12), (3, 20)]);
    // Merging the other way gives the same counts.
    let mut a2 = BucketRing::new(1000, 3);
    a2.add(at(0), 1);
    a2.add(at(1000), 2);
    b.merge(&a2);
    assert_eq!(b.live_buckets(at(3000)), vec![(1, 12), (3, 20)]);
}

#[test]
fn merge_rebuckets_other_geometry_by_start_time() {
    let mut coarse = BucketRing::new(1000, 2);
    let mut fine = BucketRing::new(250, 8);
    fine.add(at(0), 1);
    fine.add(at(300), 1);
    fine.add(at(1200), 4);
    coarse.merge(&fine);
    assert_eq!(coarse.live_buckets(at(1200)), vec![(0, 2), (1, 4)]);
}

#[test]
fn serde_round_trip_and_rejects_bad_snapshots() {
    let mut ring = BucketRing::new(100, 4);
    ring.add(at(50), 2);
    ring.add(at(250), 3);
    let json = crate::state::write_snapshot(&ring);
    let back: BucketRing = crate::state::read_snapshot(&json).unwrap();
    assert_eq!(back, ring);
    let bad = [
        r#"{"bucket_ms":0,"head":0,"slots":[{"index":0,"count":0}]}"#,
        r#"{"bucket_ms":1,"head":0,"slots":[]}"#,
        r#"{"bucket_ms":1,"head":0,"slots":[{"index":5,"count":1}]}"#,
        r#"{"bucket_ms":1,"head":9,"slots":[{"index":0,"count":0},{"index":2,"count":1}]}"#,
    ];
    for text in bad {
        assert!(
            crate::state::read_snapshot::<BucketRing>(text).is_err(),
            "{text}"
        );
    }
}

/// The same ring with its head-bucket cache cleared: every step divides, as
/// the ring did before it had the cache.
fn dividing(ring: &BucketRing) -> BucketRing {
    BucketRing {
        span: HeadSpan::default(),
        ..ring.clone()
    }
}

/// A reading: mostly a small step forward (the same bucket again), some
/// steps back (a clock behind the head), some jumps (idle periods, huge
/// readings).
fn step() -> impl proptest::strategy::Strategy<Value = i64> {
    proptest::prop_oneof![
        6 => 0i64..40,
        2 => -60i64..0,
        1 => 0i64..5000,
        1 => proptest::strategy::Just(i64::MAX),
    ]
}

proptest::proptest! {
    /// A ring that finds the head bucket from its cache counts, totals and
    /// places every event exactly as one that divides on every step,
    /// through steps back, jumps, merges and snapshot round trips.
    #[test]
    fn cache_changes_nothing(
        bucket_ms in 1u64..50,
        buckets in 1u32..8,
        steps in proptest::collection::vec((step(), 0u8..6, 1u64..4), 1..120),
    ) {
        let mut cached = BucketRing::new(bucket_ms, buckets);
        let mut plain = cached.clone();
        let mut ms: u64 = 1_000;
        for (delta, op, n) in steps {
            ms = if delta == i64::MAX {
                u64::MAX - 10
            } else {
                ms.saturating_add_signed(delta)
            };
            let now = at(ms);
            plain = dividing(&plain);
            match op {
                0..=2 => {
                    cached.add(now, n);
                    plain.add(now, n);
                }
                3 => proptest::prop_assert_eq!(cached.total(now), plain.total(now)),
                4 => proptest::prop_assert_eq!(cached.bucket_of(now), ms / bucket_ms),
                _ => {
                    let mut other = BucketRing::new(bucket_ms.saturating_mul(n), buckets);
                    other.add(now, n);
                    cached.merge(&other);
                    plain.merge(&other);
                }
            }
            proptest::prop_assert_eq!(&cached, &plain);
            proptest::prop_assert_eq!(cached.live_buckets(now), plain.live_buckets(now));
        }
    }
}
