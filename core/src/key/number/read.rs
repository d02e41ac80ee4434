//! Decimal text to the nearest double, ties to even: the value
//! `str::parse::<f64>`, ECMAScript's `Number()` and Python's `float()` give.
//!
//! Why not `str::parse`: its fast path (Eisel-Lemire) carries a table of
//! 651 128-bit powers of five, 10.4 KB that gzip cannot shrink, a twelfth of
//! the browser's module for numbers that only canonical JSON and the rare
//! float in a JSON document read. Here:
//! - short literals (at most 15 significant digits, small exponents) take
//!   Clinger's fast path: the digits and the power of ten are both exact
//!   doubles, so one IEEE multiplication or division rounds correctly;
//! - every other literal goes through a decimal digit buffer scaled by
//!   powers of two until 53 bits stand before its point (the "simple
//!   decimal conversion" of Go's `strconv`). It is exact for any length: a
//!   double's halfway points have at most 767 significant digits, so 800
//!   digits and a flag for any nonzero digit dropped decide every rounding.
//!
//! It is slower than the standard library's on long literals (measured on a
//! release build: about 0.3 us more for a 17-digit literal), which is fine
//! where numbers are read.

/// Digits kept; beyond them only whether any was nonzero counts.
const MAX_DIGITS: usize = 800;

/// The most bits one shift moves: a digit times 2^60 plus the carry stays
/// below 2^64.
const MAX_SHIFT: u32 = 60;

/// Reads a JSON number literal (`-?digits[.digits][e[+-]digits]`; a
/// leading `+`, leading zeros and a bare fraction are accepted too) as the
/// nearest double, `±inf` beyond the range; `None` when it is not one.
pub(crate) fn read_decimal(literal: &str) -> Option<f64> {
    let (negative, decimal) = Decimal::parse(literal)?;
    let magnitude = decimal.fast_path().unwrap_or_else(|| decimal.into_f64());
    Some(if negative { -magnitude } else { magnitude })
}

/// `0.d1 d2 ... dn x 10^point`, digits without leading or trailing zeros
/// (none at all for zero).
#[derive(Debug, Clone, PartialEq)]
struct Decimal {
    digits: Vec<u8>,
    point: i32,
    /// A nonzero digit was dropped past `MAX_DIGITS`: the value is a little
    /// above what `digits` say.
    truncated: bool,
}

impl Decimal {
    fn parse(literal: &str) -> Option<(bool, Decimal)> {
        let bytes = literal.as_bytes();
        let (negative, mut at) = match bytes.first() {
            Some(b'-') => (true, 1),
            Some(b'+') => (false, 1),
            _ => (false, 0),
        };
        let mut decimal = Decimal {
            digits: Vec::new(),
            point: 0,
            truncated: false,
        };
        let (mut seen_digit, mut seen_point) = (false, false);
        while let Some(&byte) = bytes.get(at) {
            match byte {
                b'0'..=b'9' => {
                    seen_digit = true;
                    decimal.push_digit(byte - b'0', seen_point);
                }
                b'.' if !seen_point => seen_point = true,
                _ => break,
            }
            at += 1;
        }
        if !seen_digit {
            return None;
        }
        if let Some(b'e' | b'E') = bytes.get(at) {
            at += 1;
            let sign = match bytes.get(at) {
                Some(b'-') => {
                    at += 1;
                    -1
                }
                Some(b'+') => {
                    at += 1;
                    1
                }
                _ => 1,
            };
            let start = at;
            let mut exponent: i32 = 0;
            while let Some(&byte @ b'0'..=b'9') = bytes.get(at) {
                // Far beyond any double's range already; saturating keeps
                // the sum with the point in range.
                exponent = (exponent * 10 + i32::from(byte - b'0')).min(100_000);
                at += 1;
            }
            if at == start {
                return None;
            }
            decimal.point += sign * exponent;
        }
        if at != bytes.len() {
            return None;
        }
        decimal.trim();
        if decimal.digits.is_empty() {
            decimal.point = 0;
        }
        Some((negative, decimal))
    }

    fn push_digit(&mut self, digit: u8, after_point: bool) {
        if self.digits.is_empty() && digit == 0 {
            // A leading zero: only a fraction's moves the point.
            if after_point {
                self.point -= 1;
            }
            return;
        }
        if self.digits.len() < MAX_DIGITS {
            self.digits.push(digit);
        } else if digit != 0 {
            self.truncated = true;
        }
        if !after_point {
            self.point = self.point.saturating_add(1);
        }
    }

    fn trim(&mut self) {
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
    }

    /// Clinger's fast path: exact digits and an exact power of ten, one
    /// correctly rounded operation.
    fn fast_path(&self) -> Option<f64> {
        let count = i32::try_from(self.digits.len()).ok()?;
        if self.truncated || count > 15 {
            return None;
        }
        let mut integer: u64 = 0;
        for &digit in &self.digits {
            integer = integer * 10 + u64::from(digit);
        }
        // value = integer x 10^exponent
        let exponent = self.point - count;
        if exponent < -22 {
            return None;
        }
        if exponent < 0 {
            return Some(integer as f64 / exact_power_of_ten(exponent.unsigned_abs()));
        }
        // Beyond 10^22, move the excess into the integer while it stays
        // below 10^15 (and so exact).
        let excess = exponent - 22;
        if excess > 15 - count {
            return None;
        }
        let (integer, exponent) = if excess > 0 {
            (integer * 10u64.pow(excess.unsigned_abs()), 22)
        } else {
            (integer, exponent)
        };
        Some(integer as f64 * exact_power_of_ten(exponent.unsigned_abs()))
    }

    /// The slow path (Go's `decimal.floatBits`): scale into [0.5, 1) by
    /// powers of two, then take 53 bits and round half to even.
    fn into_f64(mut self) -> f64 {
        if self.digits.is_empty() || self.point < -330 {
            return 0.0;
        }
        if self.point > 310 {
            return f64::INFINITY;
        }
        let mut exponent: i32 = 0;
        while self.point > 0 {
            let bits = shift_for(self.point);
            self.shift_right(bits);
            exponent += bits as i32;
        }
        while self.point < 0 || (self.point == 0 && self.digits.first().is_some_and(|&d| d < 5)) {
            let bits = shift_for(-self.point);
            self.shift_left(bits);
            exponent -= bits as i32;
        }
        // In [0.5, 1); a double's significand is in [1, 2).
        exponent -= 1;
        // The smallest normal exponent is -1022; below it, subnormal.
        if exponent < -1022 {
            let bits = (-1022 - exponent).unsigned_abs();
            self.shift(-i64::from(bits));
            exponent = -1022;
        }
        if exponent > 1023 {
            return f64::INFINITY;
        }
        self.shift(53);
        let mut mantissa = self.rounded_integer();
        if mantissa == 1 << 53 {
            // Rounding carried into a new bit.
            mantissa >>= 1;
            exponent += 1;
            if exponent > 1023 {
                return f64::INFINITY;
            }
        }
        let stored = if mantissa & (1 << 52) == 0 {
            0 // subnormal
        } else {
            u64::from((exponent + 1023).unsigned_abs())
        };
        f64::from_bits(stored << 52 | (mantissa & ((1 << 52) - 1)))
    }

    /// Multiplies by 2^bits (divides, for negative `bits`).
    fn shift(&mut self, mut bits: i64) {
        while bits > 0 {
            let step = bits.min(i64::from(MAX_SHIFT));
            self.shift_left(step as u32);
            bits -= step;
        }
        while bits < 0 {
            let step = (-bits).min(i64::from(MAX_SHIFT));
            self.shift_right(step as u32);
            bits += step;
        }
    }

    /// Multiplies by 2^bits, `bits <= MAX_SHIFT`, from the last digit up.
    fn shift_left(&mut self, bits: u32) {
        let mut reversed = Vec::with_capacity(self.digits.len() + 20);
        let mut carry: u64 = 0;
        for &digit in self.digits.iter().rev() {
            let value = (u64::from(digit) << bits) + carry;
            reversed.push((value % 10) as u8);
            carry = value / 10;
        }
        while carry > 0 {
            reversed.push((carry % 10) as u8);
            carry /= 10;
        }
        let grown = reversed.len() - self.digits.len();
        self.point = self.point.saturating_add(grown as i32);
        reversed.reverse();
        if reversed.len() > MAX_DIGITS {
            if reversed
                .get(MAX_DIGITS..)
                .is_some_and(|t| t.iter().any(|&d| d != 0))
            {
                self.truncated = true;
            }
            reversed.truncate(MAX_DIGITS);
        }
        self.digits = reversed;
        self.trim();
    }

    /// Divides by 2^bits, `bits <= MAX_SHIFT`: long division, one digit
    /// in and one out.
    fn shift_right(&mut self, bits: u32) {
        let mask = (1u64 << bits) - 1;
        let mut read = 0;
        let mut remainder: u64 = 0;
        // Enough leading digits for the first quotient digit.
        while remainder >> bits == 0 {
            match self.digits.get(read) {
                Some(&digit) => remainder = remainder * 10 + u64::from(digit),
                None if remainder == 0 => {
                    self.digits.clear();
                    return;
                }
                None => remainder *= 10,
            }
            read += 1;
        }
        self.point -= read as i32 - 1;
        let mut out = Vec::with_capacity(self.digits.len() + 20);
        for &digit in self.digits.iter().skip(read) {
            out.push((remainder >> bits) as u8);
            remainder = (remainder & mask) * 10 + u64::from(digit);
        }
        while remainder > 0 {
            let digit = (remainder >> bits) as u8;
            if out.len() < MAX_DIGITS {
                out.push(digit);
            } else if digit > 0 {
                self.truncated = true;
            }
            remainder = (remainder & mask) * 10;
        }
        self.digits = out;
        self.trim();
    }

    /// The integer part, rounded half to even by the fraction (and by the
    /// dropped digits, which make an apparent tie a little more).
    fn rounded_integer(&self) -> u64 {
        // Below 0.1: rounds to zero.
        let Ok(point) = usize::try_from(self.point) else {
            return 0;
        };
        let mut integer: u64 = 0;
        for at in 0..point {
            let digit = self.digits.get(at).copied().unwrap_or(0);
            integer = integer.saturating_mul(10).saturating_add(u64::from(digit));
        }
        let round_up = match self.digits.get(point) {
            None => false,
            Some(&5) if point + 1 == self.digits.len() => self.truncated || integer % 2 == 1,
            Some(&next) => next >= 5,
        };
        integer + u64::from(round_up)
    }
}

/// How far to shift to move the decimal point toward zero: about
/// log2(10^distance), at most 27 at a time (Go's `powtab`).
fn shift_for(distance: i32) -> u32 {
    match distance {
        ..=1 => 1,
        2 => 3,
        3 => 6,
        4 => 9,
        5 => 13,
        6 => 16,
        7 => 19,
        8 => 23,
        9 => 26,
        _ => 27,
    }
}

/// 10^exponent for exponent <= 22, exact: each product is representable.
fn exact_power_of_ten(exponent: u32) -> f64 {
    let mut power = 1.0;
    for _ in 0..exponent {
        power *= 10.0;
    }
    power
}

#[cfg(test)]
mod tests {
    use super::read_decimal;

    fn agrees(text: &str) {
        let expected: f64 = text.parse().unwrap();
        let got = read_decimal(text).unwrap();
        assert_eq!(
            got.to_bits(),
            expected.to_bits(),
            "{text}: {got:e} vs {expected:e}"
        );
    }

    #[test]
    fn reads_everyday_literals() {
        for text in [
            "0",
            "-0",
            "1",
            "-1",
            "0.1",
            "0.3",
            "0.30000000000000004",
            "123.456",
            "1e21",
            "1E+21",
            "1e-7",
            "5e-324",
            "2.5e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "1e-400",
            "9007199254740993",
            "9007199254740995",
            "4.9406564584124654e-324",
            "2.2250738585072011e-308",
            "2.2250738585072014e-308",
            "0.000000000000000000000000000001",
            "100000000000000000000000",
            "1e23",
            "8.98846567431158e307",
            "123456789012345678901234567890",
            "0e0",
            "0.0e-5",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124",
            "1.00000000000000011102230246251565404236316680908203126",
        ] {
            agrees(text);
        }
        assert!(read_decimal("-0").unwrap().is_sign_negative());
    }

    #[test]
    fn refuses_what_is_not_a_number() {
        for text in [
            "", "-", ".", "e5", "1e", "1e+", "1.2.3", "1x", "0x10", " 1", "NaN",
        ] {
            assert_eq!(read_decimal(text), None, "{text:?}");
        }
    }

    #[test]
    fn long_literals_round_by_every_digit() {
        // A tie broken by a nonzero digit past the 800 kept.
        let half = "1.00000000000000011102230246251565404236316680908203125";
        agrees(half);
        agrees(&format!("{half}{}1", "0".repeat(900)));
        agrees(&format!("{}{}", "9".repeat(1000), "e-700"));
        agrees(&format!("0.{}1e330", "0".repeat(1200)));
    }

    /// The exact decimal digits and exponent (`value = 0.digits x 10^point`)
    /// of a double, by the standard library's exact formatting.
    fn exact(value: f64) -> (Vec<u8>, i32) {
        let text = format!("{value:.1100e}");
        let (mantissa, exponent) = text.split_once('e').unwrap();
        let mut digits: Vec<u8> = mantissa
            .bytes()
            .filter(u8::is_ascii_digit)
            .map(|b| b - b'0')
            .collect();
        while digits.last() == Some(&0) {
            digits.pop();
        }
        (digits, exponent.parse::<i32>().unwrap() + 1)
    }

    /// 2^exponent, exactly, for exponent in -1074..=1023.
    fn power_of_two(exponent: i32) -> f64 {
        if exponent >= -1022 {
            f64::from_bits(((exponent + 1023) as u64) << 52)
        } else {
            f64::from_bits(1 << (exponent + 1074))
        }
    }

    /// `a + b` for positive exact decimals, as text.
    fn sum_text(a: (Vec<u8>, i32), b: (Vec<u8>, i32)) -> String {
        // Align both at the lowest decimal place either has.
        let low = (a.1 - a.0.len() as i32).min(b.1 - b.0.len() as i32);
        let high = a.1.max(b.1) + 1;
        let width = (high - low) as usize;
        let mut sum = vec![0u32; width];
        for (digits, point) in [a, b] {
            for (i, d) in digits.iter().enumerate() {
                let place = point - 1 - i as i32; // 10^place
                sum[(place - low) as usize] += u32::from(*d);
            }
        }
        for i in 0..width - 1 {
            let carry = sum[i] / 10;
            sum[i] %= 10;
            sum[i + 1] += carry;
        }
        let digits: String = sum
            .iter()
            .rev()
            .map(|d| char::from(b'0' + *d as u8))
            .collect();
        format!("0.{digits}e{high}")
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_the_standard_library_on_any_double(bits in 0u64..0x7ff0_0000_0000_0000, digits in 0usize..25) {
            let value = f64::from_bits(bits);
            agrees(&format!("{value:e}"));
            agrees(&format!("{value:.digits$e}"));
            agrees(&format!("-{value}"));
        }

        #[test]
        fn agrees_on_random_digit_strings(
            digits in "[0-9]{1,40}",
            fraction in proptest::option::of("[0-9]{1,40}"),
            exponent in -360i32..360,
        ) {
            let text = match fraction {
                Some(fraction) => format!("{digits}.{fraction}e{exponent}"),
                None => format!("{digits}e{exponent}"),
            };
            agrees(&text);
        }

        /// The hardest inputs: the exact midpoint between two neighbouring
        /// doubles (a tie, to the even one), and a hair either side.
        #[test]
        fn rounds_ties_to_even(bits in 1u64..0x7fef_ffff_ffff_ffff) {
            let low = f64::from_bits(bits);
            let stored = (bits >> 52) as i32;
            let unit = if stored == 0 { -1074 } else { stored - 1075 };
            proptest::prop_assume!(unit - 2 >= -1074);
            let middle = sum_text(exact(low), exact(power_of_two(unit - 1)));
            agrees(&middle);
            let (mantissa, exponent) = middle.split_once('e').unwrap();
            agrees(&format!("{mantissa}000000000000000000001e{exponent}"));
            let below = sum_text(exact(low), exact(power_of_two(unit - 2)));
            agrees(&below);
        }
    }
}
