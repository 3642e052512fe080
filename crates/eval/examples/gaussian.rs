//! The Gaussian learner (MATH.md 5.4) on a synthetic Gaussian with rotated, ill-conditioned
//! covariance (eigenvalues spread geometrically over [1, cond]), clean or with a fraction of
//! the records replaced by a covariance adversary of MATH.md 6: `inflated` (the default: points
//! along one direction with variance inflated 10x), `cluster` (a tight cluster 6 Mahalanobis
//! units out along the thinnest direction) or `far` (15 standard deviations out along it).
//! CENTRING is `planned` (the default), `always` or `never` ([`Centring`]). Prints one JSON
//! line per seed, with the empirical covariance's error on the same data; progress (every
//! 100th step of each phase) goes to stderr.
//!
//! `cargo run --release -p sosdp-eval --example gaussian -- D N EPS COND CORRUPTION FIRST_SEED SEEDS [ADVERSARY [CENTRING]]`
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::json;
use sosdp_eval::adversary::CovarianceAdversary;
use sosdp_eval::synthetic::covariance_sample_with;
use sosdp_eval::{
    CovarianceEstimator, EmpiricalCovariance, frobenius_error, mahalanobis_error, spectral_error,
    tv_bound, tv_monte_carlo,
};
use sosdp_learn::{Centring, GaussianSettings, Learner, Privacy, PrivateGaussian};
use std::ops::ControlFlow;

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
    let adversary = match args.get(7).map_or("inflated", String::as_str) {
        "inflated" => CovarianceAdversary::inflated(),
        "cluster" => CovarianceAdversary::cluster(),
        "far" => CovarianceAdversary::far(),
        other => panic!("unknown adversary {other}: inflated, cluster or far"),
    };
    let centring = match args.get(8).map_or("planned", String::as_str) {
        "planned" => Centring::Planned,
        "always" => Centring::Always,
        "never" => Centring::Never,
        other => panic!("unknown centring {other}: planned, always or never"),
    };
    for seed in first..first + seeds {
        let clock = std::time::Instant::now();
        let mut rng = StdRng::seed_from_u64(seed);
        let s = covariance_sample_with(&mut rng, n, d, 5.0, cond, eta, &adversary);
        let fit = PrivateGaussian::new(Privacy::new(eps).corruption(eta).seed(seed), 10.0, 100.0)
            .settings(GaussianSettings {
                centring,
                ..Default::default()
            })
            .fit_with_progress(&s.data, &mut |step, p| {
                // Every 100th step of a phase, to stderr, with the time.
                if p.done % 100 == 0 {
                    eprintln!(
                        "[{:.0} s] step {step} {} {}/{}",
                        clock.elapsed().as_secs_f64(),
                        p.phase,
                        p.done,
                        p.total
                    );
                }
                ControlFlow::Continue(())
            })
            .expect("fit");
        let empirical = EmpiricalCovariance
            .estimate(&s.data, seed)
            .expect("the empirical covariance");
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
                "empirical_frobenius_error": frobenius_error(&empirical, &s.covariance),
                "centred_after": fit.release.plan.covariance.centring.as_ref().map(|c| c.after_stages),
                "planned_error": fit.release.plan.covariance.planned_error,
                "mahalanobis_mean_error": mahalanobis_error(mu_hat, &s.mean, &s.covariance),
                "tv_bound": tv_bound(&s.mean, &s.covariance, mu_hat, sigma_hat),
                "tv_monte_carlo": tv_monte_carlo(&s.mean, &s.covariance, mu_hat, sigma_hat, 100_000, seed).0,
                "seconds": fit.diagnostics.elapsed_s,
                "step_seconds": fit.diagnostics.steps.iter().map(|s| (s.step.clone(), s.record.elapsed_s)).collect::<Vec<_>>(),
                "mean_stages": fit.release.plan.mean_schedule().map_or(0, |m| m.stages.len()),
            })
        );
    }
}
