//! Where the preconditioner's worst-case guarantee (MATH.md 2.2) stops holding: for each
//! dimension and number of records, the largest corruption `eta0` with `eta' lambda < 1 - gamma`
//! in the public plan of the Gaussian learner's covariance step (eps = 2, K = 100,
//! beta = 0.05), next to HKMN23's constant-fraction tolerance. No data is touched.
//!
//! `cargo run --release -p sosdp-eval --example frontier`
use sosdp_learn::PrivateCovariance;

fn main() {
    println!("| d | n | lambda | eta' at eta0 = 0 | largest eta0 with a valid bound | 1 / (2 lambda) |");
    println!("|---|---|---|---|---|---|");
    for d in [2usize, 5, 10] {
        for n in [20_000usize, 100_000, 1_000_000] {
            let learner = |eta0: f64| PrivateCovariance::new(1.5).kappa(100.0).beta(0.025).corruption(eta0).plan(n, d);
            let Ok(base) = learner(0.0) else { continue };
            let pre = &base.preconditioner;
            let eta_prime = pre.score_bound / base.pairs as f64;
            // Bisection on eta0 for the validity of the worst-case bound.
            let (mut lo, mut hi) = (0.0f64, 0.25f64);
            if !pre.worst_case_valid {
                hi = 0.0;
            }
            for _ in 0..50 {
                let mid = 0.5 * (lo + hi);
                if learner(mid).map(|p| p.preconditioner.worst_case_valid).unwrap_or(false) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            println!("| {d} | {n} | {:.1} | {:.4} | {} | {:.4} |", pre.lambda, eta_prime, if pre.worst_case_valid { format!("{lo:.4}") } else { "none (invalid at 0)".into() }, 0.5 / pre.lambda);
        }
    }
}
