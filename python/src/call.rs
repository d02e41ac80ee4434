//! `stoic.Call`: one logical operation, and the host runtime's hot path.
//!
//! The hot methods answer with scalars (`admit() -> bool`, `on_status() ->
//! delay or None`) and keep the core's full answer; `decision` converts it
//! to a dict only when someone asks (an error, a hook, a test).

use pyo3::prelude::*;
use stoic_core::{Admission, CallStep, Decision, GiveUp, Outcome};

use crate::convert::ms_to_secs;
use crate::document::py_emit;
use crate::errors::{input_error, usage_error};
use crate::ints::http_status;
use crate::outcome::{class, header_pairs, network_kind, response};
use crate::run::RunQuota;
use crate::seconds::Secs;
use crate::shared::Policy;
use crate::text::LossyText;

/// The core's last answer about this call.
#[derive(Debug)]
enum Last {
    Started,
    Admission(Admission),
    Decision(Decision),
    Cancelled(GiveUp),
}

/// One logical operation: its key, deadline, attempts and backoff state.
/// Used by one thread at a time (a second thread gets an "already borrowed"
/// error); the `Policy` it came from is what threads share.
#[pyclass(module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct Call {
    policy: Py<Policy>,
    call: stoic_core::Call,
    last: Last,
}

/// A call dropped before it ended (an exception in a hook, a runtime that
/// lost it) must not keep its breaker permit: a half-open breaker whose one
/// probe slot is held by a dead call would refuse every call for ever.
impl Drop for Call {
    fn drop(&mut self) {
        if !self.call.is_finished() {
            self.policy.get().lock().abandon(&mut self.call);
        }
    }
}

impl Call {
    pub(crate) fn new(policy: Py<Policy>, call: stoic_core::Call) -> Self {
        Call {
            policy,
            call,
            last: Last::Started,
        }
    }

    pub(crate) fn set_admission(&mut self, admission: Admission) {
        self.last = Last::Admission(admission);
    }

    /// Refuses a call started by another policy (its scope index and
    /// tickets mean nothing there).
    pub(crate) fn check_policy(&self, policy: &Bound<'_, Policy>) -> PyResult<()> {
        if self.policy.is(policy) {
            Ok(())
        } else {
            Err(usage_error(
                "misuse",
                "this call was started by another policy".to_owned(),
            ))
        }
    }

    /// The core's refusal of a step out of order, as `InputError` `misuse`.
    fn check_step(&self, step: CallStep) -> PyResult<()> {
        self.call
            .check_step(step)
            .map_err(|e| Python::attach(|py| input_error(py, &e)))
    }

    /// Reports `outcome`; the retry delay in seconds, or None when the call
    /// is over. An outcome with no admitted attempt is `InputError` `misuse`.
    pub(crate) fn observe(&mut self, now: Secs, outcome: Outcome<'_>) -> PyResult<Option<f64>> {
        self.check_step(CallStep::Outcome)?;
        // A failure classified as success is the caller's bug, refused here
        // for every way an outcome comes in.
        outcome
            .check()
            .map_err(|e| Python::attach(|py| input_error(py, &e)))?;
        // Checked before the policy's lock is taken, as every argument is.
        let now = now.instant("now")?;
        let decision = self
            .policy
            .get()
            .lock()
            .on_outcome(now, &mut self.call, outcome);
        let delay = match &decision {
            Decision::Retry(retry) => Some(ms_to_secs(retry.delay_ms)),
            Decision::Done(_) | Decision::GiveUp(_) => None,
        };
        self.last = Last::Decision(decision);
        Ok(delay)
    }

    /// [`Call::observe`] with the failure's detail text, if any.
    fn observe_with(
        &mut self,
        now: Secs,
        outcome: Outcome<'_>,
        detail: Option<LossyText>,
    ) -> PyResult<Option<f64>> {
        match detail {
            Some(LossyText(detail)) => self.observe(now, outcome.with_detail(&detail)),
            None => self.observe(now, outcome),
        }
    }

    fn plan(&self) -> Option<&stoic_core::AttemptPlan> {
        match &self.last {
            Last::Admission(Admission::Proceed(plan)) => Some(plan),
            _ => None,
        }
    }

    fn stopped(&self) -> Option<&GiveUp> {
        match &self.last {
            Last::Admission(Admission::Reject(g))
            | Last::Decision(Decision::GiveUp(g))
            | Last::Cancelled(g) => Some(g),
            _ => None,
        }
    }
}

#[pymethods]
impl Call {
    /// May the next attempt go out now? On False the call is over
    /// (`give_up` says why). Asking again while an admitted attempt has no
    /// outcome is `InputError` `misuse`.
    pub(crate) fn admit(&mut self, now: Secs) -> PyResult<bool> {
        self.check_step(CallStep::BeforeAttempt)?;
        let now = now.instant("now")?;
        let admission = self.policy.get().lock().before_attempt(now, &mut self.call);
        let proceed = matches!(admission, Admission::Proceed(_));
        self.last = Last::Admission(admission);
        Ok(proceed)
    }

    /// The attempt succeeded.
    pub(crate) fn on_success(&mut self, now: Secs) -> PyResult<bool> {
        self.observe(now, Outcome::success())?;
        Ok(self.succeeded())
    }

    /// An HTTP response arrived: the retry delay in seconds, or None when
    /// the call is over (`succeeded` tells which way).
    #[pyo3(signature = (now, status, headers=None, *, detail=None, wall_now=None))]
    fn on_status(
        &mut self,
        now: Secs,
        status: &Bound<'_, PyAny>,
        headers: Option<&Bound<'_, PyAny>>,
        detail: Option<LossyText>,
        wall_now: Option<Secs>,
    ) -> PyResult<Option<f64>> {
        let status = http_status(status)?;
        // Only a status the policy may retry has its headers read (for the
        // server's hints): a 200's are not even converted.
        let reads = self.policy.get().lock().reads_hints(status);
        let pairs = if reads {
            header_pairs(headers)?
        } else {
            Vec::new()
        };
        // The lock is not held while Python converts the headers above.
        let outcome = response(&self.policy.get().lock(), status, &pairs, wall_now)?;
        self.observe_with(now, outcome, detail)
    }

    /// The attempt failed without a response (`kind`: `connect_refused`,
    /// `read_timeout`, ...): the retry delay, or None when over.
    #[pyo3(signature = (now, kind, detail=None))]
    fn on_network_error(
        &mut self,
        now: Secs,
        kind: LossyText,
        detail: Option<LossyText>,
    ) -> PyResult<Option<f64>> {
        let outcome = Outcome::network(network_kind(&kind.0)?);
        self.observe_with(now, outcome, detail)
    }

    /// The host rejected the result as a failure of class `cls`: the retry
    /// delay, or None when over.
    #[pyo3(
        signature = (now, cls=LossyText(String::from("transient")), detail=None),
        text_signature = "($self, now, cls='transient', detail=None)"
    )]
    fn on_rejected(
        &mut self,
        now: Secs,
        cls: LossyText,
        detail: Option<LossyText>,
    ) -> PyResult<Option<f64>> {
        let outcome = Outcome::rejected(class(&cls.0)?);
        self.observe_with(now, outcome, detail)
    }

    /// The caller's own code raised an exception the host classified as
    /// `cls` (`detail`: its type and message): the retry delay, or None.
    #[pyo3(
        signature = (now, cls=LossyText(String::from("deterministic")), detail=None),
        text_signature = "($self, now, cls='deterministic', detail=None)"
    )]
    fn on_raised(
        &mut self,
        now: Secs,
        cls: LossyText,
        detail: Option<LossyText>,
    ) -> PyResult<Option<f64>> {
        let outcome = Outcome::raised(class(&cls.0)?);
        self.observe_with(now, outcome, detail)
    }

    /// Ends the call at the caller's request (cancellation, shutdown).
    pub(crate) fn cancel(&mut self, now: Secs) -> PyResult<()> {
        let now = now.instant("now")?;
        let give_up = self.policy.get().lock().cancel(now, &mut self.call);
        self.last = Last::Cancelled(give_up);
        Ok(())
    }

    /// The core's last answer as a dict: an admission (`proceed` /
    /// `reject`), a decision (`done` / `retry` / `give_up`), or None before
    /// the first question.
    #[getter]
    pub(crate) fn decision<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.last {
            Last::Started => Ok(py.None().into_bound(py)),
            Last::Admission(a) => py_emit(py, a),
            Last::Decision(d) => py_emit(py, d),
            Last::Cancelled(g) => {
                let value = py_emit(py, g)?;
                value.set_item("kind", "give_up")?;
                Ok(value)
            }
        }
    }

    /// Makes this call one of `run`'s: each retry it is granted also takes
    /// one of the run's, and a run with none left ends it with
    /// `budget_exhausted`. Join before the first outcome.
    fn join_run(&mut self, run: &Bound<'_, RunQuota>) {
        self.call.join_run(&run.get().quota);
    }

    /// Reads the value of the header a layer above marks its retries with
    /// (`NESTED_RETRY_HEADER`) on this call's request: when it says the
    /// request is already a retry, queues a `nested_retries` event and
    /// returns which retry it was; else None (garbage is ignored).
    fn note_retries_above(&mut self, now: Secs, value: LossyText) -> PyResult<Option<u32>> {
        let now = now.instant("now")?;
        let Some(n) = stoic_core::host::retries_above(&value.0) else {
            return Ok(None);
        };
        self.policy
            .get()
            .lock()
            .note_nested_retries(now, &self.call, n);
        Ok(Some(n))
    }

    /// Whether the admission just given lets an attempt go out.
    #[getter]
    pub(crate) fn admitted(&self) -> bool {
        self.plan().is_some()
    }

    /// The stop reason code once the call gave up (`attempts_exhausted`,
    /// `not_retryable`, ...), else None.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        self.stopped().map(|g| g.reason.code())
    }

    /// Whether a give-up's last failure was retryable (the engine stopped
    /// for another reason); False for `not_retryable` and `not_idempotent`,
    /// and None while the call has not given up.
    #[getter]
    fn was_retryable(&self) -> Option<bool> {
        self.stopped().map(|g| g.was_retryable)
    }

    /// The observation of a give-up: text a caller can reason about.
    #[getter]
    fn observation(&self) -> Option<String> {
        self.stopped().map(|g| g.observation.clone())
    }

    /// Whether the call ended in success.
    #[getter]
    fn succeeded(&self) -> bool {
        matches!(self.last, Last::Decision(Decision::Done(_)))
    }

    /// Whether the call is over.
    #[getter]
    fn finished(&self) -> bool {
        self.call.is_finished()
    }

    /// Attempts admitted or observed so far.
    #[getter]
    fn attempts(&self) -> u32 {
        self.call.attempts()
    }

    /// Retries decided so far.
    #[getter]
    fn retries(&self) -> u32 {
        self.call.retries()
    }

    /// The policy-unique id.
    #[getter]
    fn id(&self) -> u64 {
        self.call.id()
    }

    /// The operation name.
    #[getter]
    fn operation(&self) -> &str {
        self.call.operation()
    }

    /// The idempotency key, the same on every attempt.
    #[getter]
    fn idempotency_key(&self) -> Option<&str> {
        self.call.idempotency_key()
    }

    /// The admitted attempt's timeout in seconds (None: unbounded).
    #[getter]
    fn timeout(&self) -> Option<f64> {
        self.plan()?.timeout_ms.map(ms_to_secs)
    }

    /// The admitted attempt's connect timeout in seconds.
    #[getter]
    fn connect_timeout(&self) -> Option<f64> {
        self.plan()?.connect_timeout_ms.map(ms_to_secs)
    }

    /// Seconds left before the total deadline, as of the last admission.
    #[getter]
    fn remaining(&self) -> Option<f64> {
        self.plan()?.remaining_ms.map(ms_to_secs)
    }

    /// When the next attempt may start (monotonic seconds), while waiting.
    #[getter]
    fn next_attempt_at(&self) -> Option<f64> {
        self.call
            .next_attempt_at()
            .map(|at| ms_to_secs(at.as_millis()))
    }

    /// The policy this call belongs to.
    #[getter]
    fn policy(&self, py: Python<'_>) -> Py<Policy> {
        self.policy.clone_ref(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "Call(id={}, operation={:?}, attempts={}, finished={})",
            self.call.id(),
            self.call.operation(),
            self.call.attempts(),
            if self.call.is_finished() {
                "True"
            } else {
                "False"
            }
        )
    }
}
