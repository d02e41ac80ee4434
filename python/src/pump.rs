//! The decorator's first attempt in one crossing: read the clock, begin the
//! call, tell `started`, run the attempt and report its success, which is
//! the whole of a call that succeeds at once. Anything else (a refused
//! admission, an exception, a coroutine to await, an error after the
//! attempt) is handed back to the Python pump as a [`Pending`], which goes
//! on from there as if it had made the attempt itself.

use std::sync::Mutex;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};

use crate::call::Call;
use crate::clock::monotonic;
use crate::policy::CallStart;
use crate::seconds::Secs;

/// `CallStart.first(fn, started, system, coroutine)`: its `run`, given the
/// clock and the call's arguments (a method: called without a tuple of
/// them), returns `fn`'s result when the first
/// attempt succeeded, else a [`Pending`].
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct FirstAttempt {
    pub(crate) start: Py<CallStart>,
    pub(crate) target: Py<PyAny>,
    pub(crate) started: Option<Py<PyAny>>,
    /// The system clock's type: read through `stoic.monotonic` directly.
    pub(crate) system: Py<PyType>,
    /// The type of a result the call goes on in (a coroutine), if any.
    pub(crate) coroutine: Option<Py<PyType>>,
}

impl FirstAttempt {
    /// `clock.monotonic()`.
    fn now(&self, py: Python<'_>, clock: &Bound<'_, PyAny>) -> PyResult<Secs> {
        if clock.get_type().is(self.system.bind(py)) {
            monotonic(py).map(Secs::from)
        } else {
            clock.call_method0(intern!(py, "monotonic"))?.extract()
        }
    }
}

/// What the first attempt left to the Python pump.
#[derive(Debug)]
enum Left {
    /// Nothing: the attempt was not admitted, or was taken.
    Nothing,
    /// The attempt raised this exception.
    Raised(PyErr),
    /// The attempt returned this coroutine.
    Returned(Py<PyAny>),
    /// The attempt succeeded, and reading the clock or reporting the
    /// success raised this: the call ends with it.
    Failed(PyErr),
}

/// A call whose first attempt did not simply succeed: `call`, and what
/// `take()` gives back once (raises the attempt's exception, or returns
/// the coroutine it returned; None when it was not admitted).
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct Pending {
    call: Py<Call>,
    left: Mutex<Left>,
    failed: bool,
}

#[pymethods]
impl Pending {
    /// The call.
    #[getter]
    fn call(&self, py: Python<'_>) -> Py<Call> {
        self.call.clone_ref(py)
    }

    /// Whether the attempt succeeded and the call then failed (`take()`
    /// raises its error).
    #[getter]
    fn failed(&self) -> bool {
        self.failed
    }

    /// The first attempt's exception raised as itself, or its coroutine.
    fn take(&self) -> PyResult<Option<Py<PyAny>>> {
        let left = {
            let mut guard = self
                .left
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            std::mem::replace(&mut *guard, Left::Nothing)
        };
        match left {
            Left::Nothing => Ok(None),
            Left::Returned(value) => Ok(Some(value)),
            Left::Raised(error) | Left::Failed(error) => Err(error),
        }
    }
}

fn pending(py: Python<'_>, call: Bound<'_, Call>, left: Left) -> PyResult<Py<PyAny>> {
    let failed = matches!(left, Left::Failed(_));
    let pending = Pending {
        call: call.unbind(),
        left: Mutex::new(left),
        failed,
    };
    Ok(Bound::new(py, pending)?.into_any().unbind())
}

#[pymethods]
impl FirstAttempt {
    /// The first attempt of a call of `fn(*args, **kwargs)` on `clock`.
    fn run(
        &self,
        py: Python<'_>,
        clock: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        kwargs: &Bound<'_, PyDict>,
    ) -> PyResult<Py<PyAny>> {
        let now = self.now(py, clock)?;
        let call = Bound::new(py, self.start.get().begin(py, now)?)?;
        if let Some(started) = &self.started {
            started.bind(py).call1((&call,))?;
        }
        if !call.borrow().admitted() {
            return pending(py, call, Left::Nothing);
        }
        let kwargs = if kwargs.is_empty() {
            None
        } else {
            Some(kwargs)
        };
        let result = match self.target.bind(py).call(args, kwargs) {
            Ok(result) => result,
            Err(error) => return pending(py, call, Left::Raised(error)),
        };
        if let Some(coroutine) = &self.coroutine {
            if result.get_type().is(coroutine.bind(py)) {
                return pending(py, call, Left::Returned(result.unbind()));
            }
        }
        let done = self
            .now(py, clock)
            .and_then(|now| call.borrow_mut().on_success(now));
        match done {
            Ok(_) => Ok(result.unbind()),
            Err(error) => pending(py, call, Left::Failed(error)),
        }
    }
}
