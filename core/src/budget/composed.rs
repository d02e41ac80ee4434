//! The composed budget a policy keeps per scope.

use std::collections::VecDeque;

use super::grpc::{GrpcThrottle, GrpcThrottleConfig};
use super::ratio::{RatioBudget, RatioConfig, Withdrawal};
use super::run_cap::{RunCap, RunCapConfig};
use super::token_bucket::{TokenBucket, TokenBucketConfig};
use super::{BudgetKind, RetryCost};
use crate::error::ConfigError;
use crate::ring::BucketRing;
use crate::serials::Serials;
use crate::time::{Instant, MonotonicClamp};

/// How many events wait for [`RetryBudget::poll_event`] at most. Coalescing
/// keeps at most one pending event per budget in normal use; the bound only
/// matters for a host that never polls, and then the oldest events go first.
pub const EVENT_QUEUE_CAPACITY: usize = 16;

/// Whether this build has the AWS token bucket and the gRPC throttle (the
/// `token_buckets` feature; the browser's client engine leaves them out).
const TOKEN_BUCKETS: bool = cfg!(feature = "token_buckets");

/// Which budgets are on, and their settings.
///
/// JSON shape: `{"ratio": {...}, "run_cap": {...}, "token_bucket": {...},
/// "grpc": {...}}`, each key optional. A key that is **absent** takes the
/// default: the ratio budget on with its seed defaults, the others off. A key
/// set to **`null`** turns that budget off, so `{"ratio": null}` alone turns
/// every budget off. `{}` as a section's value means "on, with its defaults".
///
/// Why the ratio budget is on by default: it is the only one that adapts to
/// traffic, so it is safe for any scope (at most 10 % extra load plus a small
/// floor); the others encode a specific ecosystem's numbers or a run length
/// that only the user knows.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields))]
pub struct RetryBudgetConfig {
    /// The [`RatioBudget`]; on by default.
    #[cfg_attr(feature = "serde", serde(default = "default_ratio"))]
    pub ratio: Option<RatioConfig>,
    /// The [`RunCap`]; off by default.
    #[cfg_attr(feature = "serde", serde(default))]
    pub run_cap: Option<RunCapConfig>,
    /// The [`TokenBucket`]; off by default.
    #[cfg_attr(feature = "serde", serde(default))]
    pub token_bucket: Option<TokenBucketConfig>,
    /// The [`GrpcThrottle`]; off by default.
    #[cfg_attr(feature = "serde", serde(default))]
    pub grpc: Option<GrpcThrottleConfig>,
}

#[allow(clippy::unnecessary_wraps)] // the `serde` feature's `default = "..."` needs a function
fn default_ratio() -> Option<RatioConfig> {
    Some(RatioConfig::default())
}

impl Default for RetryBudgetConfig {
    fn default() -> Self {
        RetryBudgetConfig {
            ratio: default_ratio(),
            run_cap: None,
            token_bucket: None,
            grpc: None,
        }
    }
}

impl RetryBudgetConfig {
    /// Checks every value by the config schema's rules ([`crate::schema`]).
    ///
    /// # Errors
    /// A [`ConfigError`] carrying every problem, fields in the Rust spelling.
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::schema::validate(self)
    }
}

/// Proof that a retry was admitted, to hand back to
/// [`RetryBudget::on_attempt_success`] if that retry succeeds: the AWS quota
/// refunds exactly what the retry cost.
///
/// Plain data, so a binding can pass it through. It ends once: a ticket
/// handed back a second time, or one the budget never issued, is ignored
/// (its serial `id` is no longer, or never was, open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[must_use]
pub struct RetryTicket {
    /// The ticket's serial number (from 1, never reused by a budget).
    #[cfg_attr(feature = "serde", serde(default))]
    pub id: u64,
    /// Tokens the token bucket took for this retry (`None` if it is off).
    pub token_cost: Option<u32>,
    /// The ratio budget's concurrency-floor slot this retry holds, if it was
    /// granted on the floor; freed by [`RetryBudget::release`].
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "Option::is_none")
    )]
    pub floor_slot: Option<Instant>,
}

/// A retry was refused; names the budget that said no.
///
/// When several refuse at once, `budget` is the first in the fixed order
/// `ratio`, `run_cap`, `token_bucket`, `grpc` (each still gets its event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Refusal {
    /// The budget that refused.
    pub budget: BudgetKind,
}

impl Refusal {
    /// The refusing budget's code: `"ratio"`, `"run_cap"`, `"token_bucket"`
    /// or `"grpc"`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        self.budget.code()
    }
}

/// Side information for the host's logs and metrics, drained with
/// [`RetryBudget::poll_event`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind"))]
pub enum BudgetEvent {
    /// A budget refused a retry. Queued once per budget until that budget
    /// allows a retry again, so a storm logs one line, not thousands.
    #[cfg_attr(feature = "serde", serde(rename = "budget_exhausted"))]
    Exhausted {
        /// Which budget.
        budget: BudgetKind,
        /// When (clamped host time).
        at: Instant,
    },
}

impl BudgetEvent {
    /// The stable code (`"budget_exhausted"`), also the JSON `kind`.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            BudgetEvent::Exhausted { .. } => "budget_exhausted",
        }
    }

    /// The log message hosts print, from the seed runbook.
    #[must_use]
    pub const fn message(&self) -> &'static str {
        match self {
            BudgetEvent::Exhausted { .. } => "Retry budget exceeded",
        }
    }
}

/// A read-only view of every enabled budget, for metrics, bindings and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BudgetStatus {
    /// The ratio budget's window, if on.
    pub ratio: Option<RatioStatus>,
    /// The run cap, if on.
    pub run_cap: Option<RunCapStatus>,
    /// The token bucket, if on.
    pub token_bucket: Option<TokenBucketStatus>,
    /// The gRPC throttle, if on.
    pub grpc: Option<GrpcStatus>,
}

/// The ratio budget's window at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RatioStatus {
    /// First attempts in the window.
    pub requests: u64,
    /// Retries in the window.
    pub retries: u64,
    /// Retries the window can hold; a retry is allowed iff `retries < max_retries`.
    pub max_retries: u64,
}

/// The run cap's usage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RunCapStatus {
    /// Retries taken so far.
    pub used: u32,
    /// The cap.
    pub max_retries: u32,
}

/// The token bucket's fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TokenBucketStatus {
    /// Tokens available.
    pub tokens: u32,
    /// Tokens in a full bucket.
    pub capacity: u32,
}

/// The gRPC throttle's fill, in thousandths of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GrpcStatus {
    /// Tokens now, in thousandths.
    pub milli_tokens: u32,
    /// A full throttle, in thousandths.
    pub max_milli_tokens: u32,
    /// Whether a retry is allowed now.
    pub retry_allowed: bool,
}

/// The enabled retry budgets of one scope, consulted together.
///
/// A policy keeps one per scope and calls, for every operation:
/// [`on_first_attempt`](Self::on_first_attempt) once, then per attempt
/// [`on_attempt_failure`](Self::on_attempt_failure) (for failures that count,
/// i.e. retryable ones) or [`on_attempt_success`](Self::on_attempt_success),
/// and [`try_retry`](Self::try_retry) before each retry.
///
/// A retry goes ahead only if **every** enabled budget agrees. All are checked
/// first and only then charged, so one budget's refusal never consumes from
/// another; a refused retry changes no budget (only the event bookkeeping).
/// The whole value serializes for snapshots and round-trips exactly.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryBudget {
    pub(super) clamp: MonotonicClamp,
    pub(super) ratio: Option<RatioBudget>,
    pub(super) run_cap: Option<RunCap>,
    pub(super) token_bucket: Option<TokenBucket>,
    pub(super) grpc: Option<GrpcThrottle>,
    /// Budgets whose refusal has been reported and that have not allowed a
    /// retry since, in [`BudgetKind::ALL`] order.
    pub(super) exhausted: Vec<BudgetKind>,
    pub(super) events: VecDeque<BudgetEvent>,
    pub(super) dropped_events: u64,
    /// Tickets issued and not yet ended: a ticket counts once, when its
    /// serial number leaves this list.
    pub(super) tickets: Serials,
}

impl Default for RetryBudget {
    /// The default config: the ratio budget alone, with seed defaults.
    fn default() -> Self {
        Self::new_unchecked(RetryBudgetConfig::default())
    }
}

impl RetryBudget {
    /// Fresh budgets; validates `config` with fields named `budget.*`.
    pub fn new(config: RetryBudgetConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::new_unchecked(config))
    }

    /// Builds from a config already validated (the policy's, checked when
    /// the policy was built): new scopes start so, without cloning a
    /// template (a deep clone that weighs kilobytes in the wasm module).
    pub(crate) fn new_unchecked(config: RetryBudgetConfig) -> Self {
        RetryBudget {
            clamp: MonotonicClamp::new(),
            ratio: config.ratio.map(RatioBudget::new_unchecked),
            run_cap: config.run_cap.map(RunCap::new),
            // Without the `token_buckets` feature both stay off: validation
            // refuses a config that turns them on.
            token_bucket: config
                .token_bucket
                .filter(|_| TOKEN_BUCKETS)
                .map(TokenBucket::new_unchecked),
            grpc: config
                .grpc
                .filter(|_| TOKEN_BUCKETS)
                .map(GrpcThrottle::new_unchecked),
            exhausted: Vec::new(),
            events: VecDeque::new(),
            dropped_events: 0,
            tickets: Serials::default(),
        }
    }

    /// Replaces the settings without forgetting what the budgets have seen:
    /// the ratio window keeps its counts (re-bucketed by the merge rule), the
    /// run cap keeps its usage, the token bucket and the gRPC throttle keep
    /// their fill *fraction* (gRPC core's rule). Newly enabled budgets start
    /// fresh; disabled ones are dropped. On error nothing changes.
    pub fn reconfigure(&mut self, config: RetryBudgetConfig) -> Result<(), ConfigError> {
        config.validate()?;
        self.ratio = match (self.ratio.take(), config.ratio) {
            (Some(mut budget), Some(c)) => {
                budget.reconfigure(c);
                Some(budget)
            }
            (None, Some(c)) => Some(RatioBudget::new_unchecked(c)),
            (_, None) => None,
        };
        self.run_cap = match (self.run_cap.take(), config.run_cap) {
            (Some(mut cap), Some(c)) => {
                cap.reconfigure(c);
                Some(cap)
            }
            (None, Some(c)) => Some(RunCap::new(c)),
            (_, None) => None,
        };
        self.token_bucket = match (
            self.token_bucket.take(),
            config.token_bucket.filter(|_| TOKEN_BUCKETS),
        ) {
            (Some(mut bucket), Some(c)) => {
                bucket.reconfigure(c);
                Some(bucket)
            }
            (None, Some(c)) => Some(TokenBucket::new_unchecked(c)),
            (_, None) => None,
        };
        self.grpc = match (self.grpc.take(), config.grpc.filter(|_| TOKEN_BUCKETS)) {
            (Some(mut throttle), Some(c)) => {
                throttle.reconfigure(c);
                Some(throttle)
            }
            (None, Some(c)) => Some(GrpcThrottle::new_unchecked(c)),
            (_, None) => None,
        };
        let enabled = self.enabled();
        self.exhausted.retain(|kind| enabled.contains(kind));
        Ok(())
    }

    /// The enabled budgets, in [`BudgetKind::ALL`] order.
    #[must_use]
    pub fn enabled(&self) -> Vec<BudgetKind> {
        BudgetKind::ALL
            .into_iter()
            .filter(|kind| match kind {
                BudgetKind::Ratio => self.ratio.is_some(),
                BudgetKind::RunCap => self.run_cap.is_some(),
                BudgetKind::TokenBucket => self.token_bucket().is_some(),
                BudgetKind::Grpc => self.grpc().is_some(),
            })
            .collect()
    }

    /// The ratio budget's window geometry (bucket ms, buckets), if enabled:
    /// what a fleet shares counts in.
    #[must_use]
    pub fn ratio_geometry(&self) -> Option<(u64, u32)> {
        self.ratio.as_ref().map(RatioBudget::geometry)
    }

    /// Gives the ratio budget the fleet's other processes' counts (see
    /// `crate::fleet`).
    pub fn set_fleet_counts(&mut self, remote: Option<(BucketRing, BucketRing)>) {
        if let Some(ratio) = &mut self.ratio {
            ratio.set_remote(remote);
        }
    }

    /// Records the first attempt of an operation (the ratio budget's deposit).
    pub fn on_first_attempt(&mut self, now: Instant) {
        let now = self.clamp.observe(now);
        if let Some(ratio) = &mut self.ratio {
            ratio.on_request(now);
        }
    }

    /// Asks every enabled budget for one retry after a failure of `kind`.
    ///
    /// On success every budget has been charged and the ticket says what the
    /// token bucket took. On refusal nothing is charged, and an
    /// [`BudgetEvent::Exhausted`] is queued for each refusing budget that has
    /// not already reported since it last allowed a retry.
    pub fn try_retry(&mut self, now: Instant, kind: RetryCost) -> Result<RetryTicket, Refusal> {
        // Not recorded yet: a refusal must leave every budget as it was.
        let now = now.max(self.clamp.latest());
        // The ratio budget's answer, charged below as it was given.
        let ratio_grant = self.ratio.as_ref().map(|ratio| ratio.grant(now));
        let verdicts = [
            (BudgetKind::Ratio, ratio_grant.map(Withdrawal::granted)),
            (
                BudgetKind::RunCap,
                self.run_cap.as_ref().map(RunCap::can_withdraw),
            ),
            (
                BudgetKind::TokenBucket,
                self.token_bucket().map(|b| b.can_acquire(kind)),
            ),
            (
                BudgetKind::Grpc,
                self.grpc().map(GrpcThrottle::retry_allowed),
            ),
        ];
        let mut refusal = None;
        for (budget, verdict) in verdicts {
            match verdict {
                Some(false) => {
                    refusal = refusal.or(Some(Refusal { budget }));
                    self.report_exhausted(budget, now);
                }
                Some(true) | None => self.exhausted.retain(|kind| *kind != budget),
            }
        }
        if let Some(refusal) = refusal {
            return Err(refusal);
        }
        let now = self.clamp.observe(now);
        // Every check passed, so every charge below succeeds.
        let floor_slot = match (self.ratio.as_mut(), ratio_grant) {
            (Some(ratio), Some(grant)) => {
                ratio.take(now, grant);
                match grant {
                    Withdrawal::Floor(slot) => Some(slot),
                    Withdrawal::Ratio | Withdrawal::Refused => None,
                }
            }
            _ => None,
        };
        if let Some(cap) = &mut self.run_cap {
            let _charged = cap.try_withdraw();
        }
        let token_cost = self
            .token_bucket_mut()
            .and_then(|bucket| bucket.try_acquire(kind));
        // The gRPC throttle charges failures, not retries.
        Ok(RetryTicket {
            id: self.tickets.issue(),
            token_cost,
            floor_slot,
        })
    }

    /// Ends the retry `ticket` was granted for (its attempt ended, or its
    /// call did): frees the concurrency-floor slot it held. The policy calls
    /// it for every ticket; [`RetryBudget::on_attempt_success`] does too.
    /// Returns `false`, changing nothing, for a ticket that has ended
    /// already or was never issued.
    pub fn release(&mut self, ticket: RetryTicket) -> bool {
        if !self.tickets.take(ticket.id) {
            return false;
        }
        if let (Some(ratio), Some(slot)) = (self.ratio.as_mut(), ticket.floor_slot) {
            ratio.release(slot);
        }
        true
    }

    /// Records a successful attempt. Pass the ticket of the retry that
    /// succeeded, or `None` if it was a first attempt: the token bucket
    /// refunds the ticket's cost, or its `success_refund` without a ticket.
    ///
    /// A ticket that has ended already (or was never issued) makes the call
    /// a no-op: the success it stands for was counted when it first ended.
    pub fn on_attempt_success(&mut self, now: Instant, ticket: Option<RetryTicket>) {
        self.clamp.observe(now);
        if let Some(ticket) = ticket {
            if !self.release(ticket) {
                return;
            }
        }
        if let Some(bucket) = self.token_bucket_mut() {
            bucket.on_success(ticket.and_then(|ticket| ticket.token_cost));
        }
        if let Some(grpc) = self.grpc_mut() {
            grpc.on_success();
        }
    }

    /// Records a failed attempt that counts against the budgets: a retryable
    /// failure (A6: a status in `retryableStatusCodes`, or pushback saying
    /// "don't retry"). Only the gRPC throttle reacts (-1 token); the AWS quota
    /// charges when the retry is taken and refunds nothing on failure.
    pub fn on_attempt_failure(&mut self, now: Instant) {
        self.clamp.observe(now);
        if let Some(grpc) = self.grpc_mut() {
            grpc.on_failure();
        }
    }

    /// The next queued event, oldest first.
    pub fn poll_event(&mut self) -> Option<BudgetEvent> {
        self.events.pop_front()
    }

    /// Events dropped because the host did not poll and the queue was full.
    #[must_use]
    pub const fn dropped_events(&self) -> u64 {
        self.dropped_events
    }

    /// A view of every enabled budget at `now` (not recorded: a read never
    /// changes state).
    #[must_use]
    pub fn status(&self, now: Instant) -> BudgetStatus {
        let now = now.max(self.clamp.latest());
        BudgetStatus {
            ratio: self.ratio.as_ref().map(|ratio| RatioStatus {
                requests: ratio.requests_in_window(now),
                retries: ratio.retries_in_window(now),
                max_retries: ratio.max_retries_in_window(now),
            }),
            run_cap: self.run_cap.as_ref().map(|cap| RunCapStatus {
                used: cap.used(),
                max_retries: cap.config().max_retries,
            }),
            token_bucket: self.token_bucket().map(|bucket| TokenBucketStatus {
                tokens: bucket.available(),
                capacity: bucket.capacity(),
            }),
            grpc: self.grpc().map(|grpc| GrpcStatus {
                milli_tokens: grpc.milli_tokens(),
                max_milli_tokens: grpc.max_milli_tokens(),
                retry_allowed: grpc.retry_allowed(),
            }),
        }
    }

    /// The ratio budget, if on.
    #[must_use]
    pub const fn ratio(&self) -> Option<&RatioBudget> {
        self.ratio.as_ref()
    }

    /// The run cap, if on.
    #[must_use]
    pub const fn run_cap(&self) -> Option<&RunCap> {
        self.run_cap.as_ref()
    }

    /// The token bucket, if on (never, in a build without the
    /// `token_buckets` feature: the check is a constant there, so none of
    /// the bucket's code is built in).
    #[must_use]
    pub const fn token_bucket(&self) -> Option<&TokenBucket> {
        if TOKEN_BUCKETS {
            self.token_bucket.as_ref()
        } else {
            None
        }
    }

    /// The gRPC throttle, if on (never, without the `token_buckets` feature).
    #[must_use]
    pub const fn grpc(&self) -> Option<&GrpcThrottle> {
        if TOKEN_BUCKETS {
            self.grpc.as_ref()
        } else {
            None
        }
    }

    fn token_bucket_mut(&mut self) -> Option<&mut TokenBucket> {
        self.token_bucket.as_mut().filter(|_| TOKEN_BUCKETS)
    }

    fn grpc_mut(&mut self) -> Option<&mut GrpcThrottle> {
        self.grpc.as_mut().filter(|_| TOKEN_BUCKETS)
    }

    /// Queues an exhaustion event for `budget` unless one was queued since it
    /// last allowed a retry.
    fn report_exhausted(&mut self, budget: BudgetKind, at: Instant) {
        if self.exhausted.contains(&budget) {
            return;
        }
        self.exhausted.push(budget);
        crate::sort::sort_by(&mut self.exhausted, |a, b| a.index() < b.index());
        while self.events.len() >= EVENT_QUEUE_CAPACITY {
            self.events.pop_front();
            self.dropped_events = self.dropped_events.saturating_add(1);
        }
        self.events.push_back(BudgetEvent::Exhausted { budget, at });
    }
}

#[cfg(test)]
mod tests;
