//! The shortest digits that read back to a double, closest to it, ties to
//! even: ECMAScript's `Number::toString` digit rule.
//!
//! Burger and Dybvig's free-format algorithm ("Printing Floating-Point
//! Numbers Quickly and Accurately", 1996) over a small bignum. The standard
//! library formats floats with Grisu and Dragon4 and their tables, about 19
//! KB of WebAssembly, a sixteenth of the browser module; this is about 3 KB
//! and leaves no float formatting in the module. It is slower (measured on
//! a release build: about 0.7 us for an everyday double against 0.15 us for
//! `{:e}`, and about 4 us for doubles of extreme exponents), which is fine
//! for where numbers are written: canonical JSON of a call's arguments and
//! the rare float in a document. The tests check it digit for digit
//! against the standard library.

use std::cmp::Ordering;

/// Limbs enough for the largest scaled value: a subnormal's numerator is
/// below 2^54 x 10^324 (about 2^1131), a large double's denominator below
/// 4 x 10^309.
const LIMBS: usize = 40;

/// A non-negative integer, 32-bit limbs, least significant first; on the
/// stack, so that generating digits allocates nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Big {
    limbs: [u32; LIMBS],
    /// Limbs in use: those at `len` and above are zero.
    len: usize,
}

impl Big {
    fn from_u64(value: u64) -> Big {
        let mut limbs = [0; LIMBS];
        let [low, high, ..] = &mut limbs;
        *low = value as u32;
        *high = (value >> 32) as u32;
        let mut big = Big { limbs, len: 2 };
        big.trim();
        big
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limbs.get(self.len - 1) == Some(&0) {
            self.len -= 1;
        }
    }

    fn used(&self) -> &[u32] {
        self.limbs.get(..self.len).unwrap_or(&[])
    }

    fn push(&mut self, limb: u32) {
        if let Some(slot) = self.limbs.get_mut(self.len) {
            *slot = limb;
            self.len += 1;
        }
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in self.limbs.iter_mut().take(self.len) {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut exponent: u32) {
        while exponent >= 9 {
            self.mul_small(1_000_000_000);
            exponent -= 9;
        }
        if exponent > 0 {
            self.mul_small(10u32.pow(exponent));
        }
    }

    fn shl(&mut self, bits: u32) {
        for _ in 0..bits / 32 {
            if self.len == 0 {
                return;
            }
            self.limbs.copy_within(0..LIMBS - 1, 1);
            if let Some(lowest) = self.limbs.first_mut() {
                *lowest = 0;
            }
            self.len = (self.len + 1).min(LIMBS);
        }
        let bits = bits % 32;
        if bits > 0 {
            let mut carry = 0u32;
            for limb in self.limbs.iter_mut().take(self.len) {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry > 0 {
                self.push(carry);
            }
        }
    }

    /// `self - other`, for `self >= other`.
    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0u64;
        for (limb, sub) in self.limbs.iter_mut().zip(other.limbs).take(self.len) {
            let (diff, under) = limb.overflowing_sub(sub);
            let (diff, under_borrow) = diff.overflowing_sub(borrow as u32);
            *limb = diff;
            borrow = u64::from(under || under_borrow);
        }
        self.trim();
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.len
            .cmp(&other.len)
            .then_with(|| self.used().iter().rev().cmp(other.used().iter().rev()))
    }

    /// How `self + other` compares with `than`, without forming the sum.
    fn sum_cmp(&self, other: &Big, than: &Big) -> Ordering {
        let mut sum = [0u32; LIMBS];
        let mut carry = 0u64;
        let len = self.len.max(other.len);
        for ((slot, a), b) in sum.iter_mut().zip(self.limbs).zip(other.limbs).take(len) {
            let total = u64::from(a) + u64::from(b) + carry;
            *slot = total as u32;
            carry = total >> 32;
        }
        let mut sum = Big { limbs: sum, len };
        if carry > 0 {
            sum.push(carry as u32);
        }
        sum.cmp(than)
    }
}

/// The digits (no leading or trailing zeros) and exponent `n` of a finite,
/// positive `value` = 0.d1d2...dk x 10^n.
pub(super) fn shortest_digits(value: f64) -> (Vec<u8>, i32) {
    let bits = value.to_bits();
    let stored = (bits >> 52 & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, exponent) = if stored == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, stored - 1075)
    };
    // Round-half-even on reading: the interval's ends read back to `value`
    // when its mantissa is even.
    let inclusive = mantissa % 2 == 0;
    // The gap below is half the gap above at a power of two (not for the
    // smallest normal exponent, whose lower neighbour is subnormal).
    let uneven = fraction == 0 && stored > 1;

    // value = r / s; the interval is (r - m_minus, r + m_plus) / s.
    let (mut r, mut s, mut m_plus, mut m_minus);
    if exponent >= 0 {
        let (shift, scale) = if uneven { (1, 4) } else { (0, 2) };
        r = Big::from_u64(mantissa);
        r.shl(exponent as u32 + 1 + shift);
        s = Big::from_u64(scale);
        m_plus = Big::from_u64(1);
        m_plus.shl(exponent as u32 + shift);
        m_minus = Big::from_u64(1);
        m_minus.shl(exponent as u32);
    } else {
        let (factor, extra, plus) = if uneven { (4, 2, 2) } else { (2, 1, 1) };
        r = Big::from_u64(mantissa * factor);
        s = Big::from_u64(1);
        s.shl((-exponent) as u32 + extra);
        m_plus = Big::from_u64(plus);
        m_minus = Big::from_u64(1);
    }

    // The decimal exponent: the smallest n with (r + m_plus) / s below
    // 10^n (or at it, when the end reads back). value >= 2^(bit_length - 1),
    // so a guess below (bit_length - 1) log10(2) is never too large, and
    // the loop below raises it by one or two.
    let bit_length = 64 - i64::from(mantissa.leading_zeros()) + i64::from(exponent);
    let mut n = ((bit_length - 1) * 30_103).div_euclid(100_000) as i32 - 1;
    if n >= 0 {
        s.mul_pow10(n as u32);
    } else {
        let up = (-n) as u32;
        r.mul_pow10(up);
        m_plus.mul_pow10(up);
        m_minus.mul_pow10(up);
    }
    let high_reached = |r: &Big, m_plus: &Big, s: &Big| {
        let order = r.sum_cmp(m_plus, s);
        order == Ordering::Greater || (inclusive && order == Ordering::Equal)
    };
    while high_reached(&r, &m_plus, &s) {
        s.mul_small(10);
        n += 1;
    }

    let mut digits = Vec::with_capacity(17);
    loop {
        r.mul_small(10);
        m_plus.mul_small(10);
        m_minus.mul_small(10);
        let mut digit = 0u8;
        while r.cmp(&s) != Ordering::Less {
            r.sub_assign(&s);
            digit += 1;
        }
        let low = match r.cmp(&m_minus) {
            Ordering::Less => true,
            Ordering::Equal => inclusive,
            Ordering::Greater => false,
        };
        let high = high_reached(&r, &m_plus, &s);
        match (low, high) {
            (false, false) => digits.push(digit),
            (true, false) => {
                digits.push(digit);
                break;
            }
            (false, true) => {
                digits.push(digit + 1);
                break;
            }
            (true, true) => {
                let mut twice = r;
                twice.shl(1);
                let up = match twice.cmp(&s) {
                    Ordering::Less => false,
                    Ordering::Greater => true,
                    Ordering::Equal => digit % 2 == 1,
                };
                digits.push(digit + u8::from(up));
                break;
            }
        }
    }
    // A last digit rounded up to 10 carries into the ones before it.
    while digits.last() == Some(&10) {
        digits.pop();
        match digits.last_mut() {
            Some(last) => *last += 1,
            None => {
                digits.push(1);
                n += 1;
            }
        }
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    (digits, n)
}
