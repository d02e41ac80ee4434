//! `stoic.Policy`: the core's policy behind a mutex, shared by threads.
//!
//! Every method converts its arguments first, holds the lock only around
//! the core call, and converts the answer after releasing it: no Python
//! code (a `__del__`, a GC pass) can run while the lock is held, so a
//! thread can never wait on itself.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyType};
use stoic_core::schema::sections::Overrides;
use stoic_core::schema::{Dialect, Value};
use stoic_core::{CallSpec, Config, Event, PolicyState};

use crate::call::Call;
use crate::call_options::refuse_call_options;
use crate::convert::ms_to_secs;
use crate::document::{doc_of, py_emit, py_of, section_of};
use crate::errors::{config_error, input_error};
use crate::hedged::{HedgedCall, HedgingConfig};
use crate::ints::http_status;
use crate::outcome::OutcomeArgs;
use crate::overrides::CallOverrides;
use crate::pump::FirstAttempt;
use crate::registry::set_listening;
use crate::seconds::Secs;
use crate::shared::Policy;
use crate::text::{strict_str, LossyText, StrictText};

impl Policy {
    /// Wraps a validated core policy for Python, its wall clock paired with
    /// the host's (both constructors end here).
    fn hosted(
        py: Python<'_>,
        mut inner: stoic_core::Policy,
        records: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        check_records(py, records.as_ref())?;
        anchor_wall_clock(py, &mut inner)?;
        Ok(Policy {
            inner: Mutex::new(inner),
            records,
            listeners: Mutex::new(Vec::new()),
        })
    }
}

/// Refuses a records sink that delivery could not use, when the policy is
/// built (a typo such as `records="logs"` would otherwise fail the caller's
/// own call at its first event).
fn check_records(py: Python<'_>, records: Option<&Py<PyAny>>) -> PyResult<()> {
    let Some(sink) = records.map(|r| r.bind(py)) else {
        return Ok(());
    };
    if let Ok(text) = sink.extract::<String>() {
        if text == "logging" {
            return Ok(());
        }
    } else if sink.is_callable()
        || sink.is_instance(&py.import("logging")?.getattr("Logger")?)?
        || is_structured_logger(sink)
    {
        return Ok(());
    }
    let shown = sink
        .repr()
        .map_or_else(|_| String::new(), |r| format!(" {r}"));
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "records= must be None, \"logging\", a logging.Logger, a structlog logger or a callable taking the event dict, not {}{shown}",
        sink.get_type().name()?
    )))
}

/// A structlog logger (or one shaped like it): `bind`, and a method per
/// level taking a message and key-values.
fn is_structured_logger(sink: &Bound<'_, PyAny>) -> bool {
    ["bind", "info", "warning", "error"]
        .iter()
        .all(|name| sink.getattr(*name).is_ok_and(|m| m.is_callable()))
}

/// A seed from the OS: two clients must never share a jitter stream.
fn os_seed(py: Python<'_>) -> PyResult<u64> {
    let bytes: Vec<u8> = py.import("os")?.call_method1("urandom", (8,))?.extract()?;
    let mut seed = [0_u8; 8];
    for (slot, byte) in seed.iter_mut().zip(bytes) {
        *slot = byte;
    }
    Ok(u64::from_le_bytes(seed))
}

/// Fills `seed` from the OS when the caller gave none, and turns on log
/// records when a records sink is given without saying otherwise.
fn host_defaults(py: Python<'_>, doc: &mut Value, records: bool) -> PyResult<()> {
    doc.set_default("seed", || os_seed(py).map(|s| Value::Int(i128::from(s))))?;
    if records {
        doc.set_default("log_records", || PyResult::Ok(Value::Bool(true)))?;
    }
    Ok(())
}

/// Pairs the host's monotonic clock with Unix time, so log records carry
/// real timestamps (what the JS binding does at construction too). A host
/// on another clock (stoic's testing switch) sets its own pairing.
fn anchor_wall_clock(py: Python<'_>, policy: &mut stoic_core::Policy) -> PyResult<()> {
    // The runtimes' clock (`stoic.monotonic`, on the Unix scale).
    let now = Secs::from(crate::clock::monotonic(py)?);
    let unix: Secs = py.import("time")?.call_method0("time")?.extract()?;
    policy.set_wall_clock(now.instant("monotonic()")?, unix.wall("time.time()")?);
    Ok(())
}

/// An event as a Python dict; a log event also carries the core's JSON
/// line (`line`), the exact text every language logs.
pub(crate) fn event_to_py<'py>(py: Python<'py>, event: &Event) -> PyResult<Bound<'py, PyAny>> {
    let value = py_emit(py, event)?;
    if let Event::Log { record, .. } = event {
        value.set_item("line", record.to_json_line())?;
    }
    Ok(value)
}

/// Starts `spec` and admits its first attempt, under one lock.
fn begin_call(
    py: Python<'_>,
    policy: &Py<Policy>,
    now: Secs,
    spec: CallSpec<'_>,
) -> PyResult<Call> {
    let at = now.instant("now")?;
    let (call, admission) = {
        let mut locked = policy.get().lock();
        let mut call = locked.start(at, spec);
        let admission = locked.before_attempt(at, &mut call);
        (call, admission)
    };
    let mut call = Call::new(policy.clone_ref(py), call);
    call.set_admission(admission);
    Ok(call)
}

/// `Policy.begin`'s arguments after `now`, checked once
/// (`Policy.call_start`): the decorator's calls all start alike.
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct CallStart {
    policy: Py<Policy>,
    operation: String,
    scope: String,
    idempotent: Option<bool>,
    key: Option<String>,
    overrides: Option<Py<CallOverrides>>,
}

#[pymethods]
impl CallStart {
    /// `policy.begin(now, ...)` with the arguments given to `call_start`.
    pub(crate) fn begin(&self, py: Python<'_>, now: Secs) -> PyResult<Call> {
        let spec = CallSpec::from_host(
            &self.operation,
            &self.scope,
            self.idempotent,
            None,
            self.key.as_deref(),
            self.overrides.as_ref().map(|o| &o.get().inner),
        );
        begin_call(py, &self.policy, now, spec)
    }

    /// The first attempt of `fn`'s calls in one crossing
    /// ([`FirstAttempt`]): `started` is told each call as it begins,
    /// `system` is the clock type read natively, and a result of type
    /// `coroutine` is handed back (the call goes on where it is awaited).
    #[pyo3(signature = (r#fn, started, system, coroutine=None))]
    fn first(
        slf: &Bound<'_, Self>,
        r#fn: Py<PyAny>,
        started: Option<Py<PyAny>>,
        system: Py<PyType>,
        coroutine: Option<Py<PyType>>,
    ) -> FirstAttempt {
        FirstAttempt {
            start: slf.clone().unbind(),
            target: r#fn,
            started,
            system,
            coroutine,
        }
    }
}

#[pymethods]
impl Policy {
    /// `Policy(**config)`: keyword config in the Python spelling (float
    /// seconds, `_ms` dropped); `seed` defaults to OS randomness. `records`
    /// is where `stoic`'s host runtime delivers events (a callable, a
    /// `logging.Logger`, or `"logging"`).
    #[new]
    #[pyo3(signature = (*, records=None, **config))]
    fn new(
        py: Python<'_>,
        records: Option<Py<PyAny>>,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        refuse_call_options(py, config)?;
        let mut doc = doc_of(py, config.map(Bound::as_any))?;
        host_defaults(py, &mut doc, records.is_some())?;
        let config = Config::from_value(&doc, Dialect::PYTHON).map_err(|e| config_error(py, &e))?;
        let inner = stoic_core::Policy::new(config).map_err(|e| config_error(py, &e))?;
        Policy::hosted(py, inner, records)
    }

    /// A policy from a config in the core's JSON spelling (`_ms` integers),
    /// as shared with the Rust and JavaScript hosts.
    #[staticmethod]
    #[pyo3(signature = (text, *, records=None))]
    fn from_json(
        py: Python<'_>,
        text: StrictText<'_>,
        records: Option<Py<PyAny>>,
    ) -> PyResult<Self> {
        let mut doc = Value::from_json(text.0).map_err(|e| config_error(py, &e))?;
        host_defaults(py, &mut doc, records.is_some())?;
        let config = Config::from_value(&doc, Dialect::RUST).map_err(|e| config_error(py, &e))?;
        let inner = stoic_core::Policy::new(config).map_err(|e| config_error(py, &e))?;
        Policy::hosted(py, inner, records)
    }

    /// The validated config, every default filled in (Python spelling).
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let config = self.lock().config().to_value(Dialect::PYTHON);
        py_of(py, &config)
    }

    /// Per-call settings for `start`/`begin` (`overrides=`): `max_attempts`
    /// and `backoff` in the Python spelling, checked as the policy's own
    /// config is; the breaker and the budget stay this policy's.
    #[pyo3(signature = (**config))]
    fn overrides(
        &self,
        py: Python<'_>,
        config: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<CallOverrides> {
        if let Some(dict) = config {
            for key in dict.keys() {
                let key: String = key.extract()?;
                if key != "max_attempts" && key != "backoff" {
                    return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                        "only max_attempts and backoff can be set per call, not {key}; \
                         build another Policy for the rest"
                    )));
                }
            }
        }
        let parsed: Overrides = section_of(py, config)?;
        let inner = self
            .lock()
            .overrides(parsed.max_attempts, parsed.backoff)
            .map_err(|e| config_error(py, &e))?;
        Ok(CallOverrides { inner })
    }

    /// The records sink given at construction.
    #[getter]
    fn records(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.records.as_ref().map(|r| r.clone_ref(py))
    }

    /// Adds `listener`, called with each event dict beside `records=` (an
    /// exporter's way in: `stoic.opentelemetry` listens). Events are handed
    /// out as calls end or sleep, and after each fleet exchange.
    fn listen(&self, listener: Bound<'_, PyAny>) -> PyResult<()> {
        if !listener.is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "listen(listener): listener must be a callable taking the event dict, not {}",
                listener.get_type().name()?
            )));
        }
        // The runtimes skip delivery on calls without `records=` until some
        // policy has a listener (this module's `listening`).
        set_listening(listener.py())?;
        self.listener_list().push(listener.unbind());
        Ok(())
    }

    /// Removes `listener` (one equal to what was given to `listen`: the
    /// same function, or the same object's bound method); returns whether
    /// it was there.
    fn unlisten(&self, listener: &Bound<'_, PyAny>) -> bool {
        let mut listeners = self.listener_list();
        let before = listeners.len();
        listeners.retain(|l| {
            let l = l.bind(listener.py());
            !(l.is(listener) || l.eq(listener).unwrap_or(false))
        });
        listeners.len() != before
    }

    /// The listeners added with `listen`, in order.
    #[getter]
    fn listeners(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.listener_list()
            .iter()
            .map(|l| l.clone_ref(py))
            .collect()
    }

    /// Whether calls queue their metric points and decisions as `metric`
    /// and `decision` events (off by default; an OpenTelemetry exporter
    /// turns it on).
    #[getter]
    fn measuring(&self) -> bool {
        self.lock().is_measuring()
    }

    #[setter]
    fn set_measuring(&self, on: bool) {
        self.lock().set_measuring(on);
    }

    /// Starts a logical operation at `now` (monotonic seconds).
    #[pyo3(
        signature = (now, operation=StrictText(""), *, scope=StrictText(""), idempotent=None, method=None, key=None, overrides=None),
        text_signature = "($self, now, operation='', *, scope='', idempotent=None, method=None, key=None, overrides=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn start(
        slf: &Bound<'_, Self>,
        now: Secs,
        operation: StrictText<'_>,
        scope: StrictText<'_>,
        idempotent: Option<bool>,
        method: Option<LossyText>,
        key: Option<StrictText<'_>>,
        overrides: Option<PyRef<'_, CallOverrides>>,
    ) -> PyResult<Call> {
        let spec = CallSpec::from_host(
            operation.0,
            scope.0,
            idempotent,
            method.as_ref().map(|m| m.0.as_str()),
            key.map(|k| k.0),
            overrides.as_deref().map(|o| &o.inner),
        );
        let now = now.instant("now")?;
        let call = slf.get().lock().start(now, spec);
        Ok(Call::new(slf.clone().unbind(), call))
    }

    /// `start` and the first `admit` in one step (the host runtime's hot
    /// path); check `call.admitted`.
    #[pyo3(
        signature = (now, operation=StrictText(""), scope=StrictText(""), idempotent=None, key=None, overrides=None),
        text_signature = "($self, now, operation='', scope='', idempotent=None, key=None, overrides=None)"
    )]
    fn begin(
        slf: &Bound<'_, Self>,
        now: Secs,
        operation: StrictText<'_>,
        scope: StrictText<'_>,
        idempotent: Option<bool>,
        key: Option<StrictText<'_>>,
        overrides: Option<PyRef<'_, CallOverrides>>,
    ) -> PyResult<Call> {
        let spec = CallSpec::from_host(
            operation.0,
            scope.0,
            idempotent,
            None,
            key.map(|k| k.0),
            overrides.as_deref().map(|o| &o.inner),
        );
        begin_call(slf.py(), slf.as_unbound(), now, spec)
    }

    /// `begin`'s arguments after `now`, checked once: a runtime whose calls
    /// all start alike (the same operation, scope, key and overrides)
    /// begins each with `CallStart.begin(now)`.
    #[pyo3(
        signature = (operation=StrictText(""), scope=StrictText(""), idempotent=None, key=None, overrides=None),
        text_signature = "($self, operation='', scope='', idempotent=None, key=None, overrides=None)"
    )]
    fn call_start(
        slf: &Bound<'_, Self>,
        operation: StrictText<'_>,
        scope: StrictText<'_>,
        idempotent: Option<bool>,
        key: Option<StrictText<'_>>,
        overrides: Option<Py<CallOverrides>>,
    ) -> CallStart {
        CallStart {
            policy: slf.clone().unbind(),
            operation: operation.0.to_owned(),
            scope: scope.0.to_owned(),
            idempotent,
            key: key.map(|k| k.0.to_owned()),
            overrides,
        }
    }

    /// May the next attempt of `call` go out now? The admission as a dict
    /// (`kind` is `proceed` or `reject`).
    fn before_attempt<'py>(
        slf: &Bound<'py, Self>,
        now: Secs,
        call: &Bound<'py, Call>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut call = call.borrow_mut();
        call.check_policy(slf)?;
        call.admit(now)?;
        call.decision(slf.py())
    }

    /// What to do after an attempt of `call` ended: give one of `status`,
    /// `network` (a kind code), `rejected` or `raised` (a class code), or
    /// none for a success. The decision as a dict (`kind`: `done`, `retry`, `give_up`).
    #[pyo3(signature = (now, call, *, status=None, network=None, rejected=None, raised=None, headers=None, wall_now=None, detail=None))]
    #[allow(clippy::too_many_arguments)]
    fn on_outcome<'py>(
        slf: &Bound<'py, Self>,
        now: Secs,
        call: &Bound<'py, Call>,
        status: Option<&Bound<'py, PyAny>>,
        network: Option<LossyText>,
        rejected: Option<LossyText>,
        raised: Option<LossyText>,
        headers: Option<&Bound<'py, PyAny>>,
        wall_now: Option<Secs>,
        detail: Option<LossyText>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let detail = detail.map(|LossyText(text)| text);
        let args = OutcomeArgs {
            status,
            network,
            rejected,
            raised,
            headers,
            wall_now,
        };
        let mut outcome = args.outcome(slf.get())?;
        if let Some(detail) = &detail {
            outcome = outcome.with_detail(detail);
        }
        let mut call = call.borrow_mut();
        call.check_policy(slf)?;
        call.observe(now, outcome)?;
        call.decision(slf.py())
    }

    /// Ends `call` at the caller's request; the give-up as a dict.
    fn cancel<'py>(
        slf: &Bound<'py, Self>,
        now: Secs,
        call: &Bound<'py, Call>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut call = call.borrow_mut();
        call.check_policy(slf)?;
        call.cancel(now)?;
        call.decision(slf.py())
    }

    /// Starts a hedged call at `now`: a call that may be sent as several
    /// copies, the first answer winning (`stoic_core::hedging`). Only a
    /// call that is safe to repeat (idempotent, or with a key its server
    /// honours) is hedged: any other is refused with `ConfigError`
    /// `not_idempotent` at field `idempotent`. `hedging` defaults to
    /// `HedgingConfig()`.
    #[pyo3(
        signature = (now, operation=StrictText(""), *, scope=StrictText(""), idempotent=None, method=None, key=None, hedging=None),
        text_signature = "($self, now, operation='', *, scope='', idempotent=None, method=None, key=None, hedging=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn start_hedged(
        slf: &Bound<'_, Self>,
        now: Secs,
        operation: StrictText<'_>,
        scope: StrictText<'_>,
        idempotent: Option<bool>,
        method: Option<LossyText>,
        key: Option<StrictText<'_>>,
        hedging: Option<PyRef<'_, HedgingConfig>>,
    ) -> PyResult<HedgedCall> {
        let spec = CallSpec::from_host(
            operation.0,
            scope.0,
            idempotent,
            method.as_ref().map(|m| m.0.as_str()),
            key.map(|k| k.0),
            None,
        );
        let settings = hedging.map(|h| h.inner).unwrap_or_default();
        let now = now.instant("now")?;
        let started = slf.get().lock().start_hedged(now, spec, &settings);
        let call = started.map_err(|e| config_error(slf.py(), &e))?;
        Ok(HedgedCall::new(slf.clone().unbind(), call))
    }

    /// What hedged `call` needs now (`HedgedCall.poll`): the step as a dict.
    fn hedge_poll<'py>(
        slf: &Bound<'py, Self>,
        now: Secs,
        call: &Bound<'py, HedgedCall>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut call = call.borrow_mut();
        call.check_policy(slf)?;
        call.poll(slf.py(), now)
    }

    /// Copy `copy` of hedged `call` ended: give one of `status`, `network`,
    /// `rejected` or `raised`, or none for a success, as `on_outcome`
    /// takes them. The next step as a dict.
    #[pyo3(signature = (now, call, copy, *, status=None, network=None, rejected=None, raised=None, headers=None, wall_now=None, detail=None))]
    #[allow(clippy::too_many_arguments)]
    fn hedge_outcome<'py>(
        slf: &Bound<'py, Self>,
        now: Secs,
        call: &Bound<'py, HedgedCall>,
        copy: u32,
        status: Option<&Bound<'py, PyAny>>,
        network: Option<LossyText>,
        rejected: Option<LossyText>,
        raised: Option<LossyText>,
        headers: Option<&Bound<'py, PyAny>>,
        wall_now: Option<Secs>,
        detail: Option<LossyText>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let args = OutcomeArgs {
            status,
            network,
            rejected,
            raised,
            headers,
            wall_now,
        };
        let mut outcome = args.outcome(slf.get())?;
        let detail = detail.map(|LossyText(text)| text);
        if let Some(detail) = &detail {
            outcome = outcome.with_detail(detail);
        }
        let mut call = call.borrow_mut();
        call.check_policy(slf)?;
        call.observe(slf.py(), now, copy, outcome)
    }

    /// Ends hedged `call` at the caller's request; the step (its `cancel`
    /// names the copies to cancel).
    fn hedge_cancel<'py>(
        slf: &Bound<'py, Self>,
        now: Secs,
        call: &Bound<'py, HedgedCall>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut call = call.borrow_mut();
        call.check_policy(slf)?;
        call.cancel(slf.py(), now)
    }

    /// Latencies `scope` holds for quantile hedge delays.
    #[pyo3(signature = (scope=StrictText("")), text_signature = "($self, scope='')")]
    fn latency_samples(&self, scope: StrictText<'_>) -> usize {
        self.lock().latency_samples(scope.0)
    }

    /// The hedge delay (seconds) a hedged call of `scope` would wait now
    /// under `hedging`, if one is known (a quantile needs its samples).
    #[pyo3(signature = (scope=StrictText(""), hedging=None), text_signature = "($self, scope='', hedging=None)")]
    fn hedge_delay(
        &self,
        scope: StrictText<'_>,
        hedging: Option<PyRef<'_, HedgingConfig>>,
    ) -> Option<f64> {
        let settings = hedging.map(|h| h.inner).unwrap_or_default();
        self.lock()
            .hedge_delay_ms(scope.0, &settings)
            .map(ms_to_secs)
    }

    /// Stop starting attempts and retries (shutdown).
    fn drain(&self) {
        self.lock().drain();
    }

    /// Whether `drain()` was called.
    #[getter]
    fn draining(&self) -> bool {
        self.lock().is_draining()
    }

    /// Which wall-clock time (Unix seconds) goes with the monotonic `now`,
    /// for log timestamps.
    fn set_wall_clock(&self, now: Secs, wall_now: Secs) -> PyResult<()> {
        let (now, wall_now) = (now.instant("now")?, wall_now.wall("wall_now")?);
        self.lock().set_wall_clock(now, wall_now);
        Ok(())
    }

    /// The oldest queued event as a dict, or None.
    fn poll_event<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let event = self.lock().poll_event();
        event.map(|e| event_to_py(py, &e)).transpose()
    }

    /// Every queued event, oldest first.
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let events: Vec<Event> = {
            let mut policy = self.lock();
            std::iter::from_fn(|| policy.poll_event()).collect()
        };
        let list = PyList::empty(py);
        for event in &events {
            list.append(event_to_py(py, event)?)?;
        }
        Ok(list)
    }

    /// Events waiting to be polled.
    #[getter]
    fn pending_events(&self) -> usize {
        self.lock().pending_events()
    }

    /// Events dropped because the queue was full.
    #[getter]
    fn dropped_events(&self) -> u64 {
        self.lock().dropped_events()
    }

    /// When the shared state next changes by itself (monotonic seconds).
    fn next_timeout(&self) -> Option<f64> {
        self.lock()
            .next_timeout()
            .map(|at| ms_to_secs(at.as_millis()))
    }

    /// Whether the decision on a response with `status` can depend on its
    /// headers: only a status this policy may retry reads them (the
    /// server's hints). An HTTP integration gathers them only then.
    fn reads_hints(&self, status: &Bound<'_, PyAny>) -> PyResult<bool> {
        let status = http_status(status)?;
        Ok(self.lock().reads_hints(status))
    }

    /// The breaker state code of `scope` (`closed`, `open`, `half_open`).
    #[pyo3(signature = (scope=StrictText("")), text_signature = "($self, scope='')")]
    fn breaker_state(&self, scope: StrictText<'_>) -> Option<&'static str> {
        self.lock().breaker_state(scope.0).map(|s| s.code())
    }

    /// The retry budgets' status in `scope` at `now`.
    #[pyo3(signature = (now, scope=StrictText("")), text_signature = "($self, now, scope='')")]
    fn budget_status<'py>(
        &self,
        py: Python<'py>,
        now: Secs,
        scope: StrictText<'_>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let now = now.instant("now")?;
        let status = self.lock().budget_status(now, scope.0);
        status.map(|s| py_emit(py, &s)).transpose()
    }

    /// The metrics of every scope: `{scope: snapshot}`.
    fn metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let metrics = self.lock().metrics();
        let dict = PyDict::new(py);
        for (scope, snapshot) in &metrics {
            dict.set_item(scope, py_emit(py, snapshot)?)?;
        }
        Ok(dict.into_any())
    }

    /// The metrics of all scopes added together.
    fn metrics_total<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let total = self.lock().metrics_total();
        py_emit(py, &total)
    }

    /// The shared state (breakers, budgets, metrics) as versioned JSON text.
    fn snapshot(&self) -> String {
        self.lock().snapshot_json()
    }

    /// Restores a `snapshot()` (its text, or that JSON parsed into a dict);
    /// returns `{"restored": n, "reset": [...]}`.
    fn restore<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let text = crate::parts::snapshot_text(py, state)?;
        let state = PolicyState::from_json(&text).map_err(|e| input_error(py, &e))?;
        let report = self
            .lock()
            .restore_state(state)
            .map_err(|e| input_error(py, &e))?;
        py_emit(py, &report)
    }

    /// The fleet exchange's export (see `stoic.redis`): the delta's
    /// sequence number and one JSON document per scope, for the store's
    /// script. `store_now_ms` is the store's clock (Redis `TIME`).
    fn fleet_export(&self, now: Secs, store_now_ms: u64) -> PyResult<(u64, Vec<(String, String)>)> {
        let now = now.instant("now")?;
        let delta = self.lock().fleet_export(now, store_now_ms);
        Ok((delta.seq, delta.scope_texts()))
    }

    /// Takes the store script's replies (one JSON document per scope).
    fn fleet_apply(
        &self,
        py: Python<'_>,
        now: Secs,
        replies: Vec<Bound<'_, PyString>>,
    ) -> PyResult<()> {
        let now = now.instant("now")?;
        let replies = replies
            .iter()
            .map(strict_str)
            .collect::<PyResult<Vec<&str>>>()?;
        self.lock()
            .fleet_apply_replies(now, &replies)
            .map_err(|e| input_error(py, &e))
    }

    /// The exchange failed: its delta is sent again next time.
    fn fleet_failed(&self, now: Secs) -> PyResult<()> {
        let now = now.instant("now")?;
        self.lock().fleet_failed(now);
        Ok(())
    }

    /// Whether a breaker opened or closed since the last export (the
    /// adapter then exchanges at once).
    fn fleet_has_news(&self) -> bool {
        self.lock().fleet_has_news()
    }

    /// `detached`, `live` or `stale`: whether decisions see the fleet.
    fn fleet_health(&self, now: Secs) -> PyResult<&'static str> {
        let now = now.instant("now")?;
        Ok(self.lock().fleet_health(now).code())
    }

    fn __repr__(&self) -> String {
        let policy = self.lock();
        let config = policy.config();
        format!(
            "Policy(max_attempts={}, backoff={:?}, draining={})",
            config.max_attempts,
            config.backoff.strategy.code(),
            if policy.is_draining() {
                "True"
            } else {
                "False"
            }
        )
    }
}
