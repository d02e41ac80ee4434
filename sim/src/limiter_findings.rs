//! What the limiter experiment is expected to show (issue 43, item 5 b,
//! Netflix's example), checked on one run per setting.

use crate::finding::Finding;
use crate::limiter::{LimitVariant, LimiterParams, LimiterRun, PhaseStats};

/// The standard normal's 99th percentile.
const Z99: f64 = 2.326_347_874;

/// The server's own latency (no queueing): its median and 99th percentile,
/// ms, from the log-normal's parameters.
#[must_use]
pub fn unloaded(p: &LimiterParams) -> (f64, f64) {
    let mu = p.service_mean_ms.ln() - p.service_sigma * p.service_sigma / 2.0;
    (mu.exp(), (mu + Z99 * p.service_sigma).exp())
}

/// The phase with the highest offered rate (the overload).
#[must_use]
pub fn peak_phase(p: &LimiterParams) -> usize {
    p.phases
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.rate_per_sec.total_cmp(&b.1.rate_per_sec))
        .map_or(0, |(i, _)| i)
}

/// Answers within the SLO per second during phase `i`.
#[must_use]
pub fn goodput(p: &LimiterParams, s: &PhaseStats, i: usize) -> f64 {
    let secs = p.phases.get(i).map_or(1.0, |ph| ph.secs);
    #[allow(clippy::cast_precision_loss)] // counts far below 2^52
    let good = s.good as f64;
    good / secs
}

/// Checks on the runs (`runs[k]` of `variants[k]`), and on `wide`, a run
/// of the default gradient against a server `wide_workers` wide at half
/// its capacity:
/// 1. without a limiter, latency at the peak grows without bound: its
///    median passes 10 s and the next phase's is higher still;
/// 2. with the gradient, the limit at the peak settles near the server's
///    concurrency (within one above it);
/// 3. its latency there stays near the unloaded latency (median within
///    1.6x, p99 within 1.25x);
/// 4. its goodput there is near capacity (at least 85 %), against under
///    5 % without a limiter;
/// 5. (the rule) the gradient sits at its 0.5 floor at every load: the
///    min RTT is the smallest latency ever seen, far below the median
///    sample, so the limit is the same at half capacity as at twice
///    capacity and rejects there too;
/// 6. (the rule) so the limit does not follow the server's capacity: ten
///    times the workers, the same limit.
#[must_use]
pub fn check(
    p: &LimiterParams,
    variants: &[LimitVariant],
    runs: &[LimiterRun],
    wide: &LimiterRun,
    wide_workers: u32,
) -> Vec<Finding> {
    let of = |v: LimitVariant| {
        variants
            .iter()
            .position(|x| *x == v)
            .and_then(|i| runs.get(i))
    };
    let peak = peak_phase(p);
    let at = |r: &LimiterRun, i: usize| r.phases.get(i).cloned().unwrap_or_default();
    let rate = p.phases.get(peak).map_or(0.0, |ph| ph.rate_per_sec);
    let capacity = p.capacity_per_sec();
    let (p50, p99) = unloaded(p);
    let mut out = Vec::new();

    let claim = format!("without a limiter, latency at {rate:.0}/s grows without bound");
    out.push(match of(LimitVariant::None) {
        Some(r) => {
            let (now, next) = (at(r, peak).latency.p50, at(r, peak + 1).latency.p50);
            Finding::new(
                claim,
                now > 10_000.0 && next > now,
                format!(
                    "median {now:.0} ms for requests sent at {rate:.0}/s, {next:.0} ms for the next phase's; last answer at {:.0} s",
                    r.last_answer_ms / 1000.0
                ),
            )
        }
        None => Finding::missing(claim, "run without a limiter"),
    });

    let Some(g) = of(LimitVariant::Gradient) else {
        out.push(Finding::missing("the gradient limiter", "gradient run"));
        return out;
    };
    let gp = at(g, peak);
    out.push(Finding::new(
        format!("with the gradient, the limit at {rate:.0}/s settles near the server's concurrency ({})", p.workers),
        gp.mean_limit >= f64::from(p.workers) && gp.mean_limit <= f64::from(p.workers + 1),
        format!("mean {:.2}, range {}..{}", gp.mean_limit, gp.limit_range.0, gp.limit_range.1),
    ));
    out.push(Finding::new(
        format!("with the gradient, latency at {rate:.0}/s stays near the unloaded latency"),
        gp.latency.p50 <= 1.6 * p50 && gp.latency.p99 <= 1.25 * p99,
        format!(
            "p50 {:.1} ms, p99 {:.1} ms; unloaded p50 {p50:.1} ms, p99 {p99:.1} ms",
            gp.latency.p50, gp.latency.p99
        ),
    ));
    let good = goodput(p, &gp, peak);
    let bare = of(LimitVariant::None).map_or(0.0, |r| goodput(p, &at(r, peak), peak));
    out.push(Finding::new(
        format!("with the gradient, goodput at {rate:.0}/s is near capacity ({capacity:.0}/s)"),
        good >= 0.85 * capacity && bare < 0.05 * capacity,
        format!(
            "{good:.1}/s answered within {:.0} ms, against {bare:.1}/s without a limiter",
            p.slo_ms
        ),
    ));

    let first = at(g, 0);
    let min_rtt = g.ticks.last().map_or(0, |t| t.min_rtt_ms);
    let pinned = g
        .phases
        .iter()
        .skip(1)
        .all(|s| s.limit_range == gp.limit_range);
    out.push(Finding::new(
        "(rule) the gradient sits at its 0.5 floor at every load: the same limit at half capacity, which then rejects",
        pinned && first.rejected > 0 && min_rtt as f64 * 1.25 < 0.5 * p50,
        format!(
            "min RTT {min_rtt} ms against a median of {p50:.1} ms; limit {:.2} at {:.0}/s and {:.2} at {rate:.0}/s; {:.1} % rejected at {:.0}/s",
            first.mean_limit,
            p.phases.first().map_or(0.0, |ph| ph.rate_per_sec),
            gp.mean_limit,
            crate::overload::ratio(first.rejected, first.offered) * 100.0,
            p.phases.first().map_or(0.0, |ph| ph.rate_per_sec),
        ),
    ));

    let w = at(wide, 0);
    let share = crate::overload::ratio(w.rejected, w.offered);
    // The limit it settles at (the mean includes the first seconds at the
    // initial limit).
    let settled = wide.ticks.last().map_or(0, |t| t.limit);
    out.push(Finding::new(
        format!("(rule) the limit does not follow capacity: a server of {wide_workers} workers at half load gets the same limit"),
        settled <= gp.limit_range.1 && share > 0.5,
        format!(
            "settles at {settled} (mean {:.2}); {:.1} % of requests rejected at half the server's capacity",
            w.mean_limit,
            share * 100.0
        ),
    ));
    out
}

/// The wide server's parameters: `workers` times `p`'s, half loaded for
/// `secs` seconds.
#[must_use]
pub fn wide(p: &LimiterParams, workers: u32, secs: f64) -> LimiterParams {
    let capacity = f64::from(workers) * 1000.0 / p.service_mean_ms;
    LimiterParams {
        workers,
        phases: vec![crate::limiter::Phase {
            rate_per_sec: capacity / 2.0,
            secs,
        }],
        ..p.clone()
    }
}
