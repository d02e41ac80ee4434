//! A standalone breaker's state, permits, refusals and transitions.

use crate::breaker::{BreakerState, Permit, Rejected, Transition, WindowCounts};
use crate::schema::{Check, Emit, Fields, Out, Section};

impl Emit for BreakerState {
    fn emit(&self, o: &mut Out) {
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

impl Emit for Transition {
    fn emit(&self, o: &mut Out) {
        o.code("from", self.from.code());
        o.code("to", self.to.code());
        o.instant("at", self.at);
        o.code("reason", self.reason.code());
    }
}

impl Emit for WindowCounts {
    fn emit(&self, o: &mut Out) {
        o.uint("calls", self.calls);
        o.uint("failures", self.failures);
        o.uint("slow", self.slow);
    }
}
