//! Errors of the sampler. Settings are validated before any oracle call.
use sosdp_oracle::ScoreError;
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum SamplerError {
    #[error("epsilon must be positive and finite, got {0}")]
    EpsilonNotPositive(f64),
    #[error("invalid sampler setting: {0}")]
    InvalidSetting(String),
    #[error("{what} has dimension {got}, expected {expected}")]
    DimensionMismatch {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("{0} has a non-finite entry")]
    NonFinite(&'static str),
    #[error("the starting point of the chain is not inside the body ({0})")]
    StartOutside(&'static str),
    #[error("the volume ladder needed more than {0} bodies")]
    LadderTooLong(usize),
    #[error(transparent)]
    Score(#[from] ScoreError),
}
