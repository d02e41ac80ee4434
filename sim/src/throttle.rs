//! The throttle model: demand ramping from 0.5x to 3x a server's capacity
//! and back, with and without stoic's client-side [`Throttle`] (issue 43,
//! item 5 a).
//!
//! - The server accepts `capacity_per_sec` (100) requests per one-second
//!   slot and answers 503 to the rest, after `latency_ms` (20 ms) either
//!   way: a capacity that rejects the excess, as a load-shedding server
//!   does.
//! - One client's demand is a Poisson process whose rate follows
//!   [`RampParams::demand_x`]: 0.5x capacity, a linear ramp to 3x, a hold,
//!   a ramp back to 0.5x, a tail. Every request is a first attempt (no
//!   retries: the throttle alone).
//! - With the throttle, each request asks `try_admit` first; a local
//!   rejection is not sent. Each answer is reported with `on_outcome`: a
//!   success is accepted, a 503 is not.
//!
//! Per second it counts demand, local rejections, requests sent and
//! accepted, and the rejection probability the throttle drew against.

use stoic_core::classify::Class;
use stoic_core::load_control::{Throttle, ThrottleConfig};
use stoic_core::Instant;

use crate::normal::Normal;
use crate::queue::EventQueue;

/// The model's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RampParams {
    /// Requests the server accepts per one-second slot.
    pub capacity_per_sec: u32,
    /// Time to an answer, accepted or not, ms.
    pub latency_ms: f64,
    /// Demand at the start and the end, times capacity.
    pub low_x: f64,
    /// Demand at the top, times capacity.
    pub high_x: f64,
    /// Seconds at `low_x` before the ramp.
    pub lead_secs: f64,
    /// Seconds of each ramp (up, then down).
    pub ramp_secs: f64,
    /// Seconds at `high_x`.
    pub hold_secs: f64,
    /// Seconds at `low_x` after the ramp down.
    pub tail_secs: f64,
}

impl Default for RampParams {
    /// 100 requests/s of capacity; 0.5x for a minute, up to 3x over three
    /// minutes, 3x for three minutes (longer than the throttle's 2-minute
    /// window, so it reaches its steady state), down over three minutes,
    /// 0.5x for three minutes.
    fn default() -> Self {
        RampParams {
            capacity_per_sec: 100,
            latency_ms: 20.0,
            low_x: 0.5,
            high_x: 3.0,
            lead_secs: 60.0,
            ramp_secs: 180.0,
            hold_secs: 180.0,
            tail_secs: 180.0,
        }
    }
}

impl RampParams {
    /// Seconds of demand in all.
    #[must_use]
    pub fn total_secs(&self) -> f64 {
        self.lead_secs + 2.0 * self.ramp_secs + self.hold_secs + self.tail_secs
    }

    /// Demand at `secs`, times capacity.
    #[must_use]
    pub fn demand_x(&self, secs: f64) -> f64 {
        let up = self.lead_secs;
        let top = up + self.ramp_secs;
        let down = top + self.hold_secs;
        let bottom = down + self.ramp_secs;
        let span = self.high_x - self.low_x;
        if secs < up || secs >= bottom {
            self.low_x
        } else if secs < top {
            self.low_x + span * (secs - up) / self.ramp_secs
        } else if secs < down {
            self.high_x
        } else {
            self.high_x - span * (secs - down) / self.ramp_secs
        }
    }

    /// When the hold at the top starts and ends, seconds.
    #[must_use]
    pub fn hold(&self) -> (f64, f64) {
        let start = self.lead_secs + self.ramp_secs;
        (start, start + self.hold_secs)
    }

    /// When demand, ramping down, falls back to `x` times capacity, seconds.
    #[must_use]
    pub fn down_to(&self, x: f64) -> f64 {
        let (_, down) = self.hold();
        let share = ((self.high_x - x) / (self.high_x - self.low_x)).clamp(0.0, 1.0);
        down + share * self.ramp_secs
    }
}

/// One second of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Second {
    /// Requests the client wanted to make.
    pub demand: u64,
    /// Of them, rejected locally by the throttle.
    pub throttled: u64,
    /// Requests sent to the server.
    pub sent: u64,
    /// Requests the server accepted (those sent this second).
    pub accepted: u64,
    /// The rejection probabilities drawn against, summed, in parts per
    /// million (divide by `demand` for the mean).
    pub probability_ppm_sum: u64,
}

/// What happens next in the model.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// A candidate arrival (thinned to the demand at its time).
    Arrival,
    /// The answer to a request: accepted or refused (503).
    Answer { ok: bool },
}

/// Runs the ramp once, with the throttle or without; a pure function of
/// its arguments and `seed`.
///
/// # Panics
/// If stoic's default throttle config were invalid.
#[must_use]
pub fn run(params: &RampParams, throttled: bool, seed: u64) -> Vec<Second> {
    let mut master = stoic_core::rng::SplitMix64::new(seed);
    // Drawn with or without the throttle, so both see the same demand.
    let throttle_seed = master.next_u64();
    #[allow(clippy::expect_used)] // stoic's defaults are valid
    let mut throttle = throttled
        .then(|| Throttle::new(ThrottleConfig::default(), throttle_seed).expect("defaults"));
    let mut draw = Normal::new(master.next_u64());
    let p = params;
    let capacity = f64::from(p.capacity_per_sec);
    let top_rate = p.high_x.max(p.low_x) * capacity;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // minutes
    let mut seconds = vec![Second::default(); p.total_secs().ceil() as usize];
    let mut events = EventQueue::with_capacity(1024);
    let mut slot = (usize::MAX, 0_u32);
    events.push(draw.exponential(1000.0 / top_rate), Step::Arrival);

    while let Some((now, step)) = events.pop() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // ms >= 0
        let at = Instant::from_millis(now as u64);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let second = (now / 1000.0) as usize;
        match step {
            Step::Arrival => {
                let next = now + draw.exponential(1000.0 / top_rate);
                if next < p.total_secs() * 1000.0 {
                    events.push(next, Step::Arrival);
                }
                // Thinning: a candidate at the top rate is a request with
                // probability demand / top, a Poisson process of that rate.
                if draw.uniform() * top_rate >= p.demand_x(now / 1000.0) * capacity {
                    continue;
                }
                let Some(s) = seconds.get_mut(second) else {
                    continue;
                };
                s.demand += 1;
                if let Some(t) = throttle.as_mut() {
                    s.probability_ppm_sum += t.status(at).rejection_ppm;
                    if t.try_admit(at).is_err() {
                        s.throttled += 1;
                        continue;
                    }
                }
                s.sent += 1;
                if slot.0 != second {
                    slot = (second, 0);
                }
                slot.1 += 1;
                let ok = slot.1 <= p.capacity_per_sec;
                s.accepted += u64::from(ok);
                events.push(now + p.latency_ms, Step::Answer { ok });
            }
            Step::Answer { ok } => {
                if let Some(t) = throttle.as_mut() {
                    let class = if ok { Class::Success } else { Class::Transient };
                    t.on_outcome(at, class);
                }
            }
        }
    }
    seconds
}

/// Seconds summed over a span.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Span {
    /// First second, inclusive.
    pub from: usize,
    /// Last second, exclusive.
    pub to: usize,
    /// The counts, summed.
    pub sum: Second,
}

impl Span {
    /// Seconds `from..to` of `seconds` (clipped to the run).
    #[must_use]
    pub fn of(seconds: &[Second], from: usize, to: usize) -> Span {
        let to = to.min(seconds.len());
        let from = from.min(to);
        let sum = seconds[from..to]
            .iter()
            .fold(Second::default(), |a, s| Second {
                demand: a.demand + s.demand,
                throttled: a.throttled + s.throttled,
                sent: a.sent + s.sent,
                accepted: a.accepted + s.accepted,
                probability_ppm_sum: a.probability_ppm_sum + s.probability_ppm_sum,
            });
        Span { from, to, sum }
    }

    /// Per second, over the span.
    #[must_use]
    pub fn rate(&self, count: u64) -> f64 {
        crate::overload::ratio(count, (self.to - self.from) as u64)
    }

    /// The share of demand rejected locally.
    #[must_use]
    pub fn rejected(&self) -> f64 {
        crate::overload::ratio(self.sum.throttled, self.sum.demand)
    }

    /// The mean probability the throttle drew against (its window's
    /// formula at each request).
    #[must_use]
    pub fn window_formula(&self) -> f64 {
        crate::overload::ratio(self.sum.probability_ppm_sum, self.sum.demand) / 1e6
    }

    /// The SRE book's formula on this span's own counts,
    /// `max(0, (requests - k * accepts) / (requests + 1))`: what the
    /// throttle converges to once its window holds only such seconds.
    #[must_use]
    pub fn steady_formula(&self, k: f64) -> f64 {
        #[allow(clippy::cast_precision_loss)] // counts far below 2^52
        let (r, a) = (self.sum.demand as f64, self.sum.accepted as f64);
        ((r - k * a) / (r + 1.0)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demand_follows_the_ramp() {
        let p = RampParams::default();
        assert!((p.demand_x(0.0) - 0.5).abs() < 1e-12);
        assert!((p.demand_x(150.0) - 1.75).abs() < 1e-12);
        assert!((p.demand_x(300.0) - 3.0).abs() < 1e-12);
        assert!((p.demand_x(p.down_to(1.0)) - 1.0).abs() < 1e-9);
        assert!((p.demand_x(p.total_secs() - 1.0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn without_the_throttle_everything_is_sent_and_the_excess_refused() {
        let p = RampParams::default();
        let s = run(&p, false, 1);
        let (start, end) = p.hold();
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let hold = &s[start as usize..end as usize];
        for sec in hold {
            assert_eq!(sec.throttled, 0);
            assert_eq!(sec.sent, sec.demand);
            assert!(sec.accepted <= 100);
        }
        let demand: u64 = hold.iter().map(|x| x.demand).sum();
        #[allow(clippy::cast_precision_loss)]
        let rate = demand as f64 / hold.len() as f64;
        assert!((rate - 300.0).abs() < 10.0, "{rate}");
    }

    #[test]
    fn runs_are_reproducible() {
        let p = RampParams {
            hold_secs: 10.0,
            ..RampParams::default()
        };
        assert_eq!(run(&p, true, 3), run(&p, true, 3));
        assert_ne!(run(&p, true, 3), run(&p, true, 4));
    }
}
