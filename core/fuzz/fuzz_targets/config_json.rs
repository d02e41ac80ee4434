//! Reading a config is total: any text in, a config or a coded error out,
//! including the field path read off serde_json's error position
//! (`json_path`), and a config that validates always builds a policy.
#![no_main]

use libfuzzer_sys::fuzz_target;
use stoic_core::{Config, Policy};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::from_json(text) {
        Ok(config) => assert!(Policy::new(config).is_ok()),
        Err(e) => assert!(!e.code().as_str().is_empty()),
    }
});
