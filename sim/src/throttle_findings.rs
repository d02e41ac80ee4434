//! What the throttle experiment is expected to show (issue 43, item 5 a),
//! checked on one run with the throttle and one without.

use crate::finding::Finding;
use crate::throttle::{RampParams, Second, Span};

/// The SRE book's `K`, stoic's default.
pub const K: f64 = 2.0;

/// How far, in points of probability, measured rejection may sit from the
/// formula: "within a few percent".
pub const TOLERANCE: f64 = 0.03;

/// Seconds at the end of the hold the steady state is judged on: the
/// throttle's window (120 s) then holds only the hold's seconds.
pub const STEADY_SECS: f64 = 60.0;

/// The span of the hold's last [`STEADY_SECS`].
#[must_use]
pub fn steady_span(p: &RampParams, seconds: &[Second]) -> Span {
    let (_, end) = p.hold();
    let start = (end - STEADY_SECS).max(0.0);
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // minutes
    Span::of(seconds, start as usize, end as usize)
}

/// The highest 10-second mean of requests sent per second.
#[must_use]
pub fn peak_sent(seconds: &[Second]) -> (f64, usize) {
    (0..seconds.len().saturating_sub(9))
        .step_by(10)
        .map(|from| {
            let s = Span::of(seconds, from, from + 10);
            (s.rate(s.sum.sent), from)
        })
        .fold((0.0, 0), |best, x| if x.0 > best.0 { x } else { best })
}

/// The first and last seconds with a local rejection.
#[must_use]
pub fn rejecting(seconds: &[Second]) -> Option<(usize, usize)> {
    let first = seconds.iter().position(|s| s.throttled > 0)?;
    let last = seconds.iter().rposition(|s| s.throttled > 0)?;
    Some((first, last))
}

/// Checks on a run `with` the throttle and one `without`:
/// 1. at the hold's steady state, local rejection is within
///    [`TOLERANCE`] of the formula on that span's own counts;
/// 2. there the server receives about `K` times its capacity (within
///    0.15), against the whole demand without the throttle;
/// 3. the throttle rejects nothing before demand passes `K` times
///    capacity (the formula is 0 below);
/// 4. it stops rejecting by the time demand falls back to capacity (at
///    most 10 s later), and costs no accepted requests (at least 99 % of
///    those accepted without it).
#[must_use]
pub fn check(p: &RampParams, with: &[Second], without: &[Second]) -> Vec<Finding> {
    let capacity = f64::from(p.capacity_per_sec);
    let steady = steady_span(p, with);
    let mut out = Vec::new();

    let (measured, formula) = (steady.rejected(), steady.steady_formula(K));
    out.push(Finding::new(
        format!(
            "at {:.0}x demand, local rejection is within {:.0} points of max(0, (requests - {K}*accepts)/(requests + 1))",
            p.high_x,
            TOLERANCE * 100.0
        ),
        (measured - formula).abs() <= TOLERANCE,
        format!(
            "{:.1} % rejected vs {:.1} % by the formula, seconds {}..{}",
            measured * 100.0,
            formula * 100.0,
            steady.from,
            steady.to
        ),
    ));

    let bare = steady_span(p, without);
    let load = steady.rate(steady.sum.sent) / capacity;
    let bare_load = bare.rate(bare.sum.sent) / capacity;
    let (peak, peak_at) = peak_sent(with);
    out.push(Finding::new(
        format!("at {:.0}x demand, the throttle holds the server's load near {K}x its capacity", p.high_x),
        (load - K).abs() <= 0.15 && bare_load > load,
        format!(
            "{load:.2}x with the throttle, {bare_load:.2}x without; peak 10 s mean {:.2}x at {peak_at} s, while the window still held the ramp",
            peak / capacity
        ),
    ));

    let reach = p.lead_secs + p.ramp_secs * (K - p.low_x) / (p.high_x - p.low_x);
    let span = rejecting(with);
    out.push(Finding::new(
        format!("no request is rejected locally before demand passes {K}x capacity"),
        span.is_some_and(|(first, _)| secs(first) >= reach),
        match span {
            Some((first, _)) => {
                format!("first rejection at {first} s; demand reached {K}x at {reach:.0} s")
            }
            None => "no rejection at all".to_owned(),
        },
    ));

    let back = p.down_to(1.0);
    let all = Span::of(with, 0, with.len());
    let bare_all = Span::of(without, 0, without.len());
    let kept = crate::overload::ratio(all.sum.accepted, bare_all.sum.accepted);
    out.push(Finding::new(
        "the throttle stops rejecting by the time demand is back to capacity, and costs no accepted requests",
        span.is_some_and(|(_, last)| secs(last) <= back + 10.0) && kept >= 0.99,
        format!(
            "last rejection at {} s, demand back to 1x at {back:.0} s (to {K}x at {:.0} s); accepted {} with, {} without ({:.1} %)",
            span.map_or(0, |s| s.1),
            p.down_to(K),
            all.sum.accepted,
            bare_all.sum.accepted,
            kept * 100.0
        ),
    ));
    out
}

/// A second's index as a time.
#[allow(clippy::cast_precision_loss)] // minutes
const fn secs(index: usize) -> f64 {
    index as f64
}
