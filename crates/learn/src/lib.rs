//! Private, robust learners on the sum-of-squares exponential mechanism (MATH.md section 5).
//!
//! - [`mean`]: the private mean with identity covariance (5.1);
//! - [`covariance`]: the private covariance, spectral preconditioner and Frobenius refinement
//!   (5.2, 5.3);
//! - [`gaussian`]: learning a Gaussian in total variation (5.4);
//! - [`stage`]: one CM stage, shared by the mean and the refinement;
//! - [`schedule`]: its data-independent stage plan.
pub mod covariance;
pub mod error;
pub mod gaussian;
pub mod mean;
pub mod schedule;
pub mod stage;

pub use covariance::{CovarianceFit, PrivateCovariance};
pub use error::LearnError;
pub use gaussian::{GaussianFit, GaussianPlan, PrivateGaussian};
pub use mean::{check_data, MeanFit, MeanReport, PrivateMean, StageReport};
pub use schedule::{Constants, Schedule};
