//! Private, robust learners on the sum-of-squares exponential mechanism (MATH.md section 5).
//!
//! - [`mean`]: the private mean with identity covariance (5.1);
//! - [`schedule`]: its data-independent stage plan.
pub mod error;
pub mod mean;
pub mod schedule;

pub use error::LearnError;
pub use mean::{check_data, MeanFit, MeanReport, PrivateMean, StageReport};
pub use schedule::{Constants, Schedule};
