//! Decisions: what the engine tells the host to do, and why.
//!
//! Every decision explains itself: which rule matched (`reason`), how the
//! failure was classified, where a delay came from (a backoff strategy or a
//! server hint), and, for a give-up, a stable reason code and an observation
//! for a caller that can reason about it.

use std::sync::Arc;

use crate::backoff::Strategy;
use crate::classify::{Class, NetworkErrorKind};
use crate::hints::HintSource;
use crate::time::Instant;

/// Why a call stopped without succeeding. The codes are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum StopReason {
    /// Every allowed attempt failed.
    AttemptsExhausted,
    /// The total timeout is spent, or the next backoff would end past it.
    DeadlineExceeded,
    /// The server asked for a wait that ends past the deadline.
    RetryAfterExceedsDeadline,
    /// A deterministic failure: retrying cannot help.
    NotRetryable,
    /// An ambiguous failure of a call that is not safe to repeat.
    NotIdempotent,
    /// The server explicitly said not to retry (e.g. negative gRPC pushback).
    ServerRefusedRetry,
    /// The circuit breaker of the call's scope is open.
    CircuitOpen,
    /// A retry budget refused another retry.
    BudgetExhausted,
    /// The policy is draining: no new attempts or retries.
    ShuttingDown,
    /// The host cancelled the call.
    Cancelled,
}

impl StopReason {
    /// Every reason, in declaration order.
    pub const ALL: [StopReason; 10] = [
        StopReason::AttemptsExhausted,
        StopReason::DeadlineExceeded,
        StopReason::RetryAfterExceedsDeadline,
        StopReason::NotRetryable,
        StopReason::NotIdempotent,
        StopReason::ServerRefusedRetry,
        StopReason::CircuitOpen,
        StopReason::BudgetExhausted,
        StopReason::ShuttingDown,
        StopReason::Cancelled,
    ];

    /// The stable code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            StopReason::AttemptsExhausted => "attempts_exhausted",
            StopReason::DeadlineExceeded => "deadline_exceeded",
            StopReason::RetryAfterExceedsDeadline => "retry_after_exceeds_deadline",
            StopReason::NotRetryable => "not_retryable",
            StopReason::NotIdempotent => "not_idempotent",
            StopReason::ServerRefusedRetry => "server_refused_retry",
            StopReason::CircuitOpen => "circuit_open",
            StopReason::BudgetExhausted => "budget_exhausted",
            StopReason::ShuttingDown => "shutting_down",
            StopReason::Cancelled => "cancelled",
        }
    }
}

/// The rule that matched an outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Matched {
    /// The attempt succeeded.
    Success,
    /// An HTTP status, and whether a configured override classified it.
    Status {
        /// The status.
        status: u16,
        /// Whether `classify.status` overrode the default class.
        overridden: bool,
    },
    /// A network failure.
    Network(NetworkErrorKind),
    /// The host rejected the result.
    Rejected(Class),
    /// The caller's code raised an exception of this class.
    Raised(Class),
}

impl Matched {
    /// The reason code: `status_503`, `network_read_timeout`,
    /// `rejected_transient`, `raised_deterministic`, `success`.
    #[must_use]
    pub fn code(&self) -> String {
        match self {
            Matched::Success => "success".to_owned(),
            Matched::Status { status, .. } => format!("status_{status}"),
            Matched::Network(kind) => format!("network_{}", kind.code()),
            Matched::Rejected(class) => format!("rejected_{}", class.code()),
            Matched::Raised(class) => format!("raised_{}", class.code()),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Matched {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.code())
    }
}

/// Where a retry's delay came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DelaySource {
    /// The configured backoff strategy.
    Backoff(Strategy),
    /// A server hint, which wins over the computed backoff.
    Hint(HintSource),
}

impl DelaySource {
    /// The code used in decisions and log records' `strategy` field:
    /// a strategy code (`full_jitter`, `exponential`, ...) or a hint source
    /// code (`retry_after`, `retry_after_ms`, ...).
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            DelaySource::Backoff(strategy) => strategy.code(),
            DelaySource::Hint(source) => source.code(),
        }
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for DelaySource {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// Go ahead with an attempt, under these limits.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct AttemptPlan {
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The configured maximum.
    pub max_attempts: u32,
    /// The per-attempt timeout: `min(read, remaining total)`; `None` if unbounded.
    pub timeout_ms: Option<u64>,
    /// The connect timeout, never longer than `timeout_ms`.
    pub connect_timeout_ms: Option<u64>,
    /// Time left before the call's total deadline; `None` if unbounded.
    pub remaining_ms: Option<u64>,
    /// The call's idempotency key: the same on every attempt.
    pub idempotency_key: Option<Arc<str>>,
}

/// The call is over without success.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GiveUp {
    /// Why.
    pub reason: StopReason,
    /// Attempts made (sent or observed).
    pub attempts: u32,
    /// Milliseconds since the call started.
    pub total_ms: u64,
    /// The rule the last outcome matched, if an outcome was seen.
    pub matched: Option<Matched>,
    /// The last outcome's class, if an outcome was seen.
    pub class: Option<Class>,
    /// When trying again could make sense (an open breaker's end, a server
    /// hint's end), if known.
    pub retry_at: Option<Instant>,
    /// Text for a caller that can reason about the failure.
    pub observation: String,
    /// Whether the engine held the last failure retryable and stopped for
    /// another reason (attempts, deadline, breaker, budget, ...). False for
    /// `not_retryable` and `not_idempotent`: there the runtimes re-raise the
    /// caller's own exception rather than a retry error.
    pub was_retryable: bool,
}

impl StopReason {
    /// Whether a call that stopped for this reason had a retryable failure
    /// (see [`GiveUp::was_retryable`]).
    #[must_use]
    pub const fn was_retryable(self) -> bool {
        !matches!(self, StopReason::NotRetryable | StopReason::NotIdempotent)
    }
}

/// Wait, then attempt again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Retry {
    /// How long to wait before the next attempt.
    pub delay_ms: u64,
    /// The attempt that just failed (1-based).
    pub attempt: u32,
    /// The rule that matched the failure.
    pub matched: Matched,
    /// The failure's class (transient, or ambiguous and safe to repeat).
    pub class: Class,
    /// Where the delay came from.
    pub source: DelaySource,
    /// The computed backoff, kept even when a server hint won.
    pub backoff_ms: u64,
}

/// The call succeeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Done {
    /// Attempts made, the successful one included.
    pub attempts: u32,
    /// Milliseconds since the call started.
    pub total_ms: u64,
}

/// The answer to [`crate::Policy::before_attempt`].
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Admission {
    /// Send the attempt.
    Proceed(AttemptPlan),
    /// Do not send it: the call is over.
    Reject(GiveUp),
}

/// The answer to [`crate::Policy::on_outcome`].
#[must_use]
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "snake_case"))]
pub enum Decision {
    /// Success: return the result.
    Done(Done),
    /// Sleep `delay_ms`, then call `before_attempt` again.
    Retry(Retry),
    /// Stop and report.
    GiveUp(GiveUp),
}

impl Decision {
    /// The decision's code: `done`, `retry` or `give_up`.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Decision::Done(_) => "done",
            Decision::Retry(_) => "retry",
            Decision::GiveUp(_) => "give_up",
        }
    }
}
