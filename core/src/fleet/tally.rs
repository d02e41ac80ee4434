//! What crosses to and from the store: counts per bucket of the store's
//! time, for each scope.

/// Counts of one bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// First attempts (the ratio budget's deposits).
    pub requests: u64,
    /// Retries the budget granted (its withdrawals).
    pub retries: u64,
}

impl Tally {
    /// One first attempt.
    pub const REQUEST: Tally = Tally {
        requests: 1,
        retries: 0,
    };
    /// One granted retry.
    pub const RETRY: Tally = Tally {
        requests: 0,
        retries: 1,
    };

    /// `self + other`, saturating.
    #[must_use]
    pub const fn plus(self, other: Tally) -> Tally {
        Tally {
            requests: self.requests.saturating_add(other.requests),
            retries: self.retries.saturating_add(other.retries),
        }
    }

    /// `self - other`, saturating at zero.
    #[must_use]
    pub const fn minus(self, other: Tally) -> Tally {
        Tally {
            requests: self.requests.saturating_sub(other.requests),
            retries: self.retries.saturating_sub(other.retries),
        }
    }

    /// Whether both counts are zero.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.requests == 0 && self.retries == 0
    }
}

/// What one process counted in one scope since its last export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeDelta {
    /// The scope's name.
    pub scope: String,
    /// Bucket width, ms; indexes are `store_ms / bucket_ms`.
    pub bucket_ms: u64,
    /// The window the budget decides over, ms: the store keeps buckets this
    /// long after their end (its TTL).
    pub window_ms: u64,
    /// `(bucket index, counts)`, oldest first, no empty ones.
    pub buckets: Vec<(u64, Tally)>,
    /// The scope's breaker, if it has one: what the fleet learns of it.
    pub breaker: Option<BreakerFacts>,
}

/// What one process tells the fleet of a scope's breaker. Times are the
/// store's (ms).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BreakerFacts {
    /// It opened (tripped, or a probe failed) since the last export: open
    /// until then. The fleet keeps the latest end.
    pub opened_until: Option<u64>,
    /// Its probe succeeded since the last export, ending the open period
    /// that lasted until this time: the fleet's breaker closes, unless it
    /// was opened again for longer meanwhile.
    pub closed_until: Option<u64>,
    /// Its cooldown has elapsed and a call wanted to go out (or a probe is
    /// under way): it asks for the probe lease, held for `lease_ms`.
    pub wants_probe: bool,
    /// The breaker's cooldown: one probe per cooldown for the fleet.
    pub lease_ms: u64,
}

/// One exchange's worth of counts from one process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FleetDelta {
    /// Increases by one with every export that carries counts: the store
    /// applies each `(process, seq)` once, so an exchange retried after a
    /// lost reply counts nothing twice.
    pub seq: u64,
    /// The store's time the buckets were placed by.
    pub store_now_ms: u64,
    /// Scopes with counts, in name order.
    pub scopes: Vec<ScopeDelta>,
}

impl FleetDelta {
    /// Whether the delta carries no counts (the store is only read).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.scopes.iter().all(|s| s.buckets.is_empty())
    }
}

/// The fleet's totals for one scope, every process's exports included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeView {
    /// The scope's name.
    pub scope: String,
    /// Bucket width, ms (the delta's).
    pub bucket_ms: u64,
    /// `(bucket index, counts)` of the buckets in the window.
    pub buckets: Vec<(u64, Tally)>,
    /// The fleet's breaker is open until then (store ms; possibly past,
    /// when the probe's verdict is not in yet); `None`: closed.
    pub open_until: Option<u64>,
    /// The end of the open period the fleet's last probe verdict closed
    /// (store ms), if any: what tells a closed breaker from a store that
    /// lost the open one.
    pub closed_until: Option<u64>,
    /// Whether this process holds the probe lease.
    pub lease: bool,
}

/// The fleet's totals, read right after the delta was applied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FleetView {
    /// The delta's `seq` this view was read after (0: no delta was sent).
    pub seq: u64,
    /// Scopes the store has counts for.
    pub scopes: Vec<ScopeView>,
}
