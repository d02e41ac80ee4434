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
///
/// Drawn from `Math.random`, not Web Crypto: a jitter seed needs to differ
/// between processes, not to be unguessable (Polly and the AWS SDKs jitter
/// from non-cryptographic generators too), and every engine seeds
/// `Math.random` from the system's entropy. In Node, the first touch of the
/// `crypto` global loads its whole Web Crypto layer: 2.4 ms of a fresh
/// process's first `new Policy()`, which a call that never writes has no
/// other use for. Keys stay on `crypto.getRandomValues` ([`bytes`]).
pub(crate) fn seed() -> Result<u64, JsValue> {
    // Two draws, 26 + 27 bits: one double carries at most 53 random bits,
    // and engines differ in how many of them are really drawn.
    let high = random_bits(26);
    let low = random_bits(27);
    Ok((high << 27) | low)
}

/// `bits` (at most 32) random bits from one `Math.random()` draw.
fn random_bits(bits: u32) -> u64 {
    let scaled = (js_sys::Math::random() * f64::from(1_u32 << bits)).floor();
    // `Math.random()` is in [0, 1), so `scaled` is in [0, 2^bits): the
    // conversion saturates at worst, never wraps.
    scaled as u64
}
