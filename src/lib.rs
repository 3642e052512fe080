//! sosdp: pure differentially private, robust learning of high-dimensional Gaussians with the
//! sum-of-squares exponential mechanism (Hopkins–Kamath–Majid–Narayanan 2023).
//!
//! Three learners, each built from the shared settings [`Privacy`] (eps, delta, corruption,
//! beta, seed, sampler) and its required priors, and each a [`Learner`]: a public [`Learner::plan`] from
//! `(n, d)` alone, and a [`Learner::fit`] on a [`nalgebra::DMatrix`] of records (one per row)
//! that returns a [`Fit`]: the public [`Release`] (serialisable) and the non-private
//! [`Diagnostics`].
//!
//! - [`PrivateMean`]: the mean of `N(mu, I)` with `|mu| <= R` (estimate: a `DVector`), or,
//!   without a prior, [`LocalisedMean`] with `delta > 0` (an `Option<DVector>`: `None` when
//!   its private localisation refuses);
//! - [`PrivateCovariance`]: the covariance of `N(mu, Sigma)` with `I ⪯ Sigma ⪯ K I` (a
//!   `DMatrix`);
//! - [`PrivateGaussian`]: both, in total variation ([`GaussianEstimate`]).
//!
//! ```
//! use sosdp::rand::{SeedableRng, rngs::StdRng};
//! use sosdp::{Learner, Privacy, PrivateMean};
//!
//! // 2000 records of N(mu, I_2) with mu = (1, -2).
//! let mut rng = StdRng::seed_from_u64(1);
//! let data = sosdp::eval::gaussian_samples(&mut rng, 2000, &[1.0, -2.0], None);
//!
//! // eps = 1, up to 5% corrupted records, the prior |mu| <= 10. A fixed seed makes the release
//! // reproducible and therefore not private: omit it for a release you publish.
//! let learner = PrivateMean::new(Privacy::new(1.0).corruption(0.05).seed(7), 10.0);
//! let plan = learner.plan(2000, 2)?; // public: no data read
//! let fit = learner.fit(&data)?;
//! let mu_hat = &fit.release.estimate;
//! assert_eq!(mu_hat.len(), 2);
//! assert!(fit.release.accuracy[0].bound == Some(plan.accuracy()));
//! # Ok::<(), sosdp::LearnError>(())
//! ```
//!
//! CSV files in the tool's format are read by [`io::read_matrix`]. The lower layers are
//! modules: [`score`] (certified score oracles), [`sampler`] (the exponential mechanism's
//! samplers), [`sdp`] (the sum-of-squares programs), [`learn`] (the learners) and [`eval`]
//! (synthetic data, adversaries, baselines, metrics).
//!
//! BLAS/LAPACK: by default a pure-Rust implementation on faer (`sosdp-blas`), which needs no
//! system library and runs on the calling thread. With the feature `openblas` the system
//! OpenBLAS is linked instead; the score solves use small dense blocks, so run it
//! single-threaded (`OPENBLAS_NUM_THREADS=1`, or [`set_blas_threads`]`(1)` at the start of
//! `main`, as the `sosdp` binary does).
//!
//! Features: `cli` (default), the command-line tool; `plot` (with `cli`), the figures of
//! `eval::plot`; `openblas`, the system OpenBLAS instead of the pure-Rust BLAS. With
//! `default-features = false` neither `cli` nor `plot` is built, nor are their dependencies
//! (clap, indicatif, plotters).
pub use nalgebra;
pub use rand;
pub use sosdp_blas::set_num_threads as set_blas_threads;
pub use sosdp_eval as eval;
pub use sosdp_learn as learn;
pub use sosdp_learn::io;
pub use sosdp_learn::{
    AccuracyBound, CovarianceFit, CovariancePlan, CovarianceRelease, CovarianceSettings,
    Diagnostics, Fit, GaussianEstimate, GaussianFit, GaussianPlan, GaussianRelease,
    GaussianSettings, LearnError, Learner, LocalisedFit, LocalisedMean, LocalisedPlan,
    LocalisedRelease, MeanFit, MeanRelease, MeanSettings, Plan, PlannedStage, Privacy,
    PrivateCovariance, PrivateGaussian, PrivateMean, Progress, Release, SamplerKind, Schedule,
    StageMechanism, StageRelease,
};
pub use sosdp_oracle as oracle;
pub use sosdp_sampler as sampler;
pub use sosdp_score as score;
pub use sosdp_sdp as sdp;

/// The README's library example, compiled and run as a doc test.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
