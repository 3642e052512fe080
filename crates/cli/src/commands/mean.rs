//! `sosdp mean`: the private, robust mean (MATH.md 5.1) of a CSV file, for records with
//! identity covariance. Prints the public release as one JSON object (to FILE with `--out`):
//! `{"estimate": [...], "epsilon": E, "delta": 0, "plan": {...}, "stage_releases": [...],
//! "accuracy": [...], "guarantee": "..."}` and nothing else computed from the data.
//! `--diagnostics FILE` writes the non-private diagnostics to a separate file.
use super::{LearnerArgs, run_learner};
use crate::CliError;
use clap::Args;
use sosdp_learn::PrivateMean;

/// The arguments of `sosdp mean`.
#[derive(Debug, Args)]
pub struct MeanArgs {
    #[command(flatten)]
    common: LearnerArgs,
    /// Prior bound R > 0 on the norm of the mean: the release's accuracy bound assumes
    /// |mu| <= R (a larger R costs accuracy logarithmically).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
}

/// Run `sosdp mean`.
pub fn run(args: &MeanArgs) -> Result<(), CliError> {
    let learner = PrivateMean::new(args.common.privacy(), args.radius);
    run_learner(&args.common, "stage", &learner)
}
