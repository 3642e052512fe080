//! The private covariance and the Gaussian learner (MATH.md 5.2-5.4) on synthetic Gaussians
//! with rotated, ill-conditioned covariance (fixed seeds), clean and with the covariance
//! adversary (d) of MATH.md 6; and their input validation.
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp::eval::{
    covariance_sample, frobenius_error, mahalanobis_error, spectral_error, tv_bound,
};
use sosdp::learn::PreconditionerPoints;
use sosdp::learn::symmetric::spd_power;
use sosdp::{LearnError, Learner, Privacy, PrivateCovariance, PrivateGaussian};

/// d = 2, n = 8000, eps = 2, K = 100, condition number 20 (eigenvalues 1 and 20 in a random
/// basis), clean (seed 0) and with 1% of the records in the covariance adversary (d) of MATH.md 6
/// (seed 1, below the plan's tolerated corruption). Checked on both: the preconditioner's frame
/// `U_J`, recomputed from the release alone, satisfies the plan's `Sigma ⪯ U_J ⪯ kappa_J Sigma`;
/// a bound is a number exactly when the plan's worst case holds (and then it holds); the eps
/// spent sums to eps; Mahalanobis-Frobenius error <= 0.3,
/// Mahalanobis mean error <= 0.2, TV bound <= 0.15
/// (`cargo test --release --test gaussian -- --nocapture` prints the measured values).
#[test]
fn gaussian_learner_on_ill_conditioned_gaussians() {
    let (d, n) = (2, 8000);
    for (seed, eta) in [(0u64, 0.0), (1, 0.01)] {
        let mut rng = StdRng::seed_from_u64(seed);
        let s = covariance_sample(&mut rng, n, d, 5.0, 20.0, eta);
        let fit = PrivateGaussian::new(Privacy::new(2.0).corruption(eta).seed(seed), 10.0, 100.0)
            .fit(&s.data)
            .unwrap();
        let (release, est) = (&fit.release, &fit.release.estimate);
        let cov = &release.plan.covariance;
        let pre = &cov.preconditioner;
        assert!(
            eta <= 0.5 * pre.tolerated_pair_corruption,
            "the test's corruption must be one the plan tolerates"
        );
        let stage_releases: Vec<Vec<f64>> = release.stage_releases[..pre.release_count()]
            .iter()
            .map(|r| r.release.clone())
            .collect();
        let frame = pre.frame_from_releases(&stage_releases);
        let w = spd_power(&frame, -0.5);
        let relative = (&w * &s.covariance * &w).symmetric_eigenvalues();
        let (mu_hat, sigma_hat) = (est.mean.as_slice(), &est.covariance);
        let (frob, mean, tv) = (
            frobenius_error(sigma_hat, &s.covariance),
            mahalanobis_error(mu_hat, &s.mean, &s.covariance),
            tv_bound(&s.mean, &s.covariance, mu_hat, sigma_hat),
        );
        println!(
            "seed {seed}, eta {eta}: U_J / Sigma in [{:.3}, {:.3}] (kappa_J {:.3}), Frobenius {frob:.3} (spectral {:.3}), mean {mean:.3}, TV <= {tv:.3}, {:.1} s",
            1.0 / relative.max(),
            1.0 / relative.min(),
            pre.kappa,
            spectral_error(sigma_hat, &s.covariance),
            fit.diagnostics.elapsed_s
        );
        assert!(
            relative.max() <= 1.0 && 1.0 / relative.min() <= pre.kappa,
            "the frame is outside the plan's bounds"
        );
        // A bound is a number exactly when the plan's worst case holds, and then it holds here.
        assert_eq!(
            release.accuracy[0].bound.is_some(),
            cov.guaranteed_error.is_some(),
            "{:?}",
            release.accuracy
        );
        assert!(
            release
                .accuracy
                .iter()
                .all(|b| b.bound.is_some() != b.unavailable.is_some()),
            "{:?}",
            release.accuracy
        );
        if let Some(b) = release.accuracy[0].bound {
            assert!(frob <= b, "Frobenius {frob} above the bound {b}");
        }
        assert!(frob <= 0.3 && mean <= 0.2 && tv <= 0.15);
        let spent = pre.epsilon
            + cov.refinement.iter().map(|r| r.epsilon).sum::<f64>()
            + release
                .plan
                .mean_schedule()
                .map_or(0.0, |m| m.stages.iter().map(|s| s.epsilon).sum::<f64>());
        assert!((spent - 2.0).abs() < 1e-12, "eps spent {spent}");
    }
}

#[test]
fn bad_settings_and_data_are_rejected_before_any_computation() {
    let ok = DMatrix::from_fn(400, 2, |i, k| ((i * 7 + k * 3) % 11) as f64 / 11.0);
    assert!(matches!(
        PrivateCovariance::new(Privacy::new(0.0), 100.0).fit(&ok),
        Err(LearnError::Epsilon(_))
    ));
    assert!(matches!(
        PrivateCovariance::new(Privacy::new(1.0), 0.5).fit(&ok),
        Err(LearnError::InvalidSetting(_))
    ));
    // A clip probability outside (0, 1) (its chi-square quantile would be infinite or NaN).
    for clip_probability in [0.0, 1.0, f64::NAN] {
        let settings = sosdp::learn::CovarianceSettings {
            preconditioner: sosdp::learn::PreconditionerSettings {
                clip_probability,
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(matches!(
            PrivateCovariance::new(Privacy::new(1.0), 100.0)
                .settings(settings)
                .fit(&ok),
            Err(LearnError::InvalidSetting(_))
        ));
    }
    assert!(matches!(
        PrivateCovariance::new(Privacy::new(1.0).corruption(0.5), 100.0).fit(&ok),
        Err(LearnError::Corruption(_))
    ));
    assert!(matches!(
        PrivateGaussian::new(Privacy::new(1.0), 0.0, 100.0).fit(&ok),
        Err(LearnError::Radius(_))
    ));
    assert!(matches!(
        PrivateGaussian::new(Privacy::new(1.0), 10.0, 100.0).fit(&DMatrix::zeros(0, 2)),
        Err(LearnError::EmptyData)
    ));
    let mut nan = ok.clone();
    nan[(3, 1)] = f64::NAN;
    assert!(matches!(
        PrivateGaussian::new(Privacy::new(1.0), 10.0, 100.0).fit(&nan),
        Err(LearnError::NonFinite { row: 3, column: 1 })
    ));
    assert!(matches!(
        PrivateCovariance::new(Privacy::new(1.0), 100.0).fit(&DMatrix::zeros(5, 3)),
        Err(LearnError::TooFewSamples(_))
    ));
}

/// The centred refinement (MATH.md 5.3b) under the covariance adversaries of MATH.md 6 (far,
/// cluster, inflated) at a quarter of the largest corruption the centred plan accepts: d = 2,
/// n = 50000, eps = 2, K = 100, R = 10, condition number 20, 5 seeds per adversary (15 fits),
/// once with the preconditioner on records centred in every frame (MATH.md 5.2, the plan's
/// choice here by default) and once on pairs. The plan must centre and have a worst-case bound; the bound (with the centring's rank-one
/// bias) and the mean's Mahalanobis bound must hold in at least `1 - beta` of the fits (all 15
/// at beta = 0.05).
///
/// Not vacuous: the empirical covariance on the same data breaks the bound under the cluster
/// adversary in every seed (the check rejects a non-robust estimator). That dropping the bias
/// term breaks the bound is shown by the unit test
/// `centring_bias_is_attained_in_the_thinnest_direction` (crates/learn/src/covariance.rs),
/// where an exact estimate of the biased second moment attains it.
#[test]
fn centred_refinement_bound_holds_under_adversaries() {
    let (d, n, seeds, beta) = (2, 50_000, 5u64, 0.05);
    for points in [PreconditionerPoints::Records, PreconditionerPoints::Pairs] {
        centred_bound_holds(d, n, seeds, beta, points);
    }
}

/// [`centred_refinement_bound_holds_under_adversaries`] with the preconditioner on `points`.
fn centred_bound_holds(d: usize, n: usize, seeds: u64, beta: f64, points: PreconditionerPoints) {
    use sosdp::eval::{CovarianceAdversary, CovarianceEstimator, EmpiricalCovariance};
    use sosdp::learn::{Centring, GaussianSettings};
    let learner = |eta: f64| {
        PrivateGaussian::new(Privacy::new(2.0).corruption(eta), 10.0, 100.0).settings(
            GaussianSettings {
                centring: Centring::Always,
                preconditioner_points: points,
                ..Default::default()
            },
        )
    };
    let (mut lo, mut hi) = (0.0, 0.25);
    for _ in 0..30 {
        let mid = 0.5 * (lo + hi);
        if learner(mid).plan(n, d).is_ok() {
            lo = mid
        } else {
            hi = mid
        }
    }
    let eta = 0.25 * lo;
    assert!(
        eta > 0.002,
        "the centred plan must accept some corruption: {lo}"
    );
    let (mut fits, mut held, mut empirical_broken) = (0, 0, 0);
    for (name, adversary) in [
        ("far", CovarianceAdversary::far()),
        ("cluster", CovarianceAdversary::cluster()),
        ("inflated", CovarianceAdversary::inflated()),
    ] {
        for seed in 0..seeds {
            let mut rng = StdRng::seed_from_u64(100 + seed);
            let s = sosdp::eval::covariance_sample_with(&mut rng, n, d, 5.0, 20.0, eta, &adversary);
            let fit = learner(eta)
                .with_privacy(Privacy::new(2.0).corruption(eta).seed(seed))
                .fit(&s.data)
                .unwrap();
            let plan = &fit.release.plan;
            let centring = plan.covariance.centring.as_ref().expect("the plan centres");
            assert_eq!(
                plan.covariance.preconditioner.centring.is_some(),
                points == PreconditionerPoints::Records
            );
            let bound = plan
                .covariance
                .guaranteed_error
                .expect("a worst-case bound at this size");
            let est = &fit.release.estimate;
            let frob = frobenius_error(&est.covariance, &s.covariance);
            let mean = mahalanobis_error(est.mean.as_slice(), &s.mean, &s.covariance);
            let empirical = frobenius_error(
                &EmpiricalCovariance.estimate(&s.data, seed).unwrap(),
                &s.covariance,
            );
            println!(
                "{points:?}: {name}, eta {eta:.4}, seed {seed}: Frobenius {frob:.4} (bound {bound:.4}, bias t {:.5}), mean {mean:.4} (bound {:.4}), empirical {empirical:.4}",
                centring.bias,
                centring.mahalanobis_bound()
            );
            fits += 1;
            held += usize::from(frob <= bound && mean <= centring.mahalanobis_bound());
            if name == "cluster" {
                empirical_broken += usize::from(empirical > bound);
            }
        }
    }
    assert!(
        held as f64 >= (1.0 - beta) * fits as f64,
        "the bounds held in {held} of {fits} fits"
    );
    assert_eq!(
        empirical_broken, seeds as usize,
        "the empirical covariance must break the bound under the cluster (non-vacuity)"
    );
}
