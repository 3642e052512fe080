//! Errors of the command-line tool: each prints as one line naming the problem.
use sosdp_learn::io::ReadError;
use sosdp_score::ScoreError;
use std::path::PathBuf;
use thiserror::Error;

/// An error of a command: it ends the program with exit code 2 and this line on stderr.
#[derive(Debug, Error)]
pub enum CliError {
    /// An input file could not be read or parsed.
    #[error(transparent)]
    Input(#[from] ReadError),
    /// An invalid setting, or a learner's error.
    #[error("{0}")]
    Invalid(String),
    /// A score evaluation failed.
    #[error(transparent)]
    Score(#[from] ScoreError),
    /// An output file could not be written.
    #[error("cannot write {option} {path}: {source}")]
    Output {
        /// The option naming the file (`--out`).
        option: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// Standard output could not be written.
    #[error("cannot write output: {0}")]
    Write(#[from] std::io::Error),
}
