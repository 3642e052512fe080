//! `sosdp demo`: the private, robust mean (MATH.md 5.1) on an embedded corrupted Gaussian
//! dataset: 2000 draws of N(mu, I_5) with 5% replaced by a tight cluster at distance 5 along
//! the first axis (generated with `sosdp-eval`, seed 2023). Prints the estimate, its error
//! against the truth, the eps spent and the time, next to the baselines of MATH.md 6 run on
//! the same data.
use crate::input::parse_matrix;
use crate::CliError;
use indicatif::{ProgressBar, ProgressStyle};
use sosdp_eval::{l2_error, ClippedLaplaceMean, CoordinateMedian, EmpiricalMean, MeanEstimator, Privacy};
use sosdp_learn::PrivateMean;
use std::io::IsTerminal;

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

pub fn run() -> Result<(), CliError> {
    let data = parse_matrix(DEMO_CSV).map_err(|m| CliError::Invalid(format!("embedded demo data: {m}")))?;
    let (n, d) = data.shape();
    println!("sosdp demo: a private, robust mean of an embedded corrupted Gaussian sample");
    println!("  data    : n = {n} records in R^{d} from N(mu, I), mu = {DEMO_MEAN:?};");
    println!("            {:.0}% replaced by a tight cluster at distance 5 along the first axis", 100.0 * DEMO_CORRUPTION);
    println!("  learner : eps = {EPSILON} (pure DP, delta = 0), prior |mu| <= R = {RADIUS}, corruption bound {DEMO_CORRUPTION}, seed {SEED}");

    let learner = PrivateMean::new(EPSILON).radius(RADIUS).corruption(DEMO_CORRUPTION).seed(SEED);
    let plan = learner.plan(n, d).map_err(|e| CliError::Invalid(e.to_string()))?;
    println!("  plan    : {} stage(s), eps {:.3} each, radii {:?}", plan.stages.len(), plan.stages[0].epsilon, plan.stages.iter().map(|s| rounded(s.radius)).collect::<Vec<_>>());
    let bar = if std::io::stderr().is_terminal() { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()));
    let fit = learner
        .fit_with_progress(&data, &mut |stage, p| {
            bar.set_message(format!("stage {} {} {}/{}", stage + 1, p.phase, p.done, p.total));
            bar.tick();
        })
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    bar.finish_and_clear();
    println!();
    println!("  estimate: {:?}", fit.estimate.iter().map(|&x| rounded(x)).collect::<Vec<_>>());
    println!("  error   : |mu_hat - mu| = {:.4}", l2_error(&fit.estimate, &DEMO_MEAN));
    println!("  eps     : {} spent (stages: {:?}), delta = {}", fit.report.epsilon, fit.report.stages.iter().map(|s| rounded(s.plan.epsilon)).collect::<Vec<_>>(), fit.report.delta);
    println!("  time    : {:.1} s", fit.report.elapsed_s);
    println!();
    println!("  baselines on the same data:");
    println!("  {:<36} {:>14}   privacy", "estimator", "|est - mu|");
    let baselines: [Box<dyn MeanEstimator>; 3] =
        [Box::new(EmpiricalMean), Box::new(CoordinateMedian), Box::new(ClippedLaplaceMean::for_prior(EPSILON, RADIUS, n, d))];
    for b in &baselines {
        let est = b.estimate(&data, SEED).map_err(|e| CliError::Invalid(e.to_string()))?;
        let privacy = match b.privacy() {
            Privacy::None => "none".to_string(),
            Privacy::Pure { epsilon } => format!("pure eps = {epsilon}"),
        };
        println!("  {:<36} {:>14.4}   {privacy}", b.name(), l2_error(&est, &DEMO_MEAN));
    }
    Ok(())
}

fn rounded(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}
