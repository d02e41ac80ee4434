//! Server-side idempotency: the other half of the key contract.
//!
//! A client sends the same `Idempotency-Key` on every retry of one logical
//! operation; the server must then apply the operation once and answer every
//! repeat with the first answer. This module decides, sans-IO, what the
//! server does with a request, given what its store holds for the key
//! (draft-ietf-httpapi-idempotency-key-header, with Stripe's semantics):
//!
//! | store holds | same payload | decision |
//! | --- | --- | --- |
//! | nothing (or an expired entry) | - | proceed, recording "in flight" first |
//! | in flight | yes | 409 Conflict: the first request is still running |
//! | in flight, past `in_flight_timeout_ms` | yes | proceed: the first request died |
//! | completed | yes | replay the stored response |
//! | anything | no | 422 Unprocessable Content: key reused with another payload |
//! | (no key, `require_key`) | - | 400 Bad Request |
//!
//! The store must make "record in flight" atomic (`INSERT ... ON CONFLICT DO
//! NOTHING`): a host that loses the insert race reads the winner's entry and
//! asks again. Times are Unix milliseconds, because entries outlive processes.

use crate::error::{ConfigError, InputError};
use crate::key::{canonical_json_distinct, sha256_hex};

pub use crate::key::MAX_KEY_LEN;

/// Server-side settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct ServerIdempotencyConfig {
    /// Reject requests without a key (400) instead of processing them unprotected.
    pub require_key: bool,
    /// How long a completed entry is replayed before the key may be reused
    /// (Stripe: 24 h).
    pub ttl_ms: u64,
    /// How long an in-flight entry blocks repeats (409) before it is taken
    /// as abandoned (its request died before completing).
    pub in_flight_timeout_ms: u64,
}

impl Default for ServerIdempotencyConfig {
    fn default() -> Self {
        ServerIdempotencyConfig {
            require_key: true,
            ttl_ms: 86_400_000,
            in_flight_timeout_ms: 60_000,
        }
    }
}

impl ServerIdempotencyConfig {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }
}

/// Where a stored key is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum EntryState {
    /// The first request is being processed since `since_unix_ms`.
    InFlight {
        /// When processing started.
        since_unix_ms: u64,
    },
    /// The first request finished with `status`; its response is stored.
    Completed {
        /// When it finished.
        at_unix_ms: u64,
        /// The stored response's status.
        status: u16,
    },
}

/// What the store holds for a key.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct StoredEntry {
    /// The first request's payload fingerprint ([`fingerprint`]).
    pub fingerprint: String,
    /// Its state.
    pub state: EntryState,
}

impl StoredEntry {
    /// The entry to record before processing a request that may proceed.
    #[must_use]
    pub fn in_flight(fingerprint: &str, now_unix_ms: u64) -> Self {
        StoredEntry {
            fingerprint: fingerprint.to_owned(),
            state: EntryState::InFlight {
                since_unix_ms: now_unix_ms,
            },
        }
    }

    /// The same entry once its response (`status`) is stored.
    #[must_use]
    pub fn completed(&self, now_unix_ms: u64, status: u16) -> Self {
        StoredEntry {
            fingerprint: self.fingerprint.clone(),
            state: EntryState::Completed {
                at_unix_ms: now_unix_ms,
                status,
            },
        }
    }
}

/// Why a request is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Refusal {
    /// No key, and the endpoint requires one (400).
    #[cfg_attr(feature = "serde", serde(rename = "idempotency_key_missing"))]
    KeyMissing,
    /// The key is empty or longer than [`MAX_KEY_LEN`] (400).
    #[cfg_attr(feature = "serde", serde(rename = "idempotency_key_invalid"))]
    KeyInvalid,
    /// The first request with this key is still being processed (409).
    #[cfg_attr(feature = "serde", serde(rename = "idempotency_key_in_use"))]
    KeyInUse,
    /// The key was used before with a different payload (422).
    #[cfg_attr(feature = "serde", serde(rename = "idempotency_key_reused"))]
    KeyReused,
}

impl Refusal {
    /// The stable code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            Refusal::KeyMissing => "idempotency_key_missing",
            Refusal::KeyInvalid => "idempotency_key_invalid",
            Refusal::KeyInUse => "idempotency_key_in_use",
            Refusal::KeyReused => "idempotency_key_reused",
        }
    }

    /// The HTTP status to answer with.
    #[must_use]
    pub const fn status(self) -> u16 {
        match self {
            Refusal::KeyMissing | Refusal::KeyInvalid => 400,
            Refusal::KeyInUse => 409,
            Refusal::KeyReused => 422,
        }
    }

    /// A sentence for the response body (an RFC 9457 problem `detail`),
    /// written for a client that must decide what to do next.
    #[must_use]
    pub const fn detail(self) -> &'static str {
        match self {
            Refusal::KeyMissing => "This operation requires an Idempotency-Key header; send one, generated once per logical operation and reused on every retry.",
            Refusal::KeyInvalid => "The Idempotency-Key header must be between 1 and 255 characters.",
            Refusal::KeyInUse => "A request with this Idempotency-Key is still being processed; retry after it completes to receive its result.",
            Refusal::KeyReused => "This Idempotency-Key was already used with a different request payload; use a new key for a different operation.",
        }
    }
}

/// What the server does with a request.
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum ServerDecision {
    /// Process it. Store `record` (atomically, if `key` is set) first; then
    /// store the response and [`StoredEntry::completed`].
    Proceed {
        /// The entry to store, or `None` for a request without a key.
        record: Option<StoredEntry>,
        /// An expired or abandoned entry is being replaced.
        replaces: bool,
    },
    /// Answer with the stored response (and `Idempotent-Replayed: true`).
    Replay {
        /// The stored response's status.
        status: u16,
    },
    /// Refuse: answer `status` with `detail` (and `Retry-After` when set).
    /// Status and detail travel with the decision so every host answers
    /// with the same words; build it with [`ServerDecision::refuse`].
    Refuse {
        /// Why.
        refusal: Refusal,
        /// `refusal.status()`.
        status: u16,
        /// `refusal.detail()`: the text a client (or an agent) reads.
        detail: &'static str,
        /// For 409, seconds after which a retry may find the result.
        retry_after_s: Option<u64>,
    },
}

impl ServerDecision {
    /// A refusal, with its status and detail filled in from `refusal`.
    pub const fn refuse(refusal: Refusal, retry_after_s: Option<u64>) -> ServerDecision {
        ServerDecision::Refuse {
            refusal,
            status: refusal.status(),
            detail: refusal.detail(),
            retry_after_s,
        }
    }
}

/// The payload fingerprint: SHA-256 of the body's RFC 8785 canonical JSON, so
/// formatting and member order do not make a retry look like a new payload;
/// integers a double cannot hold keep their digits
/// ([`crate::key::canonical_json_distinct`]), so two orders whose ids differ
/// only past 2^53 are two payloads (a reused key gets a 422, not a replay).
pub fn fingerprint(body_json: &str) -> Result<String, InputError> {
    Ok(sha256_hex(canonical_json_distinct(body_json)?.as_bytes()))
}

/// Decides what to do with a request carrying `key` (the parsed
/// `Idempotency-Key` header) and payload `fingerprint`, given what the store
/// holds for the key.
pub fn decide(
    config: &ServerIdempotencyConfig,
    now_unix_ms: u64,
    key: Option<&str>,
    fingerprint: &str,
    stored: Option<&StoredEntry>,
) -> ServerDecision {
    let refuse = |refusal| ServerDecision::refuse(refusal, None);
    let Some(key) = key else {
        return if config.require_key {
            refuse(Refusal::KeyMissing)
        } else {
            ServerDecision::Proceed {
                record: None,
                replaces: false,
            }
        };
    };
    if !crate::key::is_valid_key(key) {
        return refuse(Refusal::KeyInvalid);
    }
    let fresh = |replaces| ServerDecision::Proceed {
        record: Some(StoredEntry::in_flight(fingerprint, now_unix_ms)),
        replaces,
    };
    let Some(entry) = stored else {
        return fresh(false);
    };
    let age = |since: u64| now_unix_ms.saturating_sub(since);
    match entry.state {
        EntryState::Completed { at_unix_ms, .. } if age(at_unix_ms) >= config.ttl_ms => fresh(true),
        EntryState::InFlight { since_unix_ms }
            if age(since_unix_ms) >= config.in_flight_timeout_ms =>
        {
            if entry.fingerprint == fingerprint {
                fresh(true)
            } else {
                refuse(Refusal::KeyReused)
            }
        }
        _ if entry.fingerprint != fingerprint => refuse(Refusal::KeyReused),
        EntryState::InFlight { since_unix_ms } => {
            let left_ms = config
                .in_flight_timeout_ms
                .saturating_sub(age(since_unix_ms));
            ServerDecision::refuse(Refusal::KeyInUse, Some(left_ms.div_ceil(1000).clamp(1, 5)))
        }
        EntryState::Completed { status, .. } => ServerDecision::Replay { status },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FP: &str = "aaaa";
    const OTHER: &str = "bbbb";

    fn decide_at(
        now: u64,
        key: Option<&str>,
        fp: &str,
        stored: Option<&StoredEntry>,
    ) -> ServerDecision {
        decide(&ServerIdempotencyConfig::default(), now, key, fp, stored)
    }

    #[test]
    fn payloads_differing_past_2_53_have_different_fingerprints() {
        let a = fingerprint(r#"{"id": 1152921504606846977}"#).unwrap();
        let b = fingerprint(r#"{"id": 1152921504606846976}"#).unwrap();
        assert_ne!(a, b);
        // Formatting and member order still do not matter.
        assert_eq!(
            fingerprint(r#"{"a":1,"id":1152921504606846977}"#).unwrap(),
            fingerprint(r#"{ "id" : 1152921504606846977, "a" : 1 }"#).unwrap()
        );
    }

    #[test]
    fn the_whole_table() {
        let in_flight = StoredEntry::in_flight(FP, 1_000);
        let done = in_flight.completed(2_000, 201);
        assert_eq!(
            decide_at(0, None, FP, None),
            ServerDecision::refuse(Refusal::KeyMissing, None)
        );
        assert!(matches!(
            decide_at(0, Some(""), FP, None),
            ServerDecision::Refuse {
                refusal: Refusal::KeyInvalid,
                ..
            }
        ));
        assert_eq!(
            decide_at(1_000, Some("k"), FP, None),
            ServerDecision::Proceed {
                record: Some(in_flight.clone()),
                replaces: false
            }
        );
        assert_eq!(
            decide_at(1_500, Some("k"), FP, Some(&in_flight)),
            ServerDecision::refuse(Refusal::KeyInUse, Some(5))
        );
        assert_eq!(
            decide_at(1_500, Some("k"), OTHER, Some(&in_flight)),
            ServerDecision::refuse(Refusal::KeyReused, None)
        );
        assert_eq!(
            decide_at(3_000, Some("k"), FP, Some(&done)),
            ServerDecision::Replay { status: 201 }
        );
        assert_eq!(
            decide_at(3_000, Some("k"), OTHER, Some(&done)),
            ServerDecision::refuse(Refusal::KeyReused, None)
        );
        // Expiry and abandonment are decisions too.
        let later = 2_000 + 86_400_000;
        assert!(matches!(
            decide_at(later, Some("k"), OTHER, Some(&done)),
            ServerDecision::Proceed { replaces: true, .. }
        ));
        assert!(matches!(
            decide_at(61_000, Some("k"), FP, Some(&in_flight)),
            ServerDecision::Proceed { replaces: true, .. }
        ));
        assert!(matches!(
            decide_at(61_000, Some("k"), OTHER, Some(&in_flight)),
            ServerDecision::Refuse {
                refusal: Refusal::KeyReused,
                ..
            }
        ));
    }

    #[test]
    fn optional_keys_and_long_keys() {
        let config = ServerIdempotencyConfig {
            require_key: false,
            ..ServerIdempotencyConfig::default()
        };
        assert_eq!(
            decide(&config, 0, None, FP, None),
            ServerDecision::Proceed {
                record: None,
                replaces: false
            }
        );
        let long = "k".repeat(MAX_KEY_LEN + 1);
        assert!(matches!(
            decide(&config, 0, Some(&long), FP, None),
            ServerDecision::Refuse {
                refusal: Refusal::KeyInvalid,
                ..
            }
        ));
        assert!(matches!(
            decide(&config, 0, Some(&long[1..]), FP, None),
            ServerDecision::Proceed { .. }
        ));
    }

    #[test]
    fn fingerprints_ignore_formatting() {
        let a = fingerprint(r#"{"sku": "A-1", "qty": 2}"#).unwrap();
        let b = fingerprint("{\"qty\":2,\n \"sku\":\"A-1\"}").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, fingerprint(r#"{"sku": "A-1", "qty": 3}"#).unwrap());
        assert!(fingerprint("{").is_err());
    }

    #[test]
    fn refusals_have_codes_statuses_and_text() {
        for r in [
            Refusal::KeyMissing,
            Refusal::KeyInvalid,
            Refusal::KeyInUse,
            Refusal::KeyReused,
        ] {
            assert!(r.code().starts_with("idempotency_key_"));
            assert!((400..500).contains(&r.status()));
            assert!(!r.detail().is_empty());
        }
    }

    #[test]
    fn config_validation_names_the_field() {
        let config = ServerIdempotencyConfig {
            ttl_ms: 0,
            ..ServerIdempotencyConfig::default()
        };
        assert_eq!(config.validate().unwrap_err().field(), "ttl_ms");
    }
}
