//! A breaker that follows its fleet (`crate::fleet`): whichever process
//! trips first opens the scope's breaker everywhere until the same time,
//! one process at a time holds the half-open probe, and its verdict closes
//! or reopens the breaker everywhere.

use crate::time::Instant;

use super::state::{BreakerState, BreakerStateCode, Transition, TransitionReason};
use super::Breaker;

impl Breaker {
    /// Whether this process holds the fleet's probe lease; `None` when no
    /// fleet view is fresh (the breaker then probes on its own, as alone).
    /// A lease granted answers the call that asked for it.
    pub fn set_probe_lease(&mut self, held: Option<bool>) {
        self.probe_lease = held;
        if held == Some(true) {
            self.probe_wanted = false;
        }
    }

    /// Whether this process asks its fleet for the probe lease at `now`: a
    /// call was refused for want of it since the cooldown elapsed, or a
    /// probe is under way. An open breaker with no calls to make never
    /// asks, so the lease goes to a process that will use it.
    #[must_use]
    pub fn wants_probe(&self, now: Instant) -> bool {
        match self.state {
            BreakerState::Open { until, .. } => now >= until && self.probe_wanted,
            BreakerState::HalfOpen { .. } => true,
            BreakerState::Closed { .. } => false,
        }
    }

    /// The fleet's breaker is open until `until` (this process's time):
    /// a closed or half-open breaker opens, an open one keeps the later end.
    pub fn adopt_open(&mut self, now: Instant, until: Instant) {
        let now = self.clock.observe(now);
        match self.state {
            BreakerState::Open { since, until: own } => {
                if until > own {
                    self.state = BreakerState::Open { since, until };
                }
            }
            BreakerState::HalfOpen { .. } if self.probe_lease == Some(true) => {
                // This process holds the probe: its own verdict decides.
            }
            BreakerState::Closed { .. } | BreakerState::HalfOpen { .. } => {
                let open = BreakerState::Open { since: now, until };
                self.enter(now, open, TransitionReason::FleetOpened);
            }
        }
    }

    /// The fleet's breaker is closed: an open breaker (waiting for another
    /// process's probe) closes too.
    pub fn adopt_closed(&mut self, now: Instant) {
        let now = self.clock.observe(now);
        if self.state.code() == BreakerStateCode::Open {
            let closed = BreakerState::Closed {
                consecutive_failures: 0,
            };
            self.enter(now, closed, TransitionReason::FleetClosed);
        }
    }

    /// The transitions queued and not yet polled, oldest first (the policy
    /// tells its fleet of them before it turns them into events).
    pub fn queued_transitions(&self) -> impl Iterator<Item = &Transition> {
        self.transitions.iter()
    }

    /// The cooldown, ms: how long a probe lease lasts.
    #[must_use]
    pub const fn cooldown_ms(&self) -> u64 {
        self.config.cooldown_ms
    }
}

#[cfg(test)]
mod tests {
    use crate::breaker::{
        Breaker, BreakerConfig, BreakerStateCode, RejectReason, TransitionReason,
    };
    use crate::time::Instant;

    fn at(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    /// Trips on the default rule (five failures in a row), cooldown 60 s.
    fn tripped() -> Breaker {
        let mut breaker = Breaker::new(BreakerConfig::default());
        for i in 0..5 {
            let permit = breaker.try_acquire(at(i)).unwrap();
            breaker.on_failure(at(i), permit, 1);
        }
        assert_eq!(breaker.state_at(at(5)), BreakerStateCode::Open);
        breaker
    }

    #[test]
    fn without_the_lease_an_elapsed_cooldown_waits_for_the_fleets_probe() {
        let mut breaker = tripped();
        assert!(!breaker.wants_probe(at(1_000)));
        breaker.set_probe_lease(Some(false));
        // No call wants to go out: the lease is not asked for.
        assert!(!breaker.wants_probe(at(60_004)));
        let refused = breaker.try_acquire(at(60_004)).unwrap_err();
        assert_eq!(
            (refused.reason, refused.retry_at),
            (RejectReason::CircuitOpen, None)
        );
        // A call was refused for want of the lease: now it is.
        assert!(breaker.wants_probe(at(60_004)));
        breaker.set_probe_lease(Some(true));
        assert!(!breaker.wants_probe(at(60_005)), "granted: asked no more");
        assert!(breaker.try_acquire(at(60_005)).unwrap().probe);
        // Alone again (a stale view), it probes on its own.
        let mut alone = tripped();
        alone.set_probe_lease(None);
        assert!(alone.try_acquire(at(60_004)).is_ok());
    }

    #[test]
    fn the_fleets_verdicts_open_and_close_it() {
        let mut breaker = Breaker::new(BreakerConfig::default());
        breaker.adopt_open(at(10), at(5_000));
        assert_eq!(breaker.state_at(at(10)), BreakerStateCode::Open);
        breaker.adopt_open(at(20), at(9_000)); // the later end wins
        breaker.adopt_open(at(30), at(7_000));
        assert!(breaker.try_acquire(at(8_000)).is_err());
        breaker.adopt_closed(at(8_500));
        assert_eq!(breaker.state_at(at(8_500)), BreakerStateCode::Closed);
        let reasons: Vec<_> = std::iter::from_fn(|| breaker.poll_transition())
            .map(|t| t.reason)
            .collect();
        assert_eq!(
            reasons,
            [TransitionReason::FleetOpened, TransitionReason::FleetClosed]
        );
    }

    #[test]
    fn a_probe_under_way_with_the_lease_is_not_overruled() {
        let mut breaker = tripped();
        breaker.set_probe_lease(Some(true));
        let probe = breaker.try_acquire(at(60_004)).unwrap();
        breaker.adopt_open(at(60_005), at(60_004));
        assert_eq!(breaker.state_at(at(60_005)), BreakerStateCode::HalfOpen);
        breaker.on_success(at(60_006), probe, 1);
        // The default half-open phase wants two successes, in turns.
        let second = breaker.try_acquire(at(60_007)).unwrap();
        breaker.on_success(at(60_008), second, 1);
        assert_eq!(breaker.state_at(at(60_008)), BreakerStateCode::Closed);
    }
}
