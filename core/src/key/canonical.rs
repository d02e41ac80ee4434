//! RFC 8785 JSON Canonicalization Scheme (JCS): a strict RFC 8259 parser and
//! the canonical serializer.
//!
//! The parser is our own, not serde_json, because JCS depends on details a
//! general-purpose parser hides or changes: correctly rounded doubles,
//! rejecting duplicate member names (I-JSON) instead of keeping the last, and
//! rejecting unpaired surrogate escapes instead of replacing them.

use super::number::{es6_number, read_decimal};
use crate::error::{InputError, InputErrorCode};

/// Deepest nesting of arrays and objects `canonical_json` accepts.
///
/// Why a bound: parsing and serializing recurse once per level, so the bound
/// is what keeps hostile input such as ten thousand `[` from exhausting the
/// stack. 128 is far above any real argument object and matches the depth
/// limit serde_json applies by default.
pub const MAX_DEPTH: usize = 128;

/// 2^53: past it, a double cannot hold every integer, so two distinct
/// integer literals can canonicalize to one number.
const MAX_EXACT_INTEGER: u128 = 1 << 53;

/// Rewrites JSON text into its RFC 8785 canonical form.
///
/// Why: an idempotency key hashes the call's arguments, and the hash must be
/// the same whichever language, library or member order produced the JSON.
/// The output has no whitespace, object members sorted by the UTF-16 code
/// units of their names, strings escaped as ECMAScript `JSON.stringify` does
/// (only `"`, `\` and controls below U+0020; everything else literal UTF-8)
/// and numbers printed as ECMAScript `Number.prototype.toString`.
///
/// Input is strict RFC 8259 JSON (any value at top level; whitespace is
/// space, tab, LF and CR only; no byte order mark, comments, trailing commas,
/// `NaN` or leading zeros).
///
/// # Errors
///
/// [`InputErrorCode::InvalidJson`] for text outside the grammar,
/// [`InputErrorCode::DuplicateKey`] for an object naming a member twice
/// (after escapes are decoded), [`InputErrorCode::NumberOutOfRange`] for a
/// number that rounds to infinity (such as `1e400`),
/// [`InputErrorCode::LoneSurrogate`] for a `\uD800`-style escape without its
/// pair, and [`InputErrorCode::TooDeep`] for nesting beyond [`MAX_DEPTH`].
pub fn canonical_json(json_text: &str) -> Result<String, InputError> {
    canonicalize(json_text, Integers::Doubles)
}

/// [`canonical_json`] for values that stand for an identity (idempotency-key
/// arguments, a host's own data): an integer literal whose digits say more
/// than a double holds (beyond +/-2^53, neither the double's exact value nor
/// its RFC 8785 form, such as `1234567890123456789`, whose double is written
/// `1234567890123456800`) is refused with
/// [`InputErrorCode::NumberOutOfRange`] and a message saying to pass it as a
/// string. RFC 8785 reads every number as a double, so two such ids that
/// differ in the last digits would otherwise get one key, and a second,
/// different order would be "replayed" as the first.
pub fn canonical_json_exact(json_text: &str) -> Result<String, InputError> {
    canonicalize(json_text, Integers::Refused)
}

/// [`canonical_json`] for telling payloads apart (a server's request
/// fingerprint): an integer literal a double cannot hold is kept with its
/// own digits instead of rounded, so two bodies whose ids differ in the last
/// digits get different fingerprints. Not RFC 8785 for such numbers, and
/// only ever compared with itself.
pub fn canonical_json_distinct(json_text: &str) -> Result<String, InputError> {
    canonicalize(json_text, Integers::Kept)
}

/// Parses JSON text as a document (a config written for Rust or the
/// vectors), with the canonical parser's strictness (duplicate members,
/// lone surrogates and nesting beyond [`MAX_DEPTH`] refused): numbers keep
/// their literal text, so a 64-bit seed reads back exactly and an integer
/// stays told apart from a float. Members come sorted.
pub(crate) fn parse_document(json_text: &str) -> Result<Json, InputError> {
    parse(json_text, Integers::Literal)
}

/// What happens to an integer literal a double cannot hold exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Integers {
    /// Read as the nearest double (RFC 8785).
    Doubles,
    /// Refused: it stands for an identity that rounding would merge.
    Refused,
    /// Kept as written (its digits are already canonical: JSON has no
    /// leading zeros or plus signs).
    Kept,
    /// Every number kept as written (a document, not a hash input).
    Literal,
}

fn canonicalize(json_text: &str, integers: Integers) -> Result<String, InputError> {
    let value = parse(json_text, integers)?;
    let mut out = String::with_capacity(json_text.len());
    write_value(&value, &mut out);
    Ok(out)
}

/// One whole JSON text (surrounding whitespace allowed, nothing after).
fn parse(json_text: &str, integers: Integers) -> Result<Json, InputError> {
    let mut parser = Parser {
        text: json_text,
        bytes: json_text.as_bytes(),
        pos: 0,
        integers,
    };
    parser.skip_whitespace();
    let value = parser.parse_value(0)?;
    parser.skip_whitespace();
    if parser.pos < parser.bytes.len() {
        return Err(parser.invalid("unexpected text after the JSON value"));
    }
    Ok(value)
}

/// A parsed JSON value. Numbers are kept already in their canonical text;
/// object members are kept sorted by UTF-16 name, duplicates rejected.
#[derive(Debug)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

#[derive(Debug)]
struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// What to do with integer literals a double cannot hold.
    integers: Integers,
}

impl Parser<'_> {
    fn invalid(&self, what: &str) -> InputError {
        InputError::new(
            InputErrorCode::InvalidJson,
            format!("{what} at byte {}", self.pos),
        )
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn bump(&mut self) {
        self.pos = self.pos.saturating_add(1);
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.bump();
        }
    }

    /// Parses one value; `depth` counts the arrays and objects around it.
    fn parse_value(&mut self, depth: usize) -> Result<Json, InputError> {
        match self.peek() {
            Some(b'{') => {
                self.check_depth(depth)?;
                self.parse_object(depth.saturating_add(1))
            }
            Some(b'[') => {
                self.check_depth(depth)?;
                self.parse_array(depth.saturating_add(1))
            }
            Some(b'"') => self.parse_string().map(Json::String),
            Some(b't') => self.parse_literal("true", Json::Bool(true)),
            Some(b'f') => self.parse_literal("false", Json::Bool(false)),
            Some(b'n') => self.parse_literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.parse_number(),
            Some(_) => Err(self.invalid("unexpected character")),
            None => Err(self.invalid("unexpected end of input")),
        }
    }

    fn check_depth(&self, depth: usize) -> Result<(), InputError> {
        if depth >= MAX_DEPTH {
            return Err(InputError::new(
                InputErrorCode::TooDeep,
                format!("nesting deeper than {MAX_DEPTH} at byte {}", self.pos),
            ));
        }
        Ok(())
    }

    fn parse_literal(&mut self, word: &str, value: Json) -> Result<Json, InputError> {
        let end = self.pos.saturating_add(word.len());
        if self.bytes.get(self.pos..end) == Some(word.as_bytes()) {
            self.pos = end;
            Ok(value)
        } else {
            Err(self.invalid("invalid literal"))
        }
    }

    fn parse_array(&mut self, depth: usize) -> Result<Json, InputError> {
        self.bump(); // '['
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_whitespace();
            items.push(self.parse_value(depth)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b']') => {
                    self.bump();
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.invalid("expected ',' or ']'")),
            }
        }
    }

    fn parse_object(&mut self, depth: usize) -> Result<Json, InputError> {
        self.bump(); // '{'
        let mut members: Vec<(String, Json)> = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.invalid("expected a member name"));
            }
            let name = self.parse_string()?;
            self.skip_whitespace();
            if self.peek() != Some(b':') {
                return Err(self.invalid("expected ':'"));
            }
            self.bump();
            self.skip_whitespace();
            let value = self.parse_value(depth)?;
            members.push((name, value));
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b'}') => {
                    self.bump();
                    break;
                }
                _ => return Err(self.invalid("expected ',' or '}'")),
            }
        }
        // JCS orders by UTF-16 code units (what ECMAScript compares), which
        // differs from UTF-8 byte order for characters above U+FFFF.
        crate::sort::sort_by(&mut members, |a, b| {
            a.0.encode_utf16().lt(b.0.encode_utf16())
        });
        if let Some(pair) = members.windows(2).find(|pair| match pair {
            [a, b] => a.0 == b.0,
            _ => false,
        }) {
            // Quoted as JSON writes it (not by `Debug`, whose escaping
            // tables and code the WebAssembly modules would carry for this
            // one message).
            let mut name = String::new();
            write_string(
                pair.first().map_or("", |member| member.0.as_str()),
                &mut name,
            );
            return Err(InputError::new(
                InputErrorCode::DuplicateKey,
                format!(
                    "duplicate member name {name} in the object ending at byte {}",
                    self.pos
                ),
            ));
        }
        Ok(Json::Object(members))
    }

    fn parse_number(&mut self) -> Result<Json, InputError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.bump();
        }
        match self.peek() {
            Some(b'0') => self.bump(),
            Some(b'1'..=b'9') => self.skip_digits(),
            _ => return Err(self.invalid("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.bump();
            self.require_digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.bump();
            if let Some(b'+' | b'-') = self.peek() {
                self.bump();
            }
            self.require_digits()?;
        }
        let literal = self
            .text
            .get(start..self.pos)
            .ok_or_else(|| self.invalid("number not on a character boundary"))?;
        // Rounds correctly for any number of digits, as ECMAScript's and
        // Python's parsers do.
        let value = read_decimal(literal).ok_or_else(|| self.invalid("invalid number"))?;
        let integer = !literal.contains(['.', 'e', 'E']);
        // A document keeps every number as written: whether it was an
        // integer literal is part of its meaning (a float 1e18 is not a seed).
        if self.integers == Integers::Literal && value.is_finite() {
            return Ok(Json::Number(literal.to_owned()));
        }
        let inexact = integer
            && beyond_exact_range(literal)
            && !is_exact(literal, value)
            && es6_number(value).as_deref() != Some(literal);
        if inexact && self.integers == Integers::Kept && value.is_finite() {
            return Ok(Json::Number(literal.to_owned()));
        }
        if inexact && self.integers == Integers::Refused {
            return Err(InputError::new(
                InputErrorCode::NumberOutOfRange,
                format!(
                    "integer {literal} is beyond +/-2^53, where a double (and so RFC 8785) \
                     cannot tell neighbouring integers apart: two different ids would get one \
                     key; pass it as a string"
                ),
            ));
        }
        es6_number(value).map(Json::Number).ok_or_else(|| {
            InputError::new(
                InputErrorCode::NumberOutOfRange,
                format!("number {literal} is outside the IEEE-754 double range"),
            )
        })
    }

    fn skip_digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.bump();
        }
    }

    fn require_digits(&mut self) -> Result<(), InputError> {
        if !matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(self.invalid("expected a digit"));
        }
        self.skip_digits();
        Ok(())
    }

    fn parse_string(&mut self) -> Result<String, InputError> {
        self.bump(); // '"'
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.bump();
            }
            // The run stops only at ASCII bytes, so both ends are character
            // boundaries of the (valid UTF-8) input.
            let run = self
                .text
                .get(run_start..self.pos)
                .ok_or_else(|| self.invalid("string not on a character boundary"))?;
            out.push_str(run);
            match self.peek() {
                Some(b'"') => {
                    self.bump();
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.bump();
                    out.push(self.parse_escape()?);
                }
                Some(_) => return Err(self.invalid("unescaped control character in string")),
                None => return Err(self.invalid("unterminated string")),
            }
        }
    }

    /// Decodes one escape; the backslash is already consumed.
    fn parse_escape(&mut self) -> Result<char, InputError> {
        let simple = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.bump();
                return self.parse_unicode_escape();
            }
            _ => return Err(self.invalid("invalid escape")),
        };
        self.bump();
        Ok(simple)
    }

    /// Decodes `XXXX` after `\u`, joining a surrogate pair when one follows.
    fn parse_unicode_escape(&mut self) -> Result<char, InputError> {
        let start = self.pos;
        let unit = self.parse_hex4()?;
        let code_point = match unit {
            0xD800..=0xDBFF => {
                let end = self.pos.saturating_add(2);
                if self.bytes.get(self.pos..end) != Some(b"\\u".as_slice()) {
                    return Err(lone_surrogate(unit, start));
                }
                self.pos = end;
                let low = self.parse_hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(lone_surrogate(unit, start));
                }
                0x1_0000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(lone_surrogate(unit, start)),
            _ => unit,
        };
        char::from_u32(code_point).ok_or_else(|| self.invalid("invalid \\u escape"))
    }

    fn parse_hex4(&mut self) -> Result<u32, InputError> {
        let mut unit: u32 = 0;
        for _ in 0..4 {
            let digit = self
                .peek()
                .and_then(|b| char::from(b).to_digit(16))
                .ok_or_else(|| self.invalid("expected four hex digits after \\u"))?;
            unit = (unit << 4) | digit;
            self.bump();
        }
        Ok(unit)
    }
}

/// Whether the integer `literal` is beyond +/-2^53, judged on its digits:
/// the parsed double cannot tell, since 2^53 + 1 rounds to 2^53.
fn beyond_exact_range(literal: &str) -> bool {
    let digits = literal.trim_start_matches('-');
    digits.len() > 38
        || digits
            .parse::<u128>()
            .map_or(true, |n| n > MAX_EXACT_INTEGER)
}

/// Whether the integer `literal` is exactly the double `value` it parsed
/// to (true for `100000000000000000000`, RFC 8785's own form of 1e20; false
/// for `1234567890123456789`, which rounds). Literals of more than 38 digits
/// are never taken as exact: no id is meant that way.
fn is_exact(literal: &str, value: f64) -> bool {
    let digits = literal.trim_start_matches('-');
    if digits.len() > 38 {
        return false;
    }
    let Ok(written) = digits.parse::<u128>() else {
        return false;
    };
    // `as` saturates; every finite double below 2^128 converts exactly.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let held = value.abs() as u128;
    written == held
}

fn lone_surrogate(unit: u32, pos: usize) -> InputError {
    InputError::new(
        InputErrorCode::LoneSurrogate,
        format!("unpaired surrogate \\u{unit:04x} at byte {pos}"),
    )
}

fn write_value(value: &Json, out: &mut String) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(true) => out.push_str("true"),
        Json::Bool(false) => out.push_str("false"),
        Json::Number(text) => out.push_str(text),
        Json::String(text) => write_string(text, out),
        Json::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Json::Object(members) => {
            out.push('{');
            for (index, (name, item)) in members.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_string(name, out);
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
    }
}

/// Writes a string literal escaped as RFC 8785 section 3.2.2.2 requires.
pub(crate) fn write_string(text: &str, out: &mut String) {
    out.push('"');
    // Most texts (keys, codes) need no escape: copied whole.
    if !text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(text);
        out.push('"');
        return;
    }
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if u32::from(c) < 0x20 => {
                let code = u32::from(c);
                out.push_str("\\u00");
                for nibble in [code >> 4, code & 0xf] {
                    out.push(char::from_digit(nibble, 16).unwrap_or('0'));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
