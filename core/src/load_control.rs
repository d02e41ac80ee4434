//! Adaptive load control: two standalone machines that keep a client from
//! adding load to a dependency that is already overloaded.
//!
//! | part | what it decides | from |
//! |------|-----------------|------|
//! | [`Throttle`] | whether to send a request at all, from how many recent requests the dependency accepted | Google SRE book, "Handling Overload" (client-side throttling); grpc-go's RLS adaptive throttler, Kratos, Envoy's admission control, failsafe-go's adaptive throttler |
//! | [`Limiter`] | how many requests may be in flight at once, adapted from latency (gradient) or from drops (AIMD) | Envoy's adaptive-concurrency gradient controller; Netflix concurrency-limits |
//!
//! Both are sans-IO like the breaker and the retry budget: time only from
//! the `now` arguments (clamped so it never runs backwards), randomness
//! only from the seed the caller passes to `new` ([`SplitMix64`], the
//! core's generator), bounded memory, no panics. Their configs are schema
//! sections of their own ([`ThrottleConfig`], [`LimiterConfig`]), read in
//! every caller's dialect with the same error codes as the policy config.
//! They are not part of the policy's [`Config`](crate::Config) yet: a host
//! (or, later, the policy) holds one of each per scope.
//!
//! [`SplitMix64`]: crate::rng::SplitMix64

mod aimd;
mod gradient;
mod limiter;
mod limiter_config;
mod min_rtt;
mod percentile;
mod queue;
mod throttle;
mod throttle_config;

pub use limiter::{
    Acquired, LimitOutcome, LimitRejectReason, LimitRejected, Limiter, LimiterStatus, Permit,
    QueueEvent, Ticket,
};
pub use limiter_config::{
    LimitAlgorithm, LimiterConfig, MAX_INTERVAL_SAMPLES, MAX_LIMIT, MAX_PROBE_SAMPLES, MAX_QUEUE,
};
pub use throttle::{Throttle, ThrottleStatus, Throttled};
pub use throttle_config::{ThrottleConfig, MAX_K};
