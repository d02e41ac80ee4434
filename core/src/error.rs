//! Errors, each with a stable snake_case `code`.
//!
//! Only two things in the core can fail: building a [`crate::Policy`] from a
//! config ([`ConfigError`]) and the pure helpers that take caller data such as
//! canonical JSON ([`InputError`]). A running policy never errors: "stop" is a
//! decision with a reason. Codes are the same strings in Rust, JavaScript,
//! Python, the logs and the vectors, so callers match on them, never on text.

use std::fmt;

/// Why a config was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConfigErrorCode {
    /// The config text is not JSON.
    InvalidJson,
    /// A field has the wrong JSON type (a string where a number belongs, ...).
    WrongType,
    /// A field the config schema does not know (a typo is an error, not a no-op).
    UnknownField,
    /// A required field is missing.
    Required,
    /// A number outside the allowed range.
    OutOfRange,
    /// A value that is not one of the allowed names.
    InvalidValue,
    /// Two fields that contradict each other (e.g. `base_ms > cap_ms`).
    Inconsistent,
    /// A `version` this build does not implement.
    UnsupportedVersion,
    /// A behaviour this build leaves out (the browser's client engine, built
    /// without the core's default features); `stoic/full` has it.
    NotInBuild,
    /// Hedging was asked for a call that is not safe to repeat (neither
    /// idempotent nor carrying an idempotency key its server honours).
    NotIdempotent,
}

impl ConfigErrorCode {
    /// The stable snake_case code.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ConfigErrorCode::InvalidJson => "invalid_json",
            ConfigErrorCode::WrongType => "wrong_type",
            ConfigErrorCode::UnknownField => "unknown_field",
            ConfigErrorCode::Required => "required",
            ConfigErrorCode::OutOfRange => "out_of_range",
            ConfigErrorCode::InvalidValue => "invalid_value",
            ConfigErrorCode::Inconsistent => "inconsistent",
            ConfigErrorCode::UnsupportedVersion => "unsupported_version",
            ConfigErrorCode::NotInBuild => "not_in_build",
            ConfigErrorCode::NotIdempotent => "not_idempotent",
        }
    }
}

/// A config value was rejected. Names the field (a dotted path such as
/// `backoff.base_ms`) so the caller can fix it without reading the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    code: ConfigErrorCode,
    field: String,
    message: String,
    /// The document's other problems, when there were several.
    more: Vec<ConfigError>,
}

impl ConfigError {
    /// A new error for `field`.
    #[must_use]
    pub fn new(
        code: ConfigErrorCode,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ConfigError {
            code,
            field: field.into(),
            message: message.into(),
            more: Vec::new(),
        }
    }

    /// All of a document's problems as one error: the first's code, field
    /// and message, the rest in [`ConfigError::problems`]. `None` for none.
    #[must_use]
    pub fn collect(problems: Vec<ConfigError>) -> Option<ConfigError> {
        let mut problems = problems.into_iter();
        let mut first = problems.next()?;
        first.more.extend(problems.flat_map(|p| {
            let more = p.more.clone();
            std::iter::once(ConfigError {
                more: Vec::new(),
                ..p
            })
            .chain(more)
        }));
        Some(first)
    }

    /// Every problem of the document, this one first.
    pub fn problems(&self) -> impl Iterator<Item = &ConfigError> {
        std::iter::once(self).chain(self.more.iter())
    }

    /// The stable code.
    #[must_use]
    pub const fn code(&self) -> ConfigErrorCode {
        self.code
    }

    /// The dotted path of the offending field (empty for the whole document).
    #[must_use]
    pub fn field(&self) -> &str {
        &self.field
    }

    /// A human-readable explanation.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl ConfigError {
    /// Every problem as one line for a caller: `field: message`, then the
    /// others after `; ` (`max_attempts: must be between 1 and 1000;
    /// backoff.base: ...`).
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, p) in self.problems().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            if !p.field.is_empty() {
                out.push_str(&p.field);
                out.push_str(": ");
            }
            out.push_str(&p.message);
        }
        out
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.text())
    }
}

impl std::error::Error for ConfigError {}

/// Why caller data given to a pure helper (canonical JSON, idempotency keys)
/// was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputErrorCode {
    /// Not valid JSON text.
    InvalidJson,
    /// An object has the same member name twice (I-JSON, RFC 7493, forbids it).
    DuplicateKey,
    /// A number that is not a finite IEEE-754 double (e.g. `1e400`).
    NumberOutOfRange,
    /// A string holds an unpaired UTF-16 surrogate (not representable in I-JSON).
    LoneSurrogate,
    /// Nesting deeper than the helper accepts (a bound that keeps the stack safe).
    TooDeep,
    /// A host value that contains itself (a list or dict inside itself):
    /// it has no JSON form. Raised by the bindings before any walk recurses.
    Cyclic,
    /// A call's steps taken out of order (an outcome reported before any
    /// attempt was admitted, a second admission before the first attempt's
    /// outcome): an error rather than a made-up decision.
    Misuse,
    /// Snapshot text that is not a snapshot this build wrote (not JSON, not
    /// an object, another format version, a value out of range).
    InvalidSnapshot,
    /// A fleet store's reply that is not a view (`crate::fleet`).
    InvalidFleetView,
    /// Text that must name something is empty (an idempotency key's run id
    /// or step).
    Empty,
    /// A failure reported as a success: an error the caller's code raised,
    /// or a value it rejected, classified as `success` ([`crate::Outcome::check`]).
    NotAFailure,
}

impl InputErrorCode {
    /// The stable snake_case code.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            InputErrorCode::InvalidJson => "invalid_json",
            InputErrorCode::DuplicateKey => "duplicate_key",
            InputErrorCode::NumberOutOfRange => "number_out_of_range",
            InputErrorCode::LoneSurrogate => "lone_surrogate",
            InputErrorCode::TooDeep => "too_deep",
            InputErrorCode::Cyclic => "cyclic",
            InputErrorCode::Misuse => "misuse",
            InputErrorCode::InvalidSnapshot => "invalid_snapshot",
            InputErrorCode::InvalidFleetView => "invalid_fleet_view",
            InputErrorCode::Empty => "empty",
            InputErrorCode::NotAFailure => "not_a_failure",
        }
    }
}

/// Caller data was rejected by a pure helper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    code: InputErrorCode,
    message: String,
}

impl InputError {
    /// A new error.
    #[must_use]
    pub fn new(code: InputErrorCode, message: impl Into<String>) -> Self {
        InputError {
            code,
            message: message.into(),
        }
    }

    /// The stable code.
    #[must_use]
    pub const fn code(&self) -> InputErrorCode {
        self.code
    }

    /// A human-readable explanation.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for InputError {}
