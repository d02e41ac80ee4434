//! A response's outcome as a policy hears it: the one way every host builds
//! it (the JS and Python bindings and the component each wrote their own).

use crate::hints::server_hint;
use crate::outcome::Outcome;
use crate::time::WallClock;
use crate::Policy;

impl Policy {
    /// An HTTP response's outcome: its status, and the server's hint in its
    /// `headers` (`Retry-After`, `retry-after-ms`, rate-limit resets,
    /// `x-should-retry`) when this policy reads them for that status
    /// ([`Policy::reads_hints`]): a 200's or a 404's headers are not
    /// parsed. `wall` dates an HTTP-date when the response has no `Date`
    /// header.
    ///
    /// A host may skip gathering headers the policy will not read, by asking
    /// [`Policy::reads_hints`] first; whatever it passes is read by this rule.
    #[must_use]
    pub fn response_outcome<'h, I>(
        &self,
        status: u16,
        headers: I,
        wall: Option<WallClock>,
    ) -> Outcome<'static>
    where
        I: IntoIterator<Item = (&'h str, &'h str)>,
    {
        let hint = if self.reads_hints(status) {
            server_hint(headers, wall)
        } else {
            None
        };
        Outcome::status(status).with_hint(hint)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Config, OutcomeKind, Policy};

    #[test]
    fn only_the_headers_of_a_status_the_policy_may_retry_are_read() {
        let policy = Policy::new(Config::with_seed(1)).expect("a seeded default config");
        let headers = [("retry-after", "3")];
        let retryable = policy.response_outcome(503, headers, None);
        assert_eq!(retryable.kind, OutcomeKind::Status(503));
        assert!(retryable.hint.is_some());
        let final_answer = policy.response_outcome(404, headers, None);
        assert_eq!(final_answer.kind, OutcomeKind::Status(404));
        assert_eq!(final_answer.hint, None);
    }
}
