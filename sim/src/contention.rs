//! The contention model of Brooker's "Exponential Backoff And Jitter",
//! driven by stoic's own backoff.
//!
//! N clients each update one shared row exactly once with an optimistic
//! read-then-conditional-write. A write carrying a stale version fails, and
//! the client backs off before reading again. Every message hop takes
//! `|Normal(10, 2)|` ms. The model counts write calls (the work the server
//! does) and the time of the last event (when every client is done).
//!
//! The delays come from [`stoic_core::backoff::Backoff`], one state and one
//! [`SplitMix64`] per client, exactly as a stoic host would hold them.
//! **Retry numbering.** The published model's first backoff is
//! `expo(1) = base * 2`, while stoic's first retry waits `base` (its ceiling
//! is `base * 2^(k-1)`). To run the published schedule the model's failed
//! attempt `n` asks stoic for retry `n + 1`; this also keeps decorrelated
//! jitter's history across the client's retries (stoic restarts it on retry 1).

use stoic_core::backoff::{Backoff, BackoffSpec, Strategy};
use stoic_core::rng::SplitMix64;

use crate::normal::Normal;
use crate::queue::EventQueue;

/// The strategies the published model compares, in its order.
pub const STRATEGIES: [Strategy; 5] = [
    Strategy::None,
    Strategy::Exponential,
    Strategy::FullJitter,
    Strategy::EqualJitter,
    Strategy::DecorrelatedJitter,
];

/// The model's parameters (the published ones by default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContentionParams {
    /// Mean of one network hop, ms.
    pub hop_mean_ms: f64,
    /// Standard deviation of one network hop, ms.
    pub hop_sd_ms: f64,
    /// Backoff base, ms.
    pub base_ms: u64,
    /// Backoff cap, ms.
    pub cap_ms: u64,
}

impl Default for ContentionParams {
    fn default() -> Self {
        ContentionParams {
            hop_mean_ms: 10.0,
            hop_sd_ms: 2.0,
            base_ms: 5,
            cap_ms: 2000,
        }
    }
}

impl ContentionParams {
    /// The stoic backoff spec for `strategy` under these parameters.
    #[must_use]
    pub const fn spec(&self, strategy: Strategy) -> BackoffSpec {
        BackoffSpec {
            strategy,
            base_ms: self.base_ms,
            cap_ms: self.cap_ms,
            multiplier: 2.0,
        }
    }
}

/// The stoic retry number for the model's `failures`-th failed write: one
/// more, so stoic's ceiling `base * 2^(retry-1)` is the model's
/// `expo(failures) = base * 2^failures` (see the module docs).
#[must_use]
pub const fn stoic_retry(failures: u32) -> u32 {
    failures.saturating_add(1)
}

/// What one run measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunResult {
    /// Write calls the server received.
    pub calls: u64,
    /// Successful writes (the row's final version): always the client count.
    pub updates: u64,
    /// Time of the last event, ms.
    pub completion_ms: f64,
}

/// A message arriving somewhere; the client index is carried along.
#[derive(Clone, Copy, Debug)]
enum Message {
    /// A read reaches the server.
    Read { client: u32 },
    /// The server's read reply (the current version) reaches the client.
    ReadReply { client: u32, version: u64 },
    /// A conditional write reaches the server.
    Write { client: u32, version: u64 },
    /// The write's result reaches the client.
    WriteReply { client: u32, ok: bool },
}

/// One client's backoff state: stoic's `Backoff`, its own generator, and
/// the number of failed writes so far.
#[derive(Clone, Debug)]
struct Client {
    backoff: Backoff,
    rng: SplitMix64,
    failures: u32,
}

/// A reusable simulator: the event queue and client table survive between
/// runs, so a sweep does not allocate per run or per event.
#[derive(Debug)]
pub struct ContentionSim {
    params: ContentionParams,
    queue: EventQueue<Message>,
    clients: Vec<Client>,
}

impl ContentionSim {
    /// A simulator for `params`.
    #[must_use]
    pub fn new(params: ContentionParams) -> Self {
        ContentionSim {
            params,
            queue: EventQueue::with_capacity(256),
            clients: Vec::with_capacity(256),
        }
    }

    /// One run with `clients` clients backing off with `strategy`; a pure
    /// function of its arguments and `seed`.
    pub fn run(&mut self, strategy: Strategy, clients: u32, seed: u64) -> RunResult {
        let mut master = SplitMix64::new(seed);
        let mut hops = Normal::new(master.next_u64());
        let (mean, sd) = (self.params.hop_mean_ms, self.params.hop_sd_ms);
        let spec = self.params.spec(strategy);
        self.clients.clear();
        self.clients.extend((0..clients).map(|_| Client {
            backoff: Backoff::new(spec),
            rng: master.split(),
            failures: 0,
        }));
        self.queue.clear();
        for client in 0..clients {
            self.queue
                .push(hops.folded(mean, sd), Message::Read { client });
        }

        let mut version = 0_u64;
        let mut calls = 0_u64;
        let mut last = 0.0_f64;
        while let Some((now, message)) = self.queue.pop() {
            last = now;
            let next = match message {
                Message::Read { client } => Some((0.0, Message::ReadReply { client, version })),
                Message::ReadReply { client, version } => {
                    Some((0.0, Message::Write { client, version }))
                }
                Message::Write {
                    client,
                    version: seen,
                } => {
                    calls += 1;
                    let ok = seen == version;
                    if ok {
                        version += 1;
                    }
                    Some((0.0, Message::WriteReply { client, ok }))
                }
                Message::WriteReply { ok: true, .. } => None,
                Message::WriteReply { client, ok: false } => {
                    let state = self.clients.get_mut(client as usize);
                    let wait = state.map_or(0, |c| {
                        c.failures += 1;
                        c.backoff.delay_ms(stoic_retry(c.failures), &mut c.rng)
                    });
                    #[allow(clippy::cast_precision_loss)] // delays are far below 2^52 ms
                    Some((wait as f64, Message::Read { client }))
                }
            };
            if let Some((wait, message)) = next {
                self.queue.push(now + wait + hops.folded(mean, sd), message);
            }
        }
        RunResult {
            calls,
            updates: version,
            completion_ms: last,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_client_needs_one_call_and_four_hops() {
        let mut sim = ContentionSim::new(ContentionParams::default());
        let r = sim.run(Strategy::FullJitter, 1, 3);
        assert_eq!(r.calls, 1);
        assert!((20.0..60.0).contains(&r.completion_ms), "{r:?}");
    }

    #[test]
    fn every_client_writes_once_successfully() {
        let mut sim = ContentionSim::new(ContentionParams::default());
        for strategy in STRATEGIES {
            let r = sim.run(strategy, 20, 11);
            assert_eq!(r.updates, 20, "{strategy:?}: {r:?}");
            assert!(
                r.calls > 20,
                "some writes must collide: {strategy:?}: {r:?}"
            );
        }
    }

    #[test]
    fn stoic_runs_the_published_exponential_schedule() {
        let params = ContentionParams::default();
        let mut backoff = Backoff::new(params.spec(Strategy::Exponential));
        let mut rng = SplitMix64::new(0);
        let delays: Vec<u64> = (1..=10)
            .map(|n| backoff.delay_ms(stoic_retry(n), &mut rng))
            .collect();
        // expo(n) = min(2000, 5 * 2^n)
        assert_eq!(delays, [10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000]);
    }

    #[test]
    fn runs_are_reproducible() {
        let mut sim = ContentionSim::new(ContentionParams::default());
        let a = sim.run(Strategy::DecorrelatedJitter, 50, 99);
        let b = sim.run(Strategy::DecorrelatedJitter, 50, 99);
        assert_eq!(a, b);
        let c = sim.run(Strategy::DecorrelatedJitter, 50, 100);
        assert_ne!(a, c);
    }
}
