//! The private covariance and the Gaussian learner (MATH.md 5.2-5.4) on synthetic Gaussians
//! with rotated, ill-conditioned covariance (fixed seeds), clean and with the covariance
//! adversary (d) of MATH.md 6; and their input validation.
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp::eval::{
    covariance_sample, frobenius_error, mahalanobis_error, spectral_error, tv_bound,
};
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
        let stage_releases: Vec<Vec<f64>> = release.stage_releases[..pre.stages.len()]
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
                .mean
                .stages
                .iter()
                .map(|s| s.epsilon)
                .sum::<f64>();
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
