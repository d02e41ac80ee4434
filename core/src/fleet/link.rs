//! One process's side of the exchange: what it counted since its last
//! export, what it exported, and the other processes' counts it last saw.

use crate::breaker::{Breaker, BreakerState, BreakerStateCode, TransitionReason};
use crate::ring::BucketRing;
use crate::time::Instant;

use super::tally::{BreakerFacts, FleetDelta, FleetView, ScopeDelta, Tally};

/// How far a probe's verdict may fall short of the open period it closes
/// and still close it: each process maps the store's time by an offset that
/// moves with the store's round trip.
const CLOSE_JITTER_MS: u64 = 100;

/// What a process does with its breaker after a view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The fleet's breaker is open until then (this process's time).
    Open(Instant),
    /// A probe's verdict closed the fleet's breaker.
    Closed,
    /// Nothing to follow: the breaker keeps its state.
    Keep,
}

/// Whether decisions see the fleet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FleetHealth {
    /// No exchange has succeeded yet: decisions use this process's counts.
    Detached,
    /// The last view is recent: decisions use the fleet's counts.
    Live,
    /// No view for longer than the stale bound: the other processes'
    /// counts age out of the window and decisions fall back to this
    /// process's own.
    Stale,
}

impl FleetHealth {
    /// The stable code: `detached`, `live` or `stale`.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            FleetHealth::Detached => "detached",
            FleetHealth::Live => "live",
            FleetHealth::Stale => "stale",
        }
    }
}

/// One scope's counts on their way to the store and back.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ScopeLink {
    name: String,
    bucket_ms: u64,
    window_ms: u64,
    /// Counted since the last export, by bucket of this process's time.
    pending: Vec<(u64, Tally)>,
    /// Exported and confirmed by a view, by bucket of the store's time,
    /// within the window: subtracted from the fleet's totals to leave the
    /// other processes' counts.
    exported: Vec<(u64, Tally)>,
    /// The other processes' counts at the last view, by bucket of the
    /// store's time.
    others: Vec<(u64, Tally)>,
    /// The scope's breaker as this process knows it, if it has one.
    breaker: Option<BreakerLink>,
    /// Whether a view has covered the scope yet.
    viewed: bool,
}

/// One scope's breaker facts on their way to the store and back. Times are
/// this process's (ms) until exported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct BreakerLink {
    /// Opened by this process since the last export: until then.
    opened_until: Option<u64>,
    /// Closed by this process's probe since the last export, ending the
    /// open period that lasted until then (the store's time already: the
    /// fleet's period, as the last view had it, or this process's own).
    closed_until: Option<u64>,
    /// The end of the open period this process last saw.
    last_until: Option<u64>,
    wants_probe: bool,
    /// The breaker came to want the probe since the last export: news, so
    /// that the lease is asked for at once.
    probe_news: bool,
    lease_ms: u64,
    /// The fleet's facts at the last view (store ms), and the lease.
    fleet_open_until: Option<u64>,
    /// The end of the open period the fleet's last probe verdict closed.
    fleet_closed_until: Option<u64>,
    lease: bool,
}

/// A process's link to its fleet (see the [module docs](super)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetLink {
    seq: u64,
    /// The store's time minus this process's, at the last export.
    offset: i128,
    scopes: Vec<ScopeLink>,
    /// Exported, not yet confirmed by a view: sent again, unchanged, until
    /// one is (the store applies a sequence number once).
    in_flight: Option<FleetDelta>,
    last_view: Option<Instant>,
    stale_after_ms: u64,
    /// The health last reported as an event.
    reported: FleetHealth,
    /// The link of each of the policy's scopes, by the policy's scope
    /// index, once known: the hot path counts without comparing names.
    by_index: Vec<Option<usize>>,
    /// The last exchange failed and no view has come since: news waits
    /// for the next interval, so an unreachable store is not asked again
    /// every few milliseconds.
    failing: bool,
}

/// A time of this process (ms) in the store's time, by `offset` (the
/// store's time minus this process's at the last export).
fn to_store(offset: i128, local_ms: u64) -> u64 {
    u64::try_from((i128::from(local_ms) + offset).max(0)).unwrap_or(0)
}

/// A time of the store (ms) in this process's time, by `offset`.
fn to_local(offset: i128, store_ms: u64) -> Instant {
    Instant::from_millis(u64::try_from((i128::from(store_ms) - offset).max(0)).unwrap_or(0))
}

/// Adds `tally` at `bucket` in a list kept sorted by bucket.
fn add_at(list: &mut Vec<(u64, Tally)>, bucket: u64, tally: Tally) {
    // Calls count into the newest bucket: checked first, in O(1).
    if let Some((newest, t)) = list.last_mut() {
        if *newest == bucket {
            *t = t.plus(tally);
            return;
        }
    }
    match list.binary_search_by_key(&bucket, |(b, _)| *b) {
        Ok(at) => {
            if let Some((_, t)) = list.get_mut(at) {
                *t = t.plus(tally);
            }
        }
        Err(at) => list.insert(at, (bucket, tally)),
    }
}

impl FleetLink {
    /// A link whose view counts as stale `stale_after_ms` after the last
    /// one arrived.
    #[must_use]
    pub const fn new(stale_after_ms: u64) -> FleetLink {
        FleetLink {
            seq: 0,
            offset: 0,
            scopes: Vec::new(),
            in_flight: None,
            last_view: None,
            stale_after_ms,
            reported: FleetHealth::Detached,
            by_index: Vec::new(),
            failing: false,
        }
    }

    fn scope_mut(&mut self, name: &str, bucket_ms: u64, window_ms: u64) -> Option<&mut ScopeLink> {
        let at = self.scope_index(name, bucket_ms, window_ms);
        self.scopes.get_mut(at)
    }

    /// Where `name`'s link is, made when it is the first use.
    fn scope_index(&mut self, name: &str, bucket_ms: u64, window_ms: u64) -> usize {
        match self.scopes.iter().position(|s| s.name == name) {
            Some(at) => at,
            None => {
                self.scopes.push(ScopeLink {
                    name: name.to_owned(),
                    bucket_ms: bucket_ms.max(1),
                    window_ms,
                    pending: Vec::new(),
                    exported: Vec::new(),
                    others: Vec::new(),
                    breaker: None,
                    viewed: false,
                });
                self.scopes.len().saturating_sub(1)
            }
        }
    }

    /// [`FleetLink::count`] for the policy's scope number `index` (named
    /// `scope`), finding its link without comparing names after the first.
    pub fn count_at(
        &mut self,
        index: usize,
        scope: &str,
        bucket_ms: u64,
        window_ms: u64,
        now: Instant,
        tally: Tally,
    ) {
        let cached = self.by_index.get(index).copied().flatten();
        let at = match cached {
            Some(at) => at,
            None => {
                let at = self.scope_index(scope, bucket_ms, window_ms);
                if self.by_index.len() <= index {
                    self.by_index.resize(index.saturating_add(1), None);
                }
                if let Some(slot) = self.by_index.get_mut(index) {
                    *slot = Some(at);
                }
                at
            }
        };
        if let Some(link) = self.scopes.get_mut(at) {
            add_at(&mut link.pending, now.as_millis() / link.bucket_ms, tally);
        }
    }

    /// Records counts of `scope` (whose budget has buckets of `bucket_ms`
    /// over `window_ms`) at this process's time `now`.
    pub fn count(
        &mut self,
        scope: &str,
        bucket_ms: u64,
        window_ms: u64,
        now: Instant,
        tally: Tally,
    ) {
        if let Some(link) = self.scope_mut(scope, bucket_ms, window_ms) {
            add_at(&mut link.pending, now.as_millis() / link.bucket_ms, tally);
        }
    }

    /// The delta to send: the unconfirmed one again if there is one, else
    /// everything counted since, placed in buckets of the store's time
    /// (`store_now_ms`, read from the store just before).
    ///
    /// Every scope in use is in the delta, with no buckets when it counted
    /// nothing: the store's reply is its view.
    pub fn export(&mut self, now: Instant, store_now_ms: u64) -> FleetDelta {
        let mut delta = self.export_counts(now, store_now_ms);
        for link in &mut self.scopes {
            if let Some(breaker) = link.breaker.as_mut() {
                breaker.probe_news = false;
            }
            // What this process wants now, even in a delta sent again.
            let now_facts = link.breaker.map(|b| BreakerFacts {
                wants_probe: b.wants_probe,
                lease_ms: b.lease_ms,
                ..BreakerFacts::default()
            });
            match delta.scopes.iter_mut().find(|s| s.scope == link.name) {
                Some(sent) => {
                    if let (Some(facts), Some(now_facts)) = (sent.breaker.as_mut(), now_facts) {
                        facts.wants_probe = now_facts.wants_probe;
                    }
                }
                None => delta.scopes.push(ScopeDelta {
                    scope: link.name.clone(),
                    bucket_ms: link.bucket_ms,
                    window_ms: link.window_ms,
                    buckets: Vec::new(),
                    breaker: now_facts,
                }),
            }
        }
        crate::sort::sort_by(&mut delta.scopes, |a, b| a.scope < b.scope);
        delta
    }

    fn export_counts(&mut self, now: Instant, store_now_ms: u64) -> FleetDelta {
        if let Some(delta) = &self.in_flight {
            return delta.clone();
        }
        self.offset = i128::from(store_now_ms) - i128::from(now.as_millis());
        let offset = self.offset;
        let mut scopes = Vec::new();
        for link in &mut self.scopes {
            let mut buckets: Vec<(u64, Tally)> = Vec::new();
            for (local, tally) in link.pending.drain(..) {
                let start = to_store(offset, local.saturating_mul(link.bucket_ms));
                add_at(&mut buckets, start / link.bucket_ms, tally);
            }
            let breaker = link.breaker.as_mut().map(|b| BreakerFacts {
                opened_until: b.opened_until.take().map(|until| to_store(offset, until)),
                closed_until: b.closed_until.take(),
                wants_probe: b.wants_probe,
                lease_ms: b.lease_ms,
            });
            let facts =
                breaker.is_some_and(|b| b.opened_until.is_some() || b.closed_until.is_some());
            if !buckets.is_empty() || facts {
                scopes.push(ScopeDelta {
                    scope: link.name.clone(),
                    bucket_ms: link.bucket_ms,
                    window_ms: link.window_ms,
                    buckets,
                    breaker,
                });
            }
        }
        if scopes.is_empty() {
            return FleetDelta {
                seq: 0,
                store_now_ms,
                scopes,
            };
        }
        self.seq = self.seq.saturating_add(1);
        let delta = FleetDelta {
            seq: self.seq,
            store_now_ms,
            scopes,
        };
        self.in_flight = Some(delta.clone());
        delta
    }

    /// Takes the fleet's totals, read after the delta numbered `view.seq`
    /// was applied (0: no delta was sent). A view that does not confirm
    /// the delta in flight still updates the other processes' counts, as
    /// of before it.
    pub fn apply(&mut self, now: Instant, view: &FleetView) {
        if let Some(delta) = self
            .in_flight
            .take_if(|d| d.seq == view.seq && view.seq != 0)
        {
            for sent in delta.scopes {
                if let Some(link) = self.scope_mut(&sent.scope, sent.bucket_ms, sent.window_ms) {
                    for (bucket, tally) in sent.buckets {
                        add_at(&mut link.exported, bucket, tally);
                    }
                }
            }
        }
        let in_flight = self.in_flight.clone();
        for seen in &view.scopes {
            let Some(link) = self.scopes.iter_mut().find(|s| s.name == seen.scope) else {
                // Only other processes count in this scope: their counts
                // wait until this process uses the scope (and exports).
                continue;
            };
            if seen.bucket_ms != link.bucket_ms {
                continue;
            }
            let mine = |bucket: u64| {
                let confirmed = link
                    .exported
                    .binary_search_by_key(&bucket, |(b, _)| *b)
                    .ok()
                    .and_then(|at| link.exported.get(at))
                    .map_or(Tally::default(), |(_, t)| *t);
                // A view that does not confirm the delta in flight may
                // include it anyway (a reply lost after the store applied
                // it): the delta counts as this process's then too, never
                // as another's.
                let unconfirmed = in_flight
                    .iter()
                    .flat_map(|d| d.scopes.iter().filter(|s| s.scope == link.name))
                    .flat_map(|s| s.buckets.iter())
                    .filter(|(b, _)| *b == bucket)
                    .fold(Tally::default(), |sum, (_, t)| sum.plus(*t));
                confirmed.plus(unconfirmed)
            };
            link.viewed = true;
            if let Some(breaker) = link.breaker.as_mut() {
                breaker.fleet_open_until = seen.open_until;
                breaker.fleet_closed_until = seen.closed_until;
                breaker.lease = seen.lease;
            }
            let others: Vec<(u64, Tally)> = seen
                .buckets
                .iter()
                .map(|(bucket, total)| (*bucket, total.minus(mine(*bucket))))
                .filter(|(_, t)| !t.is_empty())
                .collect();
            link.others = others;
            // What left the store's window no longer needs subtracting.
            if let Some(newest) = seen.buckets.last().map(|(b, _)| *b) {
                let span = link.window_ms / link.bucket_ms + 1;
                link.exported
                    .retain(|(b, _)| b.saturating_add(span) > newest);
            }
        }
        self.last_view = Some(now);
        self.failing = false;
    }

    /// Learns what `breaker` (of `scope`) did since the last call: its
    /// queued transitions, not yet turned into events, and whether it wants
    /// the probe. The policy calls it after every step of a call.
    pub fn note_breaker(
        &mut self,
        scope: &str,
        bucket_ms: u64,
        window_ms: u64,
        breaker: &Breaker,
        now: Instant,
    ) {
        let offset = self.offset;
        let Some(link) = self.scope_mut(scope, bucket_ms, window_ms) else {
            return;
        };
        let facts = link.breaker.get_or_insert_with(BreakerLink::default);
        for t in breaker.queued_transitions() {
            match (t.from, t.to, t.reason) {
                (_, _, TransitionReason::FleetOpened | TransitionReason::FleetClosed) => {}
                (_, BreakerStateCode::Open, _) => {
                    if let BreakerState::Open { until, .. } = breaker.state() {
                        facts.opened_until = Some(until.as_millis());
                    }
                }
                (BreakerStateCode::HalfOpen, BreakerStateCode::Closed, _) => {
                    // The period the probe was for, in the store's time:
                    // the fleet's as last seen, or this process's own (the
                    // offset moves by the store's round trip, so its own
                    // end, converted again, may fall a little short).
                    let own = facts.last_until.map(|until| to_store(offset, until));
                    facts.closed_until = own.max(facts.fleet_open_until);
                    facts.opened_until = None;
                }
                _ => {}
            }
        }
        if let BreakerState::Open { until, .. } = breaker.state() {
            facts.last_until = Some(until.as_millis());
        }
        let wants_probe = breaker.wants_probe(now);
        facts.probe_news |= wants_probe && !facts.wants_probe;
        facts.wants_probe = wants_probe;
        facts.lease_ms = breaker.cooldown_ms();
    }

    /// What the fleet's last view says of `scope`'s breaker, whose own
    /// state is `own`: open until a time (this process's), closed by a
    /// probe's verdict, or nothing to follow; and whether this process
    /// holds the probe lease.
    pub fn breaker_verdict(&mut self, scope: &str, own: &BreakerState) -> Option<(Verdict, bool)> {
        let offset = self.offset;
        let unshared_in_flight = self
            .in_flight
            .iter()
            .flat_map(|d| d.scopes.iter())
            .any(|s| s.scope == scope && s.breaker.is_some_and(|b| b.opened_until.is_some()));
        let link = self.scopes.iter_mut().find(|s| s.name == scope)?;
        let facts = link.breaker.as_mut()?;
        let verdict = match (facts.fleet_open_until, own) {
            (Some(until), _) => Verdict::Open(to_local(offset, until)),
            (None, BreakerState::Open { until, .. }) => {
                // Closed by a probe's verdict for this period (within the
                // round trip's jitter), or the store lost the fact (a
                // restart without persistence): then this process tells
                // the fleet again instead of closing.
                let closed = facts.fleet_closed_until.is_some_and(|closed| {
                    closed.saturating_add(CLOSE_JITTER_MS) >= to_store(offset, until.as_millis())
                });
                if closed {
                    Verdict::Closed
                } else {
                    if facts.opened_until.is_none() && !unshared_in_flight {
                        facts.opened_until = Some(until.as_millis());
                    }
                    Verdict::Keep
                }
            }
            (None, _) => Verdict::Keep,
        };
        Some((verdict, facts.lease))
    }

    /// Whether a breaker opened or closed here since the last export, or a
    /// scope used here has not been in a view yet (its breaker may be open
    /// elsewhere): the adapters exchange at once then instead of at the next
    /// interval, and a breaker that came to want the probe lease asks for it
    /// at once. Never while a delta waits to be confirmed, nor after a failed
    /// exchange: a failing store is not asked again before the next interval.
    #[must_use]
    pub fn has_news(&self) -> bool {
        !self.failing
            && self.in_flight.is_none()
            && self.scopes.iter().any(|s| {
                !s.viewed
                    || s.breaker.as_ref().is_some_and(|b| {
                        b.opened_until.is_some() || b.closed_until.is_some() || b.probe_news
                    })
            })
    }

    /// The exchange failed: no news goes out before the next interval's
    /// exchange (the store is not asked again at once, whatever happens
    /// meanwhile), and a view ends that.
    pub fn failed(&mut self) {
        self.failing = true;
    }

    /// The health at `now` if it changed since last reported, as
    /// `(from, to)`; records it as reported.
    pub fn health_change(&mut self, now: Instant) -> Option<(FleetHealth, FleetHealth)> {
        let health = self.health(now);
        let from = self.reported;
        (health != from).then(|| {
            self.reported = health;
            (from, health)
        })
    }

    /// Whether decisions at `now` see the fleet.
    #[must_use]
    pub fn health(&self, now: Instant) -> FleetHealth {
        match self.last_view {
            None => FleetHealth::Detached,
            Some(at) if now.saturating_since(at) > self.stale_after_ms => FleetHealth::Stale,
            Some(_) => FleetHealth::Live,
        }
    }

    /// The other processes' counts of `scope`, in this process's time, as
    /// rings of the budget's geometry: what the ratio budget adds to its own.
    #[must_use]
    pub fn others(
        &self,
        scope: &str,
        bucket_ms: u64,
        buckets: u32,
    ) -> Option<(BucketRing, BucketRing)> {
        let link = self.scopes.iter().find(|s| s.name == scope)?;
        if link.others.is_empty() {
            return None;
        }
        let mut requests = BucketRing::new(bucket_ms, buckets);
        let mut retries = BucketRing::new(bucket_ms, buckets);
        for (bucket, tally) in &link.others {
            let at = to_local(self.offset, bucket.saturating_mul(link.bucket_ms));
            requests.add(at, tally.requests);
            retries.add(at, tally.retries);
        }
        Some((requests, retries))
    }

    /// The other processes' counts of `scope` summed over every bucket of
    /// the last view (for tests and status).
    #[must_use]
    pub fn others_total(&self, scope: &str) -> Tally {
        self.scopes
            .iter()
            .find(|s| s.name == scope)
            .map_or(Tally::default(), |s| {
                s.others
                    .iter()
                    .fold(Tally::default(), |sum, (_, t)| sum.plus(*t))
            })
    }
}
