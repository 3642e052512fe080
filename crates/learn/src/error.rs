//! Errors of the learners. Every setting and the data are validated before any data-dependent
//! computation; no user input can cause a panic.
use sosdp_sampler::SamplerError;
use sosdp_score::ScoreError;
use thiserror::Error;

/// Why a learner refused its settings or data, or a fit failed.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LearnError {
    /// eps is not positive and finite.
    #[error("epsilon must be positive and finite, got {0}")]
    Epsilon(f64),
    /// The prior radius `R` is not positive and finite.
    #[error("the radius R must be positive and finite, got {0}")]
    Radius(f64),
    /// The corruption fraction is outside `[0, 0.5)`.
    #[error("the corruption fraction must lie in [0, 0.5), got {0}")]
    Corruption(f64),
    /// `beta` is outside `(0, 1)`.
    #[error("beta must lie in (0, 1), got {0}")]
    Beta(f64),
    /// Another setting is invalid (the message says which and why).
    #[error("{0}")]
    InvalidSetting(String),
    /// The data have no records or no columns.
    #[error("the dataset is empty")]
    EmptyData,
    /// A value of the data is NaN or infinite.
    #[error("the data have a non-finite value (NaN or infinity) in row {row}, column {column}")]
    NonFinite {
        /// The record (0-based row).
        row: usize,
        /// The coordinate (0-based column).
        column: usize,
    },
    /// The public plan cannot reach the accuracy it needs with this many records (the message
    /// says how many it would need).
    #[error("too few samples: {0}")]
    TooFewSamples(String),
    /// A score evaluation failed.
    #[error(transparent)]
    Score(#[from] ScoreError),
    /// The sampler failed.
    #[error(transparent)]
    Sampler(#[from] SamplerError),
}
