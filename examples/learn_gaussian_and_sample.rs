//! Learn a Gaussian privately (MATH.md 5.4), then use the release as a generator of synthetic
//! records.
//!
//! ```sh
//! cargo run --release --example learn_gaussian_and_sample                # d = 3, n = 12000, clean
//! cargo run --release --example learn_gaussian_and_sample -- D N EPS COND CORRUPTION SEED
//! ```
//!
//! 1. Draws n records of N(mu, Sigma) in R^d with `sosdp::eval::covariance_sample` (|mu| = 5,
//!    Sigma a random rotation of eigenvalues spread over [1, COND]; a CORRUPTION fraction
//!    replaced by the covariance adversary: points along the least-variance direction).
//! 2. Fits `PrivateGaussian::new(Privacy::new(eps).corruption(eta).seed(s), 10, 100)` and prints
//!    the errors against the truth (`sosdp::eval` metrics: Mahalanobis mean error, Frobenius
//!    error of the whitened covariance, TV bound by Pinsker).
//! 3. Draws synthetic records from N(mu_hat, Sigma_hat) (Cholesky factor times standard normals)
//!    and prints a few of them and the empirical mean and covariance of 10000 of them.
//!
//! Step 3 is post-processing of the eps-DP pair (mu_hat, Sigma_hat), so the synthetic records
//! are eps-DP as well, whatever their number. Defaults: d = 3, n = 12000, eps = 2, COND = 20,
//! clean, seed 0: about 30 s in release (d = 2, n = 8000: about 9 s). With a fixed seed the run is reproducible; a published release should use fresh
//! randomness (leave out `.seed(..)`).
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp::eval::{covariance_sample, frobenius_error, mahalanobis_error, tv_bound};
use sosdp::{Learner, Privacy, PrivateGaussian};

fn fmt(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:8.4}")).collect();
    format!("[{}]", parts.join(", "))
}

fn print_matrix(label: &str, m: &DMatrix<f64>) {
    for (i, row) in m.row_iter().enumerate() {
        let r: Vec<f64> = row.iter().copied().collect();
        println!("  {:<28}{}", if i == 0 { label } else { "" }, fmt(&r));
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |k: usize, default: f64| -> f64 {
        args.get(k).map_or(default, |a| {
            a.parse()
                .unwrap_or_else(|_| panic!("argument {}: '{a}' is not a number", k + 1))
        })
    };
    let (d, n, eps, cond, eta, seed) = (
        num(0, 3.0) as usize,
        num(1, 12000.0) as usize,
        num(2, 2.0),
        num(3, 20.0),
        num(4, 0.0),
        num(5, 0.0) as u64,
    );
    let (radius, kappa) = (10.0, 100.0);

    // 1. Synthetic data with a known truth.
    let mut rng = StdRng::seed_from_u64(seed);
    let s = covariance_sample(&mut rng, n, d, 5.0, cond, eta);
    println!(
        "data    : n = {n} records in R^{d} of N(mu, Sigma), |mu| = 5, condition number {cond}, {:.1}% corrupted",
        100.0 * eta
    );
    println!(
        "learner : eps = {eps} (pure DP, delta = 0), |mu| <= R = {radius}, I ⪯ Sigma ⪯ {kappa} I, corruption bound {eta}, seed {seed}"
    );

    // 2. The private fit.
    let learner = PrivateGaussian::new(Privacy::new(eps).corruption(eta).seed(seed), radius, kappa);
    let fit = match learner.fit(&s.data) {
        Ok(fit) => fit,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let release = &fit.release;
    let (mu_hat, sigma_hat) = (
        release.estimate.mean.as_slice(),
        &release.estimate.covariance,
    );
    let cov_plan = &release.plan.covariance;
    println!();
    println!("  {:<28}{}", "true mean", fmt(&s.mean));
    println!("  {:<28}{}", "private mean", fmt(mu_hat));
    print_matrix("true covariance", &s.covariance);
    print_matrix("private covariance", sigma_hat);
    println!();
    println!(
        "errors  : |Sigma^-1/2 (mu_hat - mu)|            = {:.4}",
        mahalanobis_error(mu_hat, &s.mean, &s.covariance)
    );
    println!(
        "          |Sigma^-1/2 Sigma_hat Sigma^-1/2 - I|_F = {:.4}",
        frobenius_error(sigma_hat, &s.covariance)
    );
    println!(
        "          TV(N(mu, Sigma), N(mu_hat, Sigma_hat)) <= {:.4} (Pinsker)",
        tv_bound(&s.mean, &s.covariance, mu_hat, sigma_hat)
    );
    println!(
        "eps     : {} = {:.3} preconditioner + {:.3} refinement + {:.3} mean; preconditioner: Sigma ⪯ U ⪯ {:.2} Sigma",
        release.epsilon,
        cov_plan.preconditioner.epsilon,
        cov_plan.refinement.iter().map(|r| r.epsilon).sum::<f64>(),
        release.plan.mean_schedule().map_or(0.0, |m| m
            .stages
            .iter()
            .map(|st| st.epsilon)
            .sum::<f64>()),
        cov_plan.preconditioner.kappa
    );
    for bound in &release.accuracy {
        match bound.bound {
            Some(b) => println!(
                "bound   : {} <= {b:.4} with probability {} (assumes: {})",
                bound.metric,
                bound.probability,
                bound.assumptions.join("; ")
            ),
            None => println!(
                "bound   : {}: unavailable ({})",
                bound.metric,
                bound.unavailable.as_deref().unwrap_or("")
            ),
        }
    }
    println!(
        "time    : {:.1} s (fit; not private)",
        fit.diagnostics.elapsed_s
    );

    // 3. Synthetic records from N(mu_hat, Sigma_hat): x = mu_hat + L g, Sigma_hat = L L^T.
    let l = match sigma_hat.clone().cholesky() {
        Some(c) => c.l(),
        None => {
            eprintln!("error: the released covariance is not positive definite");
            std::process::exit(2);
        }
    };
    let mu = &release.estimate.mean;
    let mut draw_rng = StdRng::seed_from_u64(seed.wrapping_add(1000));
    let draws = 10000;
    let g: DMatrix<f64> = DMatrix::from_fn(draws, d, |_, _| StandardNormal.sample(&mut draw_rng));
    let gl = g * l.transpose();
    let synthetic = DMatrix::from_fn(draws, d, |i, k| gl[(i, k)] + mu[k]);
    println!();
    println!("synthetic records from N(mu_hat, Sigma_hat) (post-processing: still eps-DP):");
    for row in synthetic.row_iter().take(5) {
        let r: Vec<f64> = row.iter().copied().collect();
        println!("  {}", fmt(&r));
    }
    let mean: Vec<f64> = (0..d).map(|k| synthetic.column(k).mean()).collect();
    let centred = DMatrix::from_fn(draws, d, |i, k| synthetic[(i, k)] - mean[k]);
    let cov = centred.transpose() * &centred / (draws - 1) as f64;
    println!("  ... ({draws} records)");
    println!("  {:<28}{}", "empirical mean", fmt(&mean));
    print_matrix("empirical covariance", &cov);
    println!(
        "  against N(mu_hat, Sigma_hat): |Sigma_hat^-1/2 (mean - mu_hat)| = {:.4}, |Sigma_hat^-1/2 cov Sigma_hat^-1/2 - I|_F = {:.4} (sampling error of {draws} draws)",
        mahalanobis_error(&mean, mu_hat, sigma_hat),
        frobenius_error(&cov, sigma_hat)
    );
}
