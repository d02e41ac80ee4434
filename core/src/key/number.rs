//! ECMAScript `Number.prototype.toString` for finite doubles, the number form
//! RFC 8785 prescribes.
//!
//! JCS hashes must agree across Rust, JavaScript and Python, so numbers need
//! one text form. ECMAScript's is the one JCS picked: the shortest digit
//! string that reads back to the same double, laid out in plain or exponent
//! form by fixed thresholds.

mod read;
mod shortest;

pub(crate) use read::read_decimal;

/// Formats `value` exactly as ECMAScript `Number.prototype.toString` (and so
/// `JSON.stringify`) does; `None` for NaN and the infinities, which JSON
/// cannot carry.
///
/// Why it exists beside `canonical_json`: hosts and other modules that emit
/// numbers into canonical JSON, and the conformance tests, need the exact
/// same text. `-0` gives `"0"`; magnitudes at or above `1e21` and below
/// `1e-6` use exponent form (`"1e+21"`, `"1.5e-7"`).
#[must_use]
pub fn es6_number(value: f64) -> Option<String> {
    /// 2^53: below it, every whole number is exactly a double.
    const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;
    if !value.is_finite() {
        return None;
    }
    if value == 0.0 {
        // Both +0 and -0: ECMAScript prints "0" for each.
        return Some(String::from("0"));
    }
    if value.fract() == 0.0 && value.abs() < EXACT_INTEGERS {
        // A whole number below 2^53 (a count, milliseconds) is its own
        // digits: every integer there is a distinct double, so no shorter
        // digit string rounds to it, and the exact algorithm's big-number
        // work (2,000 instructions a number) is not needed.
        let mut out = String::with_capacity(17);
        if value < 0.0 {
            out.push('-');
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // whole, below 2^53
        crate::schema::push_u64(&mut out, value.abs() as u64);
        return Some(out);
    }
    shortest_text(value)
}

/// The general case: the shortest round-trip digits, laid out by
/// ECMAScript's thresholds. `value` is finite and not zero.
fn shortest_text(value: f64) -> Option<String> {
    let (digits, n) = shortest::shortest_digits(value.abs());
    let digits: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    let digits = digits.as_str();
    let k = i64::try_from(digits.len()).ok()?;
    // ECMAScript's `n`: the value is 0.d1d2...dk x 10^n.
    let n = i64::from(n);

    let mut out = String::with_capacity(digits.len().saturating_add(8));
    if value.is_sign_negative() {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(digits);
        push_zeros(&mut out, n.saturating_sub(k));
    } else if 0 < n && n <= 21 {
        let (int_part, frac_part) = digits.split_at_checked(usize::try_from(n).ok()?)?;
        out.push_str(int_part);
        out.push('.');
        out.push_str(frac_part);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        push_zeros(&mut out, n.saturating_neg());
        out.push_str(digits);
    } else {
        let mut chars = digits.chars();
        if let Some(first) = chars.next() {
            out.push(first);
        }
        let rest = chars.as_str();
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        let e = n.saturating_sub(1);
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&e.unsigned_abs().to_string());
    }
    Some(out)
}

/// A number as messages and documents show it: the ECMAScript form for a
/// finite value (`0.5`, `2`, `1e-7`), `NaN`, `inf` or `-inf` otherwise, as
/// Rust's `Display` writes those. The one float formatter in the crate, so
/// that no build links the standard library's (see `shortest`).
pub(crate) fn float_text(value: f64) -> String {
    es6_number(value).unwrap_or_else(|| {
        String::from(if value.is_nan() {
            "NaN"
        } else if value > 0.0 {
            "inf"
        } else {
            "-inf"
        })
    })
}

fn push_zeros(out: &mut String, count: i64) {
    for _ in 0..count.max(0) {
        out.push('0');
    }
}

#[cfg(test)]
mod tests {
    use super::{es6_number, shortest_text};
    use proptest::prelude::*;

    proptest! {
        /// The whole-number shortcut writes what the exact algorithm does.
        #[test]
        fn whole_numbers_take_the_shortcut_to_the_same_text(n in prop_oneof![
            -(1i64 << 53) + 1..(1i64 << 53),
            -1_000_000i64..1_000_000,
        ]) {
            prop_assume!(n != 0);
            #[allow(clippy::cast_precision_loss)] // below 2^53: exact
            let value = n as f64;
            prop_assert_eq!(es6_number(value), shortest_text(value));
        }
    }

    #[test]
    fn layouts_follow_ecmascript_thresholds() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-1.5, "-1.5"),
            (100.0, "100"),
            (123.456, "123.456"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (0.000001, "0.000001"),
            (0.0000015, "0.0000015"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (333_333_333.333_333_3, "333333333.3333333"),
            (0.1 + 0.2, "0.30000000000000004"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            // Exactly halfway between two 17-digit candidates: the even one.
            (f64::from_bits(0x4314_3ff3_c1cb_0959), "1424953923781206.2"), // ...206.25
        ];
        for (value, expected) in cases {
            assert_eq!(es6_number(*value).as_deref(), Some(*expected), "{value:e}");
        }
    }

    #[test]
    fn non_finite_has_no_json_form() {
        assert_eq!(es6_number(f64::NAN), None);
        assert_eq!(es6_number(f64::INFINITY), None);
        assert_eq!(es6_number(f64::NEG_INFINITY), None);
    }

    /// The digits and exponent by the standard library's formatting (the
    /// way this module worked before it had its own digit generator):
    /// Rust's `{:e}` gives the fewest digits, its fixed precision the
    /// closest `k`-digit candidate, used when that still reads back.
    fn oracle(value: f64) -> (String, i64) {
        let shortest = format!("{value:e}");
        let digits = shortest.split_once('e').map_or(0, |(mantissa, _)| {
            mantissa.bytes().filter(u8::is_ascii_digit).count()
        });
        let closest = format!("{value:.*e}", digits.saturating_sub(1));
        let sci = if closest != shortest && closest.parse::<f64>().is_ok_and(|back| back == value) {
            closest
        } else {
            shortest
        };
        let (mantissa, exponent) = sci.split_once('e').unwrap();
        let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
        (
            digits.trim_end_matches('0').to_owned(),
            exponent.parse::<i64>().unwrap() + 1,
        )
    }

    fn digits_of(value: f64) -> (String, i64) {
        let (digits, n) = super::shortest::shortest_digits(value);
        (
            digits.iter().map(|d| char::from(b'0' + d)).collect(),
            i64::from(n),
        )
    }

    #[test]
    fn digits_agree_with_the_standard_library_at_the_edges() {
        let mut values = vec![
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
            1e-323,
            0.1,
            0.3,
            1e21,
            1e22,
            9_007_199_254_740_993.0,
        ];
        for e in -1074..=1023 {
            values.push(2f64.powi(e));
            values.push(f64::from_bits(2f64.powi(e).to_bits().wrapping_sub(1)));
            values.push(f64::from_bits(2f64.powi(e).to_bits().wrapping_add(1)));
        }
        for e in -323..=308 {
            values.push(format!("1e{e}").parse().unwrap());
            values.push(format!("9.999999999999999e{e}").parse().unwrap());
        }
        for value in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
            assert_eq!(digits_of(value), oracle(value), "{value:e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn digits_agree_with_the_standard_library(bits in 1u64..0x7ff0_0000_0000_0000) {
            let value = f64::from_bits(bits);
            proptest::prop_assert_eq!(digits_of(value), oracle(value), "{:e}", value);
        }

        #[test]
        fn digits_of_short_decimals_agree(mantissa in 1u64..1_000_000, exponent in -30i32..30) {
            let value: f64 = format!("{mantissa}e{exponent}").parse().unwrap();
            proptest::prop_assert_eq!(digits_of(value), oracle(value), "{:e}", value);
        }

        #[test]
        fn output_reads_back_to_the_same_double(bits in proptest::prelude::any::<u64>()) {
            let value = f64::from_bits(bits);
            match es6_number(value) {
                None => proptest::prop_assert!(!value.is_finite()),
                Some(text) => {
                    let back: f64 = text.parse().map_err(|e| {
                        proptest::test_runner::TestCaseError::fail(format!("{text}: {e}"))
                    })?;
                    proptest::prop_assert!(back == value, "{} -> {}", value, text);
                }
            }
        }
    }
}
