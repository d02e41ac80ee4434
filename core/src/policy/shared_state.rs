//! The policy's shared state: scopes (each with its breaker, budget and
//! metrics), what hosts can read of it, and the portable snapshot.

use crate::sorted::SortedMap;

use super::Policy;
use crate::breaker::{Breaker, BreakerState, BreakerStateCode};
use crate::budget::BudgetStatus;
use crate::error::InputError;
use crate::record::MetricsSnapshot;
use crate::scope::{ScopeState, DEFAULT_SCOPE, OVERFLOW_SCOPE};
use crate::state::{LiveState, PolicyState, RestoreReport, STATE_VERSION};
use crate::time::Instant;

impl Policy {
    /// The next instant at which the policy's shared state changes by
    /// itself (an open breaker's cooldown ends), for hosts that want to
    /// wake up then; `None` when nothing is pending.
    #[must_use]
    pub fn next_timeout(&self) -> Option<Instant> {
        self.scopes
            .iter()
            .filter_map(|s| s.breaker.as_ref()?.next_timeout())
            .min()
    }

    /// The breaker state of `scope`, if it exists and has a breaker.
    #[must_use]
    pub fn breaker_state(&self, scope: &str) -> Option<BreakerStateCode> {
        let index = *self.index.get(scope_name(scope))?;
        Some(self.scopes.get(index)?.breaker.as_ref()?.state().code())
    }

    /// The retry budgets' status in `scope` at `now`.
    #[must_use]
    pub fn budget_status(&self, now: Instant, scope: &str) -> Option<BudgetStatus> {
        let index = *self.index.get(scope_name(scope))?;
        Some(self.scopes.get(index)?.budget.status(now))
    }

    /// The metrics of every scope, by name.
    #[must_use]
    pub fn metrics(&self) -> SortedMap<String, MetricsSnapshot> {
        let mut metrics = SortedMap::new();
        for (name, scope) in self.names.iter().zip(&self.scopes) {
            metrics.insert(name.to_string(), scope.metrics.snapshot());
        }
        metrics
    }

    /// The metrics of all scopes added together (counters and histogram
    /// buckets sum; the gauge is the most recent scope's).
    #[must_use]
    pub fn metrics_total(&self) -> MetricsSnapshot {
        let mut total = self.template.metrics.snapshot();
        for scope in &self.scopes {
            total.merge(&scope.metrics.snapshot());
        }
        total
    }

    /// The shared state (breakers, budgets, metrics of every scope) as
    /// versioned, serializable data, for hosts that keep it between
    /// stateless invocations or share it between processes.
    ///
    /// Instants in it are the host's monotonic readings: a host that
    /// persists state across processes must pass a clock that is
    /// meaningful across them (Unix milliseconds, say) as `now`.
    #[must_use]
    pub fn snapshot_state(&self) -> PolicyState {
        PolicyState {
            version: STATE_VERSION,
            latest: self.clock.latest(),
            scopes: self
                .names
                .iter()
                .zip(&self.scopes)
                .map(|(n, s)| (n.to_string(), s.clone()))
                .collect(),
        }
    }

    /// The shared state as snapshot text (what [`PolicyState::to_json`]
    /// writes of [`Policy::snapshot_state`]), written from the live state
    /// without copying it first: for hosts that save it after every request.
    #[must_use]
    pub fn snapshot_json(&self) -> String {
        let mut scopes: Vec<_> = self.names.iter().map(|n| &**n).zip(&self.scopes).collect();
        crate::sort::sort_by(&mut scopes, |a, b| a.0 < b.0);
        let live = LiveState {
            latest: self.clock.latest(),
            scopes,
        };
        crate::schema::emit_json(&live, crate::schema::Dialect::RUST)
    }

    /// Restores shared state saved by [`Policy::snapshot_state`]. Scopes
    /// are replaced by their saved state; a part saved under a different
    /// config (a breaker or alert config changed since) starts fresh instead
    /// and is named in the report. Budgets keep their state under the
    /// current config.
    pub fn restore_state(&mut self, state: PolicyState) -> Result<RestoreReport, InputError> {
        state.check_version()?;
        let mut report = RestoreReport::default();
        self.clock.observe(state.latest);
        for (name, mut saved) in state.scopes {
            // Restore by exact name: the overflow rule applies to new names
            // seen in traffic, not to scopes the snapshot already had.
            let index = match self.index.get(name.as_str()) {
                Some(index) => *index,
                None if self.names.len() < self.max_scopes() => self.add_scope(&name),
                None => {
                    report.reset.push(format!("{name} (over max_scopes)"));
                    continue;
                }
            };
            let Some(current) = self.scopes.get_mut(index) else {
                continue;
            };
            let expected = self
                .config
                .breaker
                .as_ref()
                .filter(|_| crate::scope::has_breaker(&name));
            if saved.breaker.as_ref().map(Breaker::config) != expected {
                saved.breaker = expected.cloned().map(Breaker::new);
                report.reset.push(format!("{name}.breaker"));
            }
            if saved.budget.reconfigure(self.config.budget).is_err() {
                saved.budget = self.template.budget.clone();
                report.reset.push(format!("{name}.budget"));
            }
            if saved.metrics.alert_config() != &self.config.alerts {
                saved.metrics = self.template.metrics.clone();
                report.reset.push(format!("{name}.metrics"));
            }
            *current = saved;
            report.restored = report.restored.saturating_add(1);
        }
        Ok(report)
    }

    /// The index of `name`'s scope, creating it (or falling back to the
    /// overflow scope) on first use.
    pub(super) fn scope_index(&mut self, name: &str) -> usize {
        let name = scope_name(name);
        if let Some(index) = self.index.get(name) {
            return *index;
        }
        // One slot stays free for the overflow scope.
        let full = self.names.len() >= self.max_scopes().saturating_sub(1);
        let name = if full && name != OVERFLOW_SCOPE {
            OVERFLOW_SCOPE
        } else {
            name
        };
        match self.index.get(name) {
            Some(index) => *index,
            None => self.add_scope(name),
        }
    }

    /// [`Self::scope_index`] of the default scope, looked up once.
    pub(super) fn default_scope_index(&mut self) -> usize {
        if let Some(index) = self.default_scope {
            return index;
        }
        let index = self.scope_index(DEFAULT_SCOPE);
        self.default_scope = Some(index);
        index
    }

    pub(super) fn add_scope(&mut self, name: &str) -> usize {
        let index = self.scopes.len();
        self.names.push(name.into());
        let state = ScopeState::fresh(&self.config, crate::scope::has_breaker(name));
        self.scopes.push(state);
        self.index.insert(name.into(), index);
        index
    }

    pub(super) fn max_scopes(&self) -> usize {
        usize::try_from(self.config.max_scopes).unwrap_or(usize::MAX)
    }

    pub(super) fn breaker_mut(&mut self, scope: usize) -> Option<&mut Breaker> {
        self.scopes.get_mut(scope)?.breaker.as_mut()
    }

    pub(super) fn open_until(&self, scope: usize) -> Option<Instant> {
        match self.scopes.get(scope)?.breaker.as_ref()?.state() {
            BreakerState::Open { until, .. } => Some(*until),
            BreakerState::Closed { .. } | BreakerState::HalfOpen { .. } => None,
        }
    }

    pub(super) fn flush(&mut self, scope: usize, now: Instant) {
        if let (Some(state), Some(name)) = (self.scopes.get_mut(scope), self.names.get(scope)) {
            #[cfg(feature = "fleet")]
            if let (Some(fleet), Some(breaker)) = (self.fleet.as_mut(), state.breaker.as_ref()) {
                let (bucket_ms, window_ms) = super::fleet::geometry(state);
                fleet.note_breaker(name, bucket_ms, window_ms, breaker, now);
            }
            state.flush_events(name, now, &mut self.events);
        }
    }
}

pub(super) fn scope_name(name: &str) -> &str {
    if name.is_empty() {
        DEFAULT_SCOPE
    } else {
        name
    }
}
