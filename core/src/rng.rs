//! A small seeded PRNG: SplitMix64.
//!
//! The core never draws OS randomness; the host passes a seed in and every
//! random choice (jitter, mostly) comes from this generator. It is part of the
//! wire contract: the same seed gives the same numbers in Rust, JavaScript and
//! Python, so a decision recorded in one language replays in another.
//!
//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014; the variant in Vigna's `splitmix64.c`) was chosen
//! because it is tiny, has a 64-bit state that serializes as one number, passes
//! BigCrush, and is trivial to re-implement in any language with 64-bit
//! wrapping arithmetic. It is not cryptographic and must not be used for keys.
//!
//! Every method documents how many outputs of [`SplitMix64::next_u64`] it
//! consumes, because that count is also part of the contract: a helper that
//! drew one extra number would shift every later decision.

/// The SplitMix64 increment ("golden gamma"), `floor(2^64 / phi)`, odd.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
/// First multiplier of the output mix (Stafford's "Mix13" variant).
const MIX1: u64 = 0xBF58_476D_1CE4_E5B9;
/// Second multiplier of the output mix.
const MIX2: u64 = 0x94D0_49BB_1331_11EB;
/// `2^-53`: scales a 53-bit integer into `[0, 1)` exactly.
const F64_UNIT: f64 = 1.0 / 9_007_199_254_740_992.0;

/// A SplitMix64 generator: a 64-bit counter advanced by the golden gamma and mixed on
/// output.
///
/// The whole state is one `u64` so a host can snapshot it (with the `serde`
/// feature) and resume a call's random stream exactly where it left off.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`. Every seed is valid, including 0 (the
    /// state is a counter, so there is no all-zero trap state).
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64-bit output. Consumes one output (by definition).
    ///
    /// `state += GAMMA; z = state; z = (z ^ z>>30) * MIX1; z = (z ^ z>>27) * MIX2;
    /// return z ^ z>>31`, all wrapping.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(MIX1);
        z = (z ^ (z >> 27)).wrapping_mul(MIX2);
        z ^ (z >> 31)
    }

    /// A uniform integer in `[0, n)` by multiply-shift (Lemire's method without
    /// the rejection step): `(next_u64() * n) >> 64` in 128-bit arithmetic.
    ///
    /// Multiply-shift was chosen over modulo or rejection because it draws a
    /// fixed number of outputs (always exactly one, even for `n = 0` and
    /// `n = 1`), which keeps streams aligned across languages. Its bias is at
    /// most `n / 2^64`, far below anything a backoff delay can show.
    /// `below(0)` returns 0.
    pub fn below(&mut self, n: u64) -> u64 {
        mul_shift(self.next_u64(), u128::from(n))
    }

    /// A uniform integer in `[lo, hi]`, both ends included. Consumes exactly one
    /// output.
    ///
    /// If `lo > hi` the bounds are swapped, so the result is always between
    /// the two arguments (a misordered range is harmless, not an error). The
    /// full range `[0, u64::MAX]` works: the width `hi - lo + 1` is computed in
    /// 128 bits, so nothing overflows, and then the result is `next_u64()`
    /// itself.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
        let width = u128::from(hi - lo) + 1;
        // offset <= hi - lo, so lo + offset <= hi: no overflow.
        lo + mul_shift(self.next_u64(), width)
    }

    /// A uniform `f64` in `[0, 1)`: the top 53 bits of one output times `2^-53`.
    /// Consumes exactly one output. Every result is a multiple of `2^-53`, so it
    /// is exact in every language's doubles.
    pub fn next_f64(&mut self) -> f64 {
        // A 53-bit integer converts to f64 exactly.
        (self.next_u64() >> 11) as f64 * F64_UNIT
    }

    /// Fills `out` with random bytes: each 8-byte chunk is one output in
    /// little-endian order; a final partial chunk takes the low bytes of one
    /// more output (that output is consumed whole). Consumes
    /// `ceil(out.len() / 8)` outputs.
    pub fn fill_bytes(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            for (dst, src) in chunk.iter_mut().zip(bytes.iter()) {
                *dst = *src;
            }
        }
    }

    /// A child generator seeded with this generator's next output. Consumes
    /// exactly one output.
    ///
    /// Used to give each logical call its own stream: a policy keeps one
    /// parent, each call splits a child, and the number of draws one call
    /// makes never shifts the numbers another call sees.
    #[must_use]
    pub fn split(&mut self) -> SplitMix64 {
        SplitMix64::new(self.next_u64())
    }
}

/// `(x * width) >> 64` in 128 bits. `width <= 2^64`, so the product fits and
/// the result is `< width`, which also fits a `u64`.
fn mul_shift(x: u64, width: u128) -> u64 {
    ((u128::from(x) * width) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    // Outputs of the reference C implementation (Vigna, splitmix64.c),
    // re-checked with an independent Python implementation before being pasted.
    const SEED_0: [u64; 5] = [
        0xE220_A839_7B1D_CDAF,
        0x6E78_9E6A_A1B9_65F4,
        0x06C4_5D18_8009_454F,
        0xF88B_B8A8_724C_81EC,
        0x1B39_896A_51A8_749B,
    ];
    const SEED_1234567: [u64; 5] = [
        6_457_827_717_110_365_317,
        3_203_168_211_198_807_973,
        9_817_491_932_198_370_423,
        4_593_380_528_125_082_431,
        16_408_922_859_458_223_821,
    ];

    #[test]
    fn reference_outputs_seed_0() {
        let mut rng = SplitMix64::new(0);
        let got: Vec<u64> = (0..5).map(|_| rng.next_u64()).collect();
        assert_eq!(got, SEED_0);
    }

    #[test]
    fn reference_outputs_seed_1234567() {
        let mut rng = SplitMix64::new(1_234_567);
        let got: Vec<u64> = (0..5).map(|_| rng.next_u64()).collect();
        assert_eq!(got, SEED_1234567);
    }

    #[test]
    fn below_is_multiply_shift_of_one_output() {
        let mut a = SplitMix64::new(0);
        let mut b = SplitMix64::new(0);
        for n in [0_u64, 1, 2, 3, 10, 1000, u64::MAX] {
            let x = b.next_u64();
            let expected = ((u128::from(x) * u128::from(n)) >> 64) as u64;
            assert_eq!(a.below(n), expected, "n = {n}");
        }
        // Hand-checked: seed 0's first output 0xE220A8397B1DCDAF * 1000 >> 64 = 883.
        assert_eq!(SplitMix64::new(0).below(1000), 883);
        assert_eq!(
            a, b,
            "below must consume exactly one output, even for 0 and 1"
        );
    }

    #[test]
    fn below_zero_and_one_are_zero() {
        let mut rng = SplitMix64::new(99);
        for _ in 0..100 {
            assert_eq!(rng.below(0), 0);
            assert_eq!(rng.below(1), 0);
        }
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = SplitMix64::new(7);
        for n in 1..200_u64 {
            for _ in 0..20 {
                assert!(rng.below(n) < n);
            }
        }
    }

    #[test]
    fn range_inclusive_reaches_both_ends() {
        let mut rng = SplitMix64::new(3);
        let mut seen = [false; 4];
        for _ in 0..1000 {
            let v = rng.range_inclusive(10, 13);
            assert!((10..=13).contains(&v));
            seen[(v - 10) as usize] = true;
        }
        assert_eq!(seen, [true; 4]);
    }

    #[test]
    fn range_inclusive_swaps_misordered_bounds() {
        let mut a = SplitMix64::new(11);
        let mut b = SplitMix64::new(11);
        for _ in 0..100 {
            assert_eq!(a.range_inclusive(50, 20), b.range_inclusive(20, 50));
        }
    }

    #[test]
    fn range_inclusive_full_width_is_the_raw_output() {
        let mut a = SplitMix64::new(5);
        let mut b = SplitMix64::new(5);
        for _ in 0..10 {
            assert_eq!(a.range_inclusive(0, u64::MAX), b.next_u64());
        }
        let mut c = SplitMix64::new(5);
        for _ in 0..100 {
            let v = c.range_inclusive(u64::MAX - 1, u64::MAX);
            assert!(v >= u64::MAX - 1);
            assert_eq!(c.range_inclusive(u64::MAX, u64::MAX), u64::MAX);
        }
    }

    #[test]
    fn next_f64_is_top_53_bits() {
        let mut a = SplitMix64::new(0);
        let v = a.next_f64();
        assert_eq!(v, (SEED_0[0] >> 11) as f64 / 9_007_199_254_740_992.0);
        let mut rng = SplitMix64::new(21);
        for _ in 0..10_000 {
            let f = rng.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
    }

    #[test]
    fn fill_bytes_is_little_endian_chunks() {
        let mut rng = SplitMix64::new(0);
        let mut out = [0_u8; 11];
        rng.fill_bytes(&mut out);
        assert_eq!(out[..8], SEED_0[0].to_le_bytes());
        assert_eq!(out[8..], SEED_0[1].to_le_bytes()[..3]);
        // The partial chunk consumed a whole output.
        assert_eq!(rng.next_u64(), SEED_0[2]);
        let mut empty: [u8; 0] = [];
        let mut untouched = SplitMix64::new(0);
        untouched.fill_bytes(&mut empty);
        assert_eq!(untouched, SplitMix64::new(0));
    }

    #[test]
    fn split_seeds_child_with_next_output() {
        let mut parent = SplitMix64::new(1_234_567);
        let mut child = parent.split();
        assert_eq!(child, SplitMix64::new(SEED_1234567[0]));
        assert_eq!(parent.next_u64(), SEED_1234567[1]);
        assert_ne!(child.next_u64(), SEED_1234567[2]);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trip_resumes_the_stream() {
        let mut rng = SplitMix64::new(42);
        rng.next_u64();
        let json = serde_json::to_string(&rng).unwrap();
        assert_eq!(json, r#"{"state":11400714819323198527}"#);
        let mut back: SplitMix64 = serde_json::from_str(&json).unwrap();
        assert_eq!(back.next_u64(), rng.next_u64());
    }
}
