//! The contention sweep's outputs: a table per client count, a CSV with one
//! row per point, and the two charts of the post (work and time).

use std::path::Path;

use stoic_core::backoff::Strategy;

use plotters::chart::SeriesLabelPosition;

use crate::chart::{Chart, Series};
use crate::contention_sweep::{find, ContentionPoint};
use crate::table::Table;

/// One row per client count: mean calls, then mean completion time (ms),
/// for each strategy.
#[must_use]
pub fn table(points: &[ContentionPoint], strategies: &[Strategy]) -> Table {
    let mut clients: Vec<u32> = points.iter().map(|p| p.clients).collect();
    clients.sort_unstable();
    clients.dedup();
    let headers = std::iter::once("clients".to_owned())
        .chain(strategies.iter().map(|s| format!("calls {}", short(*s))))
        .chain(strategies.iter().map(|s| format!("ms {}", short(*s))));
    let mut t = Table::new(headers);
    for n in clients {
        let cell = |s, f: fn(&ContentionPoint) -> f64| {
            find(points, s, n).map_or_else(String::new, |p| format!("{:.0}", f(p)))
        };
        let row = std::iter::once(n.to_string())
            .chain(strategies.iter().map(|s| cell(*s, |p| p.mean_calls)))
            .chain(
                strategies
                    .iter()
                    .map(|s| cell(*s, |p| p.mean_completion_ms)),
            )
            .collect();
        t.push(row);
    }
    t
}

/// A short column name for a strategy (`full`, `equal`, ...).
const fn short(s: Strategy) -> &'static str {
    match s {
        Strategy::None => "none",
        Strategy::Constant => "constant",
        Strategy::Linear => "linear",
        Strategy::Exponential => "expo",
        Strategy::FullJitter => "full",
        Strategy::EqualJitter => "equal",
        Strategy::DecorrelatedJitter => "decorr",
    }
}

/// One CSV row per point: strategy code, clients, mean calls, mean time.
#[must_use]
pub fn csv(points: &[ContentionPoint]) -> Table {
    let mut t = Table::new(["strategy", "clients", "mean_calls", "mean_completion_ms"]);
    for p in points {
        t.push(vec![
            p.strategy.code().to_owned(),
            p.clients.to_string(),
            format!("{:.2}", p.mean_calls),
            format!("{:.2}", p.mean_completion_ms),
        ]);
    }
    t
}

/// Writes `contention.csv`, `contention_calls.{svg,png}` and
/// `contention_time.{svg,png}` into `dir`; charts only if `charts`.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write(
    dir: &Path,
    points: &[ContentionPoint],
    strategies: &[Strategy],
    runs: u32,
    charts: bool,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let csv_path = dir.join("contention.csv");
    std::fs::write(&csv_path, csv(points).to_csv())
        .map_err(|e| format!("{}: {e}", csv_path.display()))?;
    if !charts {
        return Ok(());
    }
    let series = |f: fn(&ContentionPoint) -> f64| -> Vec<Series> {
        strategies
            .iter()
            .map(|s| Series {
                label: s.code().to_owned(),
                points: points
                    .iter()
                    .filter(|p| p.strategy == *s)
                    .map(|p| (f64::from(p.clients), f(p)))
                    .collect(),
            })
            .collect()
    };
    Chart {
        title: format!("Contention: work (mean of {runs} runs)"),
        x_label: "clients".to_owned(),
        y_label: "write calls".to_owned(),
        series: series(|p| p.mean_calls),
        log_y: false,
        y_range: None,
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("contention_calls"))?;
    Chart {
        title: format!("Contention: completion time (mean of {runs} runs)"),
        x_label: "clients".to_owned(),
        y_label: "time to finish, ms (log scale)".to_owned(),
        series: series(|p| p.mean_completion_ms),
        log_y: true,
        y_range: None,
        legend: SeriesLabelPosition::LowerRight,
    }
    .write(&dir.join("contention_time"))
}
