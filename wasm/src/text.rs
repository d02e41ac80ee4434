//! Text at the boundary. Strings cross as UTF-8 that the host writes into a
//! policy's text area (see `CorePolicy::textArea`), and calls take byte
//! lengths, -1 for an absent text.

use std::borrow::Cow;

/// The text area's starting size; it grows when a host needs more.
pub(crate) const TEXT_AREA_BYTES: usize = 4096;
/// The most it grows to (16 MiB): text beyond is the host's bug, not data.
pub(crate) const TEXT_AREA_MAX: usize = 16 << 20;

/// `len` bytes of the text area from `start` as text (-1: none).
pub(crate) fn text_at(area: &[u8], start: usize, len: i32) -> Option<Cow<'_, str>> {
    let len = usize::try_from(len).ok()?;
    area.get(start..start.saturating_add(len))
        .map(String::from_utf8_lossy)
}

/// The byte length of an optional text (-1 for none) as an offset step.
pub(crate) fn step(len: i32) -> usize {
    usize::try_from(len).unwrap_or(0)
}

/// Header pairs packed as `name\nvalue\nname\nvalue...` (one string crosses
/// the boundary instead of an array of them).
pub(crate) fn header_pairs(packed: &str) -> Vec<(&str, &str)> {
    let mut parts = packed.split('\n');
    let mut pairs = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        pairs.push((name, value));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_read_by_length_and_absent_at_minus_one() {
        let area = b"GET /x\xC3\xA9api";
        assert_eq!(text_at(area, 0, 6).as_deref(), Some("GET /x"));
        assert_eq!(text_at(area, 4, 4).as_deref(), Some("/x\u{e9}"));
        assert_eq!(text_at(area, 8, -1), None);
        assert_eq!(text_at(area, 8, 100), None, "past the area");
        assert_eq!(
            text_at(area, 6, 1).as_deref(),
            Some("\u{fffd}"),
            "lossy, never a panic"
        );
        assert_eq!((step(-1), step(5)), (0, 5));
    }

    #[test]
    fn header_pairs_ignore_a_dangling_name() {
        assert_eq!(
            header_pairs("retry-after\n5\nx-a\n"),
            vec![("retry-after", "5"), ("x-a", "")]
        );
        assert_eq!(header_pairs("lonely"), Vec::<(&str, &str)>::new());
    }
}
