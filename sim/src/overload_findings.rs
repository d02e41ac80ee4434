//! What the overload sweep is expected to show, checked on its points.

use crate::finding::Finding;
use crate::overload_sweep::{find, OverloadPoint};
use crate::overload_variant::{Variant, RETRY_ATTEMPTS};

/// Amplification a budget may allow at total failure to count as "far
/// below" plain retries: a quarter of the way from 1 to N + 1 attempts.
#[must_use]
pub fn budget_ceiling() -> f64 {
    1.0 + f64::from(RETRY_ATTEMPTS - 1) / 4.0
}

/// Checks on `points`:
/// 1. at 100 % failure plain retries send every attempt they may (amplification
///    within 1 % of the attempt limit) while both budgets stay under
///    [`budget_ceiling`];
/// 2. at 0 % failure no policy adds load (amplification 1.00);
/// 3. at `moderate` % failure, retries raise goodput over no retries: the
///    reason to retry at all.
#[must_use]
pub fn check(points: &[OverloadPoint], moderate: u32) -> Vec<Finding> {
    let mut out = Vec::new();
    let limit = f64::from(RETRY_ATTEMPTS);
    let ceiling = budget_ceiling();

    let claim = format!(
        "at 100% failure, budgets keep amplification below {ceiling:.1}x while plain retries reach {limit:.0}x"
    );
    let get = |v, f| find(points, v, f).map(OverloadPoint::amplification);
    out.push(
        match (
            get(Variant::Retries, 100),
            get(Variant::RatioBudget, 100),
            get(Variant::TokenBucket, 100),
        ) {
            (Some(plain), Some(ratio), Some(bucket)) => Finding::new(
                claim,
                plain > limit * 0.99 && ratio < ceiling && bucket < ceiling,
                format!("retries {plain:.2}x, ratio budget {ratio:.2}x, token bucket {bucket:.2}x"),
            ),
            _ => Finding::missing(claim, "100% point for retries and both budgets"),
        },
    );

    let claim = "at 0% failure, no policy adds load";
    let healthy: Vec<&OverloadPoint> = points.iter().filter(|p| p.failure_percent == 0).collect();
    out.push(if healthy.is_empty() {
        Finding::missing(claim, "0% point")
    } else {
        let worst = healthy
            .iter()
            .map(|p| p.amplification())
            .fold(0.0, f64::max);
        Finding::new(
            claim,
            worst <= 1.0,
            format!("highest amplification {worst:.3}x"),
        )
    });

    let claim = format!("at {moderate}% failure, retries raise goodput over no retries");
    let good = |v| find(points, v, moderate).map(OverloadPoint::goodput);
    out.push(match (good(Variant::Retries), good(Variant::NoRetries)) {
        (Some(retries), Some(none)) => Finding::new(
            claim,
            retries > none,
            format!("{:.1}% vs {:.1}%", retries * 100.0, none * 100.0),
        ),
        _ => Finding::missing(claim, "moderate point for retries and no retries"),
    });
    out
}
