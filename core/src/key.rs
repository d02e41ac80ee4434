//! Idempotency keys: RFC 8785 canonical JSON, SHA-256, UUIDv4 and the
//! `Idempotency-Key` header forms.
//!
//! The rule this module serves: make the key once, before the first attempt,
//! and send the same key with every retry of that logical operation. A key
//! derived from the arguments (`{run_id}:{step}:{hash}`) is the same in every
//! process and language that sees the same run, step and arguments, so a
//! restarted worker re-sends the key the server already knows. Where no such
//! identity exists, [`random_key`] turns host-supplied random bytes into a
//! UUID (the core draws no randomness itself).

mod canonical;
mod header;
mod number;
mod sha256;

use sha256::sha256;

use crate::error::InputError;

pub use canonical::{canonical_json, canonical_json_distinct, canonical_json_exact, MAX_DEPTH};
pub(crate) use canonical::{parse_document, write_string as write_json_string, Json};
pub use header::{header_value, parse_key_header, KeyHeaderForm};
pub use number::es6_number;
pub(crate) use number::{float_text, read_decimal};

/// Hex digits of the argument hash kept in an [`idempotency_key`].
///
/// 16 hex digits are 64 bits: a collision between two different argument
/// sets of the same run and step needs about 2^32 of them.
pub const KEY_HASH_HEX_LEN: usize = 16;

/// Lowercase hex SHA-256 of `bytes` (64 characters).
///
/// Why exposed: hosts and vectors check keys against an independent SHA-256
/// and need the exact same text form.
#[must_use]
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex_lower(&sha256(bytes))
}

fn hex_lower(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for byte in bytes {
        for nibble in [byte >> 4, byte & 0x0F] {
            out.push(char::from_digit(u32::from(nibble), 16).unwrap_or('0'));
        }
    }
    out
}

/// The deterministic key of one logical operation:
/// `{run_id}:{step}:{h}` where `h` is the first 16 lowercase hex digits of
/// SHA-256 over the RFC 8785 canonical form of `args_json`.
///
/// Why canonical JSON: the same arguments must give the same key whatever
/// member order, whitespace or number spelling (`1.0` vs `1`) the caller's
/// serializer produced. `run_id` and `step` are used verbatim; they are not
/// escaped, so a `:` inside them is the caller's to avoid if keys must be
/// split apart again (`"a:b" + "c"` and `"a" + "b:c"` give the same prefix).
///
/// # Errors
///
/// Whatever [`canonical_json_exact`] rejects in `args_json` (including
/// integers a double cannot hold: pass those as strings).
pub fn idempotency_key(run_id: &str, step: &str, args_json: &str) -> Result<String, InputError> {
    let canonical = canonical_json_exact(args_json)?;
    let digest = sha256(canonical.as_bytes());
    let hash = hex_lower(digest.get(..KEY_HASH_HEX_LEN / 2).unwrap_or(&digest));
    Ok(format!("{run_id}:{step}:{hash}"))
}

/// A random UUID (RFC 9562 version 4), formatted `8-4-4-4-12` in lowercase,
/// from 16 random bytes the host supplies.
///
/// Why the host supplies them: the core is sans-IO and never reads the OS
/// RNG. The version nibble (4) and the variant bits (`10`) overwrite 6 of
/// the 128 bits, as RFC 9562 section 5.4 specifies, leaving 122 random ones.
#[must_use]
pub fn random_key(random: [u8; 16]) -> String {
    let mut bytes = random;
    if let Some(version) = bytes.get_mut(6) {
        *version = (*version & 0x0F) | 0x40;
    }
    if let Some(variant) = bytes.get_mut(8) {
        *variant = (*variant & 0x3F) | 0x80;
    }
    let mut out = String::with_capacity(36);
    for (index, byte) in bytes.iter().enumerate() {
        if matches!(index, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        out.push_str(&hex_lower(&[*byte]));
    }
    out
}

#[cfg(test)]
mod tests;

/// The longest idempotency key a server accepts (the draft suggests keys
/// like UUIDs; Stripe caps them at 255 characters).
pub const MAX_KEY_LEN: usize = 255;

/// Whether `key` can be sent as an `Idempotency-Key`: 1 to [`MAX_KEY_LEN`]
/// characters. A server refuses any other (400), and a client must not count
/// on one: the policy treats a call "keyed" by it as unkeyed, so an
/// ambiguous failure of it is not repeated.
#[must_use]
pub fn is_valid_key(key: &str) -> bool {
    !key.is_empty() && key.chars().count() <= MAX_KEY_LEN
}
