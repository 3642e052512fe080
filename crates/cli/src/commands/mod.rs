//! One module per subcommand, and what they share.
pub mod demo;
pub mod gaussian;
pub mod mean;
pub mod mechanism;
pub mod score;

use crate::input::read_matrix;
use crate::CliError;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use nalgebra::DMatrix;
use sosdp_learn::LearnError;
use sosdp_sampler::Progress;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// Arguments every learner command takes.
#[derive(Debug, Args)]
pub struct LearnerArgs {
    /// Data: one record per row (n x d), optional header row.
    #[arg(long, value_name = "X.csv")]
    pub input: PathBuf,
    /// Privacy parameter eps > 0 (pure DP, delta = 0).
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    pub epsilon: f64,
    /// Fraction of corrupted records to tolerate, in [0, 0.5) (below 0.25 for the covariance).
    #[arg(long, value_name = "ETA", default_value_t = 0.0, allow_negative_numbers = true)]
    pub corruption: f64,
    /// Failure probability of the accuracy guarantee, in (0, 1).
    #[arg(long, value_name = "B", default_value_t = 0.05, allow_negative_numbers = true)]
    pub beta: f64,
    /// Seed (reproducible runs; omit for fresh OS randomness, as a published release should).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Write the JSON object to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Include the sampler records (data-dependent diagnostics, not private).
    #[arg(long)]
    pub diagnostics: bool,
}

/// Validate the settings (no data read), read the data, then fit with a progress spinner
/// labelled `step` (stage or step number).
pub fn validate_read_fit<T>(
    args: &LearnerArgs,
    step: &str,
    validate: impl FnOnce() -> Result<(), LearnError>,
    fit: impl FnOnce(&DMatrix<f64>, &mut dyn FnMut(usize, Progress)) -> Result<T, LearnError>,
) -> Result<T, CliError> {
    validate().map_err(|e| CliError::Invalid(e.to_string()))?;
    let data = read_matrix(&args.input)?;
    let bar = progress_bar();
    let out = fit(&data, &mut |k, p| bar.set_message(format!("{step} {} {} {}/{}", k + 1, p.phase, p.done, p.total)))
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    bar.finish_and_clear();
    Ok(out)
}

/// A spinner with a message on stderr when stderr is a terminal (hidden otherwise).
pub fn progress_bar() -> ProgressBar {
    let bar = if std::io::stderr().is_terminal() { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()));
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Print a JSON object on stdout, or write it to `out`.
pub fn emit(out: &Option<PathBuf>, value: &serde_json::Value) -> Result<(), CliError> {
    match out {
        Some(path) => std::fs::write(path, format!("{value}\n"))?,
        None => println!("{value}"),
    }
    Ok(())
}
