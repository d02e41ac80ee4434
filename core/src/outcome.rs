//! What the host observed when an attempt ended.

use crate::classify::{Class, NetworkErrorKind};
use crate::error::{InputError, InputErrorCode};
use crate::hints::ServerHint;

/// What happened, before classification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutcomeKind {
    /// The attempt succeeded (a non-HTTP operation, or a response the host
    /// already judged good).
    Success,
    /// An HTTP response arrived with this status.
    Status(u16),
    /// No response: a network failure of this kind.
    Network(NetworkErrorKind),
    /// The host validated the result and rejected it as a failure of this
    /// class ("Implementing Smart Retry Logic for Transient Errors": "200 with an error body", stale data).
    Rejected(Class),
    /// The caller's own code raised an exception the host classified as this
    /// class (no response was involved: a bug, an SDK error, a local check).
    Raised(Class),
}

/// One attempt's outcome, as the host reports it to [`crate::Policy::on_outcome`].
///
/// Plain data with a lifetime only for the optional detail text, so building
/// one costs nothing on the hot path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome<'a> {
    /// What happened.
    pub kind: OutcomeKind,
    /// A server hint parsed from the response headers ([`crate::hints::server_hint`]).
    pub hint: Option<ServerHint>,
    /// A body excerpt or error message, used only to write observations.
    pub detail: Option<&'a str>,
}

impl<'a> Outcome<'a> {
    /// A success.
    #[must_use]
    pub const fn success() -> Self {
        Outcome {
            kind: OutcomeKind::Success,
            hint: None,
            detail: None,
        }
    }

    /// An HTTP response.
    #[must_use]
    pub const fn status(status: u16) -> Self {
        Outcome {
            kind: OutcomeKind::Status(status),
            hint: None,
            detail: None,
        }
    }

    /// A failure with no response.
    #[must_use]
    pub const fn network(kind: NetworkErrorKind) -> Self {
        Outcome {
            kind: OutcomeKind::Network(kind),
            hint: None,
            detail: None,
        }
    }

    /// A result the host rejected as a failure of `class`.
    #[must_use]
    pub const fn rejected(class: Class) -> Self {
        Outcome {
            kind: OutcomeKind::Rejected(class),
            hint: None,
            detail: None,
        }
    }

    /// An exception of the caller's own code, classified as `class`.
    #[must_use]
    pub const fn raised(class: Class) -> Self {
        Outcome {
            kind: OutcomeKind::Raised(class),
            hint: None,
            detail: None,
        }
    }

    /// Refuses an outcome that cannot be what it says: a raised error or a
    /// rejected value classified as `success`. The call would end "done"
    /// with no value to return (an error is not a result), so a classifier
    /// that answers it is a bug in the caller's code, named as such. Hosts
    /// check before reporting, as they check the order of steps.
    pub fn check(&self) -> Result<(), InputError> {
        let message = match self.kind {
            OutcomeKind::Raised(Class::Success) => {
                "a raised error was classified as success, but an error has no value to return: classify it as deterministic to end the call without retrying, as transient to retry it, or leave it to the default"
            }
            OutcomeKind::Rejected(Class::Success) => {
                "a value was rejected as a success: accept it (reject nothing), or reject it as deterministic, transient or ambiguous"
            }
            _ => return Ok(()),
        };
        Err(InputError::new(InputErrorCode::NotAFailure, message))
    }

    /// The same outcome carrying a server hint.
    #[must_use]
    pub const fn with_hint(mut self, hint: Option<ServerHint>) -> Self {
        self.hint = hint;
        self
    }

    /// The same outcome carrying a body excerpt or message for observations.
    #[must_use]
    pub const fn with_detail(mut self, detail: &'a str) -> Self {
        self.detail = Some(detail);
        self
    }
}
