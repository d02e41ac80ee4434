//! How a caller spells keys and writes durations.

/// The spelling of object keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyCase {
    /// `max_attempts`, `base_ms`.
    Snake,
    /// `maxAttempts`, `baseMs`.
    Camel,
}

/// How durations are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    /// Integer milliseconds, under a key ending in `_ms` / `Ms`.
    Millis,
    /// Float seconds, under the key without a unit (`base=0.25`).
    Seconds,
}

/// A caller's dialect of the schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    pub case: KeyCase,
    pub time: TimeUnit,
    /// Also accept keys in the core's own spelling (JavaScript takes
    /// snake_case configs too, so a config written for Rust or for the JSON
    /// vectors works unchanged). Errors name known fields in the dialect's
    /// spelling, unknown keys as written.
    pub accepts_core_keys: bool,
}

impl Dialect {
    /// Rust and JSON documents: snake_case keys, integer milliseconds.
    pub const RUST: Dialect = Dialect {
        case: KeyCase::Snake,
        time: TimeUnit::Millis,
        accepts_core_keys: false,
    };
    /// JavaScript: camelCase keys (snake_case accepted), integer milliseconds.
    pub const JS: Dialect = Dialect {
        case: KeyCase::Camel,
        time: TimeUnit::Millis,
        accepts_core_keys: true,
    };
    /// Python: snake_case keys, float seconds.
    pub const PYTHON: Dialect = Dialect {
        case: KeyCase::Snake,
        time: TimeUnit::Seconds,
        accepts_core_keys: false,
    };

    /// The key of a field named `name` (snake_case); for a duration, `name`
    /// is its stem (`base`) and the unit's suffix is added where the dialect
    /// writes one.
    #[must_use]
    pub fn key(&self, name: &str, duration: bool) -> String {
        let mut key = String::with_capacity(name.len() + 3);
        self.write_key(&mut key, name, duration);
        key
    }

    /// [`Dialect::key`], appended to `out`.
    pub fn write_key(&self, out: &mut String, name: &str, duration: bool) {
        match self.case {
            KeyCase::Snake => {
                out.push_str(name);
                if duration && self.time == TimeUnit::Millis {
                    out.push_str("_ms");
                }
            }
            KeyCase::Camel => {
                push_camel(out, name);
                if duration {
                    out.push_str("Ms");
                }
            }
        }
    }

    /// A duration as this dialect writes it, for messages: `1500 ms` or `1.5 s`.
    #[must_use]
    pub fn duration_text(&self, ms: u64) -> String {
        match self.time {
            TimeUnit::Millis => format!("{ms} ms"),
            TimeUnit::Seconds => {
                let (whole, frac) = (ms / 1000, ms % 1000);
                if frac == 0 {
                    format!("{whole} s")
                } else {
                    let digits = format!("{frac:03}");
                    format!("{whole}.{} s", digits.trim_end_matches('0'))
                }
            }
        }
    }
}

/// The core's key: snake_case, `_ms` for durations.
pub(crate) fn core_key(name: &str, duration: bool) -> String {
    let mut key = String::with_capacity(name.len() + 3);
    key.push_str(name);
    if duration {
        key.push_str("_ms");
    }
    key
}

/// `max_attempts` -> `maxAttempts` (also for the bindings' results, whose
/// keys are the core's).
#[must_use]
pub fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    push_camel(&mut out, snake);
    out
}

/// Every word after the first capitalised, underscores dropped. Words are
/// pushed whole, not a character at a time: every key of every object the
/// core hands JavaScript passes through here.
fn push_camel(out: &mut String, snake: &str) {
    let mut words = snake.split('_');
    if let Some(first) = words.next() {
        out.push_str(first);
    }
    for word in words {
        let mut rest = word.chars();
        if let Some(head) = rest.next() {
            out.push(head.to_ascii_uppercase());
            out.push_str(rest.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{camel, Dialect};

    #[test]
    fn camel_case_capitalises_every_word_after_the_first() {
        for (snake, expected) in [
            ("max_attempts", "maxAttempts"),
            ("seed", "seed"),
            ("a__b", "aB"),
            ("_a", "A"),
            ("a_", "a"),
            ("", ""),
            ("x_http_status", "xHttpStatus"),
        ] {
            assert_eq!(camel(snake), expected);
        }
        assert_eq!(Dialect::JS.key("base", true), "baseMs");
        assert_eq!(Dialect::RUST.key("base", true), "base_ms");
        assert_eq!(Dialect::PYTHON.key("base", true), "base");
        assert_eq!(Dialect::PYTHON.key("max_attempts", false), "max_attempts");
    }

    /// The rule spelt one character at a time: after an underscore, the
    /// next character is upper-cased; underscores are dropped.
    fn camel_by_characters(snake: &str) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in snake.chars() {
            if c == '_' {
                upper = true;
            } else if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn camel_case_word_by_word_equals_the_character_rule(snake in "[a-zA-Z0-9_\\u{e9}]{0,24}") {
            proptest::prop_assert_eq!(camel(&snake), camel_by_characters(&snake));
        }
    }
}
