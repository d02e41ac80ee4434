//! The overload sweep's outputs: a table, a CSV, and charts of amplification,
//! load per call and goodput against the injected failure rate.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;

use crate::chart::{Chart, Series};
use crate::overload::ratio;
use crate::overload_sweep::OverloadPoint;
use crate::overload_variant::Variant;
use crate::table::Table;

/// One row per point, with the derived rates and stoic's give-up counts.
#[must_use]
pub fn table(points: &[OverloadPoint]) -> Table {
    let mut t = Table::new([
        "policy",
        "failure_pct",
        "amplification",
        "attempts_per_call",
        "goodput_pct",
        "shed_pct",
        "calls",
        "attempts",
        "budget_exhausted",
        "circuit_open",
    ]);
    for p in points {
        t.push(vec![
            p.variant.code().to_owned(),
            p.failure_percent.to_string(),
            format!("{:.2}", p.amplification()),
            format!("{:.2}", ratio(p.counts.attempts, p.counts.calls)),
            format!("{:.1}", p.goodput() * 100.0),
            format!("{:.1}", p.shed_share() * 100.0),
            p.counts.calls.to_string(),
            p.counts.attempts.to_string(),
            p.counts.budget_exhausted.to_string(),
            p.counts.circuit_open.to_string(),
        ]);
    }
    t
}

/// The table restricted to `percents`, for a readable summary.
#[must_use]
pub fn summary(points: &[OverloadPoint], percents: &[u32]) -> Table {
    let chosen: Vec<OverloadPoint> = points
        .iter()
        .filter(|p| percents.contains(&p.failure_percent))
        .copied()
        .collect();
    table(&chosen)
}

/// Writes `overload.csv`, `overload_amplification.{svg,png}`,
/// `overload_load.{svg,png}` and `overload_goodput.{svg,png}` into `dir`; charts only if `charts`.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write(
    dir: &Path,
    points: &[OverloadPoint],
    variants: &[Variant],
    charts: bool,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let csv_path = dir.join("overload.csv");
    std::fs::write(&csv_path, table(points).to_csv())
        .map_err(|e| format!("{}: {e}", csv_path.display()))?;
    if !charts {
        return Ok(());
    }
    let series = |f: fn(&OverloadPoint) -> f64| -> Vec<Series> {
        variants
            .iter()
            .map(|v| Series {
                label: v.code().to_owned(),
                points: points
                    .iter()
                    .filter(|p| p.variant == *v)
                    .map(|p| (f64::from(p.failure_percent), f(p)))
                    .collect(),
            })
            .collect()
    };
    Chart {
        title: "Overload: attempts sent per first attempt".to_owned(),
        x_label: "injected failure rate, %".to_owned(),
        y_label: "amplification (x)".to_owned(),
        series: series(OverloadPoint::amplification),
        log_y: false,
        y_range: None,
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("overload_amplification"))?;
    Chart {
        title: "Overload: attempts the server received per call".to_owned(),
        x_label: "injected failure rate, %".to_owned(),
        y_label: "attempts per logical call".to_owned(),
        series: series(|p| ratio(p.counts.attempts, p.counts.calls)),
        log_y: false,
        y_range: None,
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("overload_load"))?;
    Chart {
        title: "Overload: calls that succeeded".to_owned(),
        x_label: "injected failure rate, %".to_owned(),
        y_label: "goodput, % of calls".to_owned(),
        series: series(|p| p.goodput() * 100.0),
        log_y: false,
        y_range: Some((0.0, 105.0)),
        legend: SeriesLabelPosition::UpperRight,
    }
    .write(&dir.join("overload_goodput"))
}
