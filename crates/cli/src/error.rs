//! Errors of the command-line tool: each prints as one line naming the problem.
use sosdp_score::ScoreError;
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum CliError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Csv { path: PathBuf, message: String },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Score(#[from] ScoreError),
    #[error("cannot write {option} {path}: {source}")]
    Output {
        option: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write output: {0}")]
    Write(#[from] std::io::Error),
}
