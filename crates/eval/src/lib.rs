//! Evaluation for sosdp (MATH.md section 6): synthetic Gaussians, the adversaries that
//! corrupt them, baselines behind one trait, metrics, and the calibration run of the private
//! mean's constants. The figures (module `plot`) need the feature `plot`.
pub mod adversary;
pub mod baseline;
pub mod calibration;
pub mod coinpress;
pub mod coinpress_covariance;
pub mod filter;
pub mod localised;
pub mod mcd;
pub mod metrics;
#[cfg(feature = "plot")]
pub mod plot;
pub mod synthetic;

pub use adversary::Adversary;
pub use adversary::CovarianceAdversary;
pub use baseline::{ClippedLaplaceMean, CoordinateMedian, EmpiricalMean, Guarantee, MeanEstimator};
pub use baseline::{CovarianceEstimator, EmpiricalCovariance};
pub use coinpress::CoinPressMean;
pub use coinpress_covariance::CoinPressCovariance;
pub use filter::{FilterFit, FilterMean};
pub use localised::LocalisedClippedMean;
pub use mcd::{FastMcd, McdFit, McdSettings};
pub use metrics::{
    frobenius_error, gaussian_kl, l2_error, mahalanobis_error, quantile, spectral_error, tv_bound,
    tv_monte_carlo,
};
pub use synthetic::covariance_sample_with;
pub use synthetic::{CorruptedSample, CovarianceSample, covariance_sample, gaussian_samples};
