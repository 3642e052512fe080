//! `sosdp covariance` and `sosdp gaussian`: the private covariance (MATH.md 5.2, 5.3) and the
//! Gaussian learner (5.4) of a CSV file. Each prints its public release as one JSON object (to
//! FILE with `--out`): `{"estimate": ..., "epsilon": E, "delta": 0, "plan": {...},
//! "stage_releases": [...], "accuracy": [...], "guarantee": "..."}`, where the estimate is the
//! covariance (rows) or `{"mean": [...], "covariance": [[...]]}`. `--diagnostics FILE` writes
//! the non-private diagnostics to a separate file.
use super::{LearnerArgs, run_learner};
use crate::CliError;
use clap::{Args, ValueEnum};
use sosdp_learn::{Centring, GaussianSettings, PrivateCovariance, PrivateGaussian};

/// Arguments shared by both commands.
#[derive(Debug, Args)]
pub struct CommonArgs {
    #[command(flatten)]
    learner: LearnerArgs,
    /// Prior I ⪯ Sigma ⪯ K I on the covariance, K >= 1 (the accuracy bounds assume it).
    #[arg(
        long,
        value_name = "K",
        default_value_t = 100.0,
        allow_negative_numbers = true
    )]
    kappa: f64,
}

/// The arguments of `sosdp covariance`.
#[derive(Debug, Args)]
pub struct CovarianceArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// With a prior bound R > 0 on the norm of the mean: centre the refinement (MATH 5.3b), a
    /// mean released in the current frame (1/8 of eps) centres the records and the later
    /// refinement stages run on the n records instead of n/2 pairs. Without it, pairs.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: Option<f64>,
}

/// The arguments of `sosdp gaussian`.
#[derive(Debug, Args)]
pub struct GaussianArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Prior bound R > 0 on the norm of the mean (the accuracy bounds assume |mu| <= R).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
    /// Whether the covariance's refinement is centred by the mean (MATH 5.3b): `planned`
    /// keeps the smaller planned covariance error of the two, before the data are read. The
    /// default is `never`: centred stages are far slower on large or clustered data for now.
    #[arg(long, value_enum, default_value_t = CentringArg::Never)]
    centring: CentringArg,
}

/// `--centring`: [`Centring`].
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CentringArg {
    /// The plan's choice (the smaller planned covariance error).
    Planned,
    /// Always centred.
    Always,
    /// Always on pairs, the mean last.
    Never,
}

impl From<CentringArg> for Centring {
    fn from(c: CentringArg) -> Self {
        match c {
            CentringArg::Planned => Centring::Planned,
            CentringArg::Always => Centring::Always,
            CentringArg::Never => Centring::Never,
        }
    }
}

/// Run `sosdp covariance`.
pub fn run_covariance(args: &CovarianceArgs) -> Result<(), CliError> {
    let a = &args.common;
    let learner = PrivateCovariance::new(a.learner.privacy(), a.kappa);
    let learner = match args.radius {
        Some(radius) => learner.centred(radius),
        None => learner,
    };
    run_learner(&a.learner, "step", &learner)
}

/// Run `sosdp gaussian`.
pub fn run_gaussian(args: &GaussianArgs) -> Result<(), CliError> {
    let a = &args.common;
    let learner = PrivateGaussian::new(a.learner.privacy(), args.radius, a.kappa).settings(
        GaussianSettings {
            centring: args.centring.into(),
            ..GaussianSettings::default()
        },
    );
    run_learner(&a.learner, "step", &learner)
}
