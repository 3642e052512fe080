//! `sosdp covariance` and `sosdp gaussian`: the private covariance (MATH.md 5.2, 5.3) and the
//! Gaussian learner (5.4) of a CSV file. Each prints its public release as one JSON object (to
//! FILE with `--out`): `{"estimate": ..., "epsilon": E, "delta": 0, "plan": {...},
//! "stage_releases": [...], "accuracy": [...], "guarantee": "..."}`, where the estimate is the
//! covariance (rows) or `{"mean": [...], "covariance": [[...]]}`. `--diagnostics FILE` writes
//! the non-private diagnostics to a separate file.
use super::{LearnerArgs, run_learner};
use crate::CliError;
use clap::Args;
use sosdp_learn::{PrivateCovariance, PrivateGaussian};

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
}

/// The arguments of `sosdp gaussian`.
#[derive(Debug, Args)]
pub struct GaussianArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Prior bound R > 0 on the norm of the mean (the accuracy bounds assume |mu| <= R).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
}

/// Run `sosdp covariance`.
pub fn run_covariance(args: &CovarianceArgs) -> Result<(), CliError> {
    let a = &args.common;
    let learner = PrivateCovariance::new(a.learner.privacy(), a.kappa);
    run_learner(&a.learner, "step", &learner)
}

/// Run `sosdp gaussian`.
pub fn run_gaussian(args: &GaussianArgs) -> Result<(), CliError> {
    let a = &args.common;
    let learner = PrivateGaussian::new(a.learner.privacy(), args.radius, a.kappa);
    run_learner(&a.learner, "step", &learner)
}
