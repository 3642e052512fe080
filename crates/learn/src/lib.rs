//! Private, robust learners on the sum-of-squares exponential mechanism (MATH.md section 5).
//!
//! - [`mean`]: the private mean with identity covariance (5.1);
//! - [`covariance`]: the private covariance, spectral preconditioner and Frobenius refinement
//!   (5.2, 5.3);
//! - [`gaussian`]: learning a Gaussian in total variation (5.4);
//! - [`stage`]: one CM stage, shared by the mean and the refinement;
//! - [`schedule`]: its data-independent stage plan;
//! - [`projection`]: per-record projection onto public balls (every score sees only
//!   projected records);
//! - [`release`]: what a fit returns: the public release, separate from the non-private
//!   diagnostics.
pub mod covariance;
pub mod error;
pub mod gaussian;
pub mod mean;
pub mod projection;
pub mod release;
pub mod schedule;
pub mod stage;

pub use covariance::{CovarianceFit, CovariancePlan, CovarianceRelease, PrivateCovariance};
pub use error::LearnError;
pub use gaussian::{GaussianEstimate, GaussianFit, GaussianPlan, GaussianRelease, PrivateGaussian};
pub use mean::{check_data, MeanFit, MeanRelease, PrivateMean};
pub use release::{AccuracyBound, Diagnostics, Fit, NonPrivate, Release, StageRelease};
pub use schedule::{Constants, Schedule};
