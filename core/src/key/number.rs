//! ECMAScript `Number.prototype.toString` for finite doubles, the number form
//! RFC 8785 prescribes.
//!
//! JCS hashes must agree across Rust, JavaScript and Python, so numbers need
//! one text form. ECMAScript's is the one JCS picked: the shortest digit
//! string that reads back to the same double, laid out in plain or exponent
//! form by fixed thresholds.

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
    if !value.is_finite() {
        return None;
    }
    if value == 0.0 {
        // Both +0 and -0: ECMAScript prints "0" for each.
        return Some(String::from("0"));
    }
    let sci = shortest_scientific(value.abs());
    let (mantissa, exponent) = sci.split_once('e')?;
    let exponent: i64 = exponent.parse().ok()?;
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // Defensive: the shortest digits never end in 0, but a stray one would
    // print as "1.50".
    let digits = digits.trim_end_matches('0');
    let k = i64::try_from(digits.len()).ok()?;
    // ECMAScript's `n`: the value is 0.d1d2...dk x 10^n.
    let n = exponent.saturating_add(1);

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

/// The ECMAScript digit string in Rust's `{:e}` layout (`d.ddde-7`).
///
/// ECMAScript wants the fewest digits `k` that read back to `value` and,
/// among `k`-digit candidates that do, the one closest to the exact value,
/// ties going to the even digit. Rust's `{:e}` gives the fewest digits but
/// may round an exact tie up (`1424953923781206.25` gives `...206.3`, where
/// ECMAScript says `...206.2`). Rust's fixed-precision form rounds the
/// exact value half-to-even, so with `k` digits it yields the closest
/// candidate; it is used whenever it still reads back to `value`.
fn shortest_scientific(value: f64) -> String {
    let shortest = format!("{value:e}");
    let digits = shortest.split_once('e').map_or(0, |(mantissa, _)| {
        mantissa.bytes().filter(u8::is_ascii_digit).count()
    });
    let closest = format!("{value:.*e}", digits.saturating_sub(1));
    if closest != shortest && closest.parse::<f64>().is_ok_and(|back| back == value) {
        closest
    } else {
        shortest
    }
}

fn push_zeros(out: &mut String, count: i64) {
    for _ in 0..count.max(0) {
        out.push('0');
    }
}

#[cfg(test)]
mod tests {
    use super::es6_number;

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

    proptest::proptest! {
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
