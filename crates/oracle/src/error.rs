//! Errors of the score oracles. Every invalid input is reported before any data is used.
use thiserror::Error;

/// Why a score oracle could not be built or could not answer.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ScoreError {
    /// The dataset has no points.
    #[error("the dataset is empty")]
    EmptyData,
    /// An input has a NaN or infinite entry.
    #[error("{what} has a non-finite entry (NaN or infinity) at {index}")]
    NonFinite {
        /// Which input.
        what: &'static str,
        /// Position of the first non-finite entry.
        index: usize,
    },
    /// An input has the wrong dimension.
    #[error("{what} has dimension {got}, expected {expected}")]
    DimensionMismatch {
        /// Which input.
        what: &'static str,
        /// The dimension the oracle needs.
        expected: usize,
        /// The dimension given.
        got: usize,
    },
    /// The covariance bound `Gamma` is not symmetric positive definite.
    #[error("Gamma must be symmetric positive definite")]
    GammaNotPositiveDefinite,
    /// The width `gamma` lies outside `(0, 1)`.
    #[error("the width gamma must lie in (0, 1), got {0}")]
    WidthOutOfRange(f64),
    /// The leverage cap `lambda` is not positive and finite.
    #[error("the leverage cap lambda must be positive and finite, got {0}")]
    LambdaNotPositive(f64),
    /// A radius is not positive and finite.
    #[error("the radius must be positive and finite, got {0}")]
    RadiusNotPositive(f64),
    /// Any other invalid argument, described.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// The SDP solver failed, with its status.
    #[error("the SDP solver failed ({0}) even at the relaxed tolerance")]
    Solver(String),
}
