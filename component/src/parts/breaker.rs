//! The `breaker` resource.

use std::cell::RefCell;

use stoic_core::breaker::{Breaker as CoreBreaker, BreakerConfig, Permit as CorePermit};
use stoic_core::state::{read_snapshot, write_snapshot};
use stoic_core::Instant;

use crate::bindings::exports::stoic::engine::parts::{
    self as wit, Admit, GuestBreaker, Permit, Rejected,
};
use crate::bindings::exports::stoic::engine::policy::BreakerTransition;
use crate::bindings::exports::stoic::engine::types::{BreakerState, ConfigError, InputError};
use crate::convert::{breaker_state, config, input_error, instant, json};
use crate::policy::transition;

#[derive(Debug)]
pub struct Breaker(RefCell<CoreBreaker>);

const fn permit_in(p: Permit) -> CorePermit {
    CorePermit {
        generation: p.generation,
        id: p.id,
        probe: p.probe,
    }
}

impl GuestBreaker for Breaker {
    fn create(config_json: String) -> Result<wit::Breaker, ConfigError> {
        let parsed: BreakerConfig = config(&config_json)?;
        Ok(wit::Breaker::new(Breaker(RefCell::new(CoreBreaker::new(
            parsed,
        )))))
    }

    fn from_snapshot(snapshot: String) -> Result<wit::Breaker, InputError> {
        let inner = read_snapshot(&snapshot).map_err(|e| input_error(&e))?;
        Ok(wit::Breaker::new(Breaker(RefCell::new(inner))))
    }

    fn snapshot(&self) -> String {
        write_snapshot(&*self.0.borrow())
    }

    fn try_acquire(&self, now_ms: u64) -> Admit {
        match self.0.borrow_mut().try_acquire(instant(now_ms)) {
            Ok(p) => Admit::Admitted(Permit {
                generation: p.generation,
                id: p.id,
                probe: p.probe,
            }),
            Err(r) => Admit::Rejected(Rejected {
                reason: r.reason.code().to_owned(),
                retry_at: r.retry_at.map(Instant::as_millis),
            }),
        }
    }

    fn on_success(&self, now_ms: u64, permit: Permit, duration_ms: u64) -> bool {
        let permit = permit_in(permit);
        self.0
            .borrow_mut()
            .on_success(instant(now_ms), permit, duration_ms)
    }

    fn on_failure(&self, now_ms: u64, permit: Permit, duration_ms: u64) -> bool {
        let permit = permit_in(permit);
        self.0
            .borrow_mut()
            .on_failure(instant(now_ms), permit, duration_ms)
    }

    fn release(&self, permit: Permit) -> bool {
        self.0.borrow_mut().release(permit_in(permit))
    }

    fn state_at(&self, now_ms: u64) -> BreakerState {
        breaker_state(self.0.borrow().state_at(instant(now_ms)))
    }

    fn state_json(&self) -> String {
        json(self.0.borrow().state())
    }

    fn window_counts_json(&self, now_ms: u64) -> Option<String> {
        let counts = self.0.borrow().window_counts(instant(now_ms));
        counts.map(|c| json(&c))
    }

    fn next_timeout(&self) -> Option<u64> {
        self.0.borrow().next_timeout().map(Instant::as_millis)
    }

    fn poll_transition(&self) -> Option<BreakerTransition> {
        self.0.borrow_mut().poll_transition().map(transition)
    }
}
