//! Evaluation for sosdp (MATH.md section 6): synthetic Gaussians, the adversaries that
//! corrupt them, baselines behind one trait, metrics, and the calibration run of the private
//! mean's constants.
pub mod adversary;
pub mod baseline;
pub mod calibration;
pub mod metrics;
pub mod synthetic;

pub use adversary::Adversary;
pub use baseline::{ClippedLaplaceMean, CoordinateMedian, EmpiricalMean, MeanEstimator, Privacy};
pub use metrics::{l2_error, quantile};
pub use synthetic::{gaussian_samples, CorruptedSample};
