//! A run: the retries one agent run (or job) may make across all its calls.
//!
//! "Retries, timeouts and doing it twice" caps retries "per operation", then
//! "per run and per minute across runs". The per-operation cap is
//! `max_attempts`; the per-minute one is a scope's ratio budget, shared by
//! every call to a service. The per-run cap belongs to neither: an agent run
//! calls many tools on many services, through one policy or several, and a run
//! that has retried twenty times is generating load, not making progress. So a
//! run's quota is its own object, shared by the calls that join it
//! ([`crate::Call::join_run`]), and the policy asks it, after the scope's
//! budget, before every retry.
//!
//! The count is atomic so calls of one run may be decided by different
//! policies (one per tool, or per service) in different threads.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Retries an agent run may make across all its calls unless its host says
/// otherwise: about four tool calls' worth of the default five attempts.
pub const DEFAULT_RUN_MAX_RETRIES: u32 = 20;

/// The retries left to one run, shared by the calls that joined it.
#[derive(Clone, Debug)]
pub struct RunQuota {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    max_retries: u32,
    used: AtomicU32,
}

impl RunQuota {
    /// A quota of `max_retries` (0: no call of the run retries).
    #[must_use]
    pub fn new(max_retries: u32) -> Self {
        RunQuota {
            inner: Arc::new(Inner {
                max_retries,
                used: AtomicU32::new(0),
            }),
        }
    }

    /// The retries this run may make.
    #[must_use]
    pub fn max_retries(&self) -> u32 {
        self.inner.max_retries
    }

    /// The retries taken so far.
    #[must_use]
    pub fn used(&self) -> u32 {
        self.inner.used.load(Ordering::Relaxed)
    }

    /// The retries left.
    #[must_use]
    pub fn remaining(&self) -> u32 {
        self.max_retries().saturating_sub(self.used())
    }

    /// Takes one retry if any is left; a refusal changes nothing.
    pub(crate) fn try_withdraw(&self) -> bool {
        self.inner
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                (used < self.inner.max_retries).then(|| used.saturating_add(1))
            })
            .is_ok()
    }

    /// Whether two handles are the same run.
    #[must_use]
    pub fn same_run(&self, other: &RunQuota) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::RunQuota;

    #[test]
    fn withdraws_until_spent_across_clones() {
        let run = RunQuota::new(2);
        let other = run.clone();
        assert!(run.try_withdraw());
        assert!(other.try_withdraw());
        assert!(!run.try_withdraw());
        assert_eq!((run.used(), other.remaining()), (2, 0));
        assert!(run.same_run(&other));
        assert!(!run.same_run(&RunQuota::new(2)));
        assert!(!RunQuota::new(0).try_withdraw());
    }
}
