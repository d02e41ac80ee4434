//! The saturation experiment's outputs: a table, a CSV, and charts of the
//! load multiplier and of p99 against the offered load.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;

use crate::chart::{Chart, Series};
use crate::hedge_variant::SaturationVariant;
use crate::saturation_sweep::SaturationPoint;
use crate::table::Table;

/// One row per point.
#[must_use]
pub fn table(points: &[SaturationPoint]) -> Table {
    let mut t = Table::new([
        "setting",
        "offered_load_pct",
        "load_x",
        "p50_ms",
        "p99_ms",
        "p99.9_ms",
        "calls",
        "copies",
        "cancelled",
    ]);
    for p in points {
        t.push(vec![
            p.variant.code().to_owned(),
            p.load_percent.to_string(),
            format!("{:.3}", p.load()),
            format!("{:.1}", p.latency.p50),
            format!("{:.1}", p.latency.p99),
            format!("{:.1}", p.latency.p999),
            p.calls.to_string(),
            p.copies.to_string(),
            p.cancelled.to_string(),
        ]);
    }
    t
}

/// Writes `hedging_saturation.csv`, `hedging_saturation_load.{svg,png}` and
/// `hedging_saturation_p99.{svg,png}` into `dir`; charts only if `charts`.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write(
    dir: &Path,
    points: &[SaturationPoint],
    variants: &[SaturationVariant],
    charts: bool,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let csv_path = dir.join("hedging_saturation.csv");
    std::fs::write(&csv_path, table(points).to_csv())
        .map_err(|e| format!("{}: {e}", csv_path.display()))?;
    if !charts {
        return Ok(());
    }
    let series = |f: fn(&SaturationPoint) -> f64| -> Vec<Series> {
        variants
            .iter()
            .map(|v| Series {
                label: v.code().to_owned(),
                points: points
                    .iter()
                    .filter(|p| p.variant == *v)
                    .map(|p| (f64::from(p.load_percent), f(p)))
                    .collect(),
            })
            .collect()
    };
    Chart {
        title: "One queue pushed to saturation: copies sent per call".to_owned(),
        x_label: "offered load, % of the server's capacity".to_owned(),
        y_label: "load multiplier (x)".to_owned(),
        series: series(SaturationPoint::load),
        log_y: false,
        y_range: Some((0.9, 2.1)),
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("hedging_saturation_load"))?;
    Chart {
        title: "One queue pushed to saturation: p99 call latency".to_owned(),
        x_label: "offered load, % of the server's capacity".to_owned(),
        y_label: "p99 latency, ms (log)".to_owned(),
        series: series(|p| p.latency.p99),
        log_y: true,
        y_range: None,
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("hedging_saturation_p99"))
}
