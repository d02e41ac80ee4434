//! `stoic.parts.RetryBudget`: the core's composed retry budget on its own.

use std::sync::{Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stoic_core::budget::{self, BudgetEvent, RetryCost};

use crate::document::{py_emit, section_of};
use crate::errors::config_error;
use crate::errors::usage_error_at;
use crate::parts;
use crate::seconds::Secs;
use crate::text::LossyText;
use stoic_core::schema::not_one_of;

/// Proof that a retry was admitted; hand it back if the retry succeeds.
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct RetryTicket {
    inner: budget::RetryTicket,
}

#[pymethods]
impl RetryTicket {
    /// What the token bucket charged, if one is on.
    #[getter]
    fn token_cost(&self) -> Option<u32> {
        self.inner.token_cost
    }
}

/// Retry budgets: `RetryBudget(**config)` takes the `budget` section of
/// the engine config (`ratio=None` turns the default ratio budget off).
#[pyclass(frozen, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct RetryBudget {
    inner: Mutex<budget::RetryBudget>,
}

impl RetryBudget {
    fn lock(&self) -> MutexGuard<'_, budget::RetryBudget> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[pymethods]
impl RetryBudget {
    #[new]
    #[pyo3(signature = (**config))]
    fn new(py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let config: budget::RetryBudgetConfig = section_of(py, config)?;
        let inner = budget::RetryBudget::new(config).map_err(|e| config_error(py, &e))?;
        Ok(RetryBudget {
            inner: Mutex::new(inner),
        })
    }

    /// A first attempt went out.
    fn on_first_attempt(&self, now: Secs) -> PyResult<()> {
        let now = now.instant("now")?;
        self.lock().on_first_attempt(now);
        Ok(())
    }

    /// May a retry go out? `(ticket, None)` or `(None, refused_by)`;
    /// `cost` is `normal`, `timeout` or `throttling`.
    #[pyo3(
        signature = (now, cost=LossyText(String::from("normal"))),
        text_signature = "($self, now, cost='normal')"
    )]
    fn try_retry(
        &self,
        now: Secs,
        cost: LossyText,
    ) -> PyResult<(Option<RetryTicket>, Option<&'static str>)> {
        let cost = RetryCost::from_code(&cost.0).ok_or_else(|| {
            let codes = RetryCost::ALL.map(RetryCost::code);
            usage_error_at("invalid_value", "cost", not_one_of("cost", &cost.0, codes))
        })?;
        let now = now.instant("now")?;
        let result = self.lock().try_retry(now, cost);
        Ok(match result {
            Ok(ticket) => (Some(RetryTicket { inner: ticket }), None),
            Err(refusal) => (None, Some(refusal.code())),
        })
    }

    /// An attempt succeeded (with the ticket of the retry it was, if any).
    #[pyo3(signature = (now, ticket=None))]
    fn on_attempt_success(&self, now: Secs, ticket: Option<&RetryTicket>) -> PyResult<()> {
        let now = now.instant("now")?;
        self.lock().on_attempt_success(now, ticket.map(|t| t.inner));
        Ok(())
    }

    /// An attempt failed.
    fn on_attempt_failure(&self, now: Secs) -> PyResult<()> {
        let now = now.instant("now")?;
        self.lock().on_attempt_failure(now);
        Ok(())
    }

    /// Applies a new `budget` config, keeping what state still fits.
    #[pyo3(signature = (**config))]
    fn reconfigure(&self, py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        let config: budget::RetryBudgetConfig = section_of(py, config)?;
        self.lock()
            .reconfigure(config)
            .map_err(|e| config_error(py, &e))
    }

    /// Every queued event, oldest first.
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let drained: Vec<BudgetEvent> = {
            let mut budget = self.lock();
            std::iter::from_fn(|| budget.poll_event()).collect()
        };
        let list = PyList::empty(py);
        for event in &drained {
            list.append(py_emit(py, event)?)?;
        }
        Ok(list)
    }

    /// Every enabled budget's status at `now`.
    fn status<'py>(&self, py: Python<'py>, now: Secs) -> PyResult<Bound<'py, PyAny>> {
        let now = now.instant("now")?;
        let status = self.lock().status(now);
        py_emit(py, &status)
    }

    /// The whole state as JSON text.
    fn snapshot(&self) -> String {
        stoic_core::state::write_snapshot(&*self.lock())
    }

    /// A budget restored from `snapshot()` text.
    #[staticmethod]
    fn restore(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = parts::snapshot_text(py, text)?;
        let inner: budget::RetryBudget = parts::restore(py, &text)?;
        Ok(RetryBudget {
            inner: Mutex::new(inner),
        })
    }
}
