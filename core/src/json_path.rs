//! The dotted path (`a.b[2].c`) of the JSON value at a byte offset of a
//! document.
//!
//! Why: a config error must name its field. serde reports where in the text
//! it stopped, not which field it was reading; serde_path_to_error tracks
//! the path by wrapping every deserializer and visitor, which doubles the
//! generic code compiled for each config type (about a tenth of the wasm
//! module). Parsing JSON text with plain serde_json and reading the path off
//! the error's position gives the same field names for the cost of this one
//! small scanner (`tests/config_error_paths.rs` checks the two agree).
//!
//! The path follows serde_path_to_error's spelling: object keys joined by
//! `.`, array indices as `[i]`, the empty string at the top level. It is the
//! path of the innermost key or array element that started at or before
//! `offset` and is still open, or whose value has just ended there:
//! serde_json reports an error after the token it rejected (a value of the
//! wrong type, an unknown key), at an object or array it peeked at and
//! rejected, or after the closing brace of an object missing a field.
//! The scanner never fails; malformed text yields the path read so far.

/// One step into a document.
enum Segment {
    Key(String),
    Index(usize),
}

/// An open object or array and where the scan is inside it.
struct Frame {
    /// The key or element being read, once one has started.
    segment: Option<Segment>,
    /// Elements started so far (arrays only).
    elements: usize,
    /// An object expecting a key next (after `{` or `,`).
    expects_key: bool,
    is_array: bool,
}

/// The byte offset of serde_json's one-based `line` and its `column` (the
/// bytes of that line consumed before the error).
#[must_use]
pub(crate) fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    let mut current = 1;
    for (i, byte) in text.bytes().enumerate() {
        if current >= line {
            break;
        }
        if byte == b'\n' {
            current += 1;
            start = i + 1;
        }
    }
    start.saturating_add(column).min(text.len())
}

/// The path of the value being read at byte `offset` of `text`.
#[must_use]
pub(crate) fn path_at(text: &str, offset: usize) -> String {
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i <= offset {
        let Some(&byte) = bytes.get(i) else { break };
        // A token that starts exactly at `offset` is one serde_json peeked
        // at and rejected without consuming (an object where a number
        // belongs): it counts if it starts a key or a value, not if it ends
        // one.
        if i == offset
            && matches!(
                byte,
                b' ' | b'\t' | b'\n' | b'\r' | b':' | b',' | b'}' | b']'
            )
        {
            break;
        }
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => i += 1,
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.expects_key = !top.is_array;
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            _ => {
                let is_key = stack.last().is_some_and(|top| top.expects_key);
                if let Some(top) = stack.last_mut() {
                    if top.is_array {
                        top.segment = Some(Segment::Index(top.elements));
                        top.elements += 1;
                    }
                }
                match byte {
                    b'{' | b'[' => {
                        stack.push(Frame {
                            segment: None,
                            elements: 0,
                            expects_key: byte == b'{',
                            is_array: byte == b'[',
                        });
                        i += 1;
                    }
                    b'"' => {
                        let (decoded, end) = read_string(bytes, i + 1);
                        if is_key {
                            if let Some(top) = stack.last_mut() {
                                top.segment = Some(Segment::Key(decoded));
                                top.expects_key = false;
                            }
                        }
                        i = end;
                    }
                    _ => i = scalar_end(bytes, i),
                }
            }
        }
    }
    render(&stack)
}

fn render(stack: &[Frame]) -> String {
    let mut path = String::new();
    for segment in stack.iter().filter_map(|frame| frame.segment.as_ref()) {
        match segment {
            Segment::Key(key) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Segment::Index(index) => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    path
}

/// The end of a number or literal starting at `start`.
fn scalar_end(bytes: &[u8], start: usize) -> usize {
    let mut end = start + 1;
    while bytes.get(end).is_some_and(|b| {
        !matches!(
            b,
            b',' | b'}' | b']' | b':' | b'"' | b' ' | b'\t' | b'\n' | b'\r'
        )
    }) {
        end += 1;
    }
    end
}

/// Decodes the string whose contents start at `start` (after the opening
/// quote); returns it and the offset after the closing quote.
fn read_string(bytes: &[u8], start: usize) -> (String, usize) {
    let mut out: Vec<u8> = Vec::new();
    let mut i = start;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => return (String::from_utf8_lossy(&out).into_owned(), i + 1),
            b'\\' => {
                let escaped = bytes.get(i + 1).copied().unwrap_or(b'\\');
                i += 2;
                let simple = match escaped {
                    b'n' => Some(b'\n'),
                    b't' => Some(b'\t'),
                    b'r' => Some(b'\r'),
                    b'b' => Some(0x08),
                    b'f' => Some(0x0c),
                    b'u' => None,
                    other => Some(other),
                };
                match simple {
                    Some(b) => out.push(b),
                    None => {
                        let (c, next) = read_unicode_escape(bytes, i);
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                        i = next;
                    }
                }
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), i)
}

/// The character of a `\uXXXX` escape whose hex digits start at `start`
/// (a surrogate pair takes a second escape); returns it and the offset
/// after it. Malformed escapes read as U+FFFD.
fn read_unicode_escape(bytes: &[u8], start: usize) -> (char, usize) {
    let hex = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let Some(first) = hex(start) else {
        return (char::REPLACEMENT_CHARACTER, start);
    };
    if (0xD800..0xDC00).contains(&first)
        && bytes.get(start + 4) == Some(&b'\\')
        && bytes.get(start + 5) == Some(&b'u')
    {
        if let Some(second) = hex(start + 6).filter(|s| (0xDC00..0xE000).contains(s)) {
            let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
            return (
                char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER),
                start + 10,
            );
        }
    }
    (
        char::from_u32(first).unwrap_or(char::REPLACEMENT_CHARACTER),
        start + 4,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path just after the first byte of `marker`, where serde_json
    /// stops after rejecting a one-byte value.
    fn at(text: &str, marker: &str) -> String {
        path_at(text, text.find(marker).unwrap() + 1)
    }

    #[test]
    fn names_the_key_or_element_being_read() {
        let text = r#"{"a": {"b": [1, {"c": 2}, 3]}, "d": 4}"#;
        assert_eq!(at(text, "2}"), "a.b[1].c");
        assert_eq!(at(text, "3]"), "a.b[2]");
        assert_eq!(at(text, "4}"), "d");
        assert_eq!(path_at(text, 0), "");
        assert_eq!(path_at(text, text.len()), "");
        // Peeked at, not consumed: the value starting at the offset.
        assert_eq!(path_at(text, text.find("{\"c").unwrap()), "a.b[1]");
        assert_eq!(path_at(text, text.find("[1").unwrap()), "a.b");
    }

    #[test]
    fn after_a_closed_object_names_the_object() {
        let text = r#"{"a": {"b": 1}, "c": 2}"#;
        let after = text.find("},").unwrap() + 1;
        assert_eq!(path_at(text, after), "a");
    }

    #[test]
    fn decodes_escaped_keys() {
        let text = r#"{"a\"b\u00e9\ud83d\ude00": 1}"#;
        assert_eq!(at(text, "1}"), "a\"bé😀");
    }

    #[test]
    fn offsets_count_bytes_per_line() {
        let text = "{\n  \"é\": 1,\n  \"x\": 2\n}";
        assert_eq!(offset_of(text, 3, 3), text.find("\"x").unwrap() + 1);
        assert_eq!(offset_of(text, 99, 99), text.len());
    }

    #[test]
    fn never_fails_on_malformed_text() {
        for text in ["{", "[[[", "\"abc", "{\"a\":", "}}]]", "{\"\\u12", "\\"] {
            for offset in 0..=text.len() + 2 {
                let _path = path_at(text, offset);
            }
        }
    }
}
