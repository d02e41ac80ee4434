//! Simulators that drive stoic's real decisions through small
//! discrete-event models, to show the effects the design relies on:
//!
//! - [`contention`]: Brooker's "Exponential Backoff And Jitter" model, with
//!   stoic's backoff strategies;
//! - [`overload`]: a server that fails more as it is loaded, with clients
//!   that retry through a stoic [`stoic_core::Policy`], with and without
//!   retry budgets and a circuit breaker.
//!
//! Everything runs on simulated time and seeded generators: a sweep is a
//! pure function of its parameters and seed, whatever the machine or the
//! number of threads.

pub mod chart;
pub mod contention;
pub mod contention_findings;
pub mod contention_report;
pub mod contention_sweep;
pub mod fanout;
pub mod fanout_findings;
pub mod fanout_report;
pub mod fanout_sweep;
pub mod finding;
pub mod font;
pub mod hedge_host;
pub mod hedge_variant;
pub mod limiter;
pub mod limiter_findings;
pub mod limiter_report;
pub mod normal;
pub mod overload;
pub mod overload_findings;
pub mod overload_report;
pub mod overload_sweep;
pub mod overload_variant;
pub mod parallel;
pub mod percentile;
pub mod queue;
pub mod saturation;
pub mod saturation_findings;
pub mod saturation_report;
pub mod saturation_sweep;
pub mod seed;
pub mod slab;
pub mod table;
pub mod throttle;
pub mod throttle_findings;
pub mod throttle_report;
