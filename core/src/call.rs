//! One logical operation and everything the engine remembers about it.

use std::sync::Arc;

use crate::backoff::{Backoff, BackoffSpec};
use crate::breaker::Permit;
use crate::budget::RetryTicket;
use crate::classify::{Class, Method};
use crate::deadline::Deadline;
use crate::decision::{Done, GiveUp, Matched};
use crate::error::{InputError, InputErrorCode};
use crate::rng::SplitMix64;
use crate::run::RunQuota;
use crate::time::Instant;

/// What the host says about a call when it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallSpec<'a> {
    /// A name for logs and records (`create_order`).
    pub operation: &'a str,
    /// The service this call talks to (a host name, an API): calls with the
    /// same scope share a circuit breaker, a retry budget and metrics.
    /// Empty means [`crate::scope::DEFAULT_SCOPE`].
    pub scope: &'a str,
    /// Repeating the operation is harmless (an idempotent method, or an
    /// operation the caller knows to be idempotent).
    pub idempotent: bool,
    /// The idempotency key, made once before the first attempt
    /// ([`crate::key::idempotency_key`] or [`crate::key::random_key`]) and
    /// carried by every attempt. A key makes an ambiguous failure safe to
    /// retry: the server deduplicates on it.
    pub idempotency_key: Option<&'a str>,
    /// Per-call settings in place of the policy's ([`crate::Policy::overrides`]).
    pub overrides: Option<&'a CallOverrides>,
}

/// Settings one call may take in place of its policy's, while the breaker
/// and the budget stay the policy's: a shared policy, and a caller that
/// wants fewer attempts or another backoff for one operation. Made (and
/// validated) once by [`crate::Policy::overrides`], so starting a call with
/// them cannot fail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallOverrides {
    pub(crate) max_attempts: Option<u32>,
    pub(crate) backoff: Option<BackoffSpec>,
}

impl CallOverrides {
    /// The attempts a call with these overrides may make.
    #[must_use]
    pub const fn max_attempts(&self) -> Option<u32> {
        self.max_attempts
    }

    /// The backoff a call with these overrides uses.
    #[must_use]
    pub const fn backoff(&self) -> Option<BackoffSpec> {
        self.backoff
    }
}

impl<'a> CallSpec<'a> {
    /// A non-HTTP operation that is not known to be idempotent.
    #[must_use]
    pub const fn new(operation: &'a str) -> Self {
        CallSpec {
            operation,
            scope: "",
            idempotent: false,
            idempotency_key: None,
            overrides: None,
        }
    }

    /// An HTTP request: idempotent when its method is (RFC 9110 §9.2.2).
    #[must_use]
    pub const fn http(operation: &'a str, method: Method) -> Self {
        CallSpec {
            operation,
            scope: "",
            idempotent: method.is_idempotent(),
            idempotency_key: None,
            overrides: None,
        }
    }

    /// The same spec in `scope`.
    #[must_use]
    pub const fn in_scope(mut self, scope: &'a str) -> Self {
        self.scope = scope;
        self
    }

    /// The same spec, marked idempotent or not.
    #[must_use]
    pub const fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// The same spec carrying an idempotency key.
    #[must_use]
    pub const fn with_key(mut self, key: &'a str) -> Self {
        self.idempotency_key = Some(key);
        self
    }

    /// The same spec with per-call settings.
    #[must_use]
    pub const fn with_overrides(mut self, overrides: &'a CallOverrides) -> Self {
        self.overrides = Some(overrides);
        self
    }

    /// A spec from what a binding's caller gave, each part optional: the
    /// rule every binding follows. A call is idempotent when the caller
    /// says so; when they do not, when its HTTP `method` is idempotent;
    /// with neither, it is not.
    #[must_use]
    pub fn from_host(
        operation: &'a str,
        scope: &'a str,
        idempotent: Option<bool>,
        method: Option<&str>,
        key: Option<&'a str>,
        overrides: Option<&'a CallOverrides>,
    ) -> Self {
        let mut spec = match method {
            Some(m) => CallSpec::http(operation, Method::parse(m)),
            None => CallSpec::new(operation),
        }
        .in_scope(scope);
        if let Some(flag) = idempotent {
            spec = spec.idempotent(flag);
        }
        spec.idempotency_key = key;
        spec.overrides = overrides;
        spec
    }
}

/// Where a call is in its life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Started, no attempt yet.
    Ready,
    /// An attempt was admitted at `started`, holding a breaker permit.
    InFlight {
        started: Instant,
        permit: Option<Permit>,
    },
    /// A retry was decided; the next attempt may start at `until`.
    Waiting { until: Instant },
    /// Over: every later question gets this answer again.
    Finished(Final),
}

/// How a finished call ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Final {
    Done(Done),
    GiveUp(GiveUp),
}

/// One logical operation: its key, deadline, attempt count and backoff state.
///
/// The host owns it and hands it back to the policy at each step. Its
/// idempotency key is fixed at start and returned with every attempt plan
/// ("Retries, timeouts and doing it twice": "generate the idempotency key once, before the first attempt").
#[derive(Clone, Debug)]
pub struct Call {
    pub(crate) id: u64,
    /// Shared with the policy's last operation name, so calls of the same
    /// operation do not allocate one each.
    pub(crate) operation: Arc<str>,
    pub(crate) scope: usize,
    pub(crate) ticket: Option<RetryTicket>,
    pub(crate) idempotent: bool,
    pub(crate) key: Option<Arc<str>>,
    pub(crate) deadline: Deadline,
    pub(crate) attempts: u32,
    pub(crate) max_attempts: u32,
    pub(crate) retries: u32,
    pub(crate) backoff: Backoff,
    pub(crate) rng: SplitMix64,
    pub(crate) phase: Phase,
    pub(crate) last: Option<(Matched, Class)>,
    /// The run whose retry quota this call draws on, if it joined one.
    pub(crate) run: Option<RunQuota>,
}

impl Call {
    /// The policy-unique id of this call.
    #[must_use]
    pub const fn id(&self) -> u64 {
        self.id
    }

    /// The operation name.
    #[must_use]
    pub fn operation(&self) -> &str {
        &self.operation
    }

    /// The idempotency key, the same for every attempt.
    #[must_use]
    pub fn idempotency_key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Attempts admitted or observed so far.
    #[must_use]
    pub const fn attempts(&self) -> u32 {
        self.attempts
    }

    /// Retries decided so far.
    #[must_use]
    pub const fn retries(&self) -> u32 {
        self.retries
    }

    /// Makes this call one of `run`'s: each retry it is granted also takes
    /// one of the run's, and when the run has none left the call gives up
    /// with `budget_exhausted` (the event names the `run_cap` budget).
    /// Join before the first outcome; joining again replaces the run.
    pub fn join_run(&mut self, run: &RunQuota) {
        self.run = Some(run.clone());
    }

    /// The run this call joined.
    #[must_use]
    pub const fn run(&self) -> Option<&RunQuota> {
        self.run.as_ref()
    }

    /// The call's deadline.
    #[must_use]
    pub const fn deadline(&self) -> &Deadline {
        &self.deadline
    }

    /// Whether the call is over.
    #[must_use]
    pub const fn is_finished(&self) -> bool {
        matches!(self.phase, Phase::Finished(_))
    }

    /// When the next attempt may start, while waiting after a retry decision.
    #[must_use]
    pub const fn next_attempt_at(&self) -> Option<Instant> {
        match self.phase {
            Phase::Waiting { until } => Some(until),
            _ => None,
        }
    }

    /// Refuses a step taken out of order, for hosts whose callers drive
    /// the loop themselves: an outcome with no admitted attempt (the core
    /// would count it and answer, which hides the caller's bug), or a
    /// second admission while an attempt is in flight. A finished call
    /// accepts both and repeats how it ended.
    ///
    /// # Errors
    /// An [`InputError`] with code `misuse`.
    pub fn check_step(&self, step: CallStep) -> Result<(), InputError> {
        let problem = match (&self.phase, step) {
            (Phase::Ready | Phase::Waiting { .. }, CallStep::Outcome) => {
                "no attempt of this call was admitted: ask whether one may go out, send it, then report its outcome"
            }
            (Phase::InFlight { .. }, CallStep::BeforeAttempt) => {
                "an attempt of this call is in flight: report its outcome before asking for the next"
            }
            // An outcome after the end would be dropped without a word: a
            // host that reports one has lost track of its attempts.
            (Phase::Finished(_), CallStep::Outcome) => {
                "this call has ended and its decision stands: start a new call for another operation"
            }
            _ => return Ok(()),
        };
        Err(InputError::new(InputErrorCode::Misuse, problem))
    }
}

/// The step a host is about to take on a call ([`Call::check_step`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStep {
    /// Asking whether the next attempt may go out.
    BeforeAttempt,
    /// Reporting how the admitted attempt ended.
    Outcome,
}

#[cfg(test)]
mod tests {
    use super::CallStep;
    use crate::{Admission, CallSpec, Config, Instant, Outcome, Policy};

    #[test]
    fn a_hosts_spec_is_idempotent_by_its_flag_then_its_method() {
        let idempotent = |flag, method| CallSpec::from_host("op", "", flag, method, None, None);
        assert!(idempotent(None, Some("GET")).idempotent);
        assert!(idempotent(None, Some("put")).idempotent);
        assert!(!idempotent(None, Some("POST")).idempotent);
        assert!(!idempotent(None, None).idempotent);
        assert!(idempotent(Some(true), Some("POST")).idempotent);
        assert!(!idempotent(Some(false), Some("GET")).idempotent);
        let keyed = CallSpec::from_host("op", "api", None, None, Some("k"), None);
        assert_eq!((keyed.scope, keyed.idempotency_key), ("api", Some("k")));
    }

    #[test]
    fn steps_out_of_order_are_misuse_and_in_order_pass() {
        let mut policy = Policy::new(Config::with_seed(1)).unwrap();
        let now = Instant::from_millis(0);
        let mut call = policy.start(now, CallSpec::new("op"));
        let code = |r: Result<(), crate::InputError>| r.err().map(|e| e.code().as_str());
        assert_eq!(code(call.check_step(CallStep::Outcome)), Some("misuse"));
        assert_eq!(code(call.check_step(CallStep::BeforeAttempt)), None);
        assert!(matches!(
            policy.before_attempt(now, &mut call),
            Admission::Proceed(_)
        ));
        assert_eq!(
            code(call.check_step(CallStep::BeforeAttempt)),
            Some("misuse")
        );
        assert_eq!(code(call.check_step(CallStep::Outcome)), None);
        let _ = policy.on_outcome(now, &mut call, Outcome::status(503));
        assert_eq!(code(call.check_step(CallStep::Outcome)), Some("misuse"));
        assert_eq!(code(call.check_step(CallStep::BeforeAttempt)), None);
        policy.cancel(now, &mut call);
        assert_eq!(
            code(call.check_step(CallStep::Outcome)),
            Some("misuse"),
            "finished: an outcome has no attempt to belong to"
        );
        assert_eq!(code(call.check_step(CallStep::BeforeAttempt)), None);
    }

    #[test]
    fn an_absurd_reading_does_not_freeze_the_policy_clock() {
        let mut policy = Policy::new(Config::with_seed(1)).unwrap();
        let far = Instant::from_millis(u64::MAX); // a host's saturated infinity
        let mut bad = policy.start(far, CallSpec::new("op"));
        let _ = policy.before_attempt(far, &mut bad);
        let later = Instant::from_millis(1_000);
        let mut good = policy.start(later, CallSpec::new("op"));
        assert!(matches!(
            policy.before_attempt(later, &mut good),
            Admission::Proceed(_)
        ));
        let state = policy.snapshot_state();
        assert!(state.latest.as_millis() <= crate::time::MAX_READING_MS);
    }
}
