//! Errors of the learners. Every setting and the data are validated before any data-dependent
//! computation; no user input can cause a panic.
use sosdp_sampler::SamplerError;
use sosdp_score::ScoreError;
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum LearnError {
    #[error("epsilon must be positive and finite, got {0}")]
    Epsilon(f64),
    #[error("the radius R must be positive and finite, got {0}")]
    Radius(f64),
    #[error("the corruption fraction must lie in [0, 0.5), got {0}")]
    Corruption(f64),
    #[error("beta must lie in (0, 1), got {0}")]
    Beta(f64),
    #[error("{0}")]
    InvalidSetting(String),
    #[error("the dataset is empty")]
    EmptyData,
    #[error("the data have a non-finite value (NaN or infinity) in row {row}, column {column}")]
    NonFinite { row: usize, column: usize },
    #[error("too few samples: {0}")]
    TooFewSamples(String),
    #[error(transparent)]
    Score(#[from] ScoreError),
    #[error(transparent)]
    Sampler(#[from] SamplerError),
}
