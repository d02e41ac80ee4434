//! Additive increase, multiplicative decrease on drops.
//!
//! - **Increase**: a success counts only if its request was sent with at
//!   least half the limit in flight (an idle limit learns nothing, as in
//!   Netflix's `AIMDLimit`); after `limit` such successes, about one round
//!   trip's worth at full use, the limit grows by 1 (TCP's congestion
//!   avoidance, rather than Netflix's +1 per success, which doubles the
//!   limit every round trip).
//! - **Decrease**: a drop (429, 503, a timeout) multiplies the limit by
//!   `backoff`, rounded down, at most once per limit change: a permit
//!   admitted before the last decrease reports the same overload episode
//!   and does not shrink the limit again. Without that rule, the burst of
//!   drops one overload produces (every request in flight failing at
//!   once) would collapse the limit to its floor (TCP reduces once per
//!   window for the same reason).

use super::limiter_config::milli;

#[derive(Clone, Debug)]
pub(super) struct Aimd {
    backoff_milli: u64,
    /// Counted successes since the limit last changed.
    successes: u32,
    /// Decreases so far: a permit carries the value at its admission.
    generation: u64,
}

impl Aimd {
    pub(super) fn new(backoff: f64) -> Self {
        Aimd {
            backoff_milli: milli(backoff),
            successes: 0,
            generation: 0,
        }
    }

    pub(super) const fn generation(&self) -> u64 {
        self.generation
    }

    /// A success of a request sent with `in_flight` permits out (itself
    /// included).
    pub(super) fn on_success(&mut self, limit: u32, in_flight: u32, (lo, hi): (u32, u32)) -> u32 {
        if u64::from(in_flight) * 2 < u64::from(limit) {
            return limit;
        }
        self.successes = self.successes.saturating_add(1);
        if self.successes < limit {
            return limit;
        }
        self.successes = 0;
        limit.saturating_add(1).clamp(lo, hi)
    }

    /// A drop of a request admitted in decrease `generation`.
    pub(super) fn on_drop(&mut self, limit: u32, generation: u64, (lo, hi): (u32, u32)) -> u32 {
        if generation != self.generation {
            return limit;
        }
        self.generation = self.generation.wrapping_add(1);
        self.successes = 0;
        let next = u64::from(limit) * self.backoff_milli / 1000;
        u32::try_from(next).unwrap_or(hi).clamp(lo, hi)
    }
}
