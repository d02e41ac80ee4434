//! The published findings of the contention model, checked on a sweep.

use stoic_core::backoff::Strategy;

use crate::contention_sweep::{find, ContentionPoint};
use crate::finding::{line_fit, Finding};

/// The client count the post quotes its headline comparison at.
pub const HEADLINE_CLIENTS: u32 = 100;

/// Checks the post's findings on `points`, comparing strategies at `at`
/// clients (the post uses 100):
/// 1. full jitter needs less than half the calls of un-jittered exponential;
/// 2. equal jitter takes the longest among the jittered strategies;
/// 3. without backoff, time grows linearly with the client count N (a line
///    fits it with R² >= 0.99) and work quadratically (the calls per client
///    grow linearly: a line fits calls / N with R² >= 0.99 and a positive
///    slope, so calls ~ slope * N²);
/// 4. un-jittered exponential takes longer than full jitter;
/// 5. full jitter does the least work of all.
#[must_use]
pub fn check(points: &[ContentionPoint], at: u32) -> Vec<Finding> {
    let get = |s| find(points, s, at);
    let mut out = Vec::new();

    let claim = format!("full jitter cuts calls by more than half vs exponential at {at} clients");
    out.push(
        match (get(Strategy::FullJitter), get(Strategy::Exponential)) {
            (Some(full), Some(expo)) => Finding::new(
                claim,
                full.mean_calls < expo.mean_calls / 2.0,
                format!("{:.0} vs {:.0} calls", full.mean_calls, expo.mean_calls),
            ),
            _ => Finding::missing(claim, "full or exponential point"),
        },
    );

    let claim = format!("equal jitter takes the longest among jittered strategies at {at} clients");
    let jittered = [
        Strategy::FullJitter,
        Strategy::EqualJitter,
        Strategy::DecorrelatedJitter,
    ];
    let times: Option<Vec<(Strategy, f64)>> = jittered
        .iter()
        .map(|s| get(*s).map(|p| (*s, p.mean_completion_ms)))
        .collect();
    out.push(match times {
        Some(times) => {
            let equal = times
                .iter()
                .find(|t| t.0 == Strategy::EqualJitter)
                .map_or(0.0, |t| t.1);
            let holds = times
                .iter()
                .all(|t| t.0 == Strategy::EqualJitter || t.1 < equal);
            let measured = times
                .iter()
                .map(|(s, t)| format!("{} {t:.0} ms", s.code()))
                .collect::<Vec<_>>()
                .join(", ");
            Finding::new(claim, holds, measured)
        }
        None => Finding::missing(claim, "jittered point"),
    });

    let none: Vec<&ContentionPoint> = points
        .iter()
        .filter(|p| p.strategy == Strategy::None)
        .collect();
    let series = |f: fn(&ContentionPoint) -> f64| -> Vec<(f64, f64)> {
        none.iter().map(|p| (f64::from(p.clients), f(p))).collect()
    };
    let claim = "without backoff, time grows linearly and work quadratically with clients";
    let time = line_fit(&series(|p| p.mean_completion_ms));
    let per_client = line_fit(&series(|p| p.mean_calls / f64::from(p.clients.max(1))));
    out.push(match (time, per_client) {
        (Some(t), Some(w)) => Finding::new(
            claim,
            t.r2 >= 0.99 && t.slope > 0.0 && w.r2 >= 0.99 && w.slope > 0.0,
            format!(
                "time = {:.0} + {:.1}*N ms (R2 {:.3}), calls = ({:.2} + {:.3}*N)*N (R2 {:.3})",
                t.intercept, t.slope, t.r2, w.intercept, w.slope, w.r2
            ),
        ),
        _ => Finding::missing(claim, "two client counts without backoff"),
    });

    let claim = format!("un-jittered exponential takes longer than full jitter at {at} clients");
    out.push(
        match (get(Strategy::Exponential), get(Strategy::FullJitter)) {
            (Some(expo), Some(full)) => Finding::new(
                claim,
                expo.mean_completion_ms > full.mean_completion_ms,
                format!(
                    "{:.0} vs {:.0} ms",
                    expo.mean_completion_ms, full.mean_completion_ms
                ),
            ),
            _ => Finding::missing(claim, "full or exponential point"),
        },
    );

    let claim = format!("full jitter does the least work at {at} clients");
    let at_n: Vec<&ContentionPoint> = points.iter().filter(|p| p.clients == at).collect();
    out.push(match get(Strategy::FullJitter) {
        Some(full) => {
            let least = at_n.iter().all(|p| p.mean_calls >= full.mean_calls);
            let measured = at_n
                .iter()
                .map(|p| format!("{} {:.0}", p.strategy.code(), p.mean_calls))
                .collect::<Vec<_>>()
                .join(", ");
            Finding::new(claim, least, measured)
        }
        None => Finding::missing(claim, "full jitter point"),
    });
    out
}
