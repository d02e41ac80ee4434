//! A policy's side of the fleet exchange (see [`crate::fleet`]): the host
//! adapter calls these from its background exchange, never from a call.
//!
//! Without the `fleet` feature (the browser build) no policy can attach to
//! a fleet, and a call's count for it is a no-op the compiler removes.

#[cfg(feature = "fleet")]
use crate::error::{InputError, InputErrorCode};
#[cfg(feature = "fleet")]
use crate::event::Event;
use crate::fleet::Tally;
#[cfg(feature = "fleet")]
use crate::fleet::{
    FleetDelta, FleetHealth, FleetLink, FleetView, ScopeView, Verdict, STALE_AFTER_MS,
};
#[cfg(feature = "fleet")]
use crate::scope::ScopeState;
use crate::time::Instant;

use super::Policy;

#[cfg(not(feature = "fleet"))]
impl Policy {
    pub(super) fn count_for_fleet(&mut self, _index: usize, _now: Instant, _tally: Tally) {}
}

#[cfg(feature = "fleet")]
impl Policy {
    /// What this process counted since its last export, for the store; the
    /// first call attaches the policy to its fleet (from then on first
    /// attempts and retries are counted for export). `store_now_ms` is the
    /// store's clock (Redis `TIME`), read just before. Until a view
    /// confirms it, the same delta is handed back.
    pub fn fleet_export(&mut self, now: Instant, store_now_ms: u64) -> FleetDelta {
        let now = self.clock.observe(now);
        self.fleet
            .get_or_insert_with(|| FleetLink::new(STALE_AFTER_MS));
        // What each breaker wants now (a cooldown may have elapsed since
        // its last step), and any transition not yet seen.
        for index in 0..self.scopes.len() {
            self.flush(index, now);
        }
        self.fleet
            .get_or_insert_with(|| FleetLink::new(STALE_AFTER_MS))
            .export(now, store_now_ms)
    }

    /// Takes the fleet's totals, read by the store right after it applied
    /// the delta `view.seq`: from now on each scope's ratio budget decides
    /// on its own counts plus the other processes'.
    pub fn fleet_apply(&mut self, now: Instant, view: &FleetView) {
        let now = self.clock.observe(now);
        let Some(fleet) = self.fleet.as_mut() else {
            return;
        };
        fleet.apply(now, view);
        for (name, scope) in self.names.iter().zip(&mut self.scopes) {
            if let Some((bucket_ms, buckets)) = scope.budget.ratio_geometry() {
                scope
                    .budget
                    .set_fleet_counts(fleet.others(name, bucket_ms, buckets));
            }
            if let Some(breaker) = scope.breaker.as_mut() {
                if let Some((verdict, lease)) = fleet.breaker_verdict(name, breaker.state()) {
                    breaker.set_probe_lease(Some(lease));
                    match verdict {
                        Verdict::Open(until) => breaker.adopt_open(now, until),
                        Verdict::Closed => breaker.adopt_closed(now),
                        Verdict::Keep => {}
                    }
                }
            }
        }
        for index in 0..self.scopes.len() {
            self.flush(index, now);
        }
        self.watch_fleet(now);
    }

    /// [`Policy::fleet_apply`] for the store script's replies, one JSON
    /// document per scope of the delta (the wire form of `crate::fleet`).
    ///
    /// # Errors
    /// `invalid_fleet_view` for a reply that is not a view, or replies
    /// read after different deltas; nothing is applied then.
    pub fn fleet_apply_replies(
        &mut self,
        now: Instant,
        replies: &[&str],
    ) -> Result<(), InputError> {
        let mut seq = None;
        let mut scopes = Vec::with_capacity(replies.len());
        for reply in replies {
            let (read_after, view) = ScopeView::from_json(reply)?;
            if seq.is_some_and(|seq| seq != read_after) {
                return Err(InputError::new(
                    InputErrorCode::InvalidFleetView,
                    "not a fleet view: the replies were read after different deltas",
                ));
            }
            seq = Some(read_after);
            scopes.push(view);
        }
        let view = FleetView {
            seq: seq.unwrap_or(0),
            scopes,
        };
        self.fleet_apply(now, &view);
        Ok(())
    }

    /// The exchange failed (the store is unreachable, or its reply was
    /// lost): the delta is sent again at the next one. Decisions go on
    /// with the counts they have.
    ///
    /// Once the view is stale ([`FleetHealth::Stale`]) the breakers no
    /// longer wait for a probe lease: each probes on its own, as alone.
    pub fn fleet_failed(&mut self, now: Instant) {
        let now = self.clock.observe(now);
        // Nothing to undo: the link hands the same delta back until a view
        // confirms it, and counts made meanwhile wait for the next one. No
        // news is pushed before the next interval's exchange.
        if let Some(fleet) = self.fleet.as_mut() {
            fleet.failed();
        }
        self.watch_fleet(now);
    }

    /// Notices a view gone stale, on a call's path too (an in-memory
    /// comparison): a store that hangs, rather than refusing, fails no
    /// exchange for as long as the client waits, and the breakers must not
    /// wait for a lease meanwhile.
    pub(super) fn watch_fleet(&mut self, now: Instant) {
        let Some(change) = self.fleet.as_mut().and_then(|f| f.health_change(now)) else {
            return;
        };
        if change.1 == FleetHealth::Stale {
            for breaker in self.scopes.iter_mut().filter_map(|s| s.breaker.as_mut()) {
                breaker.set_probe_lease(None);
            }
        }
        let (from, to) = change;
        self.events.push(Event::FleetHealth { from, to, at: now });
    }

    /// Whether a breaker of this policy opened or closed since the last
    /// export, came to want the fleet's probe lease, or a scope was used
    /// that no view has covered yet (never while a delta waits to be
    /// confirmed, nor after a failed exchange until the next interval's):
    /// the adapters check it often (it is an in-memory look) and exchange at
    /// once, so the fleet learns of a trip within moments.
    #[must_use]
    pub fn fleet_has_news(&self) -> bool {
        self.fleet.as_ref().is_some_and(FleetLink::has_news)
    }

    /// Whether decisions at `now` see the fleet.
    #[must_use]
    pub fn fleet_health(&self, now: Instant) -> FleetHealth {
        self.fleet
            .as_ref()
            .map_or(FleetHealth::Detached, |fleet| fleet.health(now))
    }

    /// Counts a first attempt or a granted retry of the scope at `index`
    /// for the next export, once the policy is attached to a fleet.
    pub(super) fn count_for_fleet(&mut self, index: usize, now: Instant, tally: Tally) {
        let (Some(fleet), Some(scope), Some(name)) = (
            self.fleet.as_mut(),
            self.scopes.get(index),
            self.names.get(index),
        ) else {
            return;
        };
        if scope.budget.ratio_geometry().is_some() {
            let (bucket_ms, window_ms) = geometry(scope);
            fleet.count_at(index, name, bucket_ms, window_ms, now, tally);
        }
    }
}

#[cfg(feature = "fleet")]
/// The buckets a scope shares its counts in: its ratio budget's, or one
/// second over a minute when it has none (only its breaker is shared).
pub(super) fn geometry(scope: &ScopeState) -> (u64, u64) {
    scope
        .budget
        .ratio_geometry()
        .map_or((1000, 60_000), |(bucket_ms, buckets)| {
            (bucket_ms, bucket_ms.saturating_mul(u64::from(buckets)))
        })
}
