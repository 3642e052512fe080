//! Errors of the score oracles. Every invalid input is reported before any data is used.
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum ScoreError {
    #[error("the dataset is empty")]
    EmptyData,
    #[error("{what} has a non-finite entry (NaN or infinity) at {index}")]
    NonFinite { what: &'static str, index: usize },
    #[error("{what} has dimension {got}, expected {expected}")]
    DimensionMismatch {
        what: &'static str,
        expected: usize,
        got: usize,
    },
    #[error("Gamma must be symmetric positive definite")]
    GammaNotPositiveDefinite,
    #[error("the width gamma must lie in (0, 1), got {0}")]
    WidthOutOfRange(f64),
    #[error("the leverage cap lambda must be positive and finite, got {0}")]
    LambdaNotPositive(f64),
    #[error("the radius must be positive and finite, got {0}")]
    RadiusNotPositive(f64),
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    #[error("the SDP solver failed ({0}) even at the relaxed tolerance")]
    Solver(String),
}
