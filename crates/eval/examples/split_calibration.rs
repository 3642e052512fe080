//! Calibration of the Gaussian learner's eps split (MATH.md 5.4): for a few splits
//! (preconditioner, refinement, mean), the learner on synthetic clean Gaussians (rotated
//! covariance with eigenvalues geometric over [1, 50], |mu| = 5, R = 10, K = 100, eps = 2) and
//! the median over seeds of the Mahalanobis-Frobenius error, the Mahalanobis mean error and the
//! planned covariance bound. The data are synthetic, so the choice made from this table is
//! data-independent for any real release.
//!
//! Then, from the plans alone, each split's planned covariance error at a few larger sizes
//! (and whether the plan centres the refinement, MATH.md 5.3b).
//!
//! The refinement is on pairs (the default) or, with a fourth argument `planned`, the plan's
//! choice between pairs and centred records (MATH.md 5.3b).
//!
//! `cargo run --release -p sosdp-eval --example split_calibration -- D N SEEDS [planned]`
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp_eval::{covariance_sample, frobenius_error, mahalanobis_error, quantile};
use sosdp_learn::{Centring, GaussianSettings, Learner, Privacy, PrivateGaussian};

fn main() {
    let centring = match std::env::args().nth(4).as_deref() {
        Some("planned") => Centring::Planned,
        _ => Centring::Never,
    };
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .take(3)
        .map(|a| a.parse().expect("D N SEEDS"))
        .collect();
    let (d, n, seeds) = (args[0], args[1], args[2]);
    let splits = [
        (0.5, 0.125),
        (0.375, 0.125),
        (1.0 / 3.0, 0.125),
        (0.25, 0.125),
        (0.625, 0.125),
        (0.5, 0.0625),
        (0.5, 0.25),
    ];
    println!();
    println!(
        "| preconditioner : refinement : mean | planned error d = 5, n = 100000 | d = 5, n = 100000, 1% | d = 10, n = 50000 | d = 10, n = 100000 | d = 20, n = 200000 |"
    );
    println!("|---|---|---|---|---|---|");
    for (pre, mean) in splits {
        let bound = |d: usize, n: usize, eta: f64| {
            PrivateGaussian::new(Privacy::new(2.0).corruption(eta), 10.0, 100.0)
                .settings(GaussianSettings {
                    preconditioner_share: pre,
                    mean_share: mean,
                    centring,
                    ..GaussianSettings::default()
                })
                .plan(n, d)
                .map_or("refused".to_string(), |p| {
                    let points = if p.covariance.centring.is_some() {
                        "centred"
                    } else {
                        "pairs"
                    };
                    format!("{:.3} ({points})", p.covariance.planned_error)
                })
        };
        println!(
            "| {pre:.3} : {:.3} : {mean:.3} | {} | {} | {} | {} | {} |",
            1.0 - pre - mean,
            bound(5, 100_000, 0.0),
            bound(5, 100_000, 0.01),
            bound(10, 50_000, 0.0),
            bound(10, 100_000, 0.0),
            bound(20, 200_000, 0.0)
        );
    }
    println!();
    if seeds == 0 {
        return;
    }
    println!(
        "| preconditioner : refinement : mean | median Frobenius | median Mahalanobis mean | planned bound | median time (s) |"
    );
    println!("|---|---|---|---|---|");
    for (pre, mean) in splits {
        let (mut frob, mut mah, mut secs, mut planned) = (vec![], vec![], vec![], f64::NAN);
        for seed in 0..seeds as u64 {
            let mut rng = StdRng::seed_from_u64(500 + seed);
            let s = covariance_sample(&mut rng, n, d, 5.0, 50.0, 0.0);
            let learner = PrivateGaussian::new(Privacy::new(2.0).seed(seed), 10.0, 100.0).settings(
                GaussianSettings {
                    preconditioner_share: pre,
                    mean_share: mean,
                    centring,
                    ..GaussianSettings::default()
                },
            );
            match learner.fit(&s.data) {
                Ok(fit) => {
                    let est = &fit.release.estimate;
                    frob.push(frobenius_error(&est.covariance, &s.covariance));
                    mah.push(mahalanobis_error(
                        est.mean.as_slice(),
                        &s.mean,
                        &s.covariance,
                    ));
                    secs.push(fit.diagnostics.elapsed_s);
                    planned = fit.release.accuracy[0].bound.unwrap_or(f64::NAN);
                }
                Err(e) => println!("split {pre:.3}/{mean:.3} seed {seed}: {e}"),
            }
        }
        println!(
            "| {pre:.3} : {:.3} : {mean:.3} | {:.3} | {:.3} | {planned:.3} | {:.0} |",
            1.0 - pre - mean,
            quantile(&frob, 0.5),
            quantile(&mah, 0.5),
            quantile(&secs, 0.5)
        );
    }
}
