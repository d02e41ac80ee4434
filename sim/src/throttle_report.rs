//! The throttle experiment's outputs: a table every 30 s, a CSV every
//! second, and charts of the load and of the rejection against time.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;

use crate::chart::{Chart, Series};
use crate::table::Table;
use crate::throttle::{RampParams, Second, Span};
use crate::throttle_findings::K;

/// One row per `step` seconds: demand, what each client sent and got
/// accepted, and the throttle's rejection next to the formula.
#[must_use]
pub fn table(p: &RampParams, with: &[Second], without: &[Second], step: usize) -> Table {
    let mut t = Table::new([
        "t_s",
        "demand_x",
        "demand/s",
        "bare sent/s",
        "bare accepted/s",
        "sent/s",
        "accepted/s",
        "server load_x",
        "rejected %",
        "window formula %",
        "steady formula %",
    ]);
    let capacity = f64::from(p.capacity_per_sec);
    for from in (0..with.len()).step_by(step.max(1)) {
        let (w, b) = (
            Span::of(with, from, from + step),
            Span::of(without, from, from + step),
        );
        #[allow(clippy::cast_precision_loss)] // seconds
        let mid = (w.from + w.to) as f64 / 2.0;
        t.push(vec![
            from.to_string(),
            format!("{:.2}", p.demand_x(mid)),
            format!("{:.1}", w.rate(w.sum.demand)),
            format!("{:.1}", b.rate(b.sum.sent)),
            format!("{:.1}", b.rate(b.sum.accepted)),
            format!("{:.1}", w.rate(w.sum.sent)),
            format!("{:.1}", w.rate(w.sum.accepted)),
            format!("{:.2}", w.rate(w.sum.sent) / capacity),
            format!("{:.1}", w.rejected() * 100.0),
            format!("{:.1}", w.window_formula() * 100.0),
            format!("{:.1}", w.steady_formula(K) * 100.0),
        ]);
    }
    t
}

/// Writes `load_throttle.csv` (every second), `load_throttle_load` and
/// `load_throttle_rejection` (`.svg`, `.png`) into `dir`; charts only if
/// `charts`.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write(
    dir: &Path,
    p: &RampParams,
    with: &[Second],
    without: &[Second],
    charts: bool,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let csv_path = dir.join("load_throttle.csv");
    std::fs::write(&csv_path, table(p, with, without, 1).to_csv())
        .map_err(|e| format!("{}: {e}", csv_path.display()))?;
    if !charts {
        return Ok(());
    }
    let step = 10;
    let series = |label: &str, of: &[Second], f: &dyn Fn(&Span) -> f64| Series {
        label: label.to_owned(),
        points: (0..of.len())
            .step_by(step)
            .map(|from| {
                let s = Span::of(of, from, from + step);
                #[allow(clippy::cast_precision_loss)] // seconds
                (from as f64, f(&s))
            })
            .collect(),
    };
    Chart {
        title: "Demand ramped to 3x capacity and back: requests per second".to_owned(),
        x_label: "time, s".to_owned(),
        y_label: "requests per second (10 s means)".to_owned(),
        series: vec![
            series("demand", with, &|s| s.rate(s.sum.demand)),
            series("sent, no throttle", without, &|s| s.rate(s.sum.sent)),
            series("sent, throttle", with, &|s| s.rate(s.sum.sent)),
            series("accepted, throttle", with, &|s| s.rate(s.sum.accepted)),
        ],
        log_y: false,
        y_range: None,
        legend: SeriesLabelPosition::UpperRight,
    }
    .write(&dir.join("load_throttle_load"))?;
    Chart {
        title: "Client-side throttling: local rejection against the formula".to_owned(),
        x_label: "time, s".to_owned(),
        y_label: "share of demand rejected locally, %".to_owned(),
        series: vec![
            series("rejected", with, &|s| s.rejected() * 100.0),
            series("formula on the 120 s window", with, &|s| {
                s.window_formula() * 100.0
            }),
            series("formula on these 10 s (steady state)", with, &|s| {
                s.steady_formula(K) * 100.0
            }),
        ],
        log_y: false,
        y_range: Some((0.0, 50.0)),
        legend: SeriesLabelPosition::UpperLeft,
    }
    .write(&dir.join("load_throttle_rejection"))
}
