//! What the fan-out experiment is expected to show ("The Tail at Scale"),
//! checked on its points.

use crate::fanout_sweep::{find, FanoutPoint};
use crate::finding::Finding;
use crate::hedge_variant::{default_budget_ratio, FanoutVariant};

/// The tail the paper's hedged read reached (74 ms); "cut" means below it
/// rounded up to 100 ms, far below a straggler's 1 s.
pub const CUT_P999_MS: f64 = 100.0;

/// Checks on `points`, whose stragglers take `straggler_ms`:
/// 1. without hedging the tail is the stragglers': p99.9 at a straggler's
///    latency, and most requests wait for one;
/// 2. one hedge after 10 ms costs about the paper's 2 % (1 to 4 %) and
///    leaves at most 2 % of requests waiting for a straggler;
/// 3. but one hedge leaves p99.9 at a straggler: a sub-request whose two
///    copies both straggle (1 in 10,000) hits 1 request in 100;
/// 4. two hedges after 10 ms cut p99.9 below [`CUT_P999_MS`] for at most
///    4 % more load;
/// 5. the 95th-percentile delay keeps the extra load under the default
///    budget's ratio (10 %), one hedge or two.
#[must_use]
pub fn check(points: &[FanoutPoint], straggler_ms: f64) -> Vec<Finding> {
    let get = |v| find(points, v);
    let mut out = Vec::new();

    let claim = "without hedging, stragglers set the tail: p99.9 is a straggler and most requests wait for one";
    out.push(match get(FanoutVariant::None) {
        Some(p) => Finding::new(
            claim,
            p.latency.p999 >= straggler_ms && p.slow_share() > 0.5,
            format!(
                "p99.9 {:.0} ms, {:.1}% of requests >= {straggler_ms:.0} ms",
                p.latency.p999,
                p.slow_share() * 100.0
            ),
        ),
        None => Finding::missing(claim, "no_hedging point"),
    });

    let claim = "one hedge after 10 ms costs about 2% more copies and rescues nearly every request";
    out.push(match get(FanoutVariant::Fixed) {
        Some(p) => Finding::new(
            claim,
            (0.01..=0.04).contains(&p.extra_load()) && p.slow_share() <= 0.02,
            format!(
                "extra load {:.2}%, {:.2}% of requests >= {straggler_ms:.0} ms",
                p.extra_load() * 100.0,
                p.slow_share() * 100.0
            ),
        ),
        None => Finding::missing(claim, "fixed_10ms point"),
    });

    let claim =
        "one hedge leaves p99.9 at a straggler (both copies straggle for ~1% of 100-way requests)";
    out.push(match (get(FanoutVariant::Fixed), get(FanoutVariant::P95)) {
        (Some(fixed), Some(p95)) => Finding::new(
            claim,
            fixed.latency.p999 >= straggler_ms && p95.latency.p999 >= straggler_ms,
            format!(
                "p99.9 {:.0} ms (fixed 10 ms), {:.0} ms (p95)",
                fixed.latency.p999, p95.latency.p999
            ),
        ),
        _ => Finding::missing(claim, "fixed_10ms and p95 points"),
    });

    let claim = format!(
        "two hedges after 10 ms cut p99.9 below {CUT_P999_MS:.0} ms for at most 4% more copies"
    );
    out.push(match get(FanoutVariant::FixedTwice) {
        Some(p) => Finding::new(
            claim,
            p.latency.p999 < CUT_P999_MS && p.extra_load() <= 0.04,
            format!(
                "p99.9 {:.1} ms, extra load {:.2}%",
                p.latency.p999,
                p.extra_load() * 100.0
            ),
        ),
        None => Finding::missing(claim, "fixed_10ms_x2 point"),
    });

    let ratio = default_budget_ratio();
    let claim = format!(
        "the p95 delay keeps the extra load under the budget's {:.0}% (the paper: near 5%)",
        ratio * 100.0
    );
    out.push(
        match (get(FanoutVariant::P95), get(FanoutVariant::P95Twice)) {
            (Some(one), Some(two)) => Finding::new(
                claim,
                one.extra_load() < ratio && two.extra_load() < ratio,
                format!(
                    "{:.2}% (one hedge), {:.2}% (two)",
                    one.extra_load() * 100.0,
                    two.extra_load() * 100.0
                ),
            ),
            _ => Finding::missing(claim, "p95 and p95_x2 points"),
        },
    );
    out
}
