//! A fleet shares one view: the retry budget's counts across processes.
//!
//! Each process decides locally, in memory, as before; what it shares are
//! aggregated counts. A host adapter runs an exchange in the background
//! (about once a second) against a store every process can reach (Redis):
//!
//! 1. it reads the store's clock, and asks the policy for what this process
//!    counted since its last export ([`Policy::fleet_export`]): first
//!    attempts and retries per time bucket, in the store's time, with a
//!    sequence number;
//! 2. the store adds the delta to the fleet's buckets (skipping a sequence
//!    number it has already applied, so a retried exchange never counts
//!    twice) and hands back the fleet's totals for the window;
//! 3. the policy takes the view ([`Policy::fleet_apply`]). If the exchange
//!    failed, the host says so ([`Policy::fleet_failed`]) and the delta is
//!    carried into the next one: nothing is lost.
//!
//! The ratio budget then decides on fleet-wide numbers: its own counts plus
//! the other processes' (the view minus what this process exported), so
//! one `min_retries_per_sec` floor holds for the whole fleet instead of one
//! per process. Other processes' counts age out of the window like local
//! ones: a process cut off from the store falls back to its own counts
//! within one window, and [`FleetHealth`] says when the view went stale.
//!
//! Times: buckets are keyed by the store's clock (`store_now_ms`, from
//! Redis `TIME`), never by hosts' clocks, so skew between hosts moves no
//! count; each process maps the store's time to its monotonic time by the
//! offset it saw at its last export.
//!
//! [`Policy::fleet_export`]: crate::Policy::fleet_export
//! [`Policy::fleet_apply`]: crate::Policy::fleet_apply
//! [`Policy::fleet_failed`]: crate::Policy::fleet_failed

mod link;
mod tally;
mod wire;

#[cfg(test)]
mod tests;

pub use link::{FleetHealth, FleetLink, Verdict};

/// The Redis script of one scope's exchange (Lua, run by `EVAL`): the
/// store side of the wire form, the same for every host adapter. See the
/// script's header for its keys and arguments.
pub const REDIS_SCRIPT: &str = include_str!("fleet/exchange.lua");

/// How long after the last view a policy reports its fleet view stale
/// ([`FleetHealth::Stale`]): five exchanges at the adapters' default
/// interval of one second.
pub const STALE_AFTER_MS: u64 = 5_000;
pub use tally::{BreakerFacts, FleetDelta, FleetView, ScopeDelta, ScopeView, Tally};
