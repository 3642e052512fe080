//! `sosdp demo`: the main job on built-in synthetic data.
//!
//! - `sosdp demo` (or `--learner gaussian`): the Gaussian learner (MATH.md 5.4) on 20000
//!   draws of N(mu, Sigma) in R^3, `|mu| = 5`, `Sigma` rotated with condition number 20, 1%
//!   replaced by the inflated-direction adversary (d) of MATH.md 6 (generated in-process with
//!   `sosdp-eval` from seed 2023: the same data every run). Prints the mean and covariance
//!   errors, a Monte Carlo estimate of the TV distance and its Pinsker bound, eps spent and time.
//! - `sosdp demo --learner mean`: the private, robust mean (MATH.md 5.1) on the embedded CSV
//!   (2000 draws of N(mu, I_5), 5% replaced by a tight cluster at distance 5 along the first
//!   axis), next to the baselines of MATH.md 6 on the same data.
use crate::CliError;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp_eval::{ClippedLaplaceMean, CoordinateMedian, EmpiricalMean, MeanEstimator};
use sosdp_eval::{
    covariance_sample, frobenius_error, l2_error, mahalanobis_error, tv_bound, tv_monte_carlo,
};
use sosdp_learn::io::{Header, parse_matrix};
use sosdp_learn::{Learner, Privacy, PrivateGaussian, PrivateMean};
use std::ops::ControlFlow;

/// The embedded dataset: 2000 rows, 5 columns, with a header row.
pub const DEMO_CSV: &str = include_str!("../../data/demo.csv");
/// The mean of the clean distribution behind [`DEMO_CSV`].
pub const DEMO_MEAN: [f64; 5] = [1.0, -2.0, 0.5, 0.0, 3.0];
/// Fraction of the demo's records replaced by the adversary.
pub const DEMO_CORRUPTION: f64 = 0.05;
/// The demo's privacy parameter, prior radius and seed.
const EPSILON: f64 = 1.0;
const RADIUS: f64 = 10.0;
const SEED: u64 = 2023;
/// Draws of the Monte Carlo TV estimate (standard error at most 0.5 / sqrt of it).
const TV_SAMPLES: usize = 100_000;

/// Which learner the demo runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DemoLearner {
    Gaussian,
    Mean,
}

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// The learner to demonstrate.
    #[arg(long, value_enum, default_value = "gaussian")]
    learner: DemoLearner,
}

pub fn run(args: &DemoArgs) -> Result<(), CliError> {
    match args.learner {
        DemoLearner::Gaussian => run_gaussian(),
        DemoLearner::Mean => run_mean(),
    }
}

fn run_gaussian() -> Result<(), CliError> {
    let (n, d, cond, eta, eps) = (20000, 3, 20.0, 0.01, 2.0);
    let mut rng = StdRng::seed_from_u64(SEED);
    let s = covariance_sample(&mut rng, n, d, 5.0, cond, eta);
    println!("sosdp demo: learning a Gaussian privately and robustly (MATH.md 5.4)");
    println!(
        "  data    : n = {n} records in R^{d} from N(mu, Sigma), |mu| = 5, Sigma rotated with condition number {cond};"
    );
    println!(
        "            {:.0}% replaced by points along the least-variance direction with 10x variance",
        100.0 * eta
    );
    println!(
        "  learner : eps = {eps} (pure DP, delta = 0), prior |mu| <= R = {RADIUS}, I ⪯ Sigma ⪯ 100 I, corruption bound {eta}, seed {SEED}"
    );
    let learner = PrivateGaussian::new(Privacy::new(eps).corruption(eta).seed(SEED), RADIUS, 100.0);
    let bar = super::progress_bar();
    let fit = learner
        .fit_with_progress(&s.data, &mut |step, p| {
            bar.set_message(format!(
                "step {} {} {}/{}",
                step + 1,
                p.phase,
                p.done,
                p.total
            ));
            ControlFlow::Continue(())
        })
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    bar.finish_and_clear();
    let (release, est) = (&fit.release, &fit.release.estimate);
    let (mu_hat, sigma_hat) = (est.mean.as_slice(), &est.covariance);
    let plan = &release.plan;
    println!();
    println!(
        "  mean        : {:?}",
        est.mean.iter().map(|&x| rounded(x)).collect::<Vec<_>>()
    );
    println!(
        "  errors      : |Sigma^-1/2 (mu_hat - mu)| = {:.4}",
        mahalanobis_error(mu_hat, &s.mean, &s.covariance)
    );
    println!(
        "                |Sigma^-1/2 Sigma_hat Sigma^-1/2 - I|_F = {:.4}",
        frobenius_error(sigma_hat, &s.covariance)
    );
    let (tv, tv_se) = tv_monte_carlo(&s.mean, &s.covariance, mu_hat, sigma_hat, TV_SAMPLES, SEED);
    println!(
        "                TV(N(mu, Sigma), N(mu_hat, Sigma_hat)) = {tv:.4} +- {tv_se:.4} (Monte Carlo, {TV_SAMPLES} draws)"
    );
    println!(
        "                                                      <= {:.4} (Pinsker)",
        tv_bound(&s.mean, &s.covariance, mu_hat, sigma_hat)
    );
    println!(
        "  eps         : {} spent = {:.3} preconditioner + {:.3} refinement + {:.3} mean; delta = 0",
        release.epsilon,
        plan.covariance.preconditioner.epsilon,
        plan.covariance
            .refinement
            .iter()
            .map(|r| r.epsilon)
            .sum::<f64>(),
        plan.mean_schedule()
            .map_or(0.0, |m| m.stages.iter().map(|s| s.epsilon).sum::<f64>())
    );
    println!(
        "  time        : {:.1} s (not private)",
        fit.diagnostics.elapsed_s
    );
    Ok(())
}

fn run_mean() -> Result<(), CliError> {
    let data = parse_matrix(DEMO_CSV, Header::Skip)
        .map_err(|m| CliError::Invalid(format!("embedded demo data: {m}")))?;
    let (n, d) = data.shape();
    println!("sosdp demo: a private, robust mean of an embedded corrupted Gaussian sample");
    println!("  data    : n = {n} records in R^{d} from N(mu, I), mu = {DEMO_MEAN:?};");
    println!(
        "            {:.0}% replaced by a tight cluster at distance 5 along the first axis",
        100.0 * DEMO_CORRUPTION
    );
    println!(
        "  learner : eps = {EPSILON} (pure DP, delta = 0), prior |mu| <= R = {RADIUS}, corruption bound {DEMO_CORRUPTION}, seed {SEED}"
    );

    let learner = PrivateMean::new(
        Privacy::new(EPSILON).corruption(DEMO_CORRUPTION).seed(SEED),
        RADIUS,
    );
    let plan = learner
        .plan(n, d)
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    println!(
        "  plan    : {} stage(s), eps {:.3} each, radii {:?}",
        plan.stages.len(),
        plan.stages[0].epsilon,
        plan.stages
            .iter()
            .map(|s| rounded(s.radius))
            .collect::<Vec<_>>()
    );
    let bar = super::progress_bar();
    let fit = learner
        .fit_with_progress(&data, &mut |stage, p| {
            bar.set_message(format!(
                "stage {} {} {}/{}",
                stage + 1,
                p.phase,
                p.done,
                p.total
            ));
            ControlFlow::Continue(())
        })
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    bar.finish_and_clear();
    println!();
    let release = &fit.release;
    println!(
        "  estimate: {:?}",
        release
            .estimate
            .iter()
            .map(|&x| rounded(x))
            .collect::<Vec<_>>()
    );
    println!(
        "  error   : |mu_hat - mu| = {:.4}",
        l2_error(release.estimate.as_slice(), &DEMO_MEAN)
    );
    println!(
        "  eps     : {} spent (stages: {:?}), delta = {}",
        release.epsilon,
        release
            .plan
            .stages
            .iter()
            .map(|s| rounded(s.epsilon))
            .collect::<Vec<_>>(),
        release.delta
    );
    println!(
        "  time    : {:.1} s (not private)",
        fit.diagnostics.elapsed_s
    );
    println!();
    println!("  baselines on the same data:");
    println!("  {:<36} {:>14}   privacy", "estimator", "|est - mu|");
    let baselines: [Box<dyn MeanEstimator>; 3] = [
        Box::new(EmpiricalMean),
        Box::new(CoordinateMedian),
        Box::new(ClippedLaplaceMean::for_prior(EPSILON, RADIUS, n, d)),
    ];
    for b in &baselines {
        let est = b
            .estimate(&data, SEED)
            .map_err(|e| CliError::Invalid(e.to_string()))?;
        println!(
            "  {:<36} {:>14.4}   {}",
            b.name(),
            l2_error(&est, &DEMO_MEAN),
            b.guarantee()
        );
    }
    Ok(())
}

fn rounded(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}
