//! Backoff: how long to wait before retry `k`.
//!
//! Fixed delays synchronise clients that failed together and turn them into a
//! metronome hammering a struggling service; randomising the whole interval
//! ("full jitter", from the AWS Architecture Blog's "Exponential Backoff And
//! Jitter") spreads them out. So the default is full jitter, and the plain
//! strategies exist for tests, for callers that add their own jitter, and for
//! matching another library's schedule.
//!
//! Two layers:
//! - [`BackoffSpec::ceiling_ms`] is the un-jittered delay, a pure function of the
//!   spec and the retry number.
//! - [`Backoff::delay_ms`] applies jitter with a caller-supplied [`SplitMix64`],
//!   drawing **exactly one** number per call for the jittered strategies and
//!   none for the others, so one seed gives one schedule in every language.
//!   [`SeededBackoff`] bundles the two for the JS and Python helpers.
//!
//! Retries are numbered from 1 (the first retry, i.e. the second attempt);
//! retry 0 is treated as 1 so a host counting from 0 gets a sane delay rather
//! than an error. All delays are integer milliseconds, floored, and never
//! exceed `cap_ms`.

use crate::error::ConfigError;
use crate::rng::SplitMix64;

/// The largest `base_ms` / `cap_ms` a valid spec may have: 7 days.
///
/// Nobody should sleep a week between retries; the bound mostly exists so
/// that every sum the core makes with a delay (deadlines, `prev * 3`, ...) stays
/// far from `u64` overflow and every delay is exact in a JavaScript number.
pub const MAX_DELAY_MS: u64 = 7 * 24 * 60 * 60 * 1000;

/// The smallest multiplier a valid spec may have: below 1.0 delays would shrink.
pub const MIN_MULTIPLIER: f64 = 1.0;

/// The largest multiplier a valid spec may have. Anything near it reaches any
/// cap on the second retry; the bound only rules out typos such as `2e10`.
pub const MAX_MULTIPLIER: f64 = 1000.0;

/// How the delay grows and how it is randomised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Strategy {
    /// Retry at once (delay 0). For tests, or when a server hint sets the pace.
    None,
    /// `min(cap, base)` every time.
    Constant,
    /// `min(cap, base * k)`.
    Linear,
    /// `min(cap, base * multiplier^(k-1))`, no jitter.
    Exponential,
    /// Uniform in `[0, exponential ceiling]` (AWS "full jitter"): the best
    /// spread under contention, hence the default.
    FullJitter,
    /// Half the exponential ceiling plus uniform in the other half (AWS
    /// "equal jitter"): keeps a guaranteed minimum wait.
    EqualJitter,
    /// Uniform in `[base, 3 * previous delay]`, capped (AWS "decorrelated
    /// jitter", Brooker's original form): grows with its own history.
    DecorrelatedJitter,
}

impl Strategy {
    /// Every strategy, in declaration order (for exhaustive tests and docs).
    pub const ALL: [Strategy; 7] = [
        Strategy::None,
        Strategy::Constant,
        Strategy::Linear,
        Strategy::Exponential,
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
    ];

    /// The stable snake_case name used in configs, logs and the bindings (the
    /// same string the `serde` feature writes).
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::Constant => "constant",
            Strategy::Linear => "linear",
            Strategy::Exponential => "exponential",
            Strategy::FullJitter => "full_jitter",
            Strategy::EqualJitter => "equal_jitter",
            Strategy::DecorrelatedJitter => "decorrelated_jitter",
        }
    }

    /// The strategy named `code`, or `None` for an unknown name (exact,
    /// case-sensitive match, like the config parser).
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        Strategy::ALL.into_iter().find(|s| s.code() == code)
    }

    /// Whether the strategy draws a random number per delay. Callers use it to
    /// know whether a seed matters for reproducing a schedule.
    #[must_use]
    pub const fn is_jittered(&self) -> bool {
        match self {
            Strategy::None | Strategy::Constant | Strategy::Linear | Strategy::Exponential => false,
            Strategy::FullJitter | Strategy::EqualJitter | Strategy::DecorrelatedJitter => true,
        }
    }
}

/// The backoff part of a policy config: plain data, validated once.
///
/// Deserializing fills missing fields from [`BackoffSpec::default`] and rejects
/// unknown ones (a typo must not silently become a default).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default, deny_unknown_fields))]
pub struct BackoffSpec {
    /// How delays grow and are randomised.
    pub strategy: Strategy,
    /// The first (un-jittered) delay, in milliseconds.
    pub base_ms: u64,
    /// No delay ever exceeds this, jitter included, in milliseconds.
    pub cap_ms: u64,
    /// Growth factor for the exponential strategies (ignored by the others,
    /// but validated for all so a config error is never latent).
    pub multiplier: f64,
}

impl Default for BackoffSpec {
    /// Full jitter over 1 s, 2 s, 4 s, ... capped at 30 s: the schedule the
    /// project's design notes recommend, with jitter so clients spread out.
    fn default() -> Self {
        BackoffSpec {
            strategy: Strategy::FullJitter,
            base_ms: 1000,
            cap_ms: 30_000,
            multiplier: 2.0,
        }
    }
}

impl BackoffSpec {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }

    /// The un-jittered delay before retry `retry` (1 = the first retry; 0 is
    /// treated as 1), in milliseconds. Never exceeds `cap_ms`; O(log k) for
    /// any `k` up to `u32::MAX`; never panics or overflows, even for a spec
    /// that fails [`validate`](Self::validate).
    ///
    /// - `none`: 0.
    /// - `constant`, `decorrelated_jitter`: `min(cap, base)` (decorrelated's
    ///   real upper bound depends on its history; see [`Backoff::delay_ms`]).
    /// - `linear`: `min(cap, base * k)`, saturating.
    /// - `exponential`, `full_jitter`, `equal_jitter`:
    ///   `floor(min(cap, base * multiplier^(k-1)))`.
    ///
    /// **Rounding of the exponential form.** `multiplier` is taken as its
    /// exact binary64 value, `multiplier^(k-1)` is computed by binary
    /// exponentiation in double-double arithmetic (about 106 bits, built from
    /// IEEE-754 `+ - *` only, so it is bit-identical on every platform,
    /// wasm included), multiplied by `base`, and **floored**. For integral
    /// multipliers, and for dyadic ones such as 1.5 or 1.25 below any
    /// valid cap, that is the exact floor; otherwise the computed product is
    /// within a relative 2^-64 of the exact one, which can only matter when
    /// the exact value lies that close above an integer. That error is far
    /// below the smallest step a multiplier above 1.0 can make (2^-52), so
    /// the ceiling never decreases as `k` grows. Products that reach 2^64
    /// give `cap`. A multiplier below 1.0 or NaN (which `validate` rejects)
    /// is treated as 1.0, so a bad spec cannot shrink delays or yield NaN.
    #[must_use]
    pub fn ceiling_ms(&self, retry: u32) -> u64 {
        let k = retry.max(1);
        match self.strategy {
            Strategy::None => 0,
            Strategy::Constant | Strategy::DecorrelatedJitter => self.base_ms.min(self.cap_ms),
            Strategy::Linear => self.base_ms.saturating_mul(u64::from(k)).min(self.cap_ms),
            Strategy::Exponential | Strategy::FullJitter | Strategy::EqualJitter => {
                exponential_ceiling(self.base_ms, self.cap_ms, self.multiplier, k - 1)
            }
        }
    }
}

/// The backoff state of one logical call: its spec, plus the previous delay
/// that decorrelated jitter grows from.
///
/// Plain data, so a host can snapshot a call mid-flight and resume it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Backoff {
    spec: BackoffSpec,
    prev_ms: u64,
}

impl Backoff {
    /// Fresh state for `spec`. Does not validate (construction of a policy
    /// does that once); an invalid spec still never panics, it just loses the
    /// documented guarantees beyond `delay <= cap_ms`.
    #[must_use]
    pub const fn new(spec: BackoffSpec) -> Self {
        Backoff {
            spec,
            prev_ms: spec.base_ms,
        }
    }

    /// The spec this state follows.
    #[must_use]
    pub const fn spec(&self) -> &BackoffSpec {
        &self.spec
    }

    /// The delay before retry `retry` (1-based; 0 is treated as 1), in ms.
    ///
    /// - `none`, `constant`, `linear`, `exponential`: the ceiling; draws nothing.
    /// - `full_jitter`: `rng.range_inclusive(0, ceiling)`.
    /// - `equal_jitter`: `ceiling / 2 + rng.range_inclusive(0, ceiling - ceiling / 2)`
    ///   (integer halves, so the result spans exactly `[floor(c/2), c]`).
    /// - `decorrelated_jitter`:
    ///   `min(cap, rng.range_inclusive(base, max(base, 3 * prev)))`, where `prev`
    ///   is the previous result (saturating `* 3`). `prev` starts at `base`, and
    ///   a `retry` of 0 or 1 resets it to `base`, so reusing one state for a new
    ///   call (or a host restarting its count) starts a fresh schedule.
    ///
    /// Each jittered strategy draws exactly one number per call, so a seed
    /// fixes the schedule in every language. Always `0 <= delay <= cap_ms`.
    #[must_use]
    pub fn delay_ms(&mut self, retry: u32, rng: &mut SplitMix64) -> u64 {
        let spec = self.spec;
        match spec.strategy {
            Strategy::None | Strategy::Constant | Strategy::Linear | Strategy::Exponential => {
                spec.ceiling_ms(retry)
            }
            Strategy::FullJitter => rng.range_inclusive(0, spec.ceiling_ms(retry)),
            Strategy::EqualJitter => {
                let ceiling = spec.ceiling_ms(retry);
                let half = ceiling / 2;
                // half + (ceiling - half) = ceiling: no overflow.
                half + rng.range_inclusive(0, ceiling - half)
            }
            Strategy::DecorrelatedJitter => {
                if retry <= 1 {
                    self.prev_ms = spec.base_ms;
                }
                let hi = spec.base_ms.max(self.prev_ms.saturating_mul(3));
                let delay = rng.range_inclusive(spec.base_ms, hi).min(spec.cap_ms);
                self.prev_ms = delay;
                delay
            }
        }
    }
}

/// A [`Backoff`] with its own seeded generator: the self-contained object the
/// JS `new Backoff({...}).delayMs(k)` and Python `Backoff(...).delay(k)`
/// helpers wrap. The seed fixes the whole schedule.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SeededBackoff {
    backoff: Backoff,
    rng: SplitMix64,
}

impl SeededBackoff {
    /// Validates `spec` (bare field names: `base_ms`, `multiplier`, ...) and
    /// seeds the generator with `seed`.
    ///
    /// # Errors
    /// The [`ConfigError`] from [`BackoffSpec::validate`].
    pub fn new(spec: BackoffSpec, seed: u64) -> Result<Self, ConfigError> {
        spec.validate()?;
        Ok(SeededBackoff {
            backoff: Backoff::new(spec),
            rng: SplitMix64::new(seed),
        })
    }

    /// The validated spec.
    #[must_use]
    pub const fn spec(&self) -> &BackoffSpec {
        self.backoff.spec()
    }

    /// The delay before retry `retry`; see [`Backoff::delay_ms`].
    #[must_use]
    pub fn delay_ms(&mut self, retry: u32) -> u64 {
        self.backoff.delay_ms(retry, &mut self.rng)
    }
}

/// `2^64`: a product at or above it exceeds every possible cap.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// `floor(min(cap, base * multiplier^exponent))`, as documented on
/// [`BackoffSpec::ceiling_ms`].
fn exponential_ceiling(base: u64, cap: u64, multiplier: f64, exponent: u32) -> u64 {
    let first = base.min(cap);
    // NaN and anything up to 1.0 count as 1.0 (`is_gt` is false for NaN).
    let grows = multiplier
        .partial_cmp(&1.0)
        .is_some_and(std::cmp::Ordering::is_gt);
    if first == 0 || exponent == 0 || !grows {
        return first;
    }
    // base >= 1 and exponent >= 1, so the product is at least the multiplier.
    if multiplier >= TWO_POW_64 {
        return cap;
    }
    // Whole multipliers (the common 2.0) in exact integers: the same result
    // as the general path below, in a few multiplications. The value at
    // least doubles each step, so the loop ends within 64 steps of any cap.
    if multiplier.fract() == 0.0 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let factor = multiplier as u64;
        let mut value = base;
        for _ in 0..exponent {
            value = value.saturating_mul(factor);
            if value >= cap {
                return cap;
            }
        }
        return value;
    }
    // Right-to-left binary exponentiation. Every factor is >= 1, and a power
    // is only squared when a higher exponent bit remains (so it, or a larger
    // power, will be in the product): once any value reaches 2^64, the result
    // is at least 2^64 > cap. Checking keeps every operand below 2^64, so the
    // double-double products stay far from overflow.
    let mut acc = Dd::ONE;
    let mut power = Dd::from_f64(multiplier);
    let mut rest = exponent;
    loop {
        if rest & 1 == 1 {
            acc = acc.mul(power);
            if acc.hi >= TWO_POW_64 {
                return cap;
            }
        }
        rest >>= 1;
        if rest == 0 {
            break;
        }
        power = power.mul(power);
        if power.hi >= TWO_POW_64 {
            return cap;
        }
    }
    let product = Dd::from_u64(base).mul(acc);
    if product.hi >= TWO_POW_64 {
        return cap;
    }
    product.floor_u64().min(cap)
}

/// A double-double number: the unevaluated sum `hi + lo` with
/// `|lo| <= ulp(hi) / 2`, about 106 bits of precision from plain `f64` ops
/// (Dekker 1971). Used instead of `powf`/`powi`, whose results may differ
/// between platforms and libms.
#[derive(Clone, Copy, Debug)]
struct Dd {
    hi: f64,
    lo: f64,
}

/// Veltkamp's splitter, `2^27 + 1`.
const SPLITTER: f64 = 134_217_729.0;

impl Dd {
    const ONE: Dd = Dd { hi: 1.0, lo: 0.0 };

    const fn from_f64(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }

    /// `x` exactly: the nearest double plus the (small, exact) remainder.
    fn from_u64(x: u64) -> Dd {
        let hi = x as f64;
        // hi <= 2^64 fits an i128; |x - hi| <= 2^10 is exact in an f64.
        let lo = (i128::from(x) - hi as i128) as f64;
        Dd { hi, lo }
    }

    /// Double-double product (Dekker's `mul2`, dropping the `lo * lo` term).
    /// Operands must be below about 2^996 in magnitude for the split.
    fn mul(self, other: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, other.hi);
        let e = e + (self.hi * other.lo + self.lo * other.hi);
        // Fast two-sum: |p| >= |e|.
        let hi = p + e;
        let lo = e - (hi - p);
        Dd { hi, lo }
    }

    /// `floor(hi + lo)` for `0 <= hi < 2^64`, saturated into `u64`.
    fn floor_u64(self) -> u64 {
        let floor_hi = self.hi.floor();
        // If hi has a fraction, integers are at least ulp(hi) away and
        // |lo| <= ulp(hi)/2 cannot cross one. If hi is an integer, the
        // fraction comes from lo alone. Both floors fit an i128.
        let whole = if floor_hi < self.hi {
            floor_hi as i128
        } else {
            floor_hi as i128 + self.lo.floor() as i128
        };
        u64::try_from(whole.max(0)).unwrap_or(u64::MAX)
    }
}

/// Veltkamp split: `a = hi + lo` with each half fitting 26 bits.
fn split(a: f64) -> (f64, f64) {
    let t = SPLITTER * a;
    let hi = t - (t - a);
    (hi, a - hi)
}

/// Dekker's error-free product: `p + e == a * b` exactly (barring overflow).
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (a_hi, a_lo) = split(a);
    let (b_hi, b_lo) = split(b);
    let e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo;
    (p, e)
}

#[cfg(test)]
mod tests;
