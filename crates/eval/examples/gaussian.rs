//! The Gaussian learner (MATH.md 5.4) on a synthetic Gaussian with rotated, ill-conditioned
//! covariance (eigenvalues spread geometrically over [1, cond]), clean or with a fraction of
//! the records replaced by the covariance adversary (d) of MATH.md 6 (points along one
//! direction with variance inflated 10x). Prints one JSON line per seed.
//!
//! `cargo run --release -p sosdp-eval --example gaussian -- D N EPS COND CORRUPTION FIRST_SEED SEEDS`
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::json;
use sosdp_eval::synthetic::covariance_sample;
use sosdp_eval::{frobenius_error, mahalanobis_error, spectral_error, tv_bound, tv_monte_carlo};
use sosdp_learn::{Learner, Privacy, PrivateGaussian};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |k: usize, default: f64| {
        args.get(k)
            .map_or(default, |a| a.parse().expect("a number"))
    };
    let (d, n, eps, cond, eta) = (
        num(0, 5.0) as usize,
        num(1, 100000.0) as usize,
        num(2, 2.0),
        num(3, 60.0),
        num(4, 0.0),
    );
    let (first, seeds) = (num(5, 0.0) as u64, num(6, 1.0) as u64);
    for seed in first..first + seeds {
        let mut rng = StdRng::seed_from_u64(seed);
        let s = covariance_sample(&mut rng, n, d, 5.0, cond, eta);
        let fit = PrivateGaussian::new(Privacy::new(eps).corruption(eta).seed(seed), 10.0, 100.0)
            .fit(&s.data)
            .expect("fit");
        let est = &fit.release.estimate;
        let (mu_hat, sigma_hat) = (est.mean.as_slice(), &est.covariance);
        let pre = &fit.release.stage_releases[0].release;
        let s0 = sosdp_learn::symmetric::matrix_of(pre);
        println!(
            "{}",
            json!({
                "d": d, "n": n, "eps": eps, "cond": cond, "corruption": eta, "seed": seed,
                "preconditioner_spectral_error": spectral_error(&s0, &s.covariance),
                "frobenius_error": frobenius_error(sigma_hat, &s.covariance),
                "mahalanobis_mean_error": mahalanobis_error(mu_hat, &s.mean, &s.covariance),
                "tv_bound": tv_bound(&s.mean, &s.covariance, mu_hat, sigma_hat),
                "tv_monte_carlo": tv_monte_carlo(&s.mean, &s.covariance, mu_hat, sigma_hat, 100_000, seed).0,
                "seconds": fit.diagnostics.elapsed_s,
                "step_seconds": fit.diagnostics.steps.iter().map(|s| (s.step.clone(), s.record.elapsed_s)).collect::<Vec<_>>(),
                "mean_stages": fit.release.plan.mean.stages.len(),
            })
        );
    }
}
