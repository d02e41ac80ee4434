//! The limiter experiment's outputs: a table per setting and phase, the
//! issue's expectations next to the measured numbers, a CSV of every
//! second, and charts of the limit and of latency against time.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;

use crate::chart::{Chart, Series};
use crate::limiter::{LimitVariant, LimiterParams, LimiterRun};
use crate::limiter_findings::{goodput, peak_phase, unloaded};
use crate::table::Table;

/// One row per (setting, phase).
#[must_use]
pub fn table(p: &LimiterParams, variants: &[LimitVariant], runs: &[LimiterRun]) -> Table {
    let mut t = Table::new([
        "setting",
        "offered/s",
        "load_x",
        "offered",
        "rejected %",
        "answered/s",
        "goodput/s",
        "p50 ms",
        "p99 ms",
        "mean limit",
        "limit range",
        "in server",
    ]);
    let capacity = p.capacity_per_sec();
    for (v, r) in variants.iter().zip(runs) {
        for (i, (ph, s)) in p.phases.iter().zip(&r.phases).enumerate() {
            #[allow(clippy::cast_precision_loss)] // counts far below 2^52
            let answered = s.answered as f64 / ph.secs;
            let limited = *v != LimitVariant::None;
            t.push(vec![
                v.code().to_owned(),
                format!("{:.0}", ph.rate_per_sec),
                format!("{:.2}", ph.rate_per_sec / capacity),
                s.offered.to_string(),
                format!(
                    "{:.1}",
                    crate::overload::ratio(s.rejected, s.offered) * 100.0
                ),
                format!("{answered:.1}"),
                format!("{:.1}", goodput(p, s, i)),
                format!("{:.1}", s.latency.p50),
                format!("{:.1}", s.latency.p99),
                if limited {
                    format!("{:.2}", s.mean_limit)
                } else {
                    "-".to_owned()
                },
                if limited {
                    format!("{}..{}", s.limit_range.0, s.limit_range.1)
                } else {
                    "-".to_owned()
                },
                format!("{:.1}", s.mean_in_server),
            ]);
        }
    }
    t
}

/// The expectations at the peak, next to each setting's numbers.
#[must_use]
pub fn expectations(p: &LimiterParams, variants: &[LimitVariant], runs: &[LimiterRun]) -> Table {
    let peak = peak_phase(p);
    let (p50, p99) = unloaded(p);
    let rate = p.phases.get(peak).map_or(0.0, |ph| ph.rate_per_sec);
    let mut headers = vec![format!("at {rate:.0}/s"), "issue expects".to_owned()];
    headers.extend(variants.iter().map(|v| v.code().to_owned()));
    let mut t = Table::new(headers);
    let mut row =
        |what: &str, expect: String, cell: &dyn Fn(LimitVariant, &LimiterRun) -> String| {
            let mut r = vec![what.to_owned(), expect];
            r.extend(variants.iter().zip(runs).map(|(v, run)| cell(*v, run)));
            t.push(r);
        };
    let at = |r: &LimiterRun| r.phases.get(peak).cloned().unwrap_or_default();
    row(
        "limit",
        format!("near capacity ({})", p.workers),
        &|v, r| {
            if v == LimitVariant::None {
                "-".to_owned()
            } else {
                format!("{:.2}", at(r).mean_limit)
            }
        },
    );
    row("p50 ms", format!("near unloaded ({p50:.1})"), &|_, r| {
        format!("{:.1}", at(r).latency.p50)
    });
    row("p99 ms", format!("near unloaded ({p99:.1})"), &|_, r| {
        format!("{:.1}", at(r).latency.p99)
    });
    row(
        "goodput/s",
        format!("near capacity ({:.0})", p.capacity_per_sec()),
        &|_, r| format!("{:.1}", goodput(p, &at(r), peak)),
    );
    row(
        "latency without limiter",
        "grows without bound".to_owned(),
        &|v, r| {
            if v == LimitVariant::None {
                let next = r.phases.get(peak + 1).map_or(0.0, |s| s.latency.p50);
                format!(
                    "p50 {:.0} s, then {:.0} s",
                    at(r).latency.p50 / 1000.0,
                    next / 1000.0
                )
            } else {
                "-".to_owned()
            }
        },
    );
    t
}

/// Every second of every run, for `load_limiter.csv`.
fn seconds(variants: &[LimitVariant], runs: &[LimiterRun]) -> Table {
    let mut t = Table::new([
        "setting",
        "t_s",
        "limit",
        "min_rtt_ms",
        "in_server",
        "mean_latency_ms",
    ]);
    for (v, r) in variants.iter().zip(runs) {
        for tick in &r.ticks {
            t.push(vec![
                v.code().to_owned(),
                format!("{:.0}", tick.secs),
                tick.limit.to_string(),
                tick.min_rtt_ms.to_string(),
                tick.in_server.to_string(),
                format!("{:.1}", tick.mean_latency_ms),
            ]);
        }
    }
    t
}

/// Writes `load_limiter.csv`, `load_limiter_phases.csv`, and the charts
/// `load_limiter_limit` and `load_limiter_latency` (`.svg`, `.png`) into
/// `dir`; charts only if `charts`.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write(
    dir: &Path,
    p: &LimiterParams,
    variants: &[LimitVariant],
    runs: &[LimiterRun],
    charts: bool,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (name, table) in [
        ("load_limiter.csv", seconds(variants, runs)),
        ("load_limiter_phases.csv", table(p, variants, runs)),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, table.to_csv()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if !charts {
        return Ok(());
    }
    let series = |f: &dyn Fn(&crate::limiter::Tick) -> f64, skip_none: bool| -> Vec<Series> {
        variants
            .iter()
            .zip(runs)
            .filter(|(v, _)| !(skip_none && **v == LimitVariant::None))
            .map(|(v, r)| Series {
                label: v.code().to_owned(),
                points: r
                    .ticks
                    .iter()
                    .map(|t| (t.secs, f(t)))
                    .filter(|pt| pt.1 > 0.0)
                    .collect(),
            })
            .collect()
    };
    let mut limits = series(&|t| f64::from(t.limit), true);
    limits.push(Series {
        label: "server concurrency".to_owned(),
        points: vec![
            (0.0, f64::from(p.workers)),
            (p.duration_ms() / 1000.0, f64::from(p.workers)),
        ],
    });
    Chart {
        title: "Netflix's example: the limit against time (50, 90, 200, 100 requests/s)".to_owned(),
        x_label: "time, s".to_owned(),
        y_label: "limit".to_owned(),
        series: limits,
        log_y: false,
        y_range: Some((0.0, 40.0)),
        legend: SeriesLabelPosition::UpperRight,
    }
    .write(&dir.join("load_limiter_limit"))?;
    Chart {
        title: "Netflix's example: mean latency of each second's answers".to_owned(),
        x_label: "time, s".to_owned(),
        y_label: "latency, ms (log)".to_owned(),
        series: series(&|t| t.mean_latency_ms, false),
        log_y: true,
        y_range: None,
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("load_limiter_latency"))
}
