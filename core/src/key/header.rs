//! The `Idempotency-Key` HTTP header value, in the two forms servers accept.

/// How an idempotency key is written into the `Idempotency-Key` header.
///
/// Why two forms: the IETF draft (draft-ietf-httpapi-idempotency-key-header)
/// defines the header as an RFC 8941 Structured Field String, which is
/// quoted, while the APIs that popularised the header (Stripe, Adyen, ...)
/// take the key bare. A host picks what its server expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum KeyHeaderForm {
    /// The key as is: `Idempotency-Key: run-7:charge:9f86d081884c7d65`.
    Bare,
    /// An RFC 8941 sf-string: `Idempotency-Key: "run-7:charge:9f86d081884c7d65"`.
    Quoted,
}

impl KeyHeaderForm {
    /// The stable snake_case code (`"bare"`, `"quoted"`), as configs name it.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            KeyHeaderForm::Bare => "bare",
            KeyHeaderForm::Quoted => "quoted",
        }
    }

    /// The form a config code names; `None` for an unknown code.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        match code {
            "bare" => Some(KeyHeaderForm::Bare),
            "quoted" => Some(KeyHeaderForm::Quoted),
            _ => None,
        }
    }
}

/// The header value that carries `key` in `form`.
///
/// Why the encoding: a header value can only hold printable ASCII safely
/// (browsers' `fetch` rejects anything above U+00FF, and an sf-string admits
/// only 0x20-0x7E), yet run ids and step names are caller text. So every
/// UTF-8 byte outside the printable range, and `%` itself, is
/// percent-encoded (`%C3%A9`, `%25`, uppercase hex as RFC 3986 recommends).
/// Encoding `%` keeps the mapping reversible: [`parse_key_header`] returns
/// the original key. The quoted form then escapes `"` and `\` with a
/// backslash as RFC 8941 requires; the bare form also percent-encodes space
/// (which header parsing would trim at the ends) and `"` (which would make
/// the value look quoted).
#[must_use]
pub fn header_value(key: &str, form: KeyHeaderForm) -> String {
    let mut out = String::with_capacity(key.len().saturating_add(2));
    match form {
        KeyHeaderForm::Bare => {
            for byte in key.bytes() {
                match byte {
                    b'%' | b'"' => push_percent(&mut out, byte),
                    0x21..=0x7E => out.push(char::from(byte)),
                    _ => push_percent(&mut out, byte),
                }
            }
        }
        KeyHeaderForm::Quoted => {
            out.push('"');
            for byte in key.bytes() {
                match byte {
                    b'"' => out.push_str("\\\""),
                    b'\\' => out.push_str("\\\\"),
                    b'%' => push_percent(&mut out, byte),
                    0x20..=0x7E => out.push(char::from(byte)),
                    _ => push_percent(&mut out, byte),
                }
            }
            out.push('"');
        }
    }
    out
}

fn push_percent(out: &mut String, byte: u8) {
    const HEX: [char; 16] = [
        '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F',
    ];
    out.push('%');
    for nibble in [byte >> 4, byte & 0x0F] {
        out.push(HEX.get(usize::from(nibble)).copied().unwrap_or('0'));
    }
}

/// Reads the key back from an `Idempotency-Key` header value, for a server
/// deduplicating requests.
///
/// Why both forms: clients in the wild send either. Optional whitespace
/// (space, tab) around the value is ignored. A value starting with `"` must
/// be a complete RFC 8941 sf-string (only `\"` and `\\` escapes, printable
/// ASCII, nothing after the closing quote: the draft defines no parameters);
/// anything else must be a bare run of visible ASCII (0x21-0x7E) without
/// `"`. Then `%XX` sequences are decoded, undoing [`header_value`]; if the
/// decoded bytes are not UTF-8 the text is returned undecoded, so a foreign
/// key such as `abc%FF` is still usable as an opaque key.
///
/// Returns `None` for a malformed or empty value (an empty key identifies
/// nothing), so `parse_key_header(&header_value(k, form)) == Some(k)` for
/// every non-empty `k`.
#[must_use]
pub fn parse_key_header(value: &str) -> Option<String> {
    let trimmed = value.trim_matches([' ', '\t']);
    let raw = match trimmed.strip_prefix('"') {
        Some(quoted) => unquote_sf_string(quoted)?,
        None => {
            if !trimmed
                .bytes()
                .all(|b| (0x21..=0x7E).contains(&b) && b != b'"')
            {
                return None;
            }
            trimmed.to_owned()
        }
    };
    let key = percent_decode(&raw).unwrap_or(raw);
    if key.is_empty() {
        None
    } else {
        Some(key)
    }
}

/// The content of an sf-string whose opening quote is already stripped.
fn unquote_sf_string(rest: &str) -> Option<String> {
    let mut out = String::with_capacity(rest.len());
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped @ ('"' | '\\')) => out.push(escaped),
                _ => return None,
            },
            '"' => return chars.as_str().is_empty().then_some(out),
            ' '..='~' => out.push(c),
            _ => return None,
        }
    }
    None // no closing quote
}

/// Decodes `%XX` (either case); a `%` not followed by two hex digits stays.
/// `None` when the decoded bytes are not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&byte) = bytes.get(index) {
        let hex = |offset: usize| {
            bytes
                .get(index.saturating_add(offset))
                .and_then(|b| char::from(*b).to_digit(16))
        };
        match (byte, hex(1), hex(2)) {
            (b'%', Some(high), Some(low)) => {
                out.push(u8::try_from(high * 16 + low).ok()?);
                index = index.saturating_add(3);
            }
            _ => {
                out.push(byte);
                index = index.saturating_add(1);
            }
        }
    }
    String::from_utf8(out).ok()
}
