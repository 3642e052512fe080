//! The `sosdp` command-line tool.
//!
//! - `sosdp demo`: the main job on an embedded synthetic dataset;
//! - `sosdp score mean|spectral`: one score evaluation with its certified bracket, as JSON;
//! - `sosdp mean`: the private, robust mean of a CSV file (MATH.md 5.1);
//! - `sosdp mechanism mean`: releases of one CM stage of the exponential mechanism (experts);
//! - `sosdp bench score`: time the fast CM backend against the clarabel reference, as JSON.
//!
//! Every invalid input ends the program with exit code 2 and one line on stderr.
pub mod bench;
pub mod commands;
pub mod error;
pub mod input;
pub mod problem;

pub use error::CliError;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Debug, Parser)]
#[command(name = "sosdp", version, about = "Pure-DP robust Gaussian learning with the sum-of-squares exponential mechanism")]
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
    /// The private, robust mean of a CSV file (one JSON object).
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
            let rendered = e.render().to_string();
            let first = rendered.lines().next().unwrap_or("invalid arguments");
            eprintln!("{first} (see `sosdp --help`)");
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
