//! `sosdp mean`: the private, robust mean (MATH.md 5.1) of a CSV file. Prints one JSON object
//! `{"estimate": [...], "epsilon": E, "delta": 0, "stages": [...], "elapsed_s": t}` (to FILE
//! with `--out`). The stages list the public plan and releases (eps, radius, Gamma, centre,
//! release); `--diagnostics` adds the sampler records, which depend on the data and are not
//! covered by the privacy guarantee.
use super::{emit, progress_bar};
use crate::input::read_matrix;
use crate::CliError;
use clap::Args;
use serde_json::json;
use sosdp_learn::PrivateMean;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct MeanArgs {
    /// Data: one record per row (n x d), optional header row.
    #[arg(long, value_name = "X.csv")]
    input: PathBuf,
    /// Privacy parameter eps > 0 (pure DP, delta = 0).
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// Prior bound R > 0 on the norm of the mean.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
    /// Fraction of corrupted records to tolerate, in [0, 0.5).
    #[arg(long, value_name = "ETA", default_value_t = 0.0, allow_negative_numbers = true)]
    corruption: f64,
    /// Failure probability of the accuracy guarantee, in (0, 1).
    #[arg(long, value_name = "B", default_value_t = 0.05, allow_negative_numbers = true)]
    beta: f64,
    /// Seed (reproducible runs; omit for fresh OS randomness, as a published release should).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Write the JSON object to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Include the sampler records (data-dependent diagnostics, not private).
    #[arg(long)]
    diagnostics: bool,
}

pub fn run(args: &MeanArgs) -> Result<(), CliError> {
    let mut learner = PrivateMean::new(args.epsilon).radius(args.radius).corruption(args.corruption).beta(args.beta);
    if let Some(s) = args.seed {
        learner = learner.seed(s);
    }
    // Settings first (no data read), then the data.
    learner.validate().map_err(|e| CliError::Invalid(e.to_string()))?;
    let data = read_matrix(&args.input)?;
    let bar = progress_bar();
    let fit = learner
        .fit_with_progress(&data, &mut |stage, p| bar.set_message(format!("stage {} {} {}/{}", stage + 1, p.phase, p.done, p.total)))
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    bar.finish_and_clear();
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
            if args.diagnostics {
                v["diagnostics"] = serde_json::to_value(&s.record).unwrap_or_default();
            }
            v
        })
        .collect();
    let out = json!({
        "estimate": fit.estimate, "epsilon": fit.report.epsilon, "delta": 0,
        "stages": stages, "elapsed_s": fit.report.elapsed_s,
    });
    emit(&args.out, &out)
}
