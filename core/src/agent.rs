//! What an agent's tool call ends with: the reason codes a framework maps
//! onto its own way of answering a tool call.
//!
//! "Retries, timeouts and doing it twice": the harness retries transient
//! failures itself ("the model never needs to know"), and a failure it will not
//! retry goes back to the model as an observation. A tool call therefore always
//! ends with a value or an observation, plus one of these codes, which say what
//! kind of "no" it was: the model (or the framework) acts on the code, and
//! reads the observation (the give-up's, written by [`crate::observation`]) for
//! what to do next. The codes are coarser than [`StopReason`]: a model does not
//! care whether a deadline or a server's wait past it ended the call.

use crate::decision::StopReason;

/// Why a tool call ended without a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolReason {
    /// The same call will fail the same way: change the arguments.
    Deterministic,
    /// It may have been applied and was not repeated: check before redoing.
    Ambiguous,
    /// Transient failures outlasted every attempt: it may work later.
    Exhausted,
    /// A retry budget (the service's, or the run's cap) refused a retry.
    Budget,
    /// The service's circuit breaker is open: stop calling it for a while.
    BreakerOpen,
    /// The time allowed ran out (or the server asked to wait past it).
    Deadline,
    /// The server said not to retry.
    Refused,
    /// The caller cancelled, or the client is shutting down.
    Cancelled,
}

impl ToolReason {
    /// Every reason, in code order.
    pub const ALL: [ToolReason; 8] = [
        ToolReason::Deterministic,
        ToolReason::Ambiguous,
        ToolReason::Exhausted,
        ToolReason::Budget,
        ToolReason::BreakerOpen,
        ToolReason::Deadline,
        ToolReason::Refused,
        ToolReason::Cancelled,
    ];

    /// The stable code, the same in every language.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            ToolReason::Deterministic => "deterministic",
            ToolReason::Ambiguous => "ambiguous",
            ToolReason::Exhausted => "exhausted",
            ToolReason::Budget => "budget",
            ToolReason::BreakerOpen => "breaker_open",
            ToolReason::Deadline => "deadline",
            ToolReason::Refused => "refused",
            ToolReason::Cancelled => "cancelled",
        }
    }

    /// The reason a call that stopped for `stop` ends its tool call with.
    #[must_use]
    pub const fn of(stop: StopReason) -> ToolReason {
        match stop {
            StopReason::NotRetryable => ToolReason::Deterministic,
            StopReason::NotIdempotent => ToolReason::Ambiguous,
            StopReason::AttemptsExhausted => ToolReason::Exhausted,
            StopReason::BudgetExhausted => ToolReason::Budget,
            StopReason::CircuitOpen => ToolReason::BreakerOpen,
            StopReason::DeadlineExceeded | StopReason::RetryAfterExceedsDeadline => {
                ToolReason::Deadline
            }
            StopReason::ServerRefusedRetry => ToolReason::Refused,
            StopReason::Cancelled | StopReason::ShuttingDown => ToolReason::Cancelled,
        }
    }

    /// The reason for a stop reason's code (as a give-up's wire form
    /// carries it); `None` for a code no stop reason has.
    #[must_use]
    pub fn of_code(stop_code: &str) -> Option<ToolReason> {
        StopReason::ALL
            .into_iter()
            .find(|s| s.code() == stop_code)
            .map(ToolReason::of)
    }

    /// The reason whose own code is `code`; `None` for any other text.
    #[must_use]
    pub fn from_code(code: &str) -> Option<ToolReason> {
        ToolReason::ALL.into_iter().find(|r| r.code() == code)
    }

    /// Whether the model may call the same tool with the same arguments
    /// again later and hope for another answer.
    #[must_use]
    pub const fn retry_later(self) -> bool {
        matches!(
            self,
            ToolReason::Exhausted
                | ToolReason::Budget
                | ToolReason::BreakerOpen
                | ToolReason::Deadline
                | ToolReason::Refused
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_stop_reason_has_a_tool_reason() {
        for stop in StopReason::ALL {
            let reason = ToolReason::of(stop);
            assert_eq!(ToolReason::of_code(stop.code()), Some(reason));
            assert!(ToolReason::ALL.contains(&reason));
        }
        assert_eq!(ToolReason::of_code("nope"), None);
        assert!(!ToolReason::Deterministic.retry_later());
        assert!(!ToolReason::Ambiguous.retry_later());
    }
}
