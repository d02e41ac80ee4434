//! Line charts of sweep results, written as SVG (for the README) and PNG
//! (for places that do not render SVG), from one drawing routine.

use std::path::Path;

use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::font::FAMILY;

/// Okabe–Ito colours: distinguishable with the common colour-vision
/// deficiencies.
const COLOURS: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
];

/// A tick label: whole numbers from 10 up, one decimal below.
fn tick(v: f64) -> String {
    if v.abs() >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Pixel size of both outputs.
const SIZE: (u32, u32) = (960, 600);

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend label.
    pub label: String,
    /// `(x, y)` points in x order.
    pub points: Vec<(f64, f64)>,
}

/// What to draw.
#[derive(Clone, Debug)]
pub struct Chart {
    /// The title above the plot.
    pub title: String,
    /// The x-axis label.
    pub x_label: String,
    /// The y-axis label.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// A logarithmic y axis, for lines that differ by orders of magnitude.
    pub log_y: bool,
    /// Pin the y range (otherwise from 0, or from the data on a log axis, to
    /// the data's maximum).
    pub y_range: Option<(f64, f64)>,
    /// Where the legend goes (where the lines are not).
    pub legend: SeriesLabelPosition,
}

impl Chart {
    /// Writes `<stem>.svg` and `<stem>.png`. The font must be registered
    /// ([`crate::font::register`]).
    ///
    /// # Errors
    /// A message if either file cannot be drawn or written.
    pub fn write(&self, stem: &Path) -> Result<(), String> {
        let svg = stem.with_extension("svg");
        let png = stem.with_extension("png");
        let area = SVGBackend::new(&svg, SIZE).into_drawing_area();
        self.draw_on(&area)
            .map_err(|e| format!("{}: {e}", svg.display()))?;
        drop(area);
        let area = BitMapBackend::new(&png, SIZE).into_drawing_area();
        let drawn = self.draw_on(&area);
        drop(area);
        drawn.map_err(|e| format!("{}: {e}", png.display()))
    }

    fn x_range(&self) -> (f64, f64) {
        let xs = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0));
        let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        if lo < hi {
            (lo, hi)
        } else {
            (0.0, 1.0)
        }
    }

    fn y_max(&self) -> f64 {
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1));
        ys.fold(0.0_f64, f64::max).max(f64::MIN_POSITIVE) * 1.05
    }

    fn y_min_positive(&self) -> f64 {
        let ys = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1));
        let min = ys.filter(|y| *y > 0.0).fold(f64::INFINITY, f64::min);
        if min.is_finite() {
            min * 0.8
        } else {
            1.0
        }
    }

    fn draw_on<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>
    where
        DB::ErrorType: 'static,
    {
        let (x0, x1) = self.x_range();
        if self.log_y {
            let (lo, hi) = self
                .y_range
                .unwrap_or((self.y_min_positive(), self.y_max()));
            self.plot(root, x0..x1, (lo..hi).log_scale())
        } else {
            let (lo, hi) = self.y_range.unwrap_or((0.0, self.y_max()));
            self.plot(root, x0..x1, lo..hi)
        }
    }

    fn plot<DB, Y>(
        &self,
        root: &DrawingArea<DB, Shift>,
        x: std::ops::Range<f64>,
        y: Y,
    ) -> Result<(), String>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
        Y: AsRangedCoord<Value = f64>,
        Y::CoordDescType: Ranged<ValueType = f64> + ValueFormatter<f64>,
    {
        let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, (FAMILY, 26))
            .margin(16)
            .x_label_area_size(48)
            .y_label_area_size(80)
            .build_cartesian_2d(x, y)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .label_style((FAMILY, 16))
            .axis_desc_style((FAMILY, 18))
            .draw()
            .map_err(err)?;
        for (i, series) in self.series.iter().enumerate() {
            let colour = COLOURS.get(i % COLOURS.len()).copied().unwrap_or(BLACK);
            let style = ShapeStyle::from(colour).stroke_width(2);
            chart
                .draw_series(LineSeries::new(series.points.iter().copied(), style))
                .map_err(err)?
                .label(series.label.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
            chart
                .draw_series(
                    series
                        .points
                        .iter()
                        .map(|p| Circle::new(*p, 3, colour.filled())),
                )
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .position(self.legend.clone())
            .label_font((FAMILY, 16))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .draw()
            .map_err(err)?;
        root.present().map_err(err)
    }
}
