//! Outcome -> class: is this failure transient, deterministic or ambiguous?
//!
//! "Retries, timeouts and doing it twice": "Sort every failure into transient
//! or deterministic, because they need opposite treatment." Transient failures
//! are retried by the engine; deterministic ones go back to the caller as an
//! observation, because the retry is a *different* request. Ambiguous failures
//! (the request may have been applied: a reset or a read timeout after it was
//! sent) are retried only when repeating them is harmless: an idempotent method
//! (RFC 9110 §9.2.2) or an idempotency key the server deduplicates on.

use crate::sorted::{SortedMap, SortedSet};

use crate::error::ConfigError;

/// What an outcome means for the next step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Class {
    /// The call did what it was asked.
    Success,
    /// The same request would probably succeed a little later.
    Transient,
    /// The same request will fail the same way forever.
    Deterministic,
    /// The request may or may not have been applied.
    Ambiguous,
}

impl Class {
    /// Every class, in code order. Why: bindings pass a class across their
    /// boundary as an index into this list (a number, not a string) and build
    /// the index from it, so the list lives here once.
    pub const ALL: [Class; 4] = [
        Class::Success,
        Class::Transient,
        Class::Deterministic,
        Class::Ambiguous,
    ];

    /// The stable code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Class::Success => "success",
            Class::Transient => "transient",
            Class::Deterministic => "deterministic",
            Class::Ambiguous => "ambiguous",
        }
    }

    /// The class named by `code`.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Class> {
        match code {
            "success" => Some(Class::Success),
            "transient" => Some(Class::Transient),
            "deterministic" => Some(Class::Deterministic),
            "ambiguous" => Some(Class::Ambiguous),
            _ => None,
        }
    }
}

/// A failure that produced no HTTP response, as the host observed it.
///
/// The split that matters is *before* versus *after* the request left: a
/// refused connection cannot have been applied, a read timeout may have been.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum NetworkErrorKind {
    /// The peer refused the connection (ECONNREFUSED).
    ConnectRefused,
    /// Connecting took longer than the connect timeout.
    ConnectTimeout,
    /// The host name did not resolve.
    DnsFailure,
    /// The connection was reset or closed before the request was fully sent.
    ResetBeforeSend,
    /// The connection was reset or closed after the request was sent, before a response.
    ResetAfterSend,
    /// No response within the per-attempt timeout after the request was sent.
    ReadTimeout,
    /// The status and headers arrived but the body did not: the connection
    /// dropped, or the deadline passed, while it was being read. The server
    /// began answering, so the request may well have been applied.
    BodyCut,
    /// The client refused the request before sending it: a blocked port, an
    /// unknown scheme, a malformed URL. Nothing was sent, and the same
    /// request is refused the same way every time.
    RefusedLocally,
    /// A failure the host could not place before or after sending.
    Unknown,
}

impl NetworkErrorKind {
    /// Every kind, in code order.
    pub const ALL: [NetworkErrorKind; 9] = [
        NetworkErrorKind::ConnectRefused,
        NetworkErrorKind::ConnectTimeout,
        NetworkErrorKind::DnsFailure,
        NetworkErrorKind::ResetBeforeSend,
        NetworkErrorKind::ResetAfterSend,
        NetworkErrorKind::ReadTimeout,
        NetworkErrorKind::BodyCut,
        NetworkErrorKind::RefusedLocally,
        NetworkErrorKind::Unknown,
    ];

    /// The stable code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            NetworkErrorKind::ConnectRefused => "connect_refused",
            NetworkErrorKind::ConnectTimeout => "connect_timeout",
            NetworkErrorKind::DnsFailure => "dns_failure",
            NetworkErrorKind::ResetBeforeSend => "reset_before_send",
            NetworkErrorKind::ResetAfterSend => "reset_after_send",
            NetworkErrorKind::ReadTimeout => "read_timeout",
            NetworkErrorKind::BodyCut => "body_cut",
            NetworkErrorKind::RefusedLocally => "refused_locally",
            NetworkErrorKind::Unknown => "unknown",
        }
    }

    /// The kind named by `code`.
    #[must_use]
    pub fn from_code(code: &str) -> Option<NetworkErrorKind> {
        NetworkErrorKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The default class: transient when the request cannot have left,
    /// ambiguous when it may have been applied (an unknown failure is treated
    /// as the riskier case), deterministic when the client refused it (no
    /// wait changes that).
    #[must_use]
    pub const fn default_class(self) -> Class {
        match self {
            NetworkErrorKind::ConnectRefused
            | NetworkErrorKind::ConnectTimeout
            | NetworkErrorKind::DnsFailure
            | NetworkErrorKind::ResetBeforeSend => Class::Transient,
            NetworkErrorKind::ResetAfterSend
            | NetworkErrorKind::ReadTimeout
            | NetworkErrorKind::BodyCut
            | NetworkErrorKind::Unknown => Class::Ambiguous,
            NetworkErrorKind::RefusedLocally => Class::Deterministic,
        }
    }
}

/// The default class of an HTTP status.
///
/// Transient: 408, 425, 429, 500, 502, 503, 504, and the 5xx codes not listed
/// as deterministic (507, 508, 509, ... are server-side conditions that can
/// clear). Deterministic: every other 4xx, and 501 Not Implemented, 505 HTTP
/// Version Not Supported, 506 Variant Also Negotiates, 510 Not Extended and
/// 511 Network Authentication Required, which no wait will change. Below 400
/// is success (the host follows redirects itself). Codes outside 100..=599
/// are treated as deterministic: a server that sends them is broken in a way
/// retrying will not fix.
#[must_use]
pub const fn default_status_class(status: u16) -> Class {
    match status {
        100..=399 => Class::Success,
        408 | 425 | 429 => Class::Transient,
        400..=499 => Class::Deterministic,
        501 | 505 | 506 | 510 | 511 => Class::Deterministic,
        500..=599 => Class::Transient,
        _ => Class::Deterministic,
    }
}

/// Whether an ambiguous failure may be retried.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum AmbiguousRetry {
    /// Only when the method is idempotent or the call carries an idempotency key.
    #[default]
    IfIdempotent,
    /// Always (the caller knows repetition is harmless).
    Always,
    /// Never.
    Never,
}

impl AmbiguousRetry {
    /// The stable code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            AmbiguousRetry::IfIdempotent => "if_idempotent",
            AmbiguousRetry::Always => "always",
            AmbiguousRetry::Never => "never",
        }
    }

    /// The mode named by `code`.
    #[must_use]
    pub fn from_code(code: &str) -> Option<AmbiguousRetry> {
        match code {
            "if_idempotent" => Some(AmbiguousRetry::IfIdempotent),
            "always" => Some(AmbiguousRetry::Always),
            "never" => Some(AmbiguousRetry::Never),
            _ => None,
        }
    }
}

/// The statuses that say the server may have applied the request before it
/// failed: 500 Internal Server Error, 502 Bad Gateway and 504 Gateway
/// Timeout can all come after the work was committed (a crash after the
/// write, a proxy that lost the upstream's answer). urllib3 and ky never
/// re-send a POST after them; 429 and 503 stay transient, because they say
/// the request was turned away.
pub const DEFAULT_AMBIGUOUS_STATUSES: [u16; 3] = [500, 502, 504];

/// Classification settings: per-status and per-network-kind overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct ClassifyConfig {
    /// Status -> class overrides (e.g. `409 -> transient` for an API that
    /// uses 409 for "try again").
    pub status: SortedMap<u16, Class>,
    /// Network kind -> class overrides.
    pub network: SortedMap<NetworkErrorKind, Class>,
    /// Whether ambiguous failures may be retried.
    pub ambiguous: AmbiguousRetry,
    /// Transient statuses that are ambiguous for a call that is not safe to
    /// repeat (neither idempotent nor keyed): the server may have applied
    /// the request before answering. Default: 500, 502, 504.
    pub ambiguous_status: SortedSet<u16>,
}

impl Default for ClassifyConfig {
    fn default() -> Self {
        ClassifyConfig {
            status: SortedMap::new(),
            network: SortedMap::new(),
            ambiguous: AmbiguousRetry::default(),
            ambiguous_status: SortedSet::from(DEFAULT_AMBIGUOUS_STATUSES),
        }
    }
}

impl ClassifyConfig {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }
}

/// Classifies outcomes with a config's overrides, in O(1).
///
/// The status table is built once at construction so the hot path is an
/// array read, not a map lookup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classifier {
    status_table: Box<[Class; 500]>,
    overridden: Box<[bool; 500]>,
    network: [Class; NetworkErrorKind::ALL.len()],
    ambiguous: AmbiguousRetry,
    unsafe_ambiguous: Box<[bool; 500]>,
}

impl Classifier {
    /// A classifier for a validated config.
    #[must_use]
    pub fn new(config: &ClassifyConfig) -> Classifier {
        let mut status_table = Box::new([Class::Deterministic; 500]);
        let mut overridden = Box::new([false; 500]);
        for (slot, status) in status_table.iter_mut().zip(100u16..) {
            *slot = default_status_class(status);
        }
        for (status, class) in &config.status {
            let index = usize::from(status.saturating_sub(100));
            if let (Some(slot), Some(flag)) =
                (status_table.get_mut(index), overridden.get_mut(index))
            {
                *slot = *class;
                *flag = true;
            }
        }
        let mut unsafe_ambiguous = Box::new([false; 500]);
        for status in &config.ambiguous_status {
            if let Some(flag) = unsafe_ambiguous.get_mut(usize::from(status.saturating_sub(100))) {
                *flag = true;
            }
        }
        let mut network = [Class::Ambiguous; NetworkErrorKind::ALL.len()];
        for (slot, kind) in network.iter_mut().zip(NetworkErrorKind::ALL) {
            *slot = config
                .network
                .get(&kind)
                .copied()
                .unwrap_or(kind.default_class());
        }
        Classifier {
            status_table,
            overridden,
            network,
            ambiguous: config.ambiguous,
            unsafe_ambiguous,
        }
    }

    /// The class of an HTTP status for a call that is, or is not, safe to
    /// repeat: a transient status the config lists as ambiguous (500, 502,
    /// 504 by default) is ambiguous when the call is not safe to repeat,
    /// unless an override chose its class.
    #[must_use]
    pub fn status_for(&self, status: u16, safe_to_repeat: bool) -> (Class, bool) {
        let (class, overridden) = self.status(status);
        let listed = self
            .unsafe_ambiguous
            .get(usize::from(status.wrapping_sub(100)))
            .copied()
            .unwrap_or(false);
        if class == Class::Transient && !overridden && !safe_to_repeat && listed {
            (Class::Ambiguous, false)
        } else {
            (class, overridden)
        }
    }

    /// The class of an HTTP status, and whether an override decided it.
    #[must_use]
    pub fn status(&self, status: u16) -> (Class, bool) {
        let index = usize::from(status.wrapping_sub(100));
        match (self.status_table.get(index), self.overridden.get(index)) {
            (Some(class), Some(overridden)) => (*class, *overridden),
            _ => (default_status_class(status), false),
        }
    }

    /// The class of a network failure.
    #[must_use]
    pub fn network(&self, kind: NetworkErrorKind) -> Class {
        let index = NetworkErrorKind::ALL
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(usize::MAX);
        self.network.get(index).copied().unwrap_or(Class::Ambiguous)
    }

    /// Whether an ambiguous failure may be retried for a call that is
    /// `idempotent` (by method or by key).
    #[must_use]
    pub const fn may_retry_ambiguous(&self, idempotent: bool) -> bool {
        match self.ambiguous {
            AmbiguousRetry::IfIdempotent => idempotent,
            AmbiguousRetry::Always => true,
            AmbiguousRetry::Never => false,
        }
    }
}

impl Default for Classifier {
    fn default() -> Self {
        Classifier::new(&ClassifyConfig::default())
    }
}

/// An HTTP method, for the idempotency rule of RFC 9110 §9.2.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "UPPERCASE"))]
pub enum Method {
    /// GET (safe, idempotent).
    Get,
    /// HEAD (safe, idempotent).
    Head,
    /// OPTIONS (safe, idempotent).
    Options,
    /// TRACE (safe, idempotent).
    Trace,
    /// PUT (idempotent).
    Put,
    /// DELETE (idempotent).
    Delete,
    /// POST (neither).
    Post,
    /// PATCH (neither).
    Patch,
    /// CONNECT or an extension method: assumed not idempotent.
    Other,
}

impl Method {
    /// Parses a method name case-insensitively; unknown names are [`Method::Other`].
    #[must_use]
    pub fn parse(name: &str) -> Method {
        const NAMES: [(&str, Method); 8] = [
            ("GET", Method::Get),
            ("HEAD", Method::Head),
            ("OPTIONS", Method::Options),
            ("TRACE", Method::Trace),
            ("PUT", Method::Put),
            ("DELETE", Method::Delete),
            ("POST", Method::Post),
            ("PATCH", Method::Patch),
        ];
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.trim()))
            .map_or(Method::Other, |(_, m)| *m)
    }

    /// RFC 9110 §9.2.2: repeating the request has the same intended effect.
    #[must_use]
    pub const fn is_idempotent(self) -> bool {
        matches!(
            self,
            Method::Get
                | Method::Head
                | Method::Options
                | Method::Trace
                | Method::Put
                | Method::Delete
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ConfigErrorCode;

    #[test]
    fn statuses_from_the_issue() {
        for s in [408, 425, 429, 500, 502, 503, 504] {
            assert_eq!(default_status_class(s), Class::Transient, "{s}");
        }
        for s in [400, 401, 403, 404, 405, 410, 422, 418, 499, 501, 505] {
            assert_eq!(default_status_class(s), Class::Deterministic, "{s}");
        }
        for s in [200, 201, 204, 301, 304] {
            assert_eq!(default_status_class(s), Class::Success, "{s}");
        }
        assert_eq!(default_status_class(0), Class::Deterministic);
        assert_eq!(default_status_class(999), Class::Deterministic);
    }

    #[test]
    fn overrides_win_and_are_reported() {
        let mut config = ClassifyConfig::default();
        config.status.insert(404, Class::Transient);
        config
            .network
            .insert(NetworkErrorKind::ReadTimeout, Class::Transient);
        let c = Classifier::new(&config);
        assert_eq!(c.status(404), (Class::Transient, true));
        assert_eq!(c.status(503), (Class::Transient, false));
        assert_eq!(c.status(u16::MAX), (Class::Deterministic, false));
        assert_eq!(c.network(NetworkErrorKind::ReadTimeout), Class::Transient);
        assert_eq!(
            c.network(NetworkErrorKind::ResetAfterSend),
            Class::Ambiguous
        );
        assert_eq!(
            c.network(NetworkErrorKind::ConnectRefused),
            Class::Transient
        );
    }

    #[test]
    fn bad_override_names_the_field() {
        let mut config = ClassifyConfig::default();
        config.status.insert(99, Class::Transient);
        let err = config.validate().unwrap_err();
        assert_eq!(err.field(), "status.99");
        assert_eq!(err.code(), ConfigErrorCode::OutOfRange);
    }

    #[test]
    fn methods() {
        assert!(Method::parse("get").is_idempotent());
        assert!(Method::parse(" PUT ").is_idempotent());
        assert!(!Method::parse("POST").is_idempotent());
        assert_eq!(Method::parse("PROPFIND"), Method::Other);
        assert!(!Method::Other.is_idempotent());
    }

    #[test]
    fn every_network_kind_has_its_default_and_takes_an_override() {
        let defaults = Classifier::new(&ClassifyConfig::default());
        for kind in NetworkErrorKind::ALL {
            assert_eq!(defaults.network(kind), kind.default_class(), "{kind:?}");
            let mut config = ClassifyConfig::default();
            let other = if kind.default_class() == Class::Transient {
                Class::Deterministic
            } else {
                Class::Transient
            };
            config.network.insert(kind, other);
            assert_eq!(Classifier::new(&config).network(kind), other, "{kind:?}");
        }
    }

    #[test]
    fn codes_round_trip() {
        for k in NetworkErrorKind::ALL {
            assert_eq!(NetworkErrorKind::from_code(k.code()), Some(k));
        }
        for c in Class::ALL {
            assert_eq!(Class::from_code(c.code()), Some(c));
        }
        for code in ["success", "transient", "deterministic", "ambiguous"] {
            assert!(Class::ALL.iter().any(|c| c.code() == code), "{code}");
        }
    }
}
