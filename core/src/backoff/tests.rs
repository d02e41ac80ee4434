//! Unit tests of `backoff`.

use super::*;
use crate::error::ConfigErrorCode;
use proptest::prelude::{any, prop, prop_assert, prop_assert_eq, prop_oneof, proptest, Just};
use proptest::strategy::Strategy as PropStrategy;

fn spec(strategy: Strategy, base_ms: u64, cap_ms: u64, multiplier: f64) -> BackoffSpec {
    BackoffSpec {
        strategy,
        base_ms,
        cap_ms,
        multiplier,
    }
}

fn ceilings(s: &BackoffSpec, retries: std::ops::RangeInclusive<u32>) -> Vec<u64> {
    retries.map(|k| s.ceiling_ms(k)).collect()
}

#[test]
fn codes_round_trip_and_match_serde() {
    let codes: Vec<&str> = Strategy::ALL.iter().map(Strategy::code).collect();
    assert_eq!(
        codes,
        [
            "none",
            "constant",
            "linear",
            "exponential",
            "full_jitter",
            "equal_jitter",
            "decorrelated_jitter"
        ]
    );
    for s in Strategy::ALL {
        assert_eq!(Strategy::from_code(s.code()), Some(s));
        #[cfg(feature = "serde")]
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            format!("\"{}\"", s.code())
        );
    }
    assert_eq!(Strategy::from_code("Full_Jitter"), None);
    assert_eq!(Strategy::from_code(""), None);
    let jittered: Vec<Strategy> = Strategy::ALL
        .into_iter()
        .filter(Strategy::is_jittered)
        .collect();
    assert_eq!(
        jittered,
        [
            Strategy::FullJitter,
            Strategy::EqualJitter,
            Strategy::DecorrelatedJitter
        ]
    );
}

#[test]
fn default_is_seed_schedule_with_full_jitter() {
    let d = BackoffSpec::default();
    assert_eq!(d, spec(Strategy::FullJitter, 1000, 30_000, 2.0));
    assert_eq!(d.validate(), Ok(()));
    assert_eq!(
        ceilings(&d, 1..=7),
        [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]
    );
}

#[test]
fn json_shape_defaults_and_rejects_unknown_fields() {
    use crate::schema::json;
    let s: BackoffSpec = json::read(r#"{"strategy":"linear","base_ms":500}"#).unwrap();
    assert_eq!(s, spec(Strategy::Linear, 500, 30_000, 2.0));
    assert!(json::read::<BackoffSpec>(r#"{"base":500}"#).is_err());
    assert!(json::read::<BackoffSpec>(r#"{"strategy":"jitter"}"#).is_err());
    let json = json::text(&BackoffSpec::default());
    assert_eq!(
        json,
        r#"{"strategy":"full_jitter","base_ms":1000,"cap_ms":30000,"multiplier":2.0}"#
    );
}

#[test]
fn validate_names_fields_with_prefix() {
    let bad_mult = spec(Strategy::Exponential, 1000, 30_000, 0.5);
    let err = bad_mult.validate().unwrap_err();
    assert_eq!(err.code(), ConfigErrorCode::OutOfRange);
    assert_eq!(err.field(), "multiplier");
    assert_eq!(bad_mult.validate().unwrap_err().field(), "multiplier");
    assert_eq!(bad_mult.validate().unwrap_err().field(), "multiplier");
}

#[test]
fn validate_rejects_each_bad_field() {
    let cases: [(BackoffSpec, ConfigErrorCode, &str); 9] = [
        (
            spec(Strategy::None, 1, 2, f64::NAN),
            ConfigErrorCode::OutOfRange,
            "multiplier",
        ),
        (
            spec(Strategy::None, 1, 2, f64::INFINITY),
            ConfigErrorCode::OutOfRange,
            "multiplier",
        ),
        (
            spec(Strategy::None, 1, 2, -2.0),
            ConfigErrorCode::OutOfRange,
            "multiplier",
        ),
        (
            spec(Strategy::None, 1, 2, 0.999_999),
            ConfigErrorCode::OutOfRange,
            "multiplier",
        ),
        (
            spec(Strategy::None, 1, 2, 1_000.000_1),
            ConfigErrorCode::OutOfRange,
            "multiplier",
        ),
        (
            spec(Strategy::None, 10, 9, 2.0),
            ConfigErrorCode::Inconsistent,
            "cap_ms",
        ),
        (
            spec(Strategy::None, MAX_DELAY_MS + 1, MAX_DELAY_MS + 1, 2.0),
            ConfigErrorCode::OutOfRange,
            "base_ms",
        ),
        (
            spec(Strategy::None, 0, MAX_DELAY_MS + 1, 2.0),
            ConfigErrorCode::OutOfRange,
            "cap_ms",
        ),
        (
            spec(Strategy::None, 0, u64::MAX, f64::NAN),
            ConfigErrorCode::OutOfRange,
            "cap_ms",
        ),
    ];
    for (s, code, field) in cases {
        let err = s.validate().unwrap_err();
        assert_eq!((err.code(), err.field()), (code, field), "{s:?}");
    }
    for ok in [
        spec(Strategy::None, 0, 0, 1.0),
        spec(Strategy::None, 5, 5, 1000.0),
        spec(Strategy::None, MAX_DELAY_MS, MAX_DELAY_MS, 1.5),
    ] {
        assert_eq!(ok.validate(), Ok(()), "{ok:?}");
    }
}

#[test]
fn ceilings_of_the_plain_strategies() {
    let exp = spec(Strategy::Exponential, 1000, 30_000, 2.0);
    assert_eq!(
        ceilings(&exp, 0..=7),
        [1000, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]
    );
    let lin = spec(Strategy::Linear, 1000, 30_000, 2.0);
    assert_eq!(ceilings(&lin, 1..=4), [1000, 2000, 3000, 4000]);
    assert_eq!(lin.ceiling_ms(31), 30_000);
    assert_eq!(lin.ceiling_ms(u32::MAX), 30_000);
    let con = spec(Strategy::Constant, 250, 30_000, 2.0);
    assert_eq!(ceilings(&con, 1..=3), [250, 250, 250]);
    let none = spec(Strategy::None, 1000, 30_000, 2.0);
    assert_eq!(ceilings(&none, 1..=3), [0, 0, 0]);
    let dec = spec(Strategy::DecorrelatedJitter, 1000, 30_000, 2.0);
    assert_eq!(ceilings(&dec, 1..=3), [1000, 1000, 1000]);
}

#[test]
fn exponential_floors_non_integral_products() {
    let s = spec(Strategy::Exponential, 1000, 30_000, 1.5);
    assert_eq!(
        ceilings(&s, 1..=10),
        [1000, 1500, 2250, 3375, 5062, 7593, 11_390, 17_085, 25_628, 30_000]
    );
    // gRPC connection backoff (1 s * 1.6^n, cap 120 s). 1.6 is slightly above
    // 8/5 as a double, so exact products like 2560 stay 2560 after flooring.
    let g = spec(Strategy::Exponential, 1000, 120_000, 1.6);
    assert_eq!(
        ceilings(&g, 1..=12),
        [1000, 1600, 2560, 4096, 6553, 10_485, 16_777, 26_843, 42_949, 68_719, 109_951, 120_000]
    );
}

#[test]
fn exponential_handles_extremes_without_overflow() {
    let s = spec(Strategy::Exponential, 1000, 30_000, 2.0);
    assert_eq!(s.ceiling_ms(4_000_000_000), 30_000);
    assert_eq!(s.ceiling_ms(u32::MAX), 30_000);
    // Unvalidated specs: still no panic, still capped.
    let wild = spec(Strategy::Exponential, u64::MAX, u64::MAX, f64::INFINITY);
    assert_eq!(wild.ceiling_ms(1), u64::MAX);
    assert_eq!(wild.ceiling_ms(2), u64::MAX);
    let huge = spec(Strategy::Exponential, 3, u64::MAX, 1e300);
    assert_eq!(huge.ceiling_ms(2), u64::MAX);
    let nan = spec(Strategy::Exponential, 1000, 30_000, f64::NAN);
    assert_eq!(ceilings(&nan, 1..=3), [1000, 1000, 1000]);
    let shrinking = spec(Strategy::Exponential, 1000, 30_000, 0.5);
    assert_eq!(ceilings(&shrinking, 1..=3), [1000, 1000, 1000]);
    let zero_base = spec(Strategy::Exponential, 0, 30_000, 1000.0);
    assert_eq!(zero_base.ceiling_ms(u32::MAX), 0);
    let inverted = spec(Strategy::Exponential, 5000, 100, 2.0);
    assert_eq!(ceilings(&inverted, 1..=3), [100, 100, 100]);
    // Close to 2^64 without a cap in the way: exact powers of two.
    let big = spec(Strategy::Exponential, 1, u64::MAX, 2.0);
    assert_eq!(big.ceiling_ms(64), 1 << 63);
    assert_eq!(big.ceiling_ms(65), u64::MAX);
}

#[test]
fn exponential_with_multiplier_barely_above_one_grows_slowly() {
    let m = 1.0 + f64::EPSILON; // 1 + 2^-52
    let s = spec(Strategy::Exponential, MAX_DELAY_MS, MAX_DELAY_MS, m);
    assert_eq!(s.ceiling_ms(u32::MAX), MAX_DELAY_MS);
    let s = spec(Strategy::Exponential, 1 << 40, u64::MAX, m);
    // (1 + 2^-52)^(2^32 - 2) * 2^40 = 2^40 * (1 + ~2^-20): 2^40 + ~2^20.
    let v = s.ceiling_ms(u32::MAX);
    assert!(
        v > (1 << 40) + (1 << 19) && v < (1 << 40) + (1 << 21),
        "{v}"
    );
}

#[test]
fn plain_strategies_draw_nothing_jittered_draw_one() {
    for strategy in Strategy::ALL {
        let mut b = Backoff::new(spec(strategy, 100, 10_000, 2.0));
        let mut rng = SplitMix64::new(9);
        let mut shadow = SplitMix64::new(9);
        for k in 1..=6 {
            let _ = b.delay_ms(k, &mut rng);
            if strategy.is_jittered() {
                shadow.next_u64();
            }
            assert_eq!(rng, shadow, "{strategy:?} retry {k}");
        }
    }
}

#[test]
fn full_jitter_is_range_inclusive_of_the_ceiling() {
    let s = spec(Strategy::FullJitter, 1000, 30_000, 2.0);
    let mut b = Backoff::new(s);
    let mut rng = SplitMix64::new(42);
    let mut shadow = SplitMix64::new(42);
    for k in 1..=8 {
        let expected = shadow.range_inclusive(0, s.ceiling_ms(k));
        assert_eq!(b.delay_ms(k, &mut rng), expected);
    }
    // Hand-checked against the reference: seed 0's first output
    // 0xE220A8397B1DCDAF * 1001 >> 64 = 884.
    let mut b = Backoff::new(s);
    assert_eq!(b.delay_ms(1, &mut SplitMix64::new(0)), 884);
}

#[test]
fn equal_jitter_spans_upper_half() {
    let s = spec(Strategy::EqualJitter, 1001, 30_000, 2.0);
    let mut b = Backoff::new(s);
    let mut rng = SplitMix64::new(5);
    let (mut lo, mut hi) = (u64::MAX, 0);
    for _ in 0..5000 {
        let d = b.delay_ms(1, &mut rng);
        lo = lo.min(d);
        hi = hi.max(d);
    }
    assert_eq!((lo, hi), (500, 1001));
}

#[test]
fn decorrelated_grows_from_its_previous_delay_and_resets() {
    let s = spec(Strategy::DecorrelatedJitter, 100, 1_000_000, 2.0);
    let mut b = Backoff::new(s);
    let mut rng = SplitMix64::new(77);
    let mut shadow = SplitMix64::new(77);
    let mut prev = 100;
    for k in 1..=10 {
        let expected = shadow
            .range_inclusive(100, (prev * 3).max(100))
            .min(1_000_000);
        let got = b.delay_ms(k, &mut rng);
        assert_eq!(got, expected, "retry {k}");
        prev = got;
    }
    // retry 1 starts over from base whatever the history.
    let expected = shadow.range_inclusive(100, 300);
    assert_eq!(b.delay_ms(1, &mut rng), expected);
    // retry 0 also resets.
    let mut big = Backoff::new(s);
    big.prev_ms = 999_999;
    assert!(big.delay_ms(0, &mut rng) <= 300);
}

#[test]
fn decorrelated_respects_cap() {
    let s = spec(Strategy::DecorrelatedJitter, 1000, 3000, 2.0);
    let mut b = Backoff::new(s);
    let mut rng = SplitMix64::new(1);
    let mut hit_cap = false;
    for k in 1..200 {
        let d = b.delay_ms(k, &mut rng);
        assert!((1000..=3000).contains(&d));
        hit_cap |= d == 3000;
    }
    assert!(hit_cap);
}

#[test]
fn full_jitter_mean_is_half_the_ceiling() {
    let s = spec(Strategy::FullJitter, 1000, 30_000, 2.0);
    let mut b = SeededBackoff::new(s, 2024).unwrap();
    let n = 10_000_u64;
    let total: u64 = (0..n).map(|_| b.delay_ms(1)).sum();
    let mean = total / n;
    assert!((460..=540).contains(&mean), "mean {mean}");
}

#[test]
fn seeded_backoff_validates_with_bare_fields() {
    let err = SeededBackoff::new(spec(Strategy::Linear, 10, 5, 2.0), 1).unwrap_err();
    assert_eq!(
        (err.code(), err.field()),
        (ConfigErrorCode::Inconsistent, "cap_ms")
    );
    let mut ok = SeededBackoff::new(BackoffSpec::default(), 1).unwrap();
    assert_eq!(ok.spec(), &BackoffSpec::default());
    let mut manual = Backoff::new(BackoffSpec::default());
    let mut rng = SplitMix64::new(1);
    for k in 1..=5 {
        assert_eq!(ok.delay_ms(k), manual.delay_ms(k, &mut rng));
    }
}

fn any_strategy() -> impl PropStrategy<Value = Strategy> {
    prop::sample::select(Strategy::ALL.to_vec())
}

fn any_multiplier() -> impl PropStrategy<Value = f64> {
    prop_oneof![
        Just(1.0),
        Just(2.0),
        Just(1.5),
        1.0..=1000.0_f64,
        1.0..=1.001_f64,
        (0_u64..1 << 20).prop_map(|ulps| 1.0 + ulps as f64 * f64::EPSILON),
    ]
}

fn valid_spec() -> impl PropStrategy<Value = BackoffSpec> {
    (
        any_strategy(),
        0..=MAX_DELAY_MS,
        0..=MAX_DELAY_MS,
        any_multiplier(),
    )
        .prop_map(|(strategy, a, b, multiplier)| spec(strategy, a.min(b), a.max(b), multiplier))
}

fn any_spec() -> impl PropStrategy<Value = BackoffSpec> {
    let mult = prop_oneof![
        any::<f64>(),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        any_multiplier()
    ];
    (any_strategy(), any::<u64>(), any::<u64>(), mult)
        .prop_map(|(strategy, base, cap, multiplier)| spec(strategy, base, cap, multiplier))
}

fn retry() -> impl PropStrategy<Value = u32> {
    prop_oneof![0_u32..64, any::<u32>()]
}

proptest! {
    #[test]
    fn validate_never_panics(s in any_spec()) {
        let _ = s.validate();
        let _ = s.validate();
    }

    #[test]
    fn any_spec_stays_under_cap(s in any_spec(), seed: u64, retries in prop::collection::vec(retry(), 1..20)) {
        // Even specs that fail validation never panic or exceed the cap.
        let mut b = Backoff::new(s);
        let mut rng = SplitMix64::new(seed);
        for k in retries {
            prop_assert!(s.ceiling_ms(k) <= s.cap_ms);
            prop_assert!(b.delay_ms(k, &mut rng) <= s.cap_ms);
        }
    }

    #[test]
    fn valid_delays_stay_between_floor_and_cap(
        s in valid_spec(), seed: u64, retries in prop::collection::vec(retry(), 1..30)
    ) {
        prop_assert_eq!(s.validate(), Ok(()));
        let mut b = SeededBackoff::new(s, seed).unwrap();
        for k in retries {
            let c = s.ceiling_ms(k);
            let d = b.delay_ms(k);
            prop_assert!(c <= s.cap_ms);
            prop_assert!(d <= s.cap_ms);
            match s.strategy {
                Strategy::None => prop_assert_eq!(d, 0),
                Strategy::Constant
                | Strategy::Linear
                | Strategy::Exponential => prop_assert_eq!(d, c),
                Strategy::FullJitter => prop_assert!(d <= c),
                Strategy::EqualJitter => prop_assert!(d >= c / 2 && d <= c),
                Strategy::DecorrelatedJitter => {
                    prop_assert!(d >= s.base_ms.min(s.cap_ms));
                }
            }
        }
    }

    #[test]
    fn same_seed_same_sequence(
        s in valid_spec(), seed: u64, retries in prop::collection::vec(retry(), 1..30)
    ) {
        let mut a = SeededBackoff::new(s, seed).unwrap();
        let mut b = SeededBackoff::new(s, seed).unwrap();
        let first: Vec<u64> = retries.iter().map(|&k| a.delay_ms(k)).collect();
        let second: Vec<u64> = retries.iter().map(|&k| b.delay_ms(k)).collect();
        prop_assert_eq!(first, second);
    }

    /// With the `serde` feature (no host snapshots a standalone backoff).
    #[cfg(feature = "serde")]
    #[test]
    fn snapshot_resumes_the_same_sequence(
        s in valid_spec(),
        dyadic in 0_u32..=999 * 1024,
        seed: u64,
        retries in prop::collection::vec(retry(), 1..30),
        cut in 0_usize..30,
    ) {
        // Multipliers with a short exact decimal form: serde_json (without its
        // `float_roundtrip` feature) may parse other doubles one ulp off, which
        // would change the spec itself, not the resumed state under test.
        let s = BackoffSpec { multiplier: 1.0 + f64::from(dyadic) / 1024.0, ..s };
        let mut a = SeededBackoff::new(s, seed).unwrap();
        let mut b = SeededBackoff::new(s, seed).unwrap();
        let first: Vec<u64> = retries.iter().map(|&k| a.delay_ms(k)).collect();
        // Snapshot b part-way through (as a host would) and resume from JSON.
        let cut = cut.min(retries.len());
        let mut second: Vec<u64> = retries[..cut].iter().map(|&k| b.delay_ms(k)).collect();
        let json = serde_json::to_string(&b).unwrap();
        let mut resumed: SeededBackoff = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(&resumed, &b);
        second.extend(retries[cut..].iter().map(|&k| resumed.delay_ms(k)));
        prop_assert_eq!(first, second);
    }

    #[test]
    fn ceiling_is_monotone_in_retry(s in valid_spec(), k1 in retry(), k2 in retry()) {
        let (lo, hi) = (k1.min(k2), k1.max(k2));
        for strategy in [Strategy::Linear, Strategy::Exponential] {
            let s = BackoffSpec { strategy, ..s };
            prop_assert!(s.ceiling_ms(lo) <= s.ceiling_ms(hi), "{:?} {} {}", s, lo, hi);
            prop_assert!(s.ceiling_ms(hi) <= s.ceiling_ms(hi.saturating_add(1)));
        }
    }

    #[test]
    fn exponential_ceiling_matches_f64_where_f64_is_exact(
        base in 0_u64..=1 << 20, shift in 0_u32..=10, k in 1_u32..=40
    ) {
        // Power-of-two multipliers: every product is exact in f64.
        let m = f64::from(1_u32 << shift);
        let s = spec(Strategy::Exponential, base, MAX_DELAY_MS, m);
        let exact = (base as f64) * m.powi(k as i32 - 1);
        let expected = if exact >= MAX_DELAY_MS as f64 { MAX_DELAY_MS } else { exact as u64 };
        prop_assert_eq!(s.ceiling_ms(k), expected);
    }
}
