//! `backoff`: a strategy with its own seeded random stream.

use std::cell::RefCell;

use stoic_core::backoff::{BackoffSpec, SeededBackoff};

use crate::bindings::exports::stoic::engine::backoff::{self as wit, Guest, GuestBackoff};
use crate::bindings::exports::stoic::engine::types::ConfigError;
use crate::convert::{config, config_error};
use crate::Engine;

/// The resource: a seeded backoff behind a cell (WIT methods borrow).
#[derive(Debug)]
pub struct Backoff(RefCell<SeededBackoff>);

impl Guest for Engine {
    type Backoff = Backoff;
}

impl GuestBackoff for Backoff {
    fn create(spec_json: String, seed: u64) -> Result<wit::Backoff, ConfigError> {
        let spec: BackoffSpec = config(&spec_json)?;
        let inner = SeededBackoff::new(spec, seed).map_err(|e| config_error(&e))?;
        Ok(wit::Backoff::new(Backoff(RefCell::new(inner))))
    }

    fn delay_ms(&self, retry: u32) -> u64 {
        self.0.borrow_mut().delay_ms(retry)
    }
}
