//! The ABI between the module and the TypeScript runtime, declared once.
//!
//! Beside the glue wasm-bindgen writes, the runtime and the module share
//! what no signature says: the numbers hot-path methods answer with (a
//! decision's kind, an attempt number, the misuse codes), the layout of the
//! two areas of memory the host writes and reads directly (text in, a
//! call's plan out), and the two packed strings that cross instead of
//! arrays or objects (response headers in, an HTTP request's plan out).
//!
//! Every constant here is also written to `npm/src/abi.generated.ts` by this
//! module's tests, which fail when the checked-in file differs from what
//! they would write (`make js-abi`, which is
//! `STOIC_WRITE_FIXTURES=1 cargo test -p stoic-wasm abi`, rewrites it). The runtime imports its numbers and separators from there;
//! the packing and unpacking code on each side is pinned by round trips
//! here (Rust) and in `npm/test/abi.test.js` (through the built package).

use stoic_core::host::HttpPlan;
use stoic_core::schema::Value;

/// Declares the ABI's constants, and (for the tests) the list of them with
/// their docs that `npm/src/abi.generated.ts` is written from.
macro_rules! abi {
    ($($(#[doc = $doc:literal])+ pub const $name:ident: $ty:ty = $value:expr;)+) => {
        $($(#[doc = $doc])+ pub const $name: $ty = $value;)+

        /// Each constant's name, doc lines and value as TypeScript.
        #[cfg(test)]
        fn declarations() -> Vec<(&'static str, &'static [&'static str], String)> {
            vec![$((stringify!($name), &[$($doc),+], generate::Literal::ts(&$name))),+]
        }
    };
}

abi! {
    /// A decision's kind as the hot-path methods answer it: the call is
    /// over, with the attempt's result.
    pub const DONE: u32 = 0;
    /// A decision's kind: retry after the delay in the plan area.
    pub const RETRY: u32 = 1;
    /// A decision's kind: the call is over without a result (`decision()`
    /// says why).
    pub const GIVE_UP: u32 = 2;
    /// The attempt number of an admission that refused (`beforeAttempt`,
    /// the plan area): the call is over.
    pub const NOT_ADMITTED: u32 = 0;

    /// Misuse codes. Hot-path methods answer with a plain number, not a
    /// `Result` (the glue returns a `Result` as a fresh array per call:
    /// garbage on every attempt); misuse is reported by the five numbers
    /// at the top of the `u32` range, which the runtime turns into the error
    /// `boundaryError` makes for them. A closed or unknown call handle...
    pub const UNKNOWN_CALL: u32 = u32::MAX;
    /// ...a network kind or class index outside the core's lists...
    pub const INVALID_CODE: u32 = u32::MAX - 1;
    /// ...a step out of order: an outcome before any admission, a second
    /// admission while an attempt is in flight...
    pub const MISUSE: u32 = u32::MAX - 2;
    /// ...a raised error classified as success...
    pub const RAISED_SUCCESS: u32 = u32::MAX - 3;
    /// ...and a value rejected as a success.
    pub const REJECTED_SUCCESS: u32 = u32::MAX - 4;
    /// The smallest misuse code: every answer below it is a plain one.
    pub const MIN_MISUSE_CODE: u32 = REJECTED_SUCCESS;

    /// The text area's starting size in bytes; it grows when a host needs
    /// more (`reserveText`). Texts lie one after another from its start, in
    /// the order the call names them, as UTF-8; the call takes their byte
    /// lengths.
    pub const TEXT_AREA_BYTES: usize = 4096;
    /// The most the text area grows to (16 MiB): text beyond is the host's
    /// bug, not data.
    pub const TEXT_AREA_MAX: usize = 16 << 20;
    /// The byte length that stands for an absent text (any negative reads
    /// as absent).
    pub const ABSENT_TEXT: i32 = -1;

    /// The plan area's number of `f64` slots (`planArea`).
    pub const PLAN_SLOTS: usize = 3;
    /// The slot of the last admission's attempt number (`NOT_ADMITTED`: it
    /// refused).
    pub const PLAN_ATTEMPT: usize = 0;
    /// The slot of the last admitted attempt's timeout in ms (`NO_MS`:
    /// unbounded).
    pub const PLAN_TIMEOUT_MS: usize = 1;
    /// The slot of the last decision's delay in ms (`NO_MS`: not a retry).
    pub const PLAN_DELAY_MS: usize = 2;
    /// A plan slot's duration when there is none.
    pub const NO_MS: f64 = -1.0;

    /// Packed headers (`serverHint`, `onStatus`): `name`, separator,
    /// `value`, separator, `name`... A dangling name is ignored.
    pub const HEADER_SEPARATOR: char = '\n';

    /// A packed HTTP plan (`httpPlan`) is a digit of flags (the character
    /// whose code is this plus the flags' sum), the scope's length in UTF-16
    /// units as decimal digits, `HTTP_PLAN_SCOPE_MARK`, the scope, then the
    /// operation.
    pub const HTTP_PLAN_DIGIT_ZERO: u8 = b'0';
    /// Ends the scope's length in a packed HTTP plan.
    pub const HTTP_PLAN_SCOPE_MARK: char = '\n';
    /// The flag of a request safe to repeat.
    pub const HTTP_PLAN_SAFE_TO_REPEAT: u8 = 1;
    /// The flag of a request that gets a random key.
    pub const HTTP_PLAN_AUTO_KEY: u8 = 2;
    /// The flag of a request whose key the engine may trust.
    pub const HTTP_PLAN_TRUST_KEY: u8 = 4;

    /// A hedged call's step as its methods answer it (`hedgePoll`,
    /// `hedgeOutcome`, `hedgeCancel`; `stoic/full` only): send copy
    /// `HEDGE_COPY` now, with timeout `HEDGE_TIMEOUT_MS`, then ask again.
    pub const HEDGE_SEND: u32 = 0;
    /// A hedged call's step: ask again at `HEDGE_UNTIL_MS`, or when a
    /// copy's outcome comes (`NO_MS`: only then).
    pub const HEDGE_WAIT: u32 = 1;
    /// A hedged call's step: copy `HEDGE_COPY` won; cancel `HEDGE_CANCEL`.
    pub const HEDGE_DONE: u32 = 2;
    /// A hedged call's step: the call is over without success
    /// (`hedgeGiveUp` says why); cancel `HEDGE_CANCEL`.
    pub const HEDGE_GIVE_UP: u32 = 3;
    /// The hedge area's number of `f64` slots (`hedgeArea`): the last
    /// step's figures, read without a call, as the plan area's are.
    pub const HEDGE_SLOTS: usize = 4;
    /// The slot of the copy to send (`HEDGE_SEND`) or the winner
    /// (`HEDGE_DONE`).
    pub const HEDGE_COPY: usize = 0;
    /// The slot of the copy's timeout in ms (`NO_MS`: unbounded).
    pub const HEDGE_TIMEOUT_MS: usize = 1;
    /// The slot of the time to ask again, on the policy's clock (`NO_MS`:
    /// only when an outcome comes).
    pub const HEDGE_UNTIL_MS: usize = 2;
    /// The slot of the copies to cancel: bit `n - 1` for copy `n`.
    pub const HEDGE_CANCEL: usize = 3;

    /// What ended an attempt or a hedged call's copy (`hedgeOutcome`'s
    /// `kind`, and how the host and the binding encode every outcome): a
    /// success...
    pub const COPY_SUCCESS: u32 = 0;
    /// ...a response's status (the code: the status; headers then detail
    /// in the text area)...
    pub const COPY_STATUS: u32 = 1;
    /// ...a failure without a response (the code indexes `networkKinds()`)...
    pub const COPY_NETWORK: u32 = 2;
    /// ...an error the caller's code raised (the code indexes `classes()`)...
    pub const COPY_RAISED: u32 = 3;
    /// ...or a value the host rejected (the code indexes `classes()`).
    pub const COPY_REJECTED: u32 = 4;
}

/// Header pairs packed as `name\nvalue\nname\nvalue...` (one string crosses
/// the boundary instead of an array of them).
pub fn header_pairs(packed: &str) -> Vec<(&str, &str)> {
    let mut parts = packed.split(HEADER_SEPARATOR);
    let mut pairs = Vec::new();
    while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
        pairs.push((name, value));
    }
    pairs
}

/// `plan` packed into one string (see `HTTP_PLAN_DIGIT_ZERO`). One string
/// crosses instead of an object of five fields, whose every key and value
/// was a crossing and a UTF-8 decode of its own: 5 to 8 us per request in
/// Node 20, now about one.
pub fn pack_http_plan(plan: &HttpPlan) -> String {
    let flags = (u8::from(plan.safe_to_repeat) * HTTP_PLAN_SAFE_TO_REPEAT)
        | (u8::from(plan.auto_key) * HTTP_PLAN_AUTO_KEY)
        | (u8::from(plan.trust_key) * HTTP_PLAN_TRUST_KEY);
    // The count as JSON writes it: no `core::fmt` integer formatter linked.
    let units = Value::Int(plan.scope.encode_utf16().count() as i128).to_json_text();
    let mut packed = String::with_capacity(plan.scope.len() + plan.operation.len() + 12);
    packed.push(char::from(HTTP_PLAN_DIGIT_ZERO + flags));
    packed.push_str(&units);
    packed.push(HTTP_PLAN_SCOPE_MARK);
    packed.push_str(&plan.scope);
    packed.push_str(&plan.operation);
    packed
}

#[cfg(test)]
mod generate {
    //! `npm/src/abi.generated.ts`, written from the declarations above.

    use std::fmt::Write as _;

    /// A constant's value as a TypeScript literal.
    pub(super) trait Literal {
        fn ts(&self) -> String;
    }

    impl Literal for u32 {
        fn ts(&self) -> String {
            // The misuse codes read as what they are: the top of the range.
            if *self >= 0xffff_0000 {
                format!("{self:#x}")
            } else {
                self.to_string()
            }
        }
    }

    impl Literal for usize {
        fn ts(&self) -> String {
            self.to_string()
        }
    }

    impl Literal for i32 {
        fn ts(&self) -> String {
            self.to_string()
        }
    }

    impl Literal for u8 {
        fn ts(&self) -> String {
            self.to_string()
        }
    }

    impl Literal for f64 {
        fn ts(&self) -> String {
            // -1.0 prints as -1: a whole number is written as one.
            format!("{self}")
        }
    }

    impl Literal for char {
        fn ts(&self) -> String {
            format!("'{}'", self.escape_default())
        }
    }

    /// Where the file lies, from this crate.
    pub(super) const PATH: &str =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../npm/src/abi.generated.ts");

    /// The whole file.
    pub(super) fn typescript() -> String {
        let mut ts = String::from(
            "// Generated from wasm/src/abi.rs by its tests; do not edit. `cargo test`\n\
             // (make test) fails when this file differs from what they write;\n\
             // `make js-abi` rewrites it.\n\
             /**\n \
             * The ABI between the wasm module and this runtime beyond the glue's\n \
             * signatures: the numbers hot-path methods answer with, the layout of the\n \
             * text and plan areas, and the separators of the packed strings.\n \
             *\n \
             * A `const enum`: tsc writes each value where it is used, so the\n \
             * runtime reads a literal on its hot path and ships no table.\n \
             * @internal\n \
             */\n\
             export const enum Abi {\n",
        );
        for (i, (name, doc, value)) in super::declarations().into_iter().enumerate() {
            if i > 0 {
                ts.push('\n');
            }
            ts.push_str("  /**\n");
            for line in doc {
                let line = line.strip_prefix(' ').unwrap_or(line);
                let _ = writeln!(ts, "   * {line}");
            }
            let _ = writeln!(ts, "   */\n  {name} = {value},");
        }
        ts.push_str("}\n");
        ts.replace("   * \n", "   *\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inverse of [`pack_http_plan`], as `npm/src/http-plan.ts` reads it.
    fn unpack_http_plan(packed: &str) -> Option<HttpPlan> {
        let mut chars = packed.chars();
        let flags = u8::try_from(chars.next()?)
            .ok()?
            .checked_sub(HTTP_PLAN_DIGIT_ZERO)?;
        let rest = chars.as_str();
        let (units, rest) = rest.split_once(HTTP_PLAN_SCOPE_MARK)?;
        let units: usize = units.parse().ok()?;
        let mut counted = 0;
        let end = rest
            .char_indices()
            .find(|(_, c)| {
                let here = counted;
                counted += c.len_utf16();
                here >= units
            })
            .map_or(rest.len(), |(at, _)| at);
        let (scope, operation) = rest.split_at(end);
        Some(HttpPlan {
            operation: operation.to_owned(),
            scope: scope.to_owned(),
            safe_to_repeat: flags & HTTP_PLAN_SAFE_TO_REPEAT != 0,
            auto_key: flags & HTTP_PLAN_AUTO_KEY != 0,
            trust_key: flags & HTTP_PLAN_TRUST_KEY != 0,
        })
    }

    /// The inverse of [`header_pairs`], as `npm/src/headers.ts` writes it.
    fn pack_headers(pairs: &[(&str, &str)]) -> String {
        let mut packed = String::new();
        for (i, (name, value)) in pairs.iter().enumerate() {
            if i > 0 {
                packed.push(HEADER_SEPARATOR);
            }
            packed.push_str(name);
            packed.push(HEADER_SEPARATOR);
            packed.push_str(value);
        }
        packed
    }

    #[test]
    fn the_generated_typescript_is_what_the_declarations_write() {
        let written = generate::typescript();
        if std::env::var_os("STOIC_WRITE_FIXTURES").is_some() {
            std::fs::write(generate::PATH, &written).unwrap();
        }
        let checked_in = std::fs::read_to_string(generate::PATH).unwrap_or_default();
        assert!(
            checked_in == written,
            "npm/src/abi.generated.ts differs from wasm/src/abi.rs: run `make js-abi` \
             (STOIC_WRITE_FIXTURES=1 cargo test -p stoic-wasm abi) and commit it"
        );
    }

    #[test]
    fn misuse_codes_are_the_top_of_the_range_and_distinct() {
        let codes = [
            UNKNOWN_CALL,
            INVALID_CODE,
            MISUSE,
            RAISED_SUCCESS,
            REJECTED_SUCCESS,
        ];
        assert_eq!(codes.iter().min(), Some(&MIN_MISUSE_CODE));
        for (i, code) in codes.iter().enumerate() {
            assert_eq!(*code, u32::MAX - i as u32);
        }
        assert!([
            DONE,
            RETRY,
            GIVE_UP,
            NOT_ADMITTED,
            HEDGE_SEND,
            HEDGE_WAIT,
            HEDGE_DONE,
            HEDGE_GIVE_UP,
            COPY_REJECTED
        ]
        .iter()
        .all(|&answer| answer < MIN_MISUSE_CODE));
    }

    #[test]
    fn plan_slots_are_distinct_and_inside_the_area() {
        let mut slots = [PLAN_ATTEMPT, PLAN_TIMEOUT_MS, PLAN_DELAY_MS];
        slots.sort_unstable();
        assert_eq!(slots, [0, 1, 2]);
        assert_eq!(PLAN_SLOTS, slots.len());
    }

    #[test]
    fn hedge_slots_are_distinct_and_inside_the_area() {
        let mut slots = [HEDGE_COPY, HEDGE_TIMEOUT_MS, HEDGE_UNTIL_MS, HEDGE_CANCEL];
        slots.sort_unstable();
        assert_eq!(slots, [0, 1, 2, 3]);
        assert_eq!(HEDGE_SLOTS, slots.len());
    }

    #[test]
    fn http_plans_round_trip() {
        let scopes = [
            "",
            "api.example.com",
            "[::1]:8080",
            "b\u{fc}cher.example",
            "\u{1F600}.example",
            "9\n9",
        ];
        let operations = ["GET /", "POST /orders/1", "PUT /\u{1F600}\n/x", ""];
        for scope in scopes {
            for operation in operations {
                for flags in 0..8u8 {
                    let plan = HttpPlan {
                        operation: operation.to_owned(),
                        scope: scope.to_owned(),
                        safe_to_repeat: flags & 1 != 0,
                        auto_key: flags & 2 != 0,
                        trust_key: flags & 4 != 0,
                    };
                    let packed = pack_http_plan(&plan);
                    assert_eq!(unpack_http_plan(&packed), Some(plan), "{packed:?}");
                }
            }
        }
        assert_eq!(
            pack_http_plan(&HttpPlan {
                operation: "GET /".into(),
                scope: "\u{1F600}".into(),
                safe_to_repeat: true,
                auto_key: false,
                trust_key: true,
            }),
            "52\n\u{1F600}GET /",
            "the length counts UTF-16 units, as JavaScript slices"
        );
    }

    #[test]
    fn headers_round_trip() {
        let cases: [&[(&str, &str)]; 4] = [
            &[],
            &[("retry-after", "5")],
            &[("retry-after", "5"), ("x-a", ""), ("", "v")],
            &[
                ("ratelimit", "limit=10, remaining=0, reset=3"),
                ("x-\u{e9}", "\u{1F600}"),
            ],
        ];
        for pairs in cases {
            let packed = pack_headers(pairs);
            assert_eq!(header_pairs(&packed), pairs, "{packed:?}");
        }
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
