//! Runs the shared key vectors: `tests/vectors/jcs.json` (RFC 8785 upstream
//! files plus our edge and error cases), `jcs_numbers.json` (ECMAScript
//! number formatting) and `idempotency_keys.json` (keys, UUIDs, headers).

#[path = "support/vectors.rs"]
mod vectors;

use stoic_core::key::{
    canonical_json, es6_number, header_value, idempotency_key, parse_key_header, random_key,
    KeyHeaderForm,
};
use support::{array, load, text};

/// Helpers live in a `cfg(test)` module so the strict lints treat them as
/// test code.
#[cfg(test)]
mod support {
    use serde_json::Value;

    pub(crate) use super::vectors::load;

    pub(crate) fn array<'a>(doc: &'a Value, field: &str) -> &'a Vec<Value> {
        let items = doc[field]
            .as_array()
            .unwrap_or_else(|| panic!("{field} is not an array"));
        assert!(!items.is_empty(), "{field} is empty");
        items
    }

    pub(crate) fn text<'a>(case: &'a Value, field: &str) -> &'a str {
        case[field]
            .as_str()
            .unwrap_or_else(|| panic!("{field} missing in {case}"))
    }
}

#[test]
fn canonical_json_vectors() {
    let doc = load("jcs.json", "canonical_json");
    let cases = array(&doc, "cases");
    for name in [
        "arrays",
        "french",
        "structures",
        "unicode",
        "values",
        "weird",
    ] {
        assert!(
            cases.iter().any(|c| c["name"] == name),
            "upstream case {name} missing"
        );
    }
    for case in cases {
        let got =
            canonical_json(text(case, "input")).unwrap_or_else(|e| panic!("{}: {e}", case["name"]));
        assert_eq!(got, text(case, "expected"), "{}", case["name"]);
        // Canonical text is a fixed point.
        assert_eq!(canonical_json(&got).unwrap(), got, "{}", case["name"]);
    }
    for case in array(&doc, "error_cases") {
        let err = canonical_json(text(case, "input"))
            .expect_err(&format!("{} should fail", case["name"]));
        assert_eq!(
            err.code().as_str(),
            text(case, "code"),
            "{}: {err}",
            case["name"]
        );
    }
}

#[test]
fn es6_number_vectors() {
    let doc = load("jcs_numbers.json", "es6_number");
    let cases = array(&doc, "cases");
    assert_eq!(cases.len(), 1000);
    for case in cases {
        let bits = text(case, "bits");
        assert_eq!(bits.len(), 16, "{bits}");
        let value = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
        let expected = text(case, "expected");
        assert_eq!(es6_number(value).as_deref(), Some(expected), "bits {bits}");
        // The same number read from its canonical text goes through the parser.
        assert_eq!(canonical_json(expected).unwrap(), expected, "bits {bits}");
    }
}

#[test]
fn idempotency_key_vectors() {
    let doc = load("idempotency_keys.json", "idempotency_key");
    for case in array(&doc, "cases") {
        let (run_id, step) = (text(case, "run_id"), text(case, "step"));
        let expected = text(case, "expected");
        let args_text = text(case, "args_text");
        assert_eq!(
            canonical_json(args_text).unwrap(),
            text(case, "canonical"),
            "{}",
            case["name"]
        );
        assert_eq!(
            idempotency_key(run_id, step, args_text).unwrap(),
            expected,
            "{}",
            case["name"]
        );
        // The JSON-value form of the same arguments, as a binding would pass it.
        let from_value = serde_json::to_string(&case["args"]).unwrap();
        assert_eq!(
            idempotency_key(run_id, step, &from_value).unwrap(),
            expected,
            "{}",
            case["name"]
        );
    }
    for case in array(&doc, "error_cases") {
        let err = idempotency_key(
            text(case, "run_id"),
            text(case, "step"),
            text(case, "args_text"),
        )
        .expect_err(&format!("{} should fail", case["name"]));
        assert_eq!(err.code().as_str(), text(case, "code"), "{}", case["name"]);
    }
}

#[test]
fn random_key_vectors() {
    let doc = load("idempotency_keys.json", "idempotency_key");
    for case in array(&doc, "random_cases") {
        let hex = text(case, "bytes_hex");
        assert_eq!(hex.len(), 32, "{hex}");
        let bytes: [u8; 16] =
            core::array::from_fn(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap());
        assert_eq!(random_key(bytes), text(case, "expected"), "{hex}");
    }
}

#[test]
fn header_vectors() {
    let doc = load("idempotency_keys.json", "idempotency_key");
    for case in array(&doc, "header_cases") {
        let form = KeyHeaderForm::from_code(text(case, "form")).unwrap();
        let key = text(case, "key");
        assert_eq!(
            header_value(key, form),
            text(case, "expected"),
            "{key:?} {form:?}"
        );
    }
    for case in array(&doc, "parse_header_cases") {
        let value = text(case, "value");
        assert_eq!(
            parse_key_header(value).as_deref(),
            case["expected"].as_str(),
            "{value:?}"
        );
    }
}
