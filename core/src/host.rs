//! Host policy as data: what the JavaScript and Python runtimes must decide
//! alike, decided once here.
//!
//! The runtimes translate what their language throws and what their HTTP
//! clients hand back; when each kept its own tables they drifted apart (an
//! unknown exception was transient in one and deterministic in the other,
//! operation names and key defaults differed). So the tables and the HTTP
//! request rules live here, both bindings expose them, and
//! `tests/vectors/host.json` pins them in all three suites.

use crate::classify::{Class, Method, NetworkErrorKind};
pub use crate::scope::DEFAULT_OPERATION;

/// The class of an exception no table recognises: a programming error (a
/// `KeyError`, a `TypeError`, an assertion) does not heal by waiting, so it
/// is reported once and re-raised. Retrying something else takes a word from
/// the caller (`on=`, `classify=`, or an error that carries its status).
pub const UNKNOWN_ERROR_CLASS: Class = Class::Deterministic;

/// Error names -> where the failure happened. The names are the symbolic
/// errno names (Python's `errno.errorcode`, Node's `error.code`) and undici's
/// codes; both runtimes look a name up here.
///
/// A reset or a closed socket maps to `unknown`: the request may or may not
/// have arrived, so only a request safe to repeat is retried after it.
/// undici's `UND_ERR_SOCKET` ("other side closed") is the server closing a
/// connection that carried the request, before its answer: what httpx's
/// `RemoteProtocolError` and aiohttp's `ServerDisconnectedError` are in
/// Python, so the same `reset_after_send` (ambiguous too).
pub const ERROR_CODES: [(&str, NetworkErrorKind); 16] = [
    ("ECONNREFUSED", NetworkErrorKind::ConnectRefused),
    ("EHOSTUNREACH", NetworkErrorKind::ConnectRefused),
    ("ENETUNREACH", NetworkErrorKind::ConnectRefused),
    ("EHOSTDOWN", NetworkErrorKind::ConnectRefused),
    ("ENETDOWN", NetworkErrorKind::ConnectRefused),
    ("ENOTFOUND", NetworkErrorKind::DnsFailure),
    ("EAI_AGAIN", NetworkErrorKind::DnsFailure),
    ("ETIMEDOUT", NetworkErrorKind::ConnectTimeout),
    ("UND_ERR_CONNECT_TIMEOUT", NetworkErrorKind::ConnectTimeout),
    ("UND_ERR_HEADERS_TIMEOUT", NetworkErrorKind::ReadTimeout),
    ("UND_ERR_BODY_TIMEOUT", NetworkErrorKind::ReadTimeout),
    ("ECONNRESET", NetworkErrorKind::Unknown),
    ("EPIPE", NetworkErrorKind::Unknown),
    ("ECONNABORTED", NetworkErrorKind::Unknown),
    ("UND_ERR_SOCKET", NetworkErrorKind::ResetAfterSend),
    ("UND_ERR_CLOSED", NetworkErrorKind::Unknown),
];

/// The network kind an error name stands for, if the table knows it.
#[must_use]
pub fn network_kind_of(name: &str) -> Option<NetworkErrorKind> {
    ERROR_CODES
        .iter()
        .find(|(code, _)| *code == name)
        .map(|(_, kind)| *kind)
}

/// What an exception class of a client library stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorMeaning {
    /// A network failure of this kind.
    Network(NetworkErrorKind),
    /// The server's answer, which the exception carries (its response's
    /// status and headers); nothing when it carries no response.
    Status,
    /// A connection that failed: the kind the first built-in network error
    /// in the exception's chain names (a DNS failure, a refusal), else
    /// `connect_refused`. Nothing was sent.
    Connect,
    /// Whatever the exception's chain says: an error named in the library's
    /// `chain` table, or a built-in network error; `unknown` when nothing in
    /// it does (the request may have arrived).
    Chain,
}

impl ErrorMeaning {
    /// How the tables write it: the network kind's code, or `status`,
    /// `connect`, `chain` (no kind has those names).
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            ErrorMeaning::Network(kind) => kind.code(),
            ErrorMeaning::Status => "status",
            ErrorMeaning::Connect => "connect",
            ErrorMeaning::Chain => "chain",
        }
    }
}

/// A client library's exception classes, by name, and what each stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibraryErrors {
    /// The library's name, as its users know it.
    pub library: &'static str,
    /// The modules whose classes these names are, each looked at if it is
    /// loaded (a family that shares its names: httpx and the httpx2 fork the
    /// model SDKs use, and the httpcore transports under them).
    pub modules: &'static [&'static str],
    /// Class names and meanings, in the order a runtime tests them: a
    /// subclass before its base, the first match wins. A name a module does
    /// not define is passed over (versions differ).
    pub classes: &'static [(&'static str, ErrorMeaning)],
    /// For [`ErrorMeaning::Chain`]: the names of wrapped errors (of the
    /// library's transport) that say what happened.
    pub chain: &'static [(&'static str, NetworkErrorKind)],
}

/// The Python HTTP clients' exceptions: where each failure happened, so
/// that only what may have been applied is ambiguous. A URL or scheme the
/// client refuses is `refused_locally` (nothing was sent, and it fails the
/// same way every time); a body that broke off after the status arrived is
/// `body_cut`; a connection closed after the request went out is
/// `reset_after_send`.
pub const PYTHON_LIBRARIES: [LibraryErrors; 3] = [
    LibraryErrors {
        library: "httpx",
        modules: &["httpx", "httpx2", "httpcore", "httpcore2"],
        classes: &[
            (
                "InvalidURL",
                ErrorMeaning::Network(NetworkErrorKind::RefusedLocally),
            ),
            ("HTTPStatusError", ErrorMeaning::Status),
            (
                "ConnectTimeout",
                ErrorMeaning::Network(NetworkErrorKind::ConnectTimeout),
            ),
            (
                "PoolTimeout",
                ErrorMeaning::Network(NetworkErrorKind::ConnectTimeout),
            ),
            (
                "ReadTimeout",
                ErrorMeaning::Network(NetworkErrorKind::ReadTimeout),
            ),
            ("ConnectError", ErrorMeaning::Connect),
            (
                "WriteError",
                ErrorMeaning::Network(NetworkErrorKind::ResetBeforeSend),
            ),
            (
                "ReadError",
                ErrorMeaning::Network(NetworkErrorKind::ResetAfterSend),
            ),
            (
                "RemoteProtocolError",
                ErrorMeaning::Network(NetworkErrorKind::ResetAfterSend),
            ),
            (
                "UnsupportedProtocol",
                ErrorMeaning::Network(NetworkErrorKind::RefusedLocally),
            ),
            (
                "TransportError",
                ErrorMeaning::Network(NetworkErrorKind::Unknown),
            ),
            // httpcore has no `TransportError`: its bases, for the rest.
            (
                "TimeoutException",
                ErrorMeaning::Network(NetworkErrorKind::Unknown),
            ),
            (
                "NetworkError",
                ErrorMeaning::Network(NetworkErrorKind::Unknown),
            ),
            (
                "ProtocolError",
                ErrorMeaning::Network(NetworkErrorKind::Unknown),
            ),
        ],
        chain: &[],
    },
    LibraryErrors {
        library: "requests",
        modules: &["requests.exceptions"],
        classes: &[
            ("HTTPError", ErrorMeaning::Status),
            (
                "InvalidSchema",
                ErrorMeaning::Network(NetworkErrorKind::RefusedLocally),
            ),
            (
                "MissingSchema",
                ErrorMeaning::Network(NetworkErrorKind::RefusedLocally),
            ),
            (
                "InvalidURL",
                ErrorMeaning::Network(NetworkErrorKind::RefusedLocally),
            ),
            (
                "ConnectTimeout",
                ErrorMeaning::Network(NetworkErrorKind::ConnectTimeout),
            ),
            (
                "ReadTimeout",
                ErrorMeaning::Network(NetworkErrorKind::ReadTimeout),
            ),
            // The answer began and broke off mid-body: the request was sent.
            (
                "ChunkedEncodingError",
                ErrorMeaning::Network(NetworkErrorKind::BodyCut),
            ),
            ("ConnectionError", ErrorMeaning::Chain),
        ],
        // urllib3's errors inside a `ConnectionError`.
        chain: &[
            ("NewConnectionError", NetworkErrorKind::ConnectRefused),
            // Reading a streamed body timed out.
            ("ReadTimeoutError", NetworkErrorKind::ReadTimeout),
        ],
    },
    LibraryErrors {
        library: "aiohttp",
        modules: &["aiohttp"],
        classes: &[
            (
                "InvalidURL",
                ErrorMeaning::Network(NetworkErrorKind::RefusedLocally),
            ),
            (
                "NonHttpUrlClientError",
                ErrorMeaning::Network(NetworkErrorKind::RefusedLocally),
            ),
            (
                "ClientConnectorDNSError",
                ErrorMeaning::Network(NetworkErrorKind::DnsFailure),
            ),
            // Before the read timeout: its timeouts share a base, and a
            // connect timeout sent nothing.
            (
                "ConnectionTimeoutError",
                ErrorMeaning::Network(NetworkErrorKind::ConnectTimeout),
            ),
            (
                "ServerTimeoutError",
                ErrorMeaning::Network(NetworkErrorKind::ReadTimeout),
            ),
            ("ClientConnectorError", ErrorMeaning::Connect),
            // The status and headers arrived, then the body broke off.
            (
                "ClientPayloadError",
                ErrorMeaning::Network(NetworkErrorKind::BodyCut),
            ),
            (
                "ServerDisconnectedError",
                ErrorMeaning::Network(NetworkErrorKind::ResetAfterSend),
            ),
            ("ClientResponseError", ErrorMeaning::Status),
        ],
        chain: &[],
    },
];

/// The causes Node's `fetch` (undici) gives a request it will never send as
/// asked: a port the fetch standard blocks, a scheme it does not speak, a
/// redirect under `redirect: 'error'`: `refused_locally`. (Browsers say
/// only "Failed to fetch".)
pub const FETCH_REFUSALS: [&str; 3] = ["bad port", "unknown scheme", "unexpected redirect"];

/// Whether an HTTP status an exception carries stands for the server's
/// failure: 4xx and 5xx. A 2xx or 3xx on an error (a parse error on a 200, a
/// redirect a client raises on) is no failure of the server's: the error is
/// the caller's own, classified as any other exception.
#[must_use]
pub const fn is_failure_status(status: u16) -> bool {
    status >= 400
}

/// What an HTTP integration does when its caller says nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpDefaults {
    /// Send an automatic `Idempotency-Key` on a request that is not
    /// idempotent and has none (sent, never trusted on its own).
    pub auto_keys: bool,
    /// Whether the server is taken to deduplicate on the key: no, since most
    /// servers ignore the header.
    pub server_deduplicates: bool,
}

/// The defaults every HTTP integration starts from, in both runtimes.
pub const HTTP_DEFAULTS: HttpDefaults = HttpDefaults {
    auto_keys: true,
    server_deduplicates: false,
};

/// The header a layer above stoic marks its retries with: the OpenAI and
/// Anthropic SDKs (and every SDK their generator makes) send the number of
/// retries they have made, 0 on a first attempt.
pub const NESTED_RETRY_HEADER: &str = "x-stainless-retry-count";

/// Which retry of a layer above a request is, from its
/// [`NESTED_RETRY_HEADER`] value: `Some(n)` for a whole number above 0,
/// `None` for a first attempt or anything else (garbage is ignored).
#[must_use]
pub fn retries_above(value: &str) -> Option<u32> {
    let value = value.trim_ascii();
    if value.is_empty() || value.len() > 9 || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = value
        .bytes()
        .fold(0u32, |n, b| n * 10 + u32::from(b - b'0'));
    (n > 0).then_some(n)
}

/// The header an HTTP wrapper sends the idempotency key in.
pub const KEY_HEADER: &str = "Idempotency-Key";

/// How the key is written: `bare` (Stripe-style) rather than `quoted` (the
/// IETF draft's RFC 8941 sf-string), because most servers that honour the
/// header today expect it bare.
pub const KEY_FORM: &str = "bare";

/// Whether an HTTP wrapper reads a body excerpt for the observation of a
/// response with `status`: the error classes (4xx and 5xx), whose bodies
/// usually say what went wrong.
#[must_use]
pub const fn wants_excerpt(status: u16) -> bool {
    status >= 400
}

/// Whether a response is a stream of events its caller reads as they
/// arrive: `text/event-stream` (server-sent events, how the model APIs
/// stream completions). An HTTP wrapper never buffers one: its first token
/// would wait for its last, and a per-attempt read timeout would cap the
/// whole completion. The attempt ends when the headers arrive, and the
/// stream's idle gaps stay bounded by the client's read timeout.
#[must_use]
pub fn is_event_stream(content_type: &str) -> bool {
    let media = content_type.split(';').next().unwrap_or("").trim_ascii();
    media.eq_ignore_ascii_case("text/event-stream")
}

/// Whether an HTTP wrapper hands a response with `status` to the caller's
/// validator: 2xx only. An error status is already a failure; a validator
/// exists for the 200 whose body says the call failed.
#[must_use]
pub const fn validates(status: u16) -> bool {
    matches!(status, 200..=299)
}

/// What an HTTP wrapper knows of a request before it sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HttpRequest<'a> {
    /// The method, any case.
    pub method: &'a str,
    /// The URL's authority (`api.example.com:8443`), the scope.
    pub host: &'a str,
    /// The URL's path, for the operation name.
    pub path: &'a str,
    /// The idempotency key the caller set (an option or the header), if
    /// any; an empty or overlong one ([`crate::key::is_valid_key`]) counts
    /// as none, since no server honours it.
    pub caller_key: Option<&'a str>,
    /// The caller declared that the server deduplicates on the key header.
    pub server_deduplicates: bool,
    /// The wrapper may add a random key to a request that has none.
    pub auto_keys: bool,
}

/// How an HTTP wrapper runs a request: the call it starts and the key it sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpPlan {
    /// The call's operation name: `METHOD /path`.
    pub operation: String,
    /// The call's scope: the URL's authority, so each host has its own
    /// breaker and budget.
    pub scope: String,
    /// Whether repeating the request is safe: an idempotent method (RFC 9110
    /// §9.2.2), a key the caller gave, or a server declared to deduplicate.
    /// The wrapper starts the call with this flag.
    pub safe_to_repeat: bool,
    /// The wrapper should generate a random key and send it.
    pub auto_key: bool,
    /// The key sent is one the server is known to honour: the wrapper hands
    /// it to the engine as the call's key. An automatic key against a server
    /// not declared to deduplicate is sent but not trusted, so it never
    /// makes a request safe to repeat by itself.
    pub trust_key: bool,
}

/// The rule every HTTP wrapper follows.
///
/// **Never repeat what may have been applied unless the caller said it is
/// safe.** Most servers ignore `Idempotency-Key`; a wrapper that added a
/// random key and then treated the POST as safe would send it twice after a
/// lost acknowledgement. So a non-idempotent request is safe to repeat only
/// with a key the caller gave or a server the caller declared to deduplicate.
#[must_use]
pub fn http_plan(request: &HttpRequest<'_>) -> HttpPlan {
    let method = Method::parse(request.method);
    let idempotent = method.is_idempotent();
    let caller_key = request.caller_key.is_some_and(crate::key::is_valid_key);
    let auto_key = !idempotent && !caller_key && request.auto_keys;
    let trust_key = caller_key || (auto_key && request.server_deduplicates);
    let path = if request.path.is_empty() {
        "/"
    } else {
        request.path
    };
    HttpPlan {
        operation: format!("{} {path}", request.method.trim().to_ascii_uppercase()),
        scope: request.host.to_owned(),
        safe_to_repeat: idempotent || caller_key || request.server_deduplicates,
        auto_key,
        trust_key,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str) -> HttpRequest<'_> {
        HttpRequest {
            method,
            host: "api.example.com",
            path: "/orders",
            caller_key: None,
            server_deduplicates: false,
            auto_keys: true,
        }
    }

    #[test]
    fn an_automatic_key_alone_never_makes_a_post_safe() {
        let plan = http_plan(&request("post"));
        assert_eq!(plan.operation, "POST /orders");
        assert_eq!(plan.scope, "api.example.com");
        assert!(!plan.safe_to_repeat);
        assert!(plan.auto_key);
        assert!(!plan.trust_key);
    }

    #[test]
    fn a_caller_key_or_a_deduplicating_server_makes_it_safe() {
        let keyed = http_plan(&HttpRequest {
            caller_key: Some("order-1"),
            ..request("POST")
        });
        assert!(keyed.safe_to_repeat && keyed.trust_key && !keyed.auto_key);
        let dedup = http_plan(&HttpRequest {
            server_deduplicates: true,
            ..request("PATCH")
        });
        assert!(dedup.safe_to_repeat && dedup.trust_key && dedup.auto_key);
    }

    #[test]
    fn an_empty_key_is_no_key() {
        let empty = http_plan(&HttpRequest {
            caller_key: Some(""),
            ..request("POST")
        });
        assert!(!empty.safe_to_repeat && !empty.trust_key && empty.auto_key);
    }

    #[test]
    fn idempotent_methods_need_no_key() {
        let plan = http_plan(&request("GET"));
        assert!(plan.safe_to_repeat && !plan.auto_key && !plan.trust_key);
    }

    #[test]
    fn meanings_never_read_as_a_network_kind() {
        for word in ["status", "connect", "chain"] {
            assert!(
                NetworkErrorKind::ALL.iter().all(|k| k.code() != word),
                "{word}"
            );
        }
        for lib in PYTHON_LIBRARIES {
            for (i, (name, _)) in lib.classes.iter().enumerate() {
                assert!(
                    lib.classes.iter().skip(i + 1).all(|(n, _)| n != name),
                    "{} {name}",
                    lib.library
                );
            }
        }
    }

    #[test]
    fn error_names_are_unique() {
        for (i, (name, _)) in ERROR_CODES.iter().enumerate() {
            assert!(
                ERROR_CODES.iter().skip(i + 1).all(|(n, _)| n != name),
                "{name}"
            );
            assert!(network_kind_of(name).is_some());
        }
        assert_eq!(network_kind_of("EWHATEVER"), None);
    }
}
