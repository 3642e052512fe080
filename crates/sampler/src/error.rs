//! Errors of the sampler. Settings are validated before any oracle call.
use sosdp_oracle::ScoreError;
use thiserror::Error;

/// Why the sampler could not run or had to stop.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SamplerError {
    /// The privacy parameter is not positive and finite.
    #[error("epsilon must be positive and finite, got {0}")]
    EpsilonNotPositive(f64),
    /// A setting or body that cannot be used, described.
    #[error("invalid sampler setting: {0}")]
    InvalidSetting(String),
    #[error("{what} has dimension {got}, expected {expected}")]
    /// An input has the wrong dimension.
    DimensionMismatch {
        /// Which input.
        what: &'static str,
        /// The dimension needed.
        expected: usize,
        /// The dimension given.
        got: usize,
    },
    /// The named input has a NaN or infinite entry.
    #[error("{0} has a non-finite entry")]
    NonFinite(&'static str),
    /// The starting point is outside the named body.
    #[error("the starting point of the chain is not inside the body ({0})")]
    StartOutside(&'static str),
    /// The volume ladder would need more than this many bodies.
    #[error("the volume ladder needed more than {0} bodies")]
    LadderTooLong(usize),
    /// The score oracle failed.
    #[error(transparent)]
    Score(#[from] ScoreError),
    /// The progress callback returned `ControlFlow::Break`: the run stopped before its next
    /// step and released nothing. The caller's decision, never the data's
    /// ([`crate::progress`]).
    #[error("cancelled by the caller (the progress callback asked to stop); nothing was released")]
    Cancelled,
}
