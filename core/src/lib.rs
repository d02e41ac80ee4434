//! # stoic-core
//!
//! A sans-IO resilience engine: it decides what to do when a call fails, and
//! only decides. The host passes `now` in, gets a decision out, and does the
//! sleeping and the I/O itself.

pub mod backoff;
pub mod breaker;
pub mod budget;
pub mod error;
pub mod hints;
pub mod httpdate;
pub mod key;
pub mod record;
pub mod rng;
pub mod time;

pub use error::{ConfigError, ConfigErrorCode, InputError, InputErrorCode};
pub use time::{Instant, MonotonicClamp, WallClock};
