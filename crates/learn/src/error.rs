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
    /// The sampler failed (never [`SamplerError::Cancelled`]: that is [`LearnError::Cancelled`]).
    #[error(transparent)]
    Sampler(SamplerError),
    /// The progress callback returned `ControlFlow::Break`: the fit stopped before its next
    /// membership question or iteration and released nothing. The caller's decision (e.g. a
    /// user's Ctrl-C), never the data's, so no data-dependent path ends without a release
    /// (MATH.md 7).
    #[error("cancelled by the caller (the progress callback asked to stop); nothing was released")]
    Cancelled,
}

/// A sampler error as a learner's: [`SamplerError::Cancelled`] is [`LearnError::Cancelled`]
/// (what callers match on), every other one [`LearnError::Sampler`].
impl From<SamplerError> for LearnError {
    fn from(e: SamplerError) -> Self {
        match e {
            SamplerError::Cancelled => LearnError::Cancelled,
            other => LearnError::Sampler(other),
        }
    }
}
