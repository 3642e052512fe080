//! `sosdp demo`: the main job on an embedded synthetic dataset.
//!
//! Until the private learners land, the demo shows the certified-mean score (MATH.md 2.1) at
//! work: on 2000 draws of N(mu, I_5) with 5% replaced by a tight cluster at distance 5 along
//! the first axis (generated with `sosdp-eval`, seed 2023), it prints the CM score with its
//! certified bracket for a few candidate means, and the CM minimiser (the anchor of
//! MATH.md 4.2) with its certified ball.
use crate::input::parse_matrix;
use crate::CliError;
use nalgebra::{DMatrix, DVector};
use sosdp_score::{minimise_cm, CertifiedMean, ClarabelCm, ScoreOracle};
use std::time::Instant;

/// The embedded dataset: 2000 rows, 5 columns, with a header row.
pub const DEMO_CSV: &str = include_str!("../../data/demo.csv");
/// The mean of the clean distribution behind [`DEMO_CSV`].
pub const DEMO_MEAN: [f64; 5] = [1.0, -2.0, 0.5, 0.0, 3.0];
/// Fraction of the demo's records replaced by the adversary.
pub const DEMO_CORRUPTION: f64 = 0.05;

pub fn run() -> Result<(), CliError> {
    let start = Instant::now();
    let data = parse_matrix(DEMO_CSV).map_err(|m| CliError::Invalid(format!("embedded demo data: {m}")))?;
    let (n, d) = data.shape();
    let truth = DVector::from_column_slice(&DEMO_MEAN);
    // A centre as a previous private stage would give it: within about 0.2 of the truth.
    let centre = &truth + DVector::from_column_slice(&[0.1, 0.1, -0.1, 0.1, 0.0]);
    let gamma = 1.35;
    let oracle = ClarabelCm::new(CertifiedMean::new(&data, centre.as_slice(), &(DMatrix::identity(d, d) * gamma))?);

    println!("sosdp demo: the certified-mean score on an embedded corrupted Gaussian sample");
    println!("  data   : n = {n} records in R^{d}, drawn from N(mu, I) with mu = {DEMO_MEAN:?};");
    println!("           {:.0}% replaced by a tight cluster at distance 5 along the first axis", 100.0 * DEMO_CORRUPTION);
    println!("  score  : CM(theta) with centre c = {:?}, Gamma = {gamma} I (backend: {})", rounded(centre.as_slice()), oracle.backend());
    println!("           = how many records must change before a certified estimator could output theta");
    println!();

    let anchor = minimise_cm(&oracle, None)?;
    let empirical: DVector<f64> = data.row_mean().transpose();
    let median = DVector::from_iterator(d, data.column_iter().map(|c| median(c.iter().copied().collect())));
    let anchor_theta = DVector::from_column_slice(&anchor.theta);
    let mut shifted = anchor_theta.clone();
    shifted[0] += 0.5;
    let candidates = [
        ("true mean", truth.clone()),
        ("empirical mean", empirical),
        ("coordinate-wise median", median),
        ("CM minimiser (anchor)", anchor_theta.clone()),
        ("anchor + 0.5 e1", shifted),
    ];
    println!("  {:<24} {:>14} {:>10}   {:>21}", "candidate", "|theta - mu|", "CM", "certified bracket");
    for (name, theta) in &candidates {
        let e = oracle.evaluate(theta.as_slice())?;
        println!(
            "  {:<24} {:>14.4} {:>10.3}   [{:>9.3}, {:>9.3}]{}",
            name,
            (theta - &truth).norm(),
            e.score,
            e.lower,
            e.upper,
            if e.in_domain { "" } else { "  (outside the domain)" }
        );
    }
    println!();
    println!(
        "  anchor : every theta within {:.2e} of the minimiser has CM <= {:.3} (certified)",
        anchor.radius,
        anchor.eval.upper + 1.0
    );
    println!("  time   : {:.2} s", start.elapsed().as_secs_f64());
    Ok(())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { 0.5 * (v[m - 1] + v[m]) }
}

fn rounded(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| (x * 1e4).round() / 1e4).collect()
}
