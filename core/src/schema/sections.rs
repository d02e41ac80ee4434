//! Each config section's fields, units and valid values, declared once.

mod alerts;
mod backoff;
mod breaker;
mod budget;
mod classify;
mod config;
#[cfg(feature = "hedging")]
mod hedging;
#[cfg(feature = "load_control")]
mod load_control;
mod server;

pub use backoff::SeededSpec;
pub(crate) use breaker::{WindowKind, WINDOW_KINDS};
pub use config::Overrides;
