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

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{InputError, InputErrorCode};
use crate::scope::ScopeState;
use crate::time::Instant;

/// The snapshot format version this build writes and reads.
pub const STATE_VERSION: u32 = 1;

/// Every scope's shared state, versioned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyState {
    /// The format version ([`STATE_VERSION`]).
    pub version: u32,
    /// The latest monotonic reading the policy had seen.
    pub latest: Instant,
    /// Scope name -> state.
    pub scopes: BTreeMap<String, ScopeState>,
}

impl PolicyState {
    /// Parses a snapshot written by [`PolicyState::to_json`].
    ///
    /// # Errors
    /// `invalid_snapshot` for anything else, with where it went wrong.
    pub fn from_json(text: &str) -> Result<PolicyState, InputError> {
        let first = text.bytes().find(|b| !b.is_ascii_whitespace());
        if first != Some(b'{') {
            return Err(invalid("a snapshot must be a JSON object"));
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let state: PolicyState = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            invalid(&format!("at `{path}`: {}", e.inner()))
        })?;
        state.check_version()?;
        Ok(state)
    }

    /// The snapshot as one JSON document.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub(crate) fn check_version(&self) -> Result<(), InputError> {
        if self.version == STATE_VERSION {
            Ok(())
        } else {
            Err(invalid(&format!(
                "this build reads state version {STATE_VERSION}, not {}",
                self.version
            )))
        }
    }
}

/// What [`crate::Policy::restore_state`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RestoreReport {
    /// Scopes restored.
    pub restored: u32,
    /// Parts that started fresh because the config changed since the
    /// snapshot (`"api.breaker"`).
    pub reset: Vec<String>,
}

/// A snapshot refused.
fn invalid(message: &str) -> InputError {
    InputError::new(InputErrorCode::InvalidSnapshot, message)
}
