//! Randomness from the host's `crypto.getRandomValues` (via getrandom): the
//! core draws none itself.

use wasm_bindgen::JsValue;

use crate::errors::usage_error;

/// `N` random bytes.
pub(crate) fn bytes<const N: usize>() -> Result<[u8; N], JsValue> {
    let mut buffer = [0_u8; N];
    // The error's code, not its text: getrandom's `Display` carries every
    // platform's messages into the module, and in a JS host the one cause is
    // a missing `crypto.getRandomValues`.
    getrandom::getrandom(&mut buffer).map_err(|e| {
        usage_error(
            "random_unavailable",
            &format!(
                "no random source: crypto.getRandomValues is missing or failed (getrandom error {})",
                e.code()
            ),
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
