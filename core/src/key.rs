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

use crate::error::{InputError, InputErrorCode};

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
/// One rule, the same in every language:
/// - **Canonical arguments.** The same arguments give the same key whatever
///   member order, whitespace or number spelling (`1.0` vs `1`) the caller's
///   serializer produced.
/// - **Arguments as JSON text.** A model hands a tool its arguments as JSON
///   text (`"{\"sku\":\"A1\"}"`); a host that passes that text on as a
///   string value must get the key of the object it encodes. So a JSON
///   string whose text is a JSON object stands for that object. A string
///   that merely starts with `{` but is not JSON stays a string.
/// - **One key per (run, step).** `run_id` and `step` are percent-encoded
///   (every byte outside RFC 3986's unreserved `A-Z a-z 0-9 - . _ ~`, `:`
///   and `%` included, becomes `%XX`), so `("a:b", "c")` and `("a", "b:c")`
///   get different keys, the key splits back into its parts at the `:`s,
///   and it is printable ASCII that any HTTP client sends as it is. Run ids
///   and tool-call ids as the frameworks make them (`run-7`, UUIDs,
///   `call_abc123`, `toolu_01...`) are unchanged.
///
/// # Errors
///
/// [`InputErrorCode::Empty`] for an empty `run_id` or `step` (a key must
/// name the run and the step it belongs to), and whatever
/// [`canonical_json_exact`] rejects in `args_json` (including integers a
/// double cannot hold: pass those as strings).
pub fn idempotency_key(run_id: &str, step: &str, args_json: &str) -> Result<String, InputError> {
    for (text, what) in [(run_id, "run id"), (step, "step")] {
        if text.is_empty() {
            return Err(InputError::new(
                InputErrorCode::Empty,
                format!("the {what} is empty: a key names the run and the step it belongs to"),
            ));
        }
    }
    let canonical = canonical_args(args_json)?;
    let digest = sha256(canonical.as_bytes());
    let hash = hex_lower(digest.get(..KEY_HASH_HEX_LEN / 2).unwrap_or(&digest));
    let mut key = String::with_capacity(
        run_id
            .len()
            .saturating_add(step.len())
            .saturating_add(KEY_HASH_HEX_LEN + 2),
    );
    push_key_segment(&mut key, run_id);
    key.push(':');
    push_key_segment(&mut key, step);
    key.push(':');
    key.push_str(&hash);
    Ok(key)
}

/// The canonical form of a key's arguments: a JSON string holding the text
/// of a JSON object is read as that object (see [`idempotency_key`]).
fn canonical_args(args_json: &str) -> Result<String, InputError> {
    let canonical = canonical_json_exact(args_json)?;
    let Some(inner) = canonical_string_text(&canonical) else {
        return Ok(canonical);
    };
    if !inner.trim_start().starts_with('{') {
        return Ok(canonical);
    }
    match canonical_json_exact(&inner) {
        Ok(object) if object.starts_with('{') => Ok(object),
        // Not JSON after all: the string is the argument.
        Err(e) if e.code() == InputErrorCode::InvalidJson => Ok(canonical),
        // JSON that cannot be keyed (a huge integer, a duplicate member):
        // the same refusal the object itself would get.
        Err(e) => Err(e),
        Ok(_) => Ok(canonical),
    }
}

/// The text of a canonical JSON string (as [`write_json_string`] writes
/// it: only `"`, `\\` and controls escaped), or `None` for any other value.
fn canonical_string_text(canonical: &str) -> Option<String> {
    let body = canonical.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'b' => '\u{8}',
            't' => '\t',
            'n' => '\n',
            'f' => '\u{c}',
            'r' => '\r',
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?
            }
            other => other,
        });
    }
    Some(out)
}

/// Appends `text` with every byte outside RFC 3986's unreserved set
/// percent-encoded (uppercase hex).
fn push_key_segment(out: &mut String, text: &str) {
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            for nibble in [byte >> 4, byte & 0x0F] {
                out.push(
                    char::from_digit(u32::from(nibble), 16)
                        .unwrap_or('0')
                        .to_ascii_uppercase(),
                );
            }
        }
    }
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
