//! Randomness from the host's `crypto.getRandomValues`: the core draws
//! none itself.
//!
//! Imported directly rather than through getrandom: every host the package
//! supports (Node 20+, browsers, workers, workerd) has the Web Crypto global,
//! and getrandom's fallbacks (Node's `require("crypto")`, `msCrypto`, the
//! global-object probe) cost both modules about 1 KB of wasm and their glue
//! a dozen imports.

use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::errors::usage_error;

#[wasm_bindgen]
extern "C" {
    /// Fills `buffer` (a view of the module's memory) in place; throws when
    /// `crypto` is missing.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(buffer: &mut [u8]) -> Result<JsValue, JsValue>;
}

/// `N` random bytes.
pub(crate) fn bytes<const N: usize>() -> Result<[u8; N], JsValue> {
    let mut buffer = [0_u8; N];
    get_random_values(&mut buffer).map_err(|_| {
        usage_error(
            "random_unavailable",
            "no random source: crypto.getRandomValues is missing or failed",
        )
    })?;
    Ok(buffer)
}

/// A jitter seed, for configs that name none: 53 random bits, so the
/// seed `config()` reports is a plain number (`JSON.stringify` refuses
/// BigInts) and 2^53 seeds still keep clients out of lockstep.
pub(crate) fn seed() -> Result<u64, JsValue> {
    bytes::<8>().map(|b| u64::from_le_bytes(b) & ((1 << 53) - 1))
}
