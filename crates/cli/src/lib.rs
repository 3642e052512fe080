//! The `sosdp` command-line tool.
//!
//! - `sosdp demo`: the main job on an embedded synthetic dataset;
//! - `sosdp score mean|spectral`: one score evaluation with its certified bracket, as JSON;
//! - `sosdp mean`: the private, robust mean of a CSV file (MATH.md 5.1; without a prior
//!   radius, with `--delta`, 5.5 (a));
//! - `sosdp mechanism mean`: releases of one CM stage of the exponential mechanism (experts);
//! - `sosdp bench score`: time the fast CM backend against the clarabel reference, as JSON.
//!
//! Every invalid input ends the program with exit code 2 and one line on stderr. CSV inputs
//! follow the format of [`sosdp_learn::io`] (no line is ever skipped; `--header` declares a header
//! line).
//! A learner or `mechanism` given `--seed` says on stderr that its release is not private.
pub mod bench;
mod commands;
pub mod error;
mod problem;

pub use error::CliError;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(
    name = "sosdp",
    version,
    about = "Pure-DP robust Gaussian learning with the sum-of-squares exponential mechanism"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the main job on an embedded synthetic dataset.
    Demo(commands::demo::DemoArgs),
    /// Evaluate a score with its certified bracket (audit and cross-checks).
    #[command(subcommand)]
    Score(commands::score::ScoreCommand),
    /// The private, robust mean of a CSV file, for records with identity covariance N(mu, I)
    /// (one JSON object: the release): pure with a prior --radius R, (eps, delta)-DP with
    /// --delta D and no radius.
    Mean(commands::mean::MeanArgs),
    /// The private covariance (MATH.md 5.2, 5.3) of a CSV file.
    Covariance(commands::gaussian::CovarianceArgs),
    /// Learn a Gaussian (mean and covariance) privately (MATH.md 5.4).
    Gaussian(commands::gaussian::GaussianArgs),
    /// Run the exponential mechanism of one score stage (experts): JSON lines of releases.
    #[command(subcommand)]
    Mechanism(commands::mechanism::MechanismCommand),
    /// Benchmark the score backends (one JSON line).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
}

/// Entry point of the `sosdp` binary.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{} (see `sosdp --help`)", one_line(&e));
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Command::Demo(args) => commands::demo::run(args),
        Command::Score(command) => commands::score::run(command),
        Command::Mean(args) => commands::mean::run(args),
        Command::Covariance(args) => commands::gaussian::run_covariance(args),
        Command::Gaussian(args) => commands::gaussian::run_gaussian(args),
        Command::Mechanism(command) => commands::mechanism::run(command),
        Command::Bench(command) => bench::run(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Clap's error as one line. Normally its lines before the "Usage:" block (or the closing
/// "For more information" line), trimmed and joined, so that what clap lists on the lines after
/// the first (the missing required arguments, a suggested spelling) is kept. When a
/// subcommand is missing clap renders the help instead: then the usage line.
fn one_line(error: &clap::Error) -> String {
    let rendered = error.render().to_string();
    if error.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let usage = rendered
            .lines()
            .find(|l| l.starts_with("Usage:"))
            .unwrap_or("Usage: sosdp <COMMAND>");
        return format!("error: a subcommand is required; {}", usage.trim());
    }
    let mut message = String::new();
    let lines = rendered
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"));
    for line in lines.map(str::trim).filter(|l| !l.is_empty()) {
        if !message.is_empty() {
            message.push_str(if message.ends_with(':') {
                " "
            } else if line.starts_with("tip:") {
                "; "
            } else {
                ", "
            });
        }
        message.push_str(line);
    }
    if message.is_empty() {
        "error: invalid arguments".to_string()
    } else {
        message
    }
}
