//! The Gaussian learner's public plan across dimensions and sample sizes (eps = 2, K = 100,
//! beta = 0.05, no corruption): the staged preconditioner's stage count `J` and worst-case
//! condition number `kappa_J` (MATH.md 5.2), the planned (calibrated) Frobenius error of the
//! covariance, its worst-case bound carried from `kappa_J` (none when it does not hold), and
//! the largest record corruption the plan accepts at that size (bisection on the plan); or the
//! plan's refusal with the number of records it needs. No data is touched. The refinement's
//! centring (MATH.md 5.3b) is the plan's choice (the default), or never with the argument
//! `pairs`, or always with `centred`; with a centred refinement the preconditioner runs on pairs
//! or on centred records (MATH.md 5.2), the plan's choice. The table says which the plan took.
//!
//! `cargo run --release -p sosdp-eval --example frontier [pairs|centred]`
use sosdp_learn::{
    Centring, GaussianSettings, Learner, Privacy, PrivateGaussian, largest_accepted_corruption,
};

fn main() {
    let centring = match std::env::args().nth(1).as_deref() {
        Some("pairs") => Centring::Never,
        Some("centred") => Centring::Always,
        _ => Centring::Planned,
    };
    println!(
        "| d | n | J | kappa_J | preconditioner | refinement | planned (calibrated) error | worst-case bound | largest corruption accepted |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for d in [2usize, 3, 5, 10, 20] {
        for n in [6_000usize, 20_000, 50_000, 100_000, 200_000, 1_000_000] {
            let gaussian =
                PrivateGaussian::new(Privacy::new(2.0), 10.0, 100.0).settings(GaussianSettings {
                    centring,
                    ..Default::default()
                });
            match gaussian.plan(n, d) {
                Ok(plan) => {
                    let pre = &plan.covariance.preconditioner;
                    let bound = plan.covariance.planned_error;
                    let lo = largest_accepted_corruption(&gaussian, n, d);
                    let worst = plan
                        .covariance
                        .guaranteed_error
                        .map_or("none".to_string(), |g| format!("{g:.3}"));
                    let points = plan
                        .covariance
                        .centring
                        .as_ref()
                        .map_or("pairs".to_string(), |c| {
                            format!("centred after {}", c.after_stages)
                        });
                    let frames = if pre.centring.is_some() {
                        "centred records"
                    } else {
                        "pairs"
                    };
                    println!(
                        "| {d} | {n} | {} | {:.2} | {frames} | {points} | {bound:.3} | {worst} | {lo:.4} |",
                        pre.stages.len(),
                        pre.kappa
                    );
                }
                Err(e) => println!("| {d} | {n} | - | - | - | - | refused: {e} | - | - |"),
            }
        }
    }
}
