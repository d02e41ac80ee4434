//! What the saturation experiment is expected to show, checked on its
//! points.

use crate::finding::Finding;
use crate::hedge_variant::{default_budget_ratio, SaturationVariant};
use crate::saturation_sweep::{find, SaturationPoint};

/// Load the budgeted setting may add beyond its ratio: the ratio budget's
/// concurrency floor (3 hedges outstanding whatever the ratio) lets hedges
/// that end quickly through beyond the ratio, up to 7.5 % of first
/// attempts at 80 % load here (a one-off run with the floor set to 0
/// stayed at 1.100x).
pub const FLOOR_SLACK: f64 = 0.1;

/// Checks on `points`, `saturated` being the highest load swept (percent)
/// and `light` a load with headroom:
/// 1. at `saturated`, unbudgeted hedging sends nearly 2 copies a call (at
///    least 1.8) and its p99 is worse than no hedging's;
/// 2. the budget holds the load within 1 + its ratio + [`FLOOR_SLACK`] at
///    every load;
/// 3. at `saturated`, the budgeted p99 is under a third of the unbudgeted;
/// 4. at `light` load, budgeted hedging costs no more than 25 % on p99;
/// 5. at `saturated`, budgeted hedging is still worse than none: a hedge
///    joins the queue behind its own first copy and cannot win there, so
///    its 10 % is pure extra load on a full queue (the issue expected "no
///    worse than none"; this model says otherwise).
#[must_use]
pub fn check(points: &[SaturationPoint], saturated: u32, light: u32) -> Vec<Finding> {
    use SaturationVariant::{Budgeted, None as Plain, Unbudgeted};
    let p99 = |v, l| find(points, v, l).map(|p| p.latency.p99);
    let mut out = Vec::new();

    let claim =
        format!("at {saturated}% load, unbudgeted hedging nearly doubles the load and worsens p99");
    out.push(
        match (find(points, Unbudgeted, saturated), p99(Plain, saturated)) {
            (Some(u), Some(none)) => Finding::new(
                claim,
                u.load() >= 1.8 && u.latency.p99 > none,
                format!(
                    "{:.2} copies per call, p99 {:.0} ms vs {:.0} ms without hedging",
                    u.load(),
                    u.latency.p99,
                    none
                ),
            ),
            _ => Finding::missing(claim, "saturated point for unbudgeted and no hedging"),
        },
    );

    let ceiling = 1.0 + default_budget_ratio() + FLOOR_SLACK;
    let claim = format!("the ratio budget keeps the load within {ceiling:.2}x at every load");
    let budgeted: Vec<&SaturationPoint> = points.iter().filter(|p| p.variant == Budgeted).collect();
    out.push(if budgeted.is_empty() {
        Finding::missing(claim, "budgeted point")
    } else {
        let worst = budgeted
            .iter()
            .max_by(|a, b| a.load().total_cmp(&b.load()))
            .map_or((0.0, 0), |p| (p.load(), p.load_percent));
        Finding::new(
            claim,
            worst.0 <= ceiling,
            format!("highest {:.3}x, at {}% load", worst.0, worst.1),
        )
    });

    let claim =
        format!("at {saturated}% load, the budget keeps p99 far below unbudgeted hedging's");
    out.push(
        match (p99(Budgeted, saturated), p99(Unbudgeted, saturated)) {
            (Some(b), Some(u)) => {
                Finding::new(claim, b * 3.0 < u, format!("{b:.0} ms vs {u:.0} ms"))
            }
            _ => Finding::missing(claim, "saturated point for both hedging settings"),
        },
    );

    let claim = format!("at {light}% load, budgeted hedging costs at most 25% on p99");
    out.push(match (p99(Budgeted, light), p99(Plain, light)) {
        (Some(b), Some(none)) => Finding::new(
            claim,
            b <= none * 1.25,
            format!("{b:.1} ms vs {none:.1} ms without hedging"),
        ),
        _ => Finding::missing(claim, "light point for budgeted and no hedging"),
    });

    let claim = format!("at {saturated}% load, budgeted hedging is still worse than none (hedges cannot win in one queue)");
    out.push(match (p99(Budgeted, saturated), p99(Plain, saturated)) {
        (Some(b), Some(none)) => {
            Finding::new(claim, b > none, format!("p99 {b:.0} ms vs {none:.0} ms"))
        }
        _ => Finding::missing(claim, "saturated point for budgeted and no hedging"),
    });
    out
}
