//! `stoic.HedgedCall` and `stoic.HedgingConfig`: the core's hedged calls
//! (`stoic_core::hedging`) for Python hosts.
//!
//! Translation only: the host sends the copies the core names, reports
//! each copy's outcome, and cancels what the core says to cancel. Every
//! answer is a step dict (`kind`: `send`, `wait`, `done`, `give_up`) in the
//! Python spelling (float seconds, monotonic seconds for `until`).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stoic_core::hedging::{Copies, HedgeStep, HedgingConfig as CoreHedging};
use stoic_core::schema::Dialect;
use stoic_core::Outcome;

use crate::convert::ms_to_secs;
use crate::document::{doc_of, py_emit, py_of};
use crate::errors::{config_error, input_error, usage_error};
use crate::ints::http_status;
use crate::outcome::{class, header_pairs, network_kind, response};
use crate::seconds::Secs;
use crate::shared::Policy;
use crate::text::LossyText;

/// How a call hedges (`max_hedges`, `delay`), checked once by the core in
/// the Python spelling: `HedgingConfig(max_hedges=1, delay={"kind":
/// "fixed", "after": 0.05})`.
#[pyclass(module = "stoic._stoic", frozen)]
#[derive(Debug)]
pub(crate) struct HedgingConfig {
    pub(crate) inner: CoreHedging,
}

#[pymethods]
impl HedgingConfig {
    #[new]
    #[pyo3(signature = (**config))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let doc = doc_of(py, config.map(Bound::as_any))?;
        let inner =
            CoreHedging::from_value(&doc, Dialect::PYTHON).map_err(|e| config_error(py, &e))?;
        Ok(HedgingConfig { inner })
    }

    /// The settings given as a call's `hedging=` option (a dict): every
    /// error names the field from the option down (`hedging.max_hedges`).
    #[staticmethod]
    fn from_option(py: Python<'_>, option: &Bound<'_, PyAny>) -> PyResult<Self> {
        let doc = doc_of(py, Some(option))?;
        let inner =
            CoreHedging::from_option(&doc, Dialect::PYTHON).map_err(|e| config_error(py, &e))?;
        Ok(HedgingConfig { inner })
    }

    /// The settings, every default filled in (Python spelling).
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_of(py, &self.inner.to_value(Dialect::PYTHON))
    }

    /// Copies a call may send in all, the first included.
    #[getter]
    fn max_copies(&self) -> u32 {
        self.inner.max_copies()
    }

    fn __repr__(&self) -> String {
        format!(
            "HedgingConfig(max_hedges={}, delay={:?})",
            self.inner.max_hedges,
            self.inner.delay.code()
        )
    }
}

/// The copies of a set, in order.
fn copies(set: Copies) -> Vec<u32> {
    set.iter().collect()
}

fn opt_secs(ms: Option<u64>) -> Option<f64> {
    ms.map(ms_to_secs)
}

/// A step as the dict the host acts on.
pub(crate) fn step_to_py<'py>(py: Python<'py>, step: &HedgeStep) -> PyResult<Bound<'py, PyAny>> {
    let dict = match step {
        HedgeStep::Send(plan) => {
            let dict = PyDict::new(py);
            dict.set_item("copy", plan.attempt)?;
            dict.set_item("max_copies", plan.max_attempts)?;
            dict.set_item("timeout", opt_secs(plan.timeout_ms))?;
            dict.set_item("connect_timeout", opt_secs(plan.connect_timeout_ms))?;
            dict.set_item("remaining", opt_secs(plan.remaining_ms))?;
            dict.set_item("idempotency_key", plan.idempotency_key.as_deref())?;
            dict.into_any()
        }
        HedgeStep::Wait { until } => {
            let dict = PyDict::new(py);
            dict.set_item("until", until.map(|at| ms_to_secs(at.as_millis())))?;
            dict.into_any()
        }
        HedgeStep::Done {
            done,
            winner,
            cancel,
        } => {
            let dict = py_emit(py, done)?;
            dict.set_item("winner", winner)?;
            dict.set_item("cancel", copies(*cancel))?;
            dict
        }
        HedgeStep::GiveUp { give_up, cancel } => {
            let dict = py_emit(py, give_up)?;
            dict.set_item("cancel", copies(*cancel))?;
            dict
        }
    };
    dict.set_item("kind", step.kind())?;
    Ok(dict)
}

/// One logical operation sent as up to `1 + max_hedges` copies. Used by one
/// task at a time; the `Policy` it came from is what threads share.
#[pyclass(module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct HedgedCall {
    policy: Py<Policy>,
    call: stoic_core::HedgedCall,
    last: Option<HedgeStep>,
}

/// A hedged call dropped before it ended gives back every copy's breaker
/// permit and budget slot, as a dropped `Call` does.
impl Drop for HedgedCall {
    fn drop(&mut self) {
        if !self.call.is_finished() {
            self.policy.get().lock().hedge_abandon(&mut self.call);
        }
    }
}

impl HedgedCall {
    pub(crate) fn new(policy: Py<Policy>, call: stoic_core::HedgedCall) -> Self {
        HedgedCall {
            policy,
            call,
            last: None,
        }
    }

    /// Refuses a call started by another policy.
    pub(crate) fn check_policy(&self, policy: &Bound<'_, Policy>) -> PyResult<()> {
        if self.policy.is(policy) {
            Ok(())
        } else {
            Err(usage_error(
                "misuse",
                "this hedged call was started by another policy".to_owned(),
            ))
        }
    }

    fn answer<'py>(&mut self, py: Python<'py>, step: HedgeStep) -> PyResult<Bound<'py, PyAny>> {
        let dict = step_to_py(py, &step);
        self.last = Some(step);
        dict
    }

    /// Reports copy `copy`'s `outcome`; the next step.
    pub(crate) fn observe<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
        copy: u32,
        outcome: Outcome<'_>,
    ) -> PyResult<Bound<'py, PyAny>> {
        // A failure classified as success is the caller's bug.
        outcome.check().map_err(|e| input_error(py, &e))?;
        let now = now.instant("now")?;
        let step = self
            .policy
            .get()
            .lock()
            .hedge_outcome(now, &mut self.call, copy, outcome);
        self.answer(py, step)
    }

    fn observe_with<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
        copy: u32,
        outcome: Outcome<'_>,
        detail: Option<LossyText>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match detail {
            Some(LossyText(detail)) => self.observe(py, now, copy, outcome.with_detail(&detail)),
            None => self.observe(py, now, copy, outcome),
        }
    }

    fn give_up(&self) -> Option<&stoic_core::GiveUp> {
        match &self.last {
            Some(HedgeStep::GiveUp { give_up, .. }) => Some(give_up),
            _ => None,
        }
    }
}

#[pymethods]
impl HedgedCall {
    /// What the call needs now: a copy to send, a time to wake, or its end.
    /// Ask when the call starts, after each copy is sent, and when the last
    /// `wait`'s `until` comes.
    pub(crate) fn poll<'py>(&mut self, py: Python<'py>, now: Secs) -> PyResult<Bound<'py, PyAny>> {
        let now = now.instant("now")?;
        let step = self.policy.get().lock().hedge_poll(now, &mut self.call);
        self.answer(py, step)
    }

    /// Copy `copy` succeeded.
    fn on_success<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
        copy: u32,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.observe(py, now, copy, Outcome::success())
    }

    /// Copy `copy` got an HTTP response.
    #[pyo3(signature = (now, copy, status, headers=None, *, detail=None, wall_now=None))]
    #[allow(clippy::too_many_arguments)]
    fn on_status<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
        copy: u32,
        status: &Bound<'py, PyAny>,
        headers: Option<&Bound<'py, PyAny>>,
        detail: Option<LossyText>,
        wall_now: Option<Secs>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let status = http_status(status)?;
        // Only a status the policy may retry has its headers read.
        let reads = self.policy.get().lock().reads_hints(status);
        let pairs = if reads {
            header_pairs(headers)?
        } else {
            Vec::new()
        };
        let outcome = response(&self.policy.get().lock(), status, &pairs, wall_now)?;
        self.observe_with(py, now, copy, outcome, detail)
    }

    /// Copy `copy` failed without a response (`kind`: a network kind code).
    #[pyo3(signature = (now, copy, kind, detail=None))]
    fn on_network_error<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
        copy: u32,
        kind: LossyText,
        detail: Option<LossyText>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let outcome = Outcome::network(network_kind(&kind.0)?);
        self.observe_with(py, now, copy, outcome, detail)
    }

    /// The host rejected copy `copy`'s result as a failure of class `cls`.
    #[pyo3(
        signature = (now, copy, cls=LossyText(String::from("transient")), detail=None),
        text_signature = "($self, now, copy, cls='transient', detail=None)"
    )]
    fn on_rejected<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
        copy: u32,
        cls: LossyText,
        detail: Option<LossyText>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let outcome = Outcome::rejected(class(&cls.0)?);
        self.observe_with(py, now, copy, outcome, detail)
    }

    /// Copy `copy` raised an exception the host classified as `cls`.
    #[pyo3(
        signature = (now, copy, cls=LossyText(String::from("deterministic")), detail=None),
        text_signature = "($self, now, copy, cls='deterministic', detail=None)"
    )]
    fn on_raised<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
        copy: u32,
        cls: LossyText,
        detail: Option<LossyText>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let outcome = Outcome::raised(class(&cls.0)?);
        self.observe_with(py, now, copy, outcome, detail)
    }

    /// Ends the call at the caller's request: every copy in flight is to be
    /// cancelled (the step's `cancel`). A finished call answers as it ended.
    pub(crate) fn cancel<'py>(
        &mut self,
        py: Python<'py>,
        now: Secs,
    ) -> PyResult<Bound<'py, PyAny>> {
        let now = now.instant("now")?;
        let step = self.policy.get().lock().hedge_cancel(now, &mut self.call);
        self.answer(py, step)
    }

    /// The last step as a dict, or None before the first question.
    #[getter]
    fn step<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.last.as_ref().map(|s| step_to_py(py, s)).transpose()
    }

    /// How the call ended, as `Call.decision` says it: `done` (with the
    /// `winner` and the copies to `cancel`) or `give_up`; None while it runs.
    #[getter]
    fn decision<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.last {
            Some(step @ (HedgeStep::Done { .. } | HedgeStep::GiveUp { .. })) => {
                step_to_py(py, step).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// The copies in flight (sent, no outcome, not cancelled).
    #[getter]
    fn in_flight<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, copies(self.call.in_flight()))
    }

    /// When to ask again if no outcome comes first (monotonic seconds).
    #[getter]
    fn next_timeout(&self) -> Option<f64> {
        self.call
            .next_timeout()
            .map(|at| ms_to_secs(at.as_millis()))
    }

    /// Whether the call is over.
    #[getter]
    fn finished(&self) -> bool {
        self.call.is_finished()
    }

    /// Whether a copy's answer won.
    #[getter]
    fn succeeded(&self) -> bool {
        matches!(self.last, Some(HedgeStep::Done { .. }))
    }

    /// The copy whose answer won, once one did.
    #[getter]
    fn winner(&self) -> Option<u32> {
        match self.last {
            Some(HedgeStep::Done { winner, .. }) => Some(winner),
            _ => None,
        }
    }

    /// The stop reason code once the call gave up, else None.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        self.give_up().map(|g| g.reason.code())
    }

    /// Whether a give-up's last failure was retryable; None unless given up.
    #[getter]
    fn was_retryable(&self) -> Option<bool> {
        self.give_up().map(|g| g.was_retryable)
    }

    /// The give-up's observation, text a caller can reason about.
    #[getter]
    fn observation(&self) -> Option<String> {
        self.give_up().map(|g| g.observation.clone())
    }

    /// Copies sent so far (the first included).
    #[getter]
    fn attempts(&self) -> u32 {
        self.call.sent()
    }

    /// Hedges sent so far (copies beyond the first): what the retry budget
    /// paid for, as a plain call's retries.
    #[getter]
    fn hedges(&self) -> u32 {
        self.call.sent().saturating_sub(1)
    }

    /// The same as `hedges`, under `Call`'s name (statistics read either).
    #[getter]
    fn retries(&self) -> u32 {
        self.hedges()
    }

    /// The policy-unique id.
    #[getter]
    fn id(&self) -> u64 {
        self.call.call().id()
    }

    /// The operation name.
    #[getter]
    fn operation(&self) -> &str {
        self.call.call().operation()
    }

    /// The idempotency key every copy carries.
    #[getter]
    fn idempotency_key(&self) -> Option<&str> {
        self.call.call().idempotency_key()
    }

    /// The policy this call belongs to.
    #[getter]
    fn policy(&self, py: Python<'_>) -> Py<Policy> {
        self.policy.clone_ref(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "HedgedCall(id={}, operation={:?}, copies={}, finished={})",
            self.call.call().id(),
            self.call.call().operation(),
            self.call.sent(),
            if self.call.is_finished() {
                "True"
            } else {
                "False"
            }
        )
    }
}
