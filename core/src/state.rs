//! Portable state: what a host saves between stateless invocations.
//!
//! An edge worker may be a new process for every request; a fleet may want
//! one breaker per service rather than one per process. [`PolicyState`] is
//! the breakers, budgets and metrics of every scope as versioned JSON that
//! restores exactly.
//!
//! Merge rule (for hosts that combine snapshots of the same scope taken by
//! different processes): time-bucketed counters are keyed by absolute bucket
//! index (`now_ms / bucket_ms`), so two snapshots merge by summing the counts
//! of equal indexes and dropping buckets older than the newer snapshot's
//! window; metrics counters and histogram buckets add; gauges take the newer
//! value. No locks are needed: merging is commutative and associative.
//! `MetricsSnapshot::merge`, `BucketRing::merge`, `RatioBudget::merge` and
//! `Breaker::merge_window` implement it for each part.

use crate::sorted::SortedMap;

use crate::budget::RetryBudget;
use crate::error::{ConfigErrorCode, InputError, InputErrorCode};
use crate::record::Metrics;
use crate::schema::{decode, section, Check, Dialect, Emit, Fields, Out, Section, Seg, Value};
use crate::scope::ScopeState;
use crate::time::Instant;

/// Why a snapshot's fields are required: a missing one means the text is
/// not what the core wrote, and a default would restore in silently.
pub(crate) const AS_WRITTEN: &str = "(a snapshot as the core wrote it)";

/// The snapshot format version this build writes and reads.
pub const STATE_VERSION: u32 = 1;

/// Every scope's shared state, versioned.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyState {
    /// The format version ([`STATE_VERSION`]).
    pub version: u32,
    /// The latest monotonic reading the policy had seen.
    pub latest: Instant,
    /// Scope name -> state.
    pub scopes: SortedMap<String, ScopeState>,
}

impl PolicyState {
    /// Parses a snapshot written by [`PolicyState::to_json`].
    ///
    /// # Errors
    /// `invalid_snapshot` for anything else, with where it went wrong.
    pub fn from_json(text: &str) -> Result<PolicyState, InputError> {
        read_snapshot(text)
    }

    /// The snapshot as one JSON document.
    #[must_use]
    pub fn to_json(&self) -> String {
        write_snapshot(self)
    }

    pub(crate) fn check_version(&self) -> Result<(), InputError> {
        if self.version == STATE_VERSION {
            Ok(())
        } else {
            Err(invalid(&wrong_version(u64::from(self.version))))
        }
    }
}

fn wrong_version(version: u64) -> String {
    format!("this build reads state version {STATE_VERSION}, not {version}")
}

/// Reads a part's snapshot text (a policy's, a standalone breaker's or
/// budget's) by the part's one declaration: the same document in every
/// language, its keys the core's, durations and instants in integer
/// milliseconds.
///
/// # Errors
/// `invalid_snapshot` for text that is not JSON or not such a snapshot,
/// naming the first field that is wrong (and how many others are).
pub fn read_snapshot<T: Section>(text: &str) -> Result<T, InputError> {
    let first = text.bytes().find(|b| !b.is_ascii_whitespace());
    if first != Some(b'{') {
        return Err(invalid("a snapshot must be a JSON object"));
    }
    let value = Value::from_json(text).map_err(|e| invalid(e.message()))?;
    decode::<T>(&value, Dialect::RUST).map_err(|e| {
        let more = e.problems().count() - 1;
        let mut message = if e.field().is_empty() {
            e.message().to_owned()
        } else {
            format!("at `{}`: {}", e.field(), e.message())
        };
        if more > 0 {
            message.push_str(&format!(" (and {more} more)"));
        }
        invalid(&message)
    })
}

/// A part's snapshot as compact JSON text ([`read_snapshot`] reads it).
#[must_use]
pub fn write_snapshot<T: Section>(item: &T) -> String {
    crate::schema::emit_json(item, Dialect::RUST)
}

/// A policy's live state, borrowed: written as a [`PolicyState`] is, without
/// copying the scopes into one first (hosts that keep state between
/// stateless invocations write it after every request).
pub(crate) struct LiveState<'p> {
    pub(crate) latest: Instant,
    /// By name, as a snapshot lists them.
    pub(crate) scopes: Vec<(&'p str, &'p ScopeState)>,
}

impl Emit for LiveState<'_> {
    fn emit(&self, o: &mut Out) {
        write_state(o, STATE_VERSION, self.latest, self.scopes.iter().copied());
    }
}

/// A snapshot's fields, from a [`PolicyState`] or a [`LiveState`].
fn write_state<'a>(
    o: &mut Out,
    version: u32,
    latest: Instant,
    scopes: impl Iterator<Item = (&'a str, &'a ScopeState)>,
) {
    o.uint("version", version);
    o.instant("latest", latest);
    let scopes = scopes
        .map(|(name, scope)| (name.to_owned(), o.object(scope)))
        .collect();
    o.table("scopes", scopes);
}

/// The version first: a snapshot of another format is named as such, not
/// as a list of fields this build does not know.
impl Section for PolicyState {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["version", "latest", "scopes"], AS_WRITTEN);
        let version = f.u64("version", u64::from(STATE_VERSION));
        if version != u64::from(STATE_VERSION) {
            f.check().fail_at(
                Seg::field("version"),
                ConfigErrorCode::InvalidValue,
                wrong_version(version),
            );
            f.ignore_rest();
        }
        let mut scopes = SortedMap::new();
        f.table("scopes", |c, name, value| {
            scopes.insert(name.to_owned(), section::<ScopeState>(c, value));
        });
        PolicyState {
            version: STATE_VERSION,
            latest: f.instant("latest", Instant::ZERO),
            scopes,
        }
    }

    fn write(&self, o: &mut Out) {
        let scopes = self
            .scopes
            .iter()
            .map(|(name, scope)| (name.as_str(), scope));
        write_state(o, self.version, self.latest, scopes);
    }

    fn check(&self, c: &mut Check) {
        for (name, scope) in &self.scopes {
            let seg = c.data_key(name);
            c.within(seg, |c| scope.check(c));
        }
    }
}

impl Section for ScopeState {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["budget", "metrics"], AS_WRITTEN);
        ScopeState {
            breaker: f.opt_section("breaker", None),
            budget: f.section("budget", RetryBudget::default()),
            metrics: f.section("metrics", Metrics::default()),
        }
    }

    fn write(&self, o: &mut Out) {
        o.opt_section("breaker", self.breaker.as_ref());
        o.section("budget", &self.budget);
        o.section("metrics", &self.metrics);
    }

    fn check(&self, c: &mut Check) {
        if let Some(breaker) = &self.breaker {
            c.within(Seg::field("breaker"), |c| breaker.check(c));
        }
        c.within(Seg::field("metrics"), |c| self.metrics.check(c));
    }
}

/// What [`crate::Policy::restore_state`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RestoreReport {
    /// Scopes restored.
    pub restored: u32,
    /// Parts that started fresh because the config changed since the
    /// snapshot (`"api.breaker"`).
    pub reset: Vec<String>,
}

/// `built`, or `fallback` with the problem recorded at the current path
/// (`inconsistent`): a part whose raw form failed its own checks (a ring's
/// geometry, a bucket's tokens beyond its capacity).
pub(crate) fn checked<T>(f: &mut Fields<'_, '_>, built: Result<T, String>, fallback: T) -> T {
    built.unwrap_or_else(|problem| {
        f.check().fail(ConfigErrorCode::Inconsistent, problem);
        fallback
    })
}

/// A snapshot refused.
fn invalid(message: &str) -> InputError {
    InputError::new(InputErrorCode::InvalidSnapshot, message)
}
