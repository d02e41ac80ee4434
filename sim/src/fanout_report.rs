//! The fan-out experiment's outputs: its table, the paper's figures next to
//! the simulated ones, a CSV and a chart of the request latency tail.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;

use crate::chart::{Chart, Series};
use crate::fanout_sweep::{find, FanoutPoint};
use crate::hedge_variant::FanoutVariant;
use crate::table::Table;

/// The hedge delay and hedge count of `variant`, in words.
fn setting(variant: FanoutVariant) -> (&'static str, &'static str) {
    match variant {
        FanoutVariant::None => ("-", "0"),
        FanoutVariant::Fixed => ("10 ms", "1"),
        FanoutVariant::P95 => ("p95", "1"),
        FanoutVariant::FixedTwice => ("10 ms", "2"),
        FanoutVariant::P95Twice => ("p95", "2"),
    }
}

/// One row per setting.
#[must_use]
pub fn table(points: &[FanoutPoint]) -> Table {
    let mut t = Table::new([
        "setting",
        "delay",
        "hedges",
        "p50_ms",
        "p99_ms",
        "p99.9_ms",
        "slow_pct",
        "extra_load_pct",
        "requests",
        "sub_requests",
        "copies",
        "cancelled",
    ]);
    for p in points {
        let (delay, hedges) = setting(p.variant);
        t.push(vec![
            p.variant.code().to_owned(),
            delay.to_owned(),
            hedges.to_owned(),
            format!("{:.1}", p.latency.p50),
            format!("{:.1}", p.latency.p99),
            format!("{:.1}", p.latency.p999),
            format!("{:.2}", p.slow_share() * 100.0),
            format!("{:.2}", p.extra_load() * 100.0),
            p.latency.count.to_string(),
            p.sub_requests.to_string(),
            p.copies.to_string(),
            p.cancelled.to_string(),
        ]);
    }
    t
}

/// "The Tail at Scale"'s figures for its hedged BigTable read, next to the
/// simulated ones (one hedge / two hedges where both apply).
#[must_use]
pub fn paper(points: &[FanoutPoint]) -> Table {
    let get = |v| find(points, v);
    let ms = |v| get(v).map_or("-".to_owned(), |p| format!("{:.1} ms", p.latency.p999));
    let pct = |v| {
        get(v).map_or("-".to_owned(), |p| {
            format!("{:.2} %", p.extra_load() * 100.0)
        })
    };
    let mut t = Table::new(["figure", "paper", "stoic, 1 hedge", "stoic, 2 hedges"]);
    t.push(vec![
        "p99.9, no hedging".into(),
        "1,800 ms".into(),
        ms(FanoutVariant::None),
        ms(FanoutVariant::None),
    ]);
    t.push(vec![
        "p99.9, hedge after 10 ms".into(),
        "74 ms".into(),
        ms(FanoutVariant::Fixed),
        ms(FanoutVariant::FixedTwice),
    ]);
    t.push(vec![
        "extra requests, hedge after 10 ms".into(),
        "2 %".into(),
        pct(FanoutVariant::Fixed),
        pct(FanoutVariant::FixedTwice),
    ]);
    t.push(vec![
        "p99.9, hedge at p95".into(),
        "-".into(),
        ms(FanoutVariant::P95),
        ms(FanoutVariant::P95Twice),
    ]);
    t.push(vec![
        "extra requests, hedge at p95".into(),
        "near 5 %".into(),
        pct(FanoutVariant::P95),
        pct(FanoutVariant::P95Twice),
    ]);
    t
}

/// Writes `hedging_fanout.csv` and `hedging_fanout_tail.{svg,png}` into
/// `dir`; the chart only if `charts`.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write(dir: &Path, points: &[FanoutPoint], charts: bool) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let csv_path = dir.join("hedging_fanout.csv");
    std::fs::write(&csv_path, table(points).to_csv())
        .map_err(|e| format!("{}: {e}", csv_path.display()))?;
    if !charts {
        return Ok(());
    }
    Chart {
        title: "Fan-out of 100, 1 % stragglers at 1 s: request latency tail".to_owned(),
        x_label: "percentile, in nines (1 = p90, 2 = p99, 3 = p99.9)".to_owned(),
        y_label: "request latency, ms (log)".to_owned(),
        series: points
            .iter()
            .map(|p| Series {
                label: p.variant.code().to_owned(),
                points: p.tail.clone(),
            })
            .collect(),
        log_y: true,
        y_range: None,
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("hedging_fanout_tail"))
}
