//! The policy every call shares: the core's policy behind a mutex, with the
//! records sink and listeners beside it. Its own module because both
//! `stoic.Policy` (`policy.rs`, which starts calls) and `stoic.Call`
//! (`call.rs`, which reports to the policy that started it) need it, and
//! neither should import the other.

use std::sync::{Mutex, MutexGuard, PoisonError};

use pyo3::prelude::*;

/// A validated config and the state calls share: breakers, retry budgets
/// and metrics per scope.
/// Weak references are allowed so that integrations can keep per-policy
/// state without keeping a policy alive (`stoic.opentelemetry`).
#[pyclass(frozen, weakref, module = "stoic._stoic")]
#[derive(Debug)]
pub(crate) struct Policy {
    pub(crate) inner: Mutex<stoic_core::Policy>,
    pub(crate) records: Option<Py<PyAny>>,
    /// Called with every event beside `records` (`listen`).
    pub(crate) listeners: Mutex<Vec<Py<PyAny>>>,
}

impl Policy {
    /// The core policy, locked. A poisoned lock still holds a consistent
    /// policy (the core never panics mid-update), so it is used as is.
    pub(crate) fn lock(&self) -> MutexGuard<'_, stoic_core::Policy> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The listeners added with `listen`, locked.
    pub(crate) fn listener_list(&self) -> MutexGuard<'_, Vec<Py<PyAny>>> {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
