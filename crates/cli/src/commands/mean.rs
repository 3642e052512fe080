//! `sosdp mean`: the private, robust mean (MATH.md 5.1) of a CSV file, for records with
//! identity covariance. Prints the public release as one JSON object (to FILE with `--out`):
//! `{"estimate": [...], "epsilon": E, "delta": D, "plan": {...}, "stage_releases": [...],
//! "accuracy": [...], "guarantee": "..."}` and nothing else computed from the data.
//! With `--radius R` the fit is pure (`delta = 0`); without it, `--delta D > 0` localises the
//! mean privately first (MATH.md 5.5 (a)), and a refused localisation prints
//! `"estimate": null` with a `"refusal"` reason (exit status 0: a refusal is a release).
//! `--diagnostics FILE` writes the non-private diagnostics to a separate file.
use super::{DeltaArg, LearnerArgs, run_learner};
use crate::CliError;
use clap::Args;
use sosdp_learn::{LocalisedMean, PrivateMean};

/// The arguments of `sosdp mean`.
#[derive(Debug, Args)]
pub struct MeanArgs {
    #[command(flatten)]
    common: LearnerArgs,
    /// Prior bound R > 0 on the norm of the mean: the release's accuracy bound assumes
    /// |mu| <= R (a larger R costs accuracy logarithmically). The fit is then pure (the release
    /// says delta = 0, whatever --delta is). Optional with --delta D > 0.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: Option<f64>,
    #[command(flatten)]
    delta: DeltaArg,
}

/// Run `sosdp mean`: the pure mean with `--radius`, the localised mean without it.
pub fn run(args: &MeanArgs) -> Result<(), CliError> {
    let privacy = args.common.privacy().delta(args.delta.delta);
    match args.radius {
        Some(radius) => run_learner(&args.common, "stage", &PrivateMean::new(privacy, radius)),
        None if args.delta.delta == 0.0 => Err(CliError::Invalid(
            "sosdp mean needs a prior --radius R (pure DP), or --delta D > 0 to localise the mean privately without one (MATH.md 5.5 (a))".into(),
        )),
        None => run_learner(&args.common, "stage", &LocalisedMean::new(privacy)),
    }
}
