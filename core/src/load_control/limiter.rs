//! The adaptive concurrency limiter: how many requests to one dependency
//! may be in flight at once, learned from their outcomes.
//!
//! ```text
//! acquire(now) --> Admitted(permit) --> host sends --> release(now, permit, outcome)
//!              \-> Queued(ticket)   --> poll(now) --> Admitted { ticket, permit } | TimedOut { ticket }
//!              \-> Rejected(reason)
//! ```
//!
//! A request is admitted while fewer than `limit` permits are out and no
//! one is waiting; otherwise it waits in a bounded FIFO queue for at most
//! `max_wait_ms`, or is rejected at once (`concurrency_limited` with no
//! queue, `queue_full` when the queue is full). The host learns when a
//! waiter may go by calling [`Limiter::poll`] after each release and at
//! [`Limiter::next_timeout`]; the core never wakes anyone.
//!
//! The outcome a permit comes back with drives the limit: a success with
//! its latency, a drop (the dependency said it is overloaded: 429, 503, a
//! timeout), or ignored (a cancelled hedge that lost, a client error, a
//! caller that gave up): an ignored outcome frees the permit's slot and
//! teaches nothing, so hedges and cancellations never move the limit
//! (go-service #2380: hedges held permits and counted as load).
//!
//! Every admitted permit counts once, when it first comes back; a permit
//! handed back twice, forged, or from another limiter changes nothing.

use super::aimd::Aimd;
use super::gradient::{Gradient, GradientParams, Signal};
use super::limiter_config::{milli, LimitAlgorithm, LimiterConfig};
use super::min_rtt::ProbeParams;
use super::queue::WaitQueue;
use crate::error::ConfigError;
use crate::serials::Serials;
use crate::time::{Instant, MonotonicClamp};

/// The right to send one request; hand it back with
/// [`Limiter::release`] exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Permit {
    id: u64,
    in_flight: u32,
    limit: u32,
    generation: u64,
}

impl Permit {
    /// The permit's serial number (from 1).
    #[must_use]
    pub const fn id(&self) -> u64 {
        self.id
    }

    /// Permits out when it was admitted, itself included.
    #[must_use]
    pub const fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// The limit when it was admitted.
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.limit
    }
}

/// A place in the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    /// The ticket's number (from 1).
    pub id: u64,
    /// When it stops waiting (`now + max_wait_ms` at queueing).
    pub until: Instant,
}

/// Why a request was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitRejectReason {
    /// The limit is reached and there is no queue.
    LimitReached,
    /// The limit is reached and the queue is full.
    QueueFull,
    /// The request waited `max_wait_ms` in the queue.
    QueueTimeout,
}

impl LimitRejectReason {
    /// The stable snake_case code.
    #[must_use]
    pub const fn code(self) -> &'static str {
        match self {
            LimitRejectReason::LimitReached => "concurrency_limited",
            LimitRejectReason::QueueFull => "queue_full",
            LimitRejectReason::QueueTimeout => "queue_timeout",
        }
    }
}

/// A request that must not be sent now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitRejected {
    /// Why.
    pub reason: LimitRejectReason,
    /// The limit at that moment.
    pub limit: u32,
}

/// What [`Limiter::acquire`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Acquired {
    /// Send now.
    Admitted(Permit),
    /// Wait: [`Limiter::poll`] says when the ticket may go or has waited
    /// too long; [`Limiter::cancel`] if the caller gives up first.
    Queued(Ticket),
    /// Do not send.
    Rejected(LimitRejected),
}

/// What [`Limiter::poll`] reports about the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueEvent {
    /// The ticket's caller may send now, with this permit.
    Admitted {
        /// The waiting caller.
        ticket: Ticket,
        /// Its permit.
        permit: Permit,
    },
    /// The ticket waited `max_wait_ms`: its request must not be sent
    /// (`queue_timeout`).
    TimedOut {
        /// The waiting caller.
        ticket: Ticket,
    },
}

/// How a permit's request ended, as the limit sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitOutcome {
    /// An answer (of any class the dependency did not reject for load)
    /// after `latency_ms` (taken as at least 1).
    Success {
        /// From sending to the answer, in ms.
        latency_ms: u64,
    },
    /// An overload signal: 429, 503, a timeout.
    Dropped,
    /// Nothing to learn: a cancelled hedge, a client-side error.
    Ignored,
}

impl LimitOutcome {
    /// The stable snake_case code.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            LimitOutcome::Success { .. } => "success",
            LimitOutcome::Dropped => "dropped",
            LimitOutcome::Ignored => "ignored",
        }
    }
}

/// The limiter at a glance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimiterStatus {
    /// The limit in force.
    pub limit: u32,
    /// Permits out.
    pub in_flight: u32,
    /// Callers in the queue.
    pub waiting: u32,
    /// The measured no-load latency (gradient only, once measured).
    pub min_rtt_ms: Option<u64>,
    /// A min-RTT measurement is under way (gradient only).
    pub measuring: bool,
    /// When the next min-RTT re-measurement starts (gradient only).
    pub next_probe_at: Option<Instant>,
}

#[derive(Clone, Debug)]
enum Control {
    Gradient(Gradient),
    Aimd(Aimd),
}

/// One scope's adaptive concurrency limiter. See the [module docs](self).
#[derive(Clone, Debug)]
pub struct Limiter {
    config: LimiterConfig,
    bounds: (u32, u32),
    limit: u32,
    in_flight: u32,
    permits: Serials,
    queue: WaitQueue,
    control: Control,
    clock: MonotonicClamp,
}

impl Limiter {
    /// A limiter at `initial_limit`; `seed` feeds the min-RTT jitter (the
    /// only random choice). Validates `config`.
    ///
    /// # Errors
    /// A [`ConfigError`] naming each bad field (Rust spelling).
    pub fn new(config: LimiterConfig, seed: u64) -> Result<Self, ConfigError> {
        config.validate()?;
        let bounds = config.bounds();
        let control = match config.algorithm {
            LimitAlgorithm::Gradient {
                update_interval_ms,
                percentile,
                buffer,
                probe_interval_ms,
                probe_jitter,
                probe_samples,
            } => Control::Gradient(Gradient::new(
                GradientParams {
                    update_interval_ms,
                    percentile_milli: milli(percentile),
                    buffer_milli: milli(buffer),
                    probe: ProbeParams {
                        interval_ms: probe_interval_ms,
                        jitter_milli: milli(probe_jitter),
                        samples: probe_samples,
                        percentile_milli: milli(percentile),
                    },
                },
                seed,
            )),
            LimitAlgorithm::Aimd { backoff } => Control::Aimd(Aimd::new(backoff)),
        };
        Ok(Limiter {
            config,
            bounds,
            limit: config.initial_limit.clamp(bounds.0, bounds.1),
            in_flight: 0,
            permits: Serials::default(),
            queue: WaitQueue::default(),
            control,
            clock: MonotonicClamp::new(),
        })
    }

    /// The settings in force.
    #[must_use]
    pub const fn config(&self) -> &LimiterConfig {
        &self.config
    }

    /// The limit in force.
    #[must_use]
    pub const fn limit(&self) -> u32 {
        self.limit
    }

    /// Permits out.
    #[must_use]
    pub const fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Asks to send one request at `now`.
    pub fn acquire(&mut self, now: Instant) -> Acquired {
        let now = self.clock.observe(now);
        self.refresh(now);
        if self.queue.len() == 0 && self.in_flight < self.limit {
            return Acquired::Admitted(self.admit());
        }
        let max_queue = self.config.max_queue as usize;
        if self.queue.len() < max_queue {
            let until = now.saturating_add(self.config.max_wait_ms);
            let id = self.queue.push(until);
            return Acquired::Queued(Ticket { id, until });
        }
        let reason = if max_queue == 0 {
            LimitRejectReason::LimitReached
        } else {
            LimitRejectReason::QueueFull
        };
        Acquired::Rejected(LimitRejected {
            reason,
            limit: self.limit,
        })
    }

    /// The next change in the queue at `now`, oldest waiter first: it has
    /// waited too long, or a slot is free for it. `None`: nothing to do
    /// until a release or [`Limiter::next_timeout`]. Call it until `None`.
    pub fn poll(&mut self, now: Instant) -> Option<QueueEvent> {
        let now = self.clock.observe(now);
        self.refresh(now);
        let front = self.queue.front()?;
        let ticket = Ticket {
            id: front.ticket,
            until: front.until,
        };
        if now >= front.until {
            self.queue.pop_front();
            Some(QueueEvent::TimedOut { ticket })
        } else if self.in_flight < self.limit {
            self.queue.pop_front();
            let permit = self.admit();
            Some(QueueEvent::Admitted { ticket, permit })
        } else {
            None
        }
    }

    /// Takes a waiting ticket out of the queue; `false` if it is not
    /// waiting (admitted, timed out or cancelled already).
    pub fn cancel(&mut self, ticket: Ticket) -> bool {
        self.queue.remove(ticket.id)
    }

    /// When the oldest waiter times out, if anyone waits.
    #[must_use]
    pub fn next_timeout(&self) -> Option<Instant> {
        self.queue.front().map(|w| w.until)
    }

    /// Hands `permit` back with its request's outcome. Returns whether it
    /// counted: `false` for a permit not out (handed back already, never
    /// issued by this limiter), which changes nothing.
    pub fn release(&mut self, now: Instant, permit: Permit, outcome: LimitOutcome) -> bool {
        let now = self.clock.observe(now);
        if !self.permits.take(permit.id) {
            return false;
        }
        self.in_flight = self.in_flight.saturating_sub(1);
        self.refresh(now);
        let bounds = self.bounds;
        match (&mut self.control, outcome) {
            (_, LimitOutcome::Ignored) => {}
            (Control::Gradient(g), LimitOutcome::Success { latency_ms }) => {
                // Quiet: sent with at most `min_limit` in flight. Half the
                // limit was too many for a narrow server: at a limit of
                // 5-25 on 2 workers, such requests queued and the baseline
                // learnt 1.6-6x the unloaded median.
                let quiet = permit.in_flight <= bounds.0;
                let ms = latency_ms;
                g.record(now, Signal::Latency { ms, quiet });
            }
            (Control::Gradient(g), LimitOutcome::Dropped) => g.record(now, Signal::Drop),
            (Control::Aimd(a), LimitOutcome::Success { .. }) => {
                self.limit = a.on_success(self.limit, permit.in_flight, bounds);
            }
            (Control::Aimd(a), LimitOutcome::Dropped) => {
                self.limit = a.on_drop(self.limit, permit.generation, bounds);
            }
        }
        true
    }

    /// Closes a gradient interval that has run its length (AIMD changes
    /// the limit as outcomes arrive, and has nothing to close).
    fn refresh(&mut self, now: Instant) {
        if let Control::Gradient(g) = &mut self.control {
            self.limit = g.roll(now, self.limit, self.in_flight, self.bounds);
        }
    }

    /// The limiter at a glance. A min-RTT re-measurement that has fallen
    /// due starts at the next release, so `measuring` turns on then.
    #[must_use]
    pub fn status(&self) -> LimiterStatus {
        let min_rtt = match &self.control {
            Control::Gradient(g) => Some(g.min_rtt()),
            Control::Aimd(_) => None,
        };
        LimiterStatus {
            limit: self.limit,
            in_flight: self.in_flight,
            waiting: u32::try_from(self.queue.len()).unwrap_or(u32::MAX),
            min_rtt_ms: min_rtt.and_then(|m| m.baseline()),
            measuring: min_rtt.is_some_and(|m| m.measuring()),
            next_probe_at: min_rtt.and_then(|m| m.next_at()),
        }
    }

    /// Issues a permit; the caller checked there is room.
    fn admit(&mut self) -> Permit {
        self.in_flight = self.in_flight.saturating_add(1);
        let generation = match &mut self.control {
            Control::Gradient(g) => {
                g.on_admit(self.in_flight);
                0
            }
            Control::Aimd(a) => a.generation(),
        };
        Permit {
            id: self.permits.issue(),
            in_flight: self.in_flight,
            limit: self.limit,
            generation,
        }
    }
}
