//! `sosdp mean`: the private, robust mean (MATH.md 5.1) of a CSV file, for records with
//! identity covariance. Prints the public release as one JSON object (to FILE with `--out`):
//! `{"estimate": [...], "epsilon": E, "delta": 0, "plan": {...}, "stage_releases": [...],
//! "accuracy": [...], "guarantee": "..."}` and nothing else computed from the data.
//! `--diagnostics FILE` writes the non-private diagnostics to a separate file.
use super::{LearnerArgs, emit_fit, validate_read_fit};
use crate::CliError;
use clap::Args;
use sosdp_learn::PrivateMean;

#[derive(Debug, Args)]
pub struct MeanArgs {
    #[command(flatten)]
    common: LearnerArgs,
    /// Prior bound R > 0 on the norm of the mean: the release's accuracy bound assumes
    /// |mu| <= R (a larger R costs accuracy logarithmically).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
}

pub fn run(args: &MeanArgs) -> Result<(), CliError> {
    let a = &args.common;
    let mut learner = PrivateMean::new(a.epsilon)
        .radius(args.radius)
        .corruption(a.corruption)
        .beta(a.beta);
    if let Some(s) = a.seed {
        learner = learner.seed(s);
    }
    let fit = validate_read_fit(
        a,
        "stage",
        || learner.validate(),
        |data, progress| learner.fit_with_progress(data, progress),
    )?;
    emit_fit(a, &fit)
}
