//! How each value the core hands out is written ([`super::Emit`]), one file
//! per area. Values a host may hand back (a permit, a retry ticket, a
//! stored idempotency entry, a metrics snapshot, a server hint) are
//! [`super::Section`]s instead, so they are read by the same declaration.

mod breaker;
mod budget;
mod clock;
mod decision;
mod event;
mod records;
mod server;

#[cfg(test)]
mod tests;
