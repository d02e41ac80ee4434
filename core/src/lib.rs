//! # stoic-core
//!
//! A sans-IO resilience engine: it decides what to do when a call fails, and
//! only decides. The host passes `now` in, gets a decision out, and does the
//! sleeping and the I/O itself.
//!
//! Library code never panics: a running policy answers every question with a
//! decision. These lints hold the library to that; tests, examples and
//! benchmarks are exempt.
#![warn(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

pub mod agent;
pub mod backoff;
pub mod breaker;
pub mod budget;
pub mod call;
pub mod classify;
pub mod config;
pub mod deadline;
pub mod decision;
pub mod error;
pub mod event;
pub mod fleet;
#[cfg(feature = "hedging")]
pub mod hedging;
pub mod hints;
pub mod host;
pub mod httpdate;
pub mod key;
#[cfg(feature = "load_control")]
pub mod load_control;
pub mod observation;
pub mod outcome;
pub mod policy;
pub mod record;
pub mod ring;
pub mod rng;
pub mod run;
pub mod schema;
pub mod scope;
pub mod serials;
pub mod server_idempotency;
mod sort;
pub mod sorted;
pub mod state;
pub mod time;

pub use call::{Call, CallOverrides, CallSpec, CallStep};
pub use classify::{Class, Method, NetworkErrorKind};
pub use config::Config;
pub use decision::{
    Admission, AttemptPlan, Decision, DelaySource, Done, GiveUp, Matched, Retry, StopReason,
};
pub use error::{ConfigError, ConfigErrorCode, InputError, InputErrorCode};
pub use event::Event;
#[cfg(feature = "hedging")]
pub use hedging::{HedgeStep, HedgedCall, HedgingConfig};
pub use hints::parse_retry_after;
pub use key::{canonical_json, idempotency_key, random_key};
pub use outcome::{Outcome, OutcomeKind};
pub use policy::Policy;
pub use run::RunQuota;
pub use sorted::{SortedMap, SortedSet};
pub use state::{PolicyState, RestoreReport};
pub use time::{Instant, MonotonicClamp, WallClock};
