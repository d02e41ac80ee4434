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
/// 2. with the gradient, the limit at the peak settles above the server's
///    concurrency, but not at it: more than one above, at most four times;
/// 3. its latency there stays bounded (median within 4x the unloaded
///    median, p99 within 2x), but not near the unloaded latency (median
///    above 1.6x): the gradient's equilibrium keeps a queue;
/// 4. its goodput there is near capacity (at least 85 %), against under
///    5 % without a limiter;
/// 5. (the rule) the min RTT is a median, not the fastest answer: no
///    baseline of the run is below 0.75x the unloaded median;
/// 6. (the rule) but for a server this narrow, re-measurements at up to
///    `min_limit` (3) in flight still include queueing (3 requests on 2
///    workers): the highest baseline is above 1.25x the unloaded median;
/// 7. (the rule) so at half capacity the limit grows past the demand and
///    rejects (almost) nothing (under 1 %);
/// 8. (the rule) near capacity (the phase before the peak) it trades
///    some requests for latency: it rejects some, and its median is below
///    the median without a limiter;
/// 9. (the rule) the limit follows capacity: ten times the workers at
///    half load, the limit settles at least at their number and rejects
///    under 1 %.
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
    let rate_of = |i: usize| p.phases.get(i).map_or(0.0, |ph| ph.rate_per_sec);
    let rate = rate_of(peak);
    let capacity = p.capacity_per_sec();
    let (p50, p99) = unloaded(p);
    let share = |s: &PhaseStats| crate::overload::ratio(s.rejected, s.offered);
    let mut out = Vec::new();

    let claim = format!("without a limiter, latency at {rate:.0}/s grows without bound");
    let bare = of(LimitVariant::None);
    out.push(match bare {
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
    let workers = f64::from(p.workers);
    out.push(Finding::new(
        format!("with the gradient, the limit at {rate:.0}/s settles above the server's concurrency ({}), not at it: more than one above, at most 4x", p.workers),
        gp.mean_limit > workers + 1.0 && gp.mean_limit <= 4.0 * workers,
        format!("mean {:.2}, range {}..{}", gp.mean_limit, gp.limit_range.0, gp.limit_range.1),
    ));
    let (x50, x99) = (gp.latency.p50 / p50, gp.latency.p99 / p99);
    out.push(Finding::new(
        format!("with the gradient, latency at {rate:.0}/s stays bounded (p50 within 4x the unloaded p50, p99 within 2x) but not near the unloaded latency (p50 above 1.6x)"),
        x50 <= 4.0 && x99 <= 2.0 && x50 > 1.6,
        format!(
            "p50 {:.1} ms ({x50:.2}x), p99 {:.1} ms ({x99:.2}x); unloaded p50 {p50:.1} ms, p99 {p99:.1} ms",
            gp.latency.p50, gp.latency.p99
        ),
    ));
    let good = goodput(p, &gp, peak);
    let bare_good = bare.map_or(0.0, |r| goodput(p, &at(r, peak), peak));
    out.push(Finding::new(
        format!("with the gradient, goodput at {rate:.0}/s is near capacity ({capacity:.0}/s)"),
        good >= 0.85 * capacity && bare_good < 0.05 * capacity,
        format!(
            "{good:.1}/s answered within {:.0} ms, against {bare_good:.1}/s without a limiter",
            p.slo_ms
        ),
    ));

    let baselines: Vec<u64> = g
        .ticks
        .iter()
        .map(|t| t.min_rtt_ms)
        .filter(|ms| *ms > 0)
        .collect();
    let lo = baselines.iter().copied().min().unwrap_or(0);
    let hi = baselines.iter().copied().max().unwrap_or(0);
    #[allow(clippy::cast_precision_loss)] // a few ms
    let (lo_ms, hi_ms) = (lo as f64, hi as f64);
    out.push(Finding::new(
        "(rule) the min RTT is a median, not the fastest answer: no baseline below 0.75x the unloaded median",
        !baselines.is_empty() && lo_ms >= 0.75 * p50,
        format!("lowest min RTT {lo} ms against an unloaded median of {p50:.1} ms"),
    ));
    out.push(Finding::new(
        "(rule) for a server this narrow, re-measurements at up to min_limit (3) in flight still include queueing: the highest baseline is above 1.25x the unloaded median",
        hi_ms > 1.25 * p50,
        format!("highest min RTT {hi} ms ({:.2}x)", hi_ms / p50),
    ));
    let first = at(g, 0);
    out.push(Finding::new(
        format!(
            "(rule) at half capacity ({:.0}/s) the limit grows past the demand and rejects under 1 %",
            rate_of(0)
        ),
        share(&first) < 0.01 && first.mean_limit > workers,
        format!(
            "{:.2} % rejected; limit mean {:.2}, range {}..{}",
            share(&first) * 100.0,
            first.mean_limit,
            first.limit_range.0,
            first.limit_range.1
        ),
    ));

    let near = peak.saturating_sub(1);
    let (gn, bn) = (at(g, near), bare.map(|r| at(r, near)).unwrap_or_default());
    out.push(Finding::new(
        format!(
            "(rule) near capacity ({:.0}/s) the limiter trades some requests for latency",
            rate_of(near)
        ),
        gn.rejected > 0 && gn.latency.p50 < bn.latency.p50,
        format!(
            "{:.1} % rejected, p50 {:.1} ms, goodput {:.1}/s; without a limiter p50 {:.1} ms, goodput {:.1}/s",
            share(&gn) * 100.0,
            gn.latency.p50,
            goodput(p, &gn, near),
            bn.latency.p50,
            goodput(p, &bn, near)
        ),
    ));

    let w = at(wide, 0);
    // The limit it settles at (the mean includes the first seconds at the
    // initial limit).
    let settled = wide.ticks.last().map_or(0, |t| t.limit);
    out.push(Finding::new(
        format!("(rule) the limit follows capacity: a server of {wide_workers} workers at half load gets a limit of at least {wide_workers} and rejects under 1 %"),
        settled >= wide_workers && share(&w) < 0.01,
        format!(
            "settles at {settled} (mean {:.2}); {:.2} % of requests rejected",
            w.mean_limit,
            share(&w) * 100.0
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
