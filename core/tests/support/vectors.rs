//! Loading the shared JSON vectors in `tests/vectors/` (repo root), which the
//! JavaScript and Python suites run too. Every file names its `kind` and
//! carries `description`, `source` and `license`.

use serde_json::Value;

/// The shared vectors folder.
pub(crate) const VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors");

/// Loads `name`, checking that it is a `kind` file with its provenance.
pub(crate) fn load(name: &str, kind: &str) -> Value {
    let path = format!("{VECTORS}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(doc["kind"], kind, "{path}");
    for field in ["description", "source", "license"] {
        assert!(doc[field].is_string(), "{path} lacks {field}");
    }
    doc
}

/// Every file of `kind`, by path, in name order.
#[allow(dead_code)]
pub(crate) fn all_of_kind(kind: &str) -> Vec<(String, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(VECTORS)
        .unwrap_or_else(|e| panic!("{VECTORS}: {e}"))
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| {
            let path = format!("{VECTORS}/{name}");
            let text = std::fs::read_to_string(&path).ok()?;
            let doc: Value = serde_json::from_str(&text).ok()?;
            (doc["kind"] == kind).then(|| (path, load(&name, kind)))
        })
        .collect()
}

/// `item` as the schema writes it in the Rust dialect (what the bindings
/// write in theirs), as a JSON value to compare with a vector's.
#[allow(dead_code)]
pub(crate) fn wire(item: &dyn stoic_core::schema::Emit) -> Value {
    let text = stoic_core::schema::emit_json(item, stoic_core::schema::Dialect::RUST);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A vector's value read and checked by the schema as a `T`, as a Rust
/// caller's document (the bindings read theirs the same way).
#[allow(dead_code)]
pub(crate) fn read<T: stoic_core::schema::Section>(
    value: &Value,
) -> Result<T, stoic_core::ConfigError> {
    let document = stoic_core::schema::Value::from_json(&value.to_string())?;
    stoic_core::schema::decode(&document, stoic_core::schema::Dialect::RUST)
}

/// A vector's value read by the schema as a `T` without checking its values
/// (an invalid case's, whose check the test makes itself); a shape problem
/// panics.
#[allow(dead_code)]
pub(crate) fn shape<T: stoic_core::schema::Section>(value: &Value) -> T {
    use stoic_core::schema::{section, Check, Dialect};
    let document = stoic_core::schema::Value::from_json(&value.to_string()).unwrap();
    let mut check = Check::new(Dialect::RUST);
    let item = section::<T>(&mut check, &document);
    check.finish().unwrap_or_else(|e| panic!("{value}: {e}"));
    item
}

/// A standalone section's `config_errors` and `valid` cases, each document
/// under `key`: every invalid one is refused with the case's `code` at its
/// field, in the Rust and the JS spelling (`field`, and `field_js` where the
/// two differ); every valid one reads back as `resolved`, its defaults
/// filled in. Returns how many invalid cases ran.
#[allow(dead_code)]
pub(crate) fn run_section_cases<T: stoic_core::schema::Section>(doc: &Value, key: &str) -> usize {
    use stoic_core::schema::{decode, Dialect};
    let cases = doc["config_errors"].as_array().unwrap();
    for case in cases {
        let input = stoic_core::schema::Value::from_json(&case[key].to_string()).unwrap();
        for (dialect, spelling) in [(Dialect::RUST, "field"), (Dialect::JS, "field_js")] {
            let Err(error) = decode::<T>(&input, dialect) else {
                panic!("{}: accepted", case[key]);
            };
            let want = case.get(spelling).unwrap_or(&case["field"]);
            assert_eq!(
                (
                    Value::from(error.code().as_str()),
                    Value::from(error.field())
                ),
                (case["code"].clone(), want.clone()),
                "{}: {error}",
                case[key]
            );
        }
    }
    for valid in doc["valid"].as_array().unwrap() {
        let config: T = read(&valid[key]).unwrap_or_else(|e| panic!("{}: {e}", valid[key]));
        assert_eq!(wire(&config), valid["resolved"], "{}", valid[key]);
    }
    cases.len()
}
