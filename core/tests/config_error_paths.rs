//! Config errors name the same field whichever way the config is read.
//!
//! `Config::from_json` (and `part_from_json`) read the field path off the
//! position where serde_json stopped; `deserialize_part` tracks it by
//! wrapping the deserializer (serde_path_to_error), which is what hosts that
//! hand over a non-JSON data format use. Here every config in
//! `tests/vectors/` and the full default document are damaged at random (a
//! value replaced by another of any type, an unknown key added, a key
//! removed), printed compact or indented, and the two readers must agree on
//! the error's code and field.

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use stoic_core::config::{deserialize_part, part_from_json};
use stoic_core::{Config, ConfigError};

/// Every `config` object in the shared vectors, plus the full defaults
/// (read once).
fn bases() -> &'static [Value] {
    static BASES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    BASES.get_or_init(read_bases)
}

fn read_bases() -> Vec<Value> {
    fn collect(value: &Value, out: &mut Vec<Value>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    if key == "config" && inner.is_object() {
                        out.push(inner.clone());
                    }
                    collect(inner, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| collect(item, out)),
            _ => {}
        }
    }
    let mut out = vec![serde_json::to_value(Config::with_seed(1)).unwrap()];
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    for path in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        collect(&doc, &mut out);
    }
    out
}

/// A replacement value of any JSON type, including the config's own words.
fn replacement() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-3i64..1_000_000).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        prop::sample::select(vec![
            "full_jitter",
            "transient",
            "sometimes",
            "consecutive_failures",
            "ratio",
            "ge",
            "x",
            "",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::vec(("[a-z_]{1,8}", inner), 0..3)
                .prop_map(|fields| Value::Object(fields.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// How a document is damaged: the nth node (in document order) is changed.
#[derive(Debug, Clone)]
enum Damage {
    Replace(usize, Value),
    AddKey(usize, String),
    RemoveKey(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<usize>(), replacement()).prop_map(|(n, v)| Damage::Replace(n, v)),
        (any::<usize>(), "[a-z_]{1,10}|é\"x|a\\\\b").prop_map(|(n, k)| Damage::AddKey(n, k)),
        any::<usize>().prop_map(Damage::RemoveKey),
    ]
}

/// The JSON pointers of every value in `value`, itself first, in document
/// order.
fn pointers(value: &Value) -> Vec<String> {
    fn walk(value: &Value, at: &str, out: &mut Vec<String>) {
        out.push(at.to_owned());
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    let escaped = key.replace('~', "~0").replace('/', "~1");
                    walk(inner, &format!("{at}/{escaped}"), out);
                }
            }
            Value::Array(items) => {
                for (i, inner) in items.iter().enumerate() {
                    walk(inner, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, "", &mut out);
    out
}

fn apply(doc: &mut Value, damage: &Damage) {
    let all = pointers(doc);
    let objects: Vec<&String> = all
        .iter()
        .filter(|p| doc.pointer(p).is_some_and(Value::is_object))
        .collect();
    match damage {
        // Never the root: the damage stays inside a config object.
        Damage::Replace(n, value) if all.len() > 1 => {
            let at = &all[1 + n % (all.len() - 1)];
            *doc.pointer_mut(at).unwrap() = value.clone();
        }
        Damage::Replace(..) => {}
        Damage::AddKey(n, key) => {
            let at = objects[n % objects.len()].clone();
            if let Some(Value::Object(map)) = doc.pointer_mut(&at) {
                map.insert(key.clone(), json!(1));
            }
        }
        Damage::RemoveKey(n) => {
            let at = objects[n % objects.len()].clone();
            if let Some(Value::Object(map)) = doc.pointer_mut(&at) {
                let keys: Vec<String> = map.keys().cloned().collect();
                if !keys.is_empty() {
                    map.remove(&keys[n % keys.len()]);
                }
            }
        }
    }
}

fn outline(result: Result<Config, ConfigError>) -> Option<(String, String, String)> {
    result.err().map(|e| {
        (
            e.code().as_str().to_owned(),
            e.field().to_owned(),
            e.message().to_owned(),
        )
    })
}

/// The paths must be equal, with two known differences:
/// - serde_path_to_error writes `?` for a map key it could not read (a status
///   code that is not a number); the position names the key as written;
/// - an enum written in serde's object form (`"strategy": {"bogus": null}`)
///   fails on its key, which the position names after the field;
/// - a struct written as an array with too many elements (serde_json reads
///   structs from arrays too) is `invalid_json` at the first extra element,
///   which the position names by its index.
fn same_field(by_position: &str, tracked: &str, message: &str) -> bool {
    if message.starts_with("trailing characters")
        && by_position
            .strip_prefix(tracked)
            .is_some_and(|rest| rest.starts_with('[') && rest.ends_with(']') && !rest.contains('.'))
    {
        return true;
    }
    let ours: Vec<&str> = by_position.split('.').collect();
    let theirs: Vec<&str> = tracked.split('.').collect();
    let variant = message
        .strip_prefix("unknown variant `")
        .and_then(|rest| rest.split('`').next());
    let equal = |ours: &[&str]| {
        ours.len() == theirs.len() && ours.iter().zip(&theirs).all(|(a, b)| a == b || *b == "?")
    };
    equal(&ours)
        || (variant.is_some() && ours.last() == variant.as_ref() && equal(&ours[..ours.len() - 1]))
}

proptest! {
    // 2 000 cases by default (under a second); PROPTEST_CASES for more.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000)
    ))]

    #[test]
    fn position_paths_match_tracked_paths(
        base in 0usize..1_000,
        damages in prop::collection::vec(damage(), 1..3),
        pretty in any::<bool>(),
    ) {
        let bases = bases();
        let mut doc = bases[base % bases.len()].clone();
        for d in &damages {
            apply(&mut doc, d);
        }
        let text = if pretty {
            serde_json::to_string_pretty(&doc).unwrap()
        } else {
            doc.to_string()
        };
        let by_position = outline(part_from_json::<Config>(&text));
        let mut de = serde_json::Deserializer::from_str(&text);
        let by_tracking = outline(deserialize_part::<Config, _>(&mut de));
        match (&by_position, &by_tracking) {
            (Some((code, field, message)), Some((tracked_code, tracked_field, _))) => {
                prop_assert_eq!(code, tracked_code, "{}", text);
                prop_assert!(
                    same_field(field, tracked_field, message),
                    "{} vs {}: {}",
                    field,
                    tracked_field,
                    text
                );
            }
            _ => prop_assert_eq!(by_position.is_none(), by_tracking.is_none(), "{}", text),
        }
    }
}
