//! Private, robust learners on the sum-of-squares exponential mechanism (MATH.md section 5).
//!
//! Every learner takes the shared settings [`Privacy`] and its priors, and implements
//! [`Learner`]: a public [`Learner::plan`] from `(n, d)` alone and a [`Learner::fit`] that
//! returns a [`Fit`], the public [`Release`] and the non-private [`Diagnostics`].
//!
//! - [`privacy`]: the shared settings (eps, delta, corruption, beta, seed, sampler);
//! - [`learner`]: the [`Learner`] and [`Plan`] traits;
//! - [`mean`]: the private mean with identity covariance (5.1), and without a prior radius
//!   (5.5 (a), `delta > 0`);
//! - [`localise`]: the `(eps, delta)`-DP localisation of the mean without a prior (5.5 (a)), and
//!   the fit of a learner after it;
//! - [`covariance`]: the private covariance: pairing, preconditioner and Frobenius refinement
//!   (5.2, 5.3);
//! - [`preconditioner`]: the staged additive preconditioner (5.2), with
//!   [`frobenius_noise`], its noise law and operator-norm quantiles, and [`special`], the
//!   chi-square and incomplete-gamma functions its plan needs;
//! - [`io`]: the CSV reader of data files (one record per line);
//! - [`gaussian`]: learning a Gaussian in total variation (5.4), without a prior radius
//!   (5.5 (a), `delta > 0`), and without the covariance's units (a bound on its condition
//!   number only);
//! - [`scale`]: the pure-DP release of the covariance's scale (5.5 (a));
//! - [`stage`]: one CM stage, shared by the mean and the refinement;
//! - [`symmetric`]: powers of positive definite matrices and the `svec` form of releases;
//! - [`schedule`]: its data-independent stage plan;
//! - [`snap`]: the snapping of additive releases to a public grid (4.6);
//! - [`projection`]: per-record projection onto public balls (every score sees only
//!   projected records);
//! - [`release`]: what a fit returns: the public release, separate from the non-private
//!   diagnostics.
pub mod covariance;
pub mod error;
pub mod frobenius_noise;
pub mod gaussian;
pub mod io;
pub mod learner;
pub mod localise;
pub mod mean;
pub mod norm_noise;
pub mod preconditioner;
pub mod privacy;
pub mod projection;
pub mod release;
pub mod scale;
pub mod schedule;
pub mod snap;
pub mod special;
pub mod stage;
pub mod symmetric;

pub use covariance::{
    CentringPlan, CovarianceFit, CovariancePlan, CovarianceRelease, CovarianceSettings,
    PreconditionerPoints, PrivateCovariance, ScaledCovariance,
};
pub use error::LearnError;
pub use gaussian::{
    Centring, GaussianEstimate, GaussianFit, GaussianPlan, GaussianRelease, GaussianSettings,
    LocalisedGaussian, LocalisedGaussianFit, LocalisedGaussianPlan, LocalisedGaussianRelease,
    MeanStepPlan, PrivateGaussian, ScaledGaussian,
};
pub use learner::{Learner, Plan, largest_accepted_corruption};
pub use localise::{Coverage, LocalisationPlan, LocaliseSettings};
pub use mean::{
    LocalisedFit, LocalisedMean, LocalisedPlan, LocalisedRelease, MeanFit, MeanRelease,
    MeanSettings, PrivateMean, check_data,
};
pub use preconditioner::{Points, PreconditionerPlan, PreconditionerSettings};
pub use privacy::Privacy;
pub use release::{AccuracyBound, Diagnostics, Estimate, Fit, NonPrivate, Release, StageRelease};
pub use scale::{DEFAULT_CONDITION, Rescalable, ScalePlan, ScaleSettings, Scaled, ScaledPlan};
pub use schedule::{Constants, PlannedStage, Schedule, StageMechanism};
pub use sosdp_sampler::{Progress, SamplerKind};
