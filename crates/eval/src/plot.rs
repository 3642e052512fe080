//! Log-log line plots of the benchmark harness (error against n, time against dimension),
//! written as PNG and SVG with plotters.
//!
//! Each series is drawn as its individual measurements (small dots) and the line through
//! their medians at each x; the legend carries the series label (the harness puts fitted
//! growth exponents there). A [`Series::dashed`] series gets a dashed line and hollow dots
//! (the harness draws its non-private methods so).
//!
//! Text is drawn by plotters' pure-Rust `ab_glyph` path from the bundled DejaVu Sans
//! (`assets/DejaVuSans.ttf`, licence beside it), not by its default `ttf` path, which finds
//! system fonts through fontconfig and freetype: the default build needs no system library.
pub use plotters::chart::SeriesLabelPosition;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// DejaVu Sans (licence: `assets/DejaVuSans-LICENSE.txt`).
const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Register [`FONT`] with plotters, once, as the only family the figures name
/// (`"sans-serif"`, also plotters' own default); `ab_glyph` finds no font otherwise.
fn register_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        let registered =
            plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_ok();
        assert!(registered, "the bundled font does not parse");
    });
}

/// One named series of `(x, y)` measurements; several may share an `x`.
#[derive(Clone, Debug)]
pub struct Series {
    /// The legend's label.
    pub label: String,
    /// The `(x, y)` points.
    pub points: Vec<(f64, f64)>,
    /// Drawn with a dashed line and hollow dots, else a solid line and filled dots.
    pub dashed: bool,
}

impl Series {
    /// The median `y` at each distinct `x`, in increasing `x`, over the finite positive points.
    pub fn medians(&self) -> Vec<(f64, f64)> {
        let mut by_x: BTreeMap<u64, (f64, Vec<f64>)> = BTreeMap::new();
        for &(x, y) in self
            .points
            .iter()
            .filter(|(x, y)| drawable(*x) && drawable(*y))
        {
            by_x.entry(x.to_bits()).or_insert((x, Vec::new())).1.push(y);
        }
        let mut out: Vec<(f64, f64)> = by_x
            .into_values()
            .map(|(x, ys)| (x, crate::quantile(&ys, 0.5)))
            .collect();
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out
    }
}

/// Titles of a figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// The title.
    pub title: String,
    /// The label of the x axis.
    pub x_label: String,
    /// The label of the y axis.
    pub y_label: String,
    /// Where the legend goes (pick the corner the data leave empty).
    pub legend: SeriesLabelPosition,
}

/// A plot that could not be drawn or written.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the plot {path}: {reason}")]
pub struct PlotError {
    /// The file.
    pub path: PathBuf,
    /// Why it failed.
    pub reason: String,
}

/// The least-squares slope of `log y` against `log x` over the finite positive points: the
/// growth exponent `a` in `y ≈ C x^a`. `None` with fewer than two distinct `x`.
pub fn growth_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| drawable(*x) && drawable(*y))
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let m = logs.len() as f64;
    let (mx, my) = (
        logs.iter().map(|p| p.0).sum::<f64>() / m,
        logs.iter().map(|p| p.1).sum::<f64>() / m,
    );
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (logs.len() >= 2 && sxx > 1e-12).then(|| sxy / sxx)
}

/// Draw `series` on log-log axes to `stem.png` (1000 x 650) and `stem.svg`; returns both paths.
pub fn write_log_log(
    stem: &Path,
    figure: &Figure,
    series: &[Series],
) -> Result<[PathBuf; 2], PlotError> {
    let png = stem.with_extension("png");
    let svg = stem.with_extension("svg");
    let size = (1000, 650);
    draw(
        BitMapBackend::new(&png, size).into_drawing_area(),
        figure,
        series,
    )
    .map_err(|reason| PlotError {
        path: png.clone(),
        reason,
    })?;
    draw(
        SVGBackend::new(&svg, size).into_drawing_area(),
        figure,
        series,
    )
    .map_err(|reason| PlotError {
        path: svg.clone(),
        reason,
    })?;
    Ok([png, svg])
}

/// A tick label with three significant digits and no trailing zeros.
fn tick(v: f64) -> String {
    let decimals = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{v:.decimals$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Whether `v` is 1, 2 or 5 times a power of ten (the x labels kept on a dense log axis).
fn round_tick(v: f64) -> bool {
    let mantissa = v / 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .any(|m| (mantissa - m).abs() < 1e-6 * m)
}

fn drawable(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// The range `[lo / pad, hi * pad]` of the drawable values (a decade around 1 when none).
fn log_range(values: impl Iterator<Item = f64>, pad: f64) -> std::ops::Range<f64> {
    let (lo, hi) = values
        .filter(|v| drawable(*v))
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo.is_finite() {
        (lo / pad)..(hi * pad).max(lo * pad * pad)
    } else {
        0.1..10.0
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    figure: &Figure,
    series: &[Series],
) -> Result<(), String> {
    register_font();
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| format!("{e:?}");
    root.fill(&WHITE).map_err(err)?;
    let mut xs = log_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
        1.15,
    );
    // plotters labels a log axis from the first power of ten in range: start the x axis at
    // the power of ten below the data unless the data start near it.
    let decade = 10f64.powf((xs.start * 1.15).log10().floor());
    if xs.start * 1.15 / decade >= 1.5 {
        xs.start = decade;
    }
    let ys = log_range(
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        1.6,
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(&figure.title, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(xs.log_scale(), ys.log_scale())
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(30)
        .x_label_formatter(&|v| {
            if round_tick(*v) {
                tick(*v)
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| tick(*v))
        .x_desc(&figure.x_label)
        .y_desc(&figure.y_label)
        .label_style(("sans-serif", 16))
        .axis_desc_style(("sans-serif", 18))
        .draw()
        .map_err(err)?;
    for (k, s) in series.iter().enumerate() {
        let colour = Palette99::pick(k).to_rgba();
        let dots = s
            .points
            .iter()
            .filter(|(x, y)| drawable(*x) && drawable(*y));
        let dot = if s.dashed {
            colour.mix(0.6).stroke_width(1)
        } else {
            colour.mix(0.45).filled()
        };
        chart
            .draw_series(dots.map(|&p| Circle::new(p, 3, dot)))
            .map_err(err)?;
        let medians = s.medians();
        let marker = if s.dashed {
            colour.stroke_width(2)
        } else {
            colour.filled()
        };
        chart
            .draw_series(medians.iter().map(|&p| Circle::new(p, 4, marker)))
            .map_err(err)?;
        let line = colour.stroke_width(2);
        let drawn = if s.dashed {
            chart.draw_series(DashedLineSeries::new(medians, 8, 5, line))
        } else {
            chart.draw_series(LineSeries::new(medians, line))
        };
        let legend = drawn.map_err(err)?.label(&s.label);
        if s.dashed {
            legend.legend(move |(x, y)| {
                DashedPathElement::new(vec![(x, y), (x + 24, y)], 6, 3, colour.stroke_width(3))
            });
        } else {
            legend.legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3))
            });
        }
    }
    chart
        .configure_series_labels()
        .position(figure.legend.clone())
        .label_font(("sans-serif", 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_exponent_recovers_a_power_law() {
        let points: Vec<(f64, f64)> = [2.0, 5.0, 10.0, 20.0, 50.0]
            .iter()
            .map(|&d: &f64| (d, 0.3 * d.powf(2.5)))
            .collect();
        assert!((growth_exponent(&points).unwrap() - 2.5).abs() < 1e-9);
        assert_eq!(growth_exponent(&points[..1]), None);
    }

    #[test]
    fn ticks_are_short() {
        assert_eq!(tick(0.6000000000000001), "0.6");
        assert_eq!(tick(0.1234567), "0.123");
        assert_eq!(tick(2000.0), "2000");
        assert_eq!(tick(1.0), "1");
        assert!(
            round_tick(2000.0)
                && round_tick(50.0)
                && round_tick(1.0)
                && !round_tick(3000.0)
                && !round_tick(7.0)
        );
    }

    #[test]
    fn medians_by_x_skip_undrawable_points() {
        let s = Series {
            label: "s".into(),
            dashed: false,
            points: vec![
                (1.0, 3.0),
                (1.0, 1.0),
                (1.0, 2.0),
                (2.0, f64::NAN),
                (2.0, 4.0),
                (3.0, 0.0),
            ],
        };
        assert_eq!(s.medians(), vec![(1.0, 2.0), (2.0, 4.0)]);
    }

    #[test]
    fn writes_png_and_svg() {
        let dir = std::env::temp_dir().join(format!("sosdp-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let series = vec![
            Series {
                label: "a".into(),
                points: vec![(1.0, 1.0), (10.0, 100.0), (10.0, 80.0)],
                dashed: false,
            },
            Series {
                label: "b".into(),
                points: vec![(1.0, 2.0), (10.0, 3.0)],
                dashed: true,
            },
        ];
        let figure = Figure {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            legend: SeriesLabelPosition::UpperLeft,
        };
        let [png, svg] = write_log_log(&dir.join("p"), &figure, &series).unwrap();
        assert!(std::fs::metadata(&png).unwrap().len() > 1000);
        let text = std::fs::read_to_string(&svg).unwrap();
        let line = |label: &str| text.lines().any(|l| l.trim() == label);
        assert!(
            text.contains("<svg") && line("a") && line("b"),
            "the legend labels are missing"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
