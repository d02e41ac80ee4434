use super::*;
use crate::error::InputErrorCode;

fn code_of(text: &str) -> Option<InputErrorCode> {
    canonical_json(text).err().map(|e| e.code())
}

#[test]
fn canonical_form_sorts_strips_and_reformats() {
    assert_eq!(
        canonical_json(" { \"b\" : [1.0, 2e1, -0, 1E-7] , \"a\" : \"\\u00e9\\/\" } ").unwrap(),
        "{\"a\":\"é/\",\"b\":[1,20,0,1e-7]}"
    );
    assert_eq!(
        canonical_json("\"\\u001f\\b\\f\\t\\r\\n\\u007f\"").unwrap(),
        "\"\\u001f\\b\\f\\t\\r\\n\u{7f}\""
    );
    assert_eq!(canonical_json("true").unwrap(), "true");
    assert_eq!(canonical_json("\t\r\n null \n").unwrap(), "null");
}

#[test]
fn members_sort_by_utf16_code_units_not_code_points() {
    // U+1F600 is D83D DE00 in UTF-16, which sorts before U+FB33; in UTF-8
    // bytes and code points it sorts after.
    assert_eq!(
        canonical_json("{\"\u{fb33}\":1,\"\u{1f600}\":2}").unwrap(),
        "{\"\u{1f600}\":2,\"\u{fb33}\":1}"
    );
}

#[test]
fn grammar_violations_are_invalid_json() {
    for text in [
        "",
        "   ",
        "[1,]",
        "{\"a\":1,}",
        "[1 2]",
        "{\"a\" 1}",
        "{a:1}",
        "// c\n1",
        "[1] /* c */",
        "NaN",
        "-Infinity",
        "01",
        "-",
        "1.",
        ".5",
        "1e",
        "+1",
        "0x10",
        "'a'",
        "\"tab\there\"",
        "\"\\x41\"",
        "\"\\u12g4\"",
        "\"unterminated",
        "tru",
        "nul",
        "[1]]",
        "\u{feff}1",
        "1 2",
    ] {
        assert_eq!(code_of(text), Some(InputErrorCode::InvalidJson), "{text:?}");
    }
}

#[test]
fn duplicate_names_are_rejected_after_unescaping() {
    assert_eq!(
        code_of("{\"a\":1,\"a\":2}"),
        Some(InputErrorCode::DuplicateKey)
    );
    assert_eq!(
        code_of("{\"a\":1,\"\\u0061\":1}"),
        Some(InputErrorCode::DuplicateKey)
    );
    assert_eq!(
        code_of("[{\"x\":{\"k\":1,\"j\":2,\"k\":3}}]"),
        Some(InputErrorCode::DuplicateKey)
    );
    // Same name in sibling objects is fine.
    assert!(canonical_json("[{\"a\":1},{\"a\":2}]").is_ok());
}

#[test]
fn lone_surrogates_are_rejected_and_pairs_joined() {
    for text in [
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\ud83d\\u0041\"",
        "\"\\ud83dx\"",
        "\"\\ude02\\ud83d\"",
    ] {
        assert_eq!(
            code_of(text),
            Some(InputErrorCode::LoneSurrogate),
            "{text:?}"
        );
    }
    assert_eq!(
        canonical_json("\"\\ud83d\\ude02\"").unwrap(),
        "\"\u{1f602}\""
    );
    assert_eq!(
        canonical_json("\"\\uD83D\\uDE02\"").unwrap(),
        "\"\u{1f602}\""
    );
}

#[test]
fn overflowing_numbers_are_out_of_range_and_underflow_is_zero() {
    assert_eq!(code_of("1e400"), Some(InputErrorCode::NumberOutOfRange));
    assert_eq!(code_of("[-1e309]"), Some(InputErrorCode::NumberOutOfRange));
    assert_eq!(
        code_of("1e99999999999999999999999"),
        Some(InputErrorCode::NumberOutOfRange)
    );
    assert_eq!(canonical_json("1e-400").unwrap(), "0");
    assert_eq!(canonical_json("-1e-400").unwrap(), "0");
    assert_eq!(
        canonical_json("1.7976931348623157e308").unwrap(),
        "1.7976931348623157e+308"
    );
    // Correct rounding with many digits (halfway case rounds to even).
    assert_eq!(
        canonical_json("9007199254740993").unwrap(),
        "9007199254740992"
    );
    assert_eq!(
        canonical_json("9007199254740993.0000000000000000001").unwrap(),
        "9007199254740994"
    );
}

#[test]
fn depth_is_bounded_without_overflowing_the_stack() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert_eq!(canonical_json(&ok).unwrap(), ok);
    let too_deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
    assert_eq!(code_of(&too_deep), Some(InputErrorCode::TooDeep));
    assert_eq!(code_of(&"[".repeat(10_000)), Some(InputErrorCode::TooDeep));
    assert_eq!(
        code_of(&"{\"a\":".repeat(100_000)),
        Some(InputErrorCode::TooDeep)
    );
}

#[test]
fn sha256_hex_matches_fips_180_examples() {
    assert_eq!(
        sha256_hex(b""),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn idempotency_key_hashes_the_canonical_form() {
    let key = idempotency_key("run-1", "charge", "{\"b\":2, \"a\":1.0}").unwrap();
    let expected_hash = sha256_hex(b"{\"a\":1,\"b\":2}");
    assert_eq!(key, format!("run-1:charge:{}", &expected_hash[..16]));
    assert_eq!(
        key,
        idempotency_key("run-1", "charge", "{\"a\":1,\"b\":2}").unwrap()
    );
    assert_ne!(
        key,
        idempotency_key("run-1", "refund", "{\"a\":1,\"b\":2}").unwrap()
    );
    assert_eq!(
        idempotency_key("r", "s", "{\"a\":1,\"a\":1}")
            .unwrap_err()
            .code(),
        InputErrorCode::DuplicateKey
    );
    // The name is quoted as JSON writes it, control characters escaped.
    let error = canonical_json("{\"a\\n\":1,\"a\\n\":2}").unwrap_err();
    assert_eq!(
        error.message(),
        "duplicate member name \"a\\n\" in the object ending at byte 17"
    );
}

#[test]
fn random_key_sets_version_and_variant() {
    assert_eq!(random_key([0; 16]), "00000000-0000-4000-8000-000000000000");
    assert_eq!(
        random_key([0xFF; 16]),
        "ffffffff-ffff-4fff-bfff-ffffffffffff"
    );
    let bytes: [u8; 16] = core::array::from_fn(|i| u8::try_from(i).unwrap() * 17);
    assert_eq!(random_key(bytes), "00112233-4455-4677-8899-aabbccddeeff");
}

#[test]
fn header_forms_have_stable_codes() {
    for form in [KeyHeaderForm::Bare, KeyHeaderForm::Quoted] {
        assert_eq!(KeyHeaderForm::from_code(form.code()), Some(form));
        #[cfg(feature = "serde")]
        assert_eq!(
            serde_json::to_string(&form).unwrap(),
            format!("\"{}\"", form.code())
        );
    }
    assert_eq!(KeyHeaderForm::from_code("Bare"), None);
}

#[test]
fn header_values_escape_and_encode() {
    let key = "run-1:charge:0123456789abcdef";
    assert_eq!(header_value(key, KeyHeaderForm::Bare), key);
    assert_eq!(
        header_value(key, KeyHeaderForm::Quoted),
        format!("\"{key}\"")
    );
    assert_eq!(
        header_value("a\"b\\c d", KeyHeaderForm::Quoted),
        "\"a\\\"b\\\\c d\""
    );
    assert_eq!(
        header_value("a\"b\\c d", KeyHeaderForm::Bare),
        "a%22b\\c%20d"
    );
    assert_eq!(header_value("é%", KeyHeaderForm::Quoted), "\"%C3%A9%25\"");
    assert_eq!(header_value("é%\n", KeyHeaderForm::Bare), "%C3%A9%25%0A");
}

#[test]
fn parse_key_header_accepts_both_forms() {
    assert_eq!(parse_key_header("  abc:1 \t").as_deref(), Some("abc:1"));
    assert_eq!(parse_key_header(" \"abc:1\" ").as_deref(), Some("abc:1"));
    assert_eq!(
        parse_key_header("\"a\\\"b\\\\c d\"").as_deref(),
        Some("a\"b\\c d")
    );
    assert_eq!(parse_key_header("\"%C3%a9\"").as_deref(), Some("é"));
    assert_eq!(parse_key_header("abc%FF").as_deref(), Some("abc%FF"));
    assert_eq!(parse_key_header("100%").as_deref(), Some("100%"));
    for bad in [
        "",
        "  ",
        "\"\"",
        "\"abc",
        "\"a\\nb\"",
        "\"abc\";p=1",
        "\"abc\"x",
        "a b",
        "a\"b",
        "é",
        "\"é\"",
    ] {
        assert_eq!(parse_key_header(bad), None, "{bad:?}");
    }
}

mod properties {
    use super::super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            // Integers a double holds exactly; the others are refused (below).
            (-(1i64 << 53)..=(1i64 << 53)).prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
            any::<String>().prop_map(Value::String),
            "[a-c\u{e9}\u{1f600}\u{fb33}\"\\\\\n]{0,4}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map("[a-c\u{e9}\u{1f600}\u{fb33}]{0,3}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Serializes with object members in reverse order and extra
    /// whitespace, to show canonicalization does not depend on either.
    fn reversed(value: &Value) -> String {
        match value {
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().map(reversed).collect();
                format!("[ {} ]", parts.join(" , "))
            }
            Value::Object(members) => {
                let parts: Vec<String> = members
                    .iter()
                    .rev()
                    .map(|(k, v)| {
                        format!("{} :\n{}", serde_json::to_string(k).unwrap(), reversed(v))
                    })
                    .collect();
                format!("{{\t{}\r}}", parts.join(","))
            }
            other => serde_json::to_string(other).unwrap(),
        }
    }

    proptest! {
        #[test]
        fn canonical_json_is_idempotent(value in json_value()) {
            let text = serde_json::to_string(&value).unwrap();
            let once = canonical_json(&text).unwrap();
            prop_assert_eq!(canonical_json(&once).unwrap(), once.clone());
            let pretty = serde_json::to_string_pretty(&value).unwrap();
            prop_assert_eq!(canonical_json(&pretty).unwrap(), once.clone());
            prop_assert_eq!(canonical_json(&reversed(&value)).unwrap(), once);
        }

        #[test]
        fn integers_a_double_cannot_hold_are_refused(n in prop_oneof![
            (1i64 << 53) + 1..=(1i64 << 53) + 8,
            (1i64 << 53) + 1..=i64::MAX,
        ]) {
            let double = n as f64;
            let exact = double as i64 == n || crate::key::es6_number(double) == Some(n.to_string());
            prop_assert!(canonical_json(&n.to_string()).is_ok(), "RFC 8785 text reads it as a double");
            let result = canonical_json_exact(&n.to_string());
            prop_assert_eq!(result.is_ok(), exact, "{}", n);
            if let Err(e) = result {
                prop_assert_eq!(e.code(), crate::error::InputErrorCode::NumberOutOfRange);
                prop_assert!(e.to_string().contains("pass it as a string"));
            }
        }

        #[test]
        fn canonical_json_never_panics(text in any::<String>()) {
            let _ = canonical_json(&text);
        }

        #[test]
        fn canonical_json_never_panics_on_json_like_text(
            text in "[\\[\\]{}\",:0-9eE.+\\-tfnrul\\\\ \u{e9}\u{1f600}]{0,48}"
        ) {
            if let Ok(once) = canonical_json(&text) {
                prop_assert_eq!(canonical_json(&once).unwrap(), once);
            }
        }

        #[test]
        fn header_value_round_trips(key in any::<String>(), quoted in any::<bool>()) {
            let form = if quoted { KeyHeaderForm::Quoted } else { KeyHeaderForm::Bare };
            let value = header_value(&key, form);
            prop_assert!(value.bytes().all(|b| (0x20..=0x7E).contains(&b)), "{}", value);
            let expected = if key.is_empty() { None } else { Some(key.clone()) };
            prop_assert_eq!(parse_key_header(&value), expected);
        }

        #[test]
        fn random_key_is_a_v4_uuid(bytes in any::<[u8; 16]>()) {
            let key = random_key(bytes);
            prop_assert_eq!(key.len(), 36);
            prop_assert_eq!(&key[14..15], "4");
            prop_assert!(matches!(&key[19..20], "8" | "9" | "a" | "b"));
            let hex: String = key.chars().filter(|c| *c != '-').collect();
            prop_assert!(hex.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        }
    }
}

proptest::proptest! {
    /// Two different (run, step) pairs never share a key, whatever the
    /// text holds, and every key is printable ASCII a header can carry.
    #[test]
    fn run_and_step_are_told_apart(
        a in "[a-z:%é]{1,6}", b in "[a-z:%é]{1,6}",
        c in "[a-z:%é]{1,6}", d in "[a-z:%é]{1,6}",
    ) {
        let one = idempotency_key(&a, &b, "{}").unwrap();
        let two = idempotency_key(&c, &d, "{}").unwrap();
        proptest::prop_assert_eq!(one == two, a == c && b == d);
        proptest::prop_assert!(one.bytes().all(|byte| (0x21..=0x7E).contains(&byte)));
        proptest::prop_assert_eq!(one.matches(':').count(), 2);
    }
}

#[test]
fn arguments_given_as_json_text_key_as_the_object() {
    let object = idempotency_key("r", "s", "{\"sku\":\"A1\",\"qty\":2}").unwrap();
    let text = idempotency_key("r", "s", "\" {\\\"qty\\\": 2, \\\"sku\\\": \\\"A1\\\"}\"").unwrap();
    assert_eq!(object, text);
    // Not JSON, or not an object: the string is the argument.
    assert_ne!(idempotency_key("r", "s", "\"{x}\"").unwrap(), object);
    assert_eq!(
        idempotency_key("r", "s", "\"[]\"").unwrap(),
        idempotency_key("r", "s", "\"[]\"").unwrap()
    );
    assert_ne!(
        idempotency_key("r", "s", "\"[]\"").unwrap(),
        idempotency_key("r", "s", "[]").unwrap()
    );
    assert_eq!(
        idempotency_key("", "s", "{}").unwrap_err().code(),
        InputErrorCode::Empty
    );
    assert_eq!(
        idempotency_key("r", "", "{}").unwrap_err().code(),
        InputErrorCode::Empty
    );
}
