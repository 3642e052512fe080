//! `sosdp covariance` and `sosdp gaussian`: the private covariance (MATH.md 5.2, 5.3) and the
//! Gaussian learner (5.4) of a CSV file. Each prints one JSON object (to FILE with `--out`):
//! `{"covariance": [[...]], ...}` or `{"mean": [...], "covariance": [[...]], "epsilon": E,
//! "delta": 0, "stages": [...], "elapsed_s": t}`. The stages list the public plan and the
//! releases; `--diagnostics` adds the sampler records (data-dependent, not private).
use super::{emit, validate_read_fit, LearnerArgs};
use crate::CliError;
use clap::Args;
use serde_json::{json, Value};
use sosdp_learn::covariance::CovarianceReport;
use sosdp_learn::{PrivateCovariance, PrivateGaussian};

/// Arguments shared by both commands.
#[derive(Debug, Args)]
pub struct CommonArgs {
    #[command(flatten)]
    learner: LearnerArgs,
    /// Prior I ⪯ Sigma ⪯ K I on the covariance, K >= 1.
    #[arg(long, value_name = "K", default_value_t = 100.0, allow_negative_numbers = true)]
    kappa: f64,
}

#[derive(Debug, Args)]
pub struct CovarianceArgs {
    #[command(flatten)]
    common: CommonArgs,
}

#[derive(Debug, Args)]
pub struct GaussianArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Prior bound R > 0 on the norm of the mean.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
}

/// The covariance's public steps as JSON.
fn covariance_stages(report: &CovarianceReport, diagnostics: bool) -> Vec<Value> {
    let plan = &report.plan;
    let mut pre = json!({
        "step": "preconditioner", "epsilon": plan.preconditioner.epsilon, "lambda": plan.preconditioner.lambda,
        "width": plan.preconditioner.width, "domain": [plan.preconditioner.lower, plan.preconditioner.upper],
        "spectral_bound": plan.preconditioner.spectral_bound, "worst_case_valid": plan.preconditioner.worst_case_valid,
        "release_svec": report.preconditioner.release,
    });
    if diagnostics {
        pre["diagnostics"] = serde_json::to_value(&report.preconditioner.record).unwrap_or_default();
    }
    let mut out = vec![pre];
    for (p, step) in plan.refinement.iter().zip(&report.refinement) {
        let mut v = json!({
            "step": "refinement", "epsilon": p.epsilon, "radius": p.radius, "spectral": p.spectral, "lower_eigenvalue": p.lower_eigenvalue, "gamma": p.gamma,
            "score_bound": p.score_bound, "accuracy_bound": p.accuracy, "release_svec_whitened": step.release,
        });
        if diagnostics {
            v["diagnostics"] = serde_json::to_value(&step.record).unwrap_or_default();
        }
        out.push(v);
    }
    out
}

pub fn run_covariance(args: &CovarianceArgs) -> Result<(), CliError> {
    let a = &args.common.learner;
    let mut learner = PrivateCovariance::new(a.epsilon).kappa(args.common.kappa).corruption(a.corruption).beta(a.beta);
    if let Some(s) = a.seed {
        learner = learner.seed(s);
    }
    let fit = validate_read_fit(a, "step", || learner.validate(), |data, progress| learner.fit_with_progress(data, progress))?;
    let out = json!({
        "covariance": fit.covariance, "epsilon": fit.report.epsilon, "delta": 0,
        "stages": covariance_stages(&fit.report, a.diagnostics), "elapsed_s": fit.report.elapsed_s,
    });
    emit(&a.out, &out)
}

pub fn run_gaussian(args: &GaussianArgs) -> Result<(), CliError> {
    let a = &args.common.learner;
    let mut learner = PrivateGaussian::new(a.epsilon).radius(args.radius).kappa(args.common.kappa).corruption(a.corruption).beta(a.beta);
    if let Some(s) = a.seed {
        learner = learner.seed(s);
    }
    let fit = validate_read_fit(a, "step", || learner.validate(), |data, progress| learner.fit_with_progress(data, progress))?;
    let mut stages = covariance_stages(&fit.report.covariance.report, a.diagnostics);
    for s in &fit.report.mean.report.stages {
        let mut v = json!({
            "step": "mean", "epsilon": s.plan.epsilon, "radius": s.plan.radius, "gamma": s.plan.gamma,
            "score_bound": s.plan.score_bound, "accuracy_bound": s.plan.accuracy, "release_whitened": s.release,
        });
        if a.diagnostics {
            v["diagnostics"] = serde_json::to_value(&s.record).unwrap_or_default();
        }
        stages.push(v);
    }
    let out = json!({
        "mean": fit.mean, "covariance": fit.covariance, "epsilon": fit.report.epsilon, "delta": 0,
        "stages": stages, "elapsed_s": fit.report.elapsed_s,
    });
    emit(&a.out, &out)
}
