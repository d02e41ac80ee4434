//! Text at the boundary. Strings cross as UTF-8 that the host writes into a
//! policy's text area (see `CorePolicy::textArea`), and calls take byte
//! lengths, [`ABSENT_TEXT`](crate::abi::ABSENT_TEXT) for an absent text.

/// `len` bytes of the text area from `start` as text (-1: none).
///
/// The runtime writes the area with `TextEncoder.encodeInto`, which only
/// writes whole UTF-8 characters; bytes that are not UTF-8 anyway (a host
/// writing the area by hand) end the text where they start, rather than
/// carrying `String::from_utf8_lossy` (a kilobyte of wasm) for a case the
/// package never produces.
pub(crate) fn text_at(area: &[u8], start: usize, len: i32) -> Option<&str> {
    let len = usize::try_from(len).ok()?;
    let bytes = area.get(start..start.saturating_add(len))?;
    Some(match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => bytes
            .get(..e.valid_up_to())
            .and_then(|valid| std::str::from_utf8(valid).ok())
            .unwrap_or_default(),
    })
}

/// The byte length of an optional text (-1 for none) as an offset step.
pub(crate) fn step(len: i32) -> usize {
    usize::try_from(len).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_read_by_length_and_absent_at_minus_one() {
        let area = b"GET /x\xC3\xA9api";
        assert_eq!(text_at(area, 0, 6), Some("GET /x"));
        assert_eq!(text_at(area, 4, 4), Some("/x\u{e9}"));
        assert_eq!(text_at(area, 8, -1), None);
        assert_eq!(text_at(area, 8, 100), None, "past the area");
        assert_eq!(
            text_at(area, 4, 3),
            Some("/x"),
            "half a character ends the text, never a panic"
        );
        assert_eq!((step(-1), step(5)), (0, 5));
    }

    #[test]
    fn texts_written_one_after_another_read_back() {
        // As the runtime's `TextArea.write` lays them out: UTF-8, end to end.
        let texts = [
            Some("POST /orders"),
            None,
            Some("b\u{fc}cher \u{1F600}"),
            Some(""),
        ];
        let mut area = Vec::new();
        let mut lengths = Vec::new();
        for text in texts {
            lengths.push(text.map_or(crate::abi::ABSENT_TEXT, |t| {
                area.extend_from_slice(t.as_bytes());
                i32::try_from(t.len()).unwrap()
            }));
        }
        let mut at = 0;
        for (text, len) in texts.iter().zip(lengths) {
            assert_eq!(text_at(&area, at, len), *text);
            at += step(len);
        }
    }
}
