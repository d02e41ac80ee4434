//! Canonical JSON must be total and idempotent: canonical(canonical(x)) == canonical(x).
#![no_main]

use libfuzzer_sys::fuzz_target;
use stoic_core::canonical_json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(once) = canonical_json(text) {
        let twice = canonical_json(&once).expect("canonical output is valid JSON");
        assert_eq!(once, twice);
    }
});
