//! `sosdp bench`: the benchmark harness (MATH.md 6).
//!
//! - `score`: the fast CM backend against the clarabel reference, one JSON line;
//! - `runtime`: time of one private-mean fit and of one score evaluation against dimension;
//! - `accuracy`: error against n of sosdp and every baseline on the same data;
//! - `covariance`: covariance (and Gaussian) error against n of sosdp, CoinPress, the
//!   empirical covariance and FastMCD (the robust non-private reference) on the same data.
//!
//! `runtime`, `accuracy` and `covariance` write one CSV row per measurement as it finishes
//! (so an interrupted run keeps what it measured), then a log-log plot (PNG and SVG) and a
//! markdown summary table into the output folder; the plots of `accuracy` and `covariance`
//! dash the non-private methods and label them "(non-private)".
mod accuracy;
mod covariance;
mod runtime;
mod score;

use score::ScoreBenchArgs;
pub use score::{ScoreInstance, chord_seed, median, theta_seed, unit_vector, walk_seed};

use crate::CliError;
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sosdp_eval::plot::{Figure, Series, write_log_log};
use std::fs::File;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    /// Time the fast CM backend against the clarabel reference; prints one JSON line.
    Score(ScoreBenchArgs),
    /// Time one private-mean fit and one score evaluation against dimension (CSV + plot).
    Runtime(runtime::RuntimeArgs),
    /// Error against n for sosdp and every baseline on the same data (CSV + plot).
    Accuracy(accuracy::AccuracyArgs),
    /// Covariance (and Gaussian) error against n for sosdp, CoinPress covariance, the
    /// empirical covariance and FastMCD (robust, not private) on the same data (CSV + plot).
    Covariance(covariance::CovarianceArgs),
}

pub(crate) fn run(command: &BenchCommand) -> Result<(), CliError> {
    match command {
        BenchCommand::Score(args) => score::run(args),
        BenchCommand::Runtime(args) => runtime::run(args),
        BenchCommand::Accuracy(args) => accuracy::run(args),
        BenchCommand::Covariance(args) => covariance::run(args),
    }
}

/// A CSV file of measurements, flushed after every row, and the rows written.
struct Rows<T> {
    path: PathBuf,
    writer: csv::Writer<File>,
    rows: Vec<T>,
}

impl<T: Serialize> Rows<T> {
    /// Create the output folder and `dir/name`.
    fn create(dir: &Path, name: &str) -> Result<Self, CliError> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(name);
        let writer = csv::Writer::from_path(&path)
            .map_err(|e| CliError::Invalid(format!("cannot write {}: {e}", path.display())))?;
        Ok(Rows {
            path,
            writer,
            rows: Vec::new(),
        })
    }

    fn push(&mut self, row: T) -> Result<(), CliError> {
        let fail =
            |e: String| CliError::Invalid(format!("cannot write {}: {e}", self.path.display()));
        self.writer
            .serialize(&row)
            .map_err(|e| fail(e.to_string()))?;
        self.writer.flush().map_err(|e| fail(e.to_string()))?;
        self.rows.push(row);
        Ok(())
    }
}

/// Write the plot `dir/stem.{png,svg}` and the summary `dir/stem.md`, print the summary, and
/// say on stderr what was written (the rows are in `dir/stem.csv`).
fn publish(
    dir: &Path,
    stem: &str,
    figure: &Figure,
    series: &[Series],
    summary: &str,
) -> Result<(), CliError> {
    let [png, svg] = write_log_log(&dir.join(stem), figure, series)
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    let md = dir.join(format!("{stem}.md"));
    std::fs::write(&md, summary)?;
    print!("{summary}");
    eprintln!(
        "wrote {}, {}, {} and {}",
        dir.join(format!("{stem}.csv")).display(),
        png.display(),
        svg.display(),
        md.display()
    );
    Ok(())
}

/// One plot series per method, in order of first appearance, from `(method, privacy, x, y)`
/// measurements: a method whose privacy is "none" is labelled "METHOD (non-private)" and
/// dashed, so the figure separates the non-private references from the private methods.
fn method_series<'a>(points: impl Iterator<Item = (&'a str, &'a str, f64, f64)>) -> Vec<Series> {
    let mut methods: Vec<&str> = Vec::new();
    let mut series: Vec<Series> = Vec::new();
    for (method, privacy, x, y) in points {
        match methods.iter().position(|m| *m == method) {
            Some(k) => series[k].points.push((x, y)),
            None => {
                let dashed = privacy == "none";
                methods.push(method);
                series.push(Series {
                    label: if dashed {
                        format!("{method} (non-private)")
                    } else {
                        method.to_string()
                    },
                    points: vec![(x, y)],
                    dashed,
                });
            }
        }
    }
    series
}

/// The rows of a CSV file written by [`Rows`].
fn read_rows<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, CliError> {
    let fail = |e: csv::Error| CliError::Invalid(format!("cannot read {}: {e}", path.display()));
    csv::Reader::from_path(path)
        .map_err(fail)?
        .deserialize()
        .map(|r| r.map_err(fail))
        .collect()
}

/// Progress of `total` measurements on stderr: a bar when stderr is a terminal; otherwise, once
/// the run has lasted [`Progress::QUIET`], one plain line when a measurement starts and when
/// it ends (a harness run of hours under `nohup` or CI is not silent; short runs are).
struct Progress {
    bar: Option<ProgressBar>,
    clock: Instant,
    done: usize,
    total: usize,
    message: String,
}

impl Progress {
    /// How long a run lasts before plain lines start.
    const QUIET: Duration = Duration::from_secs(10);

    /// Progress of `total` measurements.
    fn new(total: usize) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress {
            bar,
            clock: Instant::now(),
            done: 0,
            total,
            message: String::new(),
        }
    }

    /// One plain line about measurement `index` (of `total`), when lines are due.
    fn line(&self, index: usize, what: &str) {
        if self.bar.is_none() && self.clock.elapsed() >= Self::QUIET {
            eprintln!(
                "{:>8.1} s  {index}/{}  {what} {}",
                self.clock.elapsed().as_secs_f64(),
                self.total,
                self.message
            );
        }
    }

    /// A measurement starts.
    fn set_message(&mut self, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.clone());
        }
        self.message = message;
        self.line(self.done + 1, "start");
    }

    /// A measurement ended.
    fn inc(&mut self, k: usize) {
        self.done += k;
        if let Some(bar) = &self.bar {
            bar.inc(k as u64);
        }
        self.line(self.done, "done ");
    }

    fn finish_and_clear(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Check that a list option is non-empty and has no zero entry.
fn positive_list(option: &str, values: &[usize]) -> Result<(), CliError> {
    if values.is_empty() || values.contains(&0) {
        return Err(CliError::Invalid(format!(
            "--{option} needs a comma-separated list of positive integers, got {values:?}"
        )));
    }
    Ok(())
}

/// Check `--corruption`: a fraction in `[0, 0.5)`.
fn corruption_fraction(value: f64) -> Result<(), CliError> {
    if !(0.0..0.5).contains(&value) {
        return Err(CliError::Invalid(format!(
            "--corruption must be in [0, 0.5), got {value}"
        )));
    }
    Ok(())
}

/// Check a finite positive number.
fn positive(option: &str, value: f64) -> Result<(), CliError> {
    if !(value.is_finite() && value > 0.0) {
        return Err(CliError::Invalid(format!(
            "--{option} must be a positive number, got {value}"
        )));
    }
    Ok(())
}
