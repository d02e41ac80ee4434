//! A standalone breaker's state, permits, refusals and transitions.

use crate::breaker::{BreakerState, BreakerStateCode, Permit, Rejected, Transition};
use crate::breaker::{TransitionReason, WindowCounts};
use crate::schema::{Check, Emit, Fields, Out, Section};
use crate::state::AS_WRITTEN;
use crate::time::Instant;

/// Written in results and snapshots; read back from snapshots.
impl Section for BreakerState {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require("kind", false, AS_WRITTEN);
        let kind = f.code(
            "kind",
            BreakerStateCode::Closed,
            &BreakerStateCode::ALL,
            |c| c.code(),
        );
        match kind {
            BreakerStateCode::Closed => BreakerState::Closed {
                consecutive_failures: f.u32("consecutive_failures", 0),
            },
            BreakerStateCode::Open => {
                f.require_all(&["since", "until"], AS_WRITTEN);
                BreakerState::Open {
                    since: f.instant("since", Instant::ZERO),
                    until: f.instant("until", Instant::ZERO),
                }
            }
            BreakerStateCode::HalfOpen => BreakerState::HalfOpen {
                probes_in_flight: f.u32("probes_in_flight", 0),
                successes: f.u32("successes", 0),
            },
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("kind", self.code().code());
        match *self {
            BreakerState::Closed {
                consecutive_failures,
            } => o.uint("consecutive_failures", consecutive_failures),
            BreakerState::Open { since, until } => {
                o.instant("since", since);
                o.instant("until", until);
            }
            BreakerState::HalfOpen {
                probes_in_flight,
                successes,
            } => {
                o.uint("probes_in_flight", probes_in_flight);
                o.uint("successes", successes);
            }
        }
    }

    fn check(&self, _: &mut Check) {}
}

/// A permit comes back from the host: read by the same declaration.
impl Section for Permit {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        for name in ["generation", "id", "probe"] {
            f.require(name, false, "(a permit as the breaker gave it)");
        }
        Permit {
            generation: f.u64("generation", 0),
            id: f.u64("id", 0),
            probe: f.bool("probe", false),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("generation", self.generation);
        o.uint("id", self.id);
        o.bool("probe", self.probe);
    }

    /// Any permit is well formed; one the breaker never issued is ignored.
    fn check(&self, _: &mut Check) {}
}

impl Emit for Rejected {
    fn emit(&self, o: &mut Out) {
        o.code("reason", self.reason.code());
        o.opt_instant("retry_at", self.retry_at);
    }
}

/// Handed out, and kept queued in a breaker's snapshot.
impl Section for Transition {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["from", "to", "at", "reason"], AS_WRITTEN);
        let state = |c: &BreakerStateCode| c.code();
        Transition {
            from: f.code(
                "from",
                BreakerStateCode::Closed,
                &BreakerStateCode::ALL,
                state,
            ),
            to: f.code(
                "to",
                BreakerStateCode::Closed,
                &BreakerStateCode::ALL,
                state,
            ),
            at: f.instant("at", Instant::ZERO),
            reason: f.code(
                "reason",
                TransitionReason::CooldownElapsed,
                &TransitionReason::ALL,
                |r| r.code(),
            ),
        }
    }

    fn write(&self, o: &mut Out) {
        o.code("from", self.from.code());
        o.code("to", self.to.code());
        o.instant("at", self.at);
        o.code("reason", self.reason.code());
    }

    fn check(&self, _: &mut Check) {}
}

/// Handed out, and a time bucket's counts in a breaker's snapshot.
impl Section for WindowCounts {
    fn read(f: &mut Fields<'_, '_>) -> Self {
        f.require_all(&["calls", "failures", "slow"], AS_WRITTEN);
        WindowCounts {
            calls: f.u64("calls", 0),
            failures: f.u64("failures", 0),
            slow: f.u64("slow", 0),
        }
    }

    fn write(&self, o: &mut Out) {
        o.uint("calls", self.calls);
        o.uint("failures", self.failures);
        o.uint("slow", self.slow);
    }

    fn check(&self, _: &mut Check) {}
}
