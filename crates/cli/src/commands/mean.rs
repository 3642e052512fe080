//! `sosdp mean`: the private, robust mean (MATH.md 5.1) of a CSV file. Prints one JSON object
//! `{"estimate": [...], "epsilon": E, "delta": 0, "stages": [...], "elapsed_s": t}` (to FILE
//! with `--out`). The stages list the public plan and releases (eps, radius, Gamma, centre,
//! release); `--diagnostics` adds the sampler records, which depend on the data and are not
//! covered by the privacy guarantee.
use super::{emit, validate_read_fit, LearnerArgs};
use crate::CliError;
use clap::Args;
use serde_json::json;
use sosdp_learn::PrivateMean;

#[derive(Debug, Args)]
pub struct MeanArgs {
    #[command(flatten)]
    common: LearnerArgs,
    /// Prior bound R > 0 on the norm of the mean.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
}

pub fn run(args: &MeanArgs) -> Result<(), CliError> {
    let a = &args.common;
    let mut learner = PrivateMean::new(a.epsilon).radius(args.radius).corruption(a.corruption).beta(a.beta);
    if let Some(s) = a.seed {
        learner = learner.seed(s);
    }
    let fit = validate_read_fit(a, "stage", || learner.validate(), |data, progress| learner.fit_with_progress(data, progress))?;
    let stages: Vec<_> = fit
        .report
        .stages
        .iter()
        .map(|s| {
            let mut v = json!({
                "epsilon": s.plan.epsilon, "radius": s.plan.radius, "gamma": s.plan.gamma,
                "score_bound": s.plan.score_bound, "accuracy_bound": s.plan.accuracy,
                "centre": s.centre, "release": s.release,
            });
            if a.diagnostics {
                v["diagnostics"] = serde_json::to_value(&s.record).unwrap_or_default();
            }
            v
        })
        .collect();
    let out = json!({
        "estimate": fit.estimate, "epsilon": fit.report.epsilon, "delta": 0,
        "stages": stages, "elapsed_s": fit.report.elapsed_s,
    });
    emit(&a.out, &out)
}
