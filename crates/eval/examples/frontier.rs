//! The Gaussian learner's public plan across dimensions and sample sizes (eps = 2, K = 100,
//! beta = 0.05, no corruption): the staged preconditioner's stage count `J` and worst-case
//! condition number `kappa_J` (MATH.md 5.2), the record corruption it tolerates at that size,
//! and the planned Frobenius bound of the covariance, or the plan's refusal. No data is touched.
//!
//! `cargo run --release -p sosdp-eval --example frontier`
use sosdp_learn::PrivateGaussian;

fn main() {
    println!("| d | n | J | kappa_J | tolerated corruption | planned Frobenius bound |");
    println!("|---|---|---|---|---|---|");
    for d in [2usize, 3, 5, 10, 20] {
        for n in [6_000usize, 20_000, 50_000, 100_000, 200_000, 1_000_000] {
            match PrivateGaussian::new(2.0).radius(10.0).kappa(100.0).plan(n, d) {
                Ok(plan) => {
                    let pre = &plan.covariance.preconditioner;
                    let bound = plan.covariance.refinement.last().map_or(f64::NAN, |s| s.accuracy);
                    println!("| {d} | {n} | {} | {:.2} | {:.4} | {bound:.3} |", pre.stages.len(), pre.kappa, 0.5 * pre.tolerated_pair_corruption);
                }
                Err(e) => println!("| {d} | {n} | - | - | - | refused: {e} |"),
            }
        }
    }
}
