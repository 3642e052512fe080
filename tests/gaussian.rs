//! The private covariance and the Gaussian learner (MATH.md 5.2-5.4) on synthetic Gaussians
//! with rotated, ill-conditioned covariance (fixed seeds), clean and with the covariance
//! adversary (d) of MATH.md 6; and their input validation.
use nalgebra::DMatrix;
use rand::rngs::StdRng;
use rand::SeedableRng;
use sosdp::eval::{covariance_sample, frobenius_error, mahalanobis_error, spectral_error, tv_bound};
use sosdp::learn::covariance::{matrix_of, spd_power};
use sosdp::learn::{LearnError, PrivateCovariance, PrivateGaussian};

/// d = 2, n = 8000, eps = 2, K = 100, condition number 20 (eigenvalues 1 and 20 in a random
/// basis). Always checked: the preconditioner's release `S0` satisfies the plan's spectral
/// bound `|S0^{-1/2} Sigma S0^{-1/2} - I|_op <= s0`, and the eps spent sums to eps. On clean
/// data (seed 0) also: Mahalanobis-Frobenius error <= 0.3, Mahalanobis mean error <= 0.2, TV
/// bound <= 0.15 (measured 0.09, 0.05, 0.04). With 1% corruption (seed 1) accuracy is *not*
/// asserted: at this size the SP bound of MATH.md 2.2 is invalid (`worst_case_valid` false,
/// see docs/learners.md), `s0` comes from the domain alone (0.995), so the release's
/// covariance and mean bounds must be null (asserted whenever `worst_case_valid` is false);
/// this seed's preconditioner is off by 0.405 and the refinement repairs it (Frobenius 0.022,
/// `cargo test --release --test gaussian -- --nocapture`), which nothing guarantees.
#[test]
fn gaussian_learner_on_ill_conditioned_gaussians() {
    let (d, n) = (2, 8000);
    for (seed, eta) in [(0u64, 0.0), (1, 0.01)] {
        let mut rng = StdRng::seed_from_u64(seed);
        let s = covariance_sample(&mut rng, n, d, 5.0, 20.0, eta);
        let fit = PrivateGaussian::new(2.0).radius(10.0).kappa(100.0).corruption(eta).seed(seed).fit(&s.data).unwrap();
        let (release, est) = (&fit.release, &fit.release.estimate);
        let cov = &release.plan.covariance;
        let s0 = matrix_of(&release.stage_releases[0].release);
        let w0 = spd_power(&s0, -0.5);
        let whitened = &w0 * &s.covariance * &w0;
        let factor = spectral_error(&whitened, &DMatrix::identity(d, d));
        let sigma_hat = DMatrix::from_fn(d, d, |i, k| est.covariance[i][k]);
        let (frob, mean, tv) = (
            frobenius_error(&sigma_hat, &s.covariance),
            mahalanobis_error(&est.mean, &s.mean, &s.covariance),
            tv_bound(&s.mean, &s.covariance, &est.mean, &sigma_hat),
        );
        println!(
            "seed {seed}, eta {eta}: preconditioner |S0^-1/2 Sigma S0^-1/2 - I| = {factor:.3} (bound {:.3}, worst case valid: {}), Frobenius {frob:.3}, mean {mean:.3}, TV <= {tv:.3}, {:.1} s",
            cov.preconditioner.spectral_bound, cov.preconditioner.worst_case_valid, fit.diagnostics.elapsed_s
        );
        assert!(factor <= cov.preconditioner.spectral_bound, "preconditioner outside its bound");
        let valid = cov.preconditioner.worst_case_valid;
        assert!(release.accuracy.iter().all(|b| b.bound.is_some() == valid && b.unavailable.is_some() != valid), "{:?}", release.accuracy);
        if eta == 0.0 {
            assert!(frob <= 0.3 && mean <= 0.2 && tv <= 0.15);
        }
        let spent = cov.preconditioner.epsilon + cov.refinement.iter().map(|r| r.epsilon).sum::<f64>()
            + release.plan.mean.stages.iter().map(|s| s.epsilon).sum::<f64>();
        assert!((spent - 2.0).abs() < 1e-12, "eps spent {spent}");
    }
}

#[test]
fn bad_settings_and_data_are_rejected_before_any_computation() {
    let ok = DMatrix::from_fn(400, 2, |i, k| ((i * 7 + k * 3) % 11) as f64 / 11.0);
    assert!(matches!(PrivateCovariance::new(0.0).fit(&ok), Err(LearnError::Epsilon(_))));
    assert!(matches!(PrivateCovariance::new(1.0).kappa(0.5).fit(&ok), Err(LearnError::InvalidSetting(_))));
    assert!(matches!(PrivateCovariance::new(1.0).corruption(0.5).fit(&ok), Err(LearnError::Corruption(_))));
    assert!(matches!(PrivateGaussian::new(1.0).radius(0.0).fit(&ok), Err(LearnError::Radius(_))));
    assert!(matches!(PrivateGaussian::new(1.0).fit(&DMatrix::zeros(0, 2)), Err(LearnError::EmptyData)));
    let mut nan = ok.clone();
    nan[(3, 1)] = f64::NAN;
    assert!(matches!(PrivateGaussian::new(1.0).fit(&nan), Err(LearnError::NonFinite { row: 3, column: 1 })));
    assert!(matches!(PrivateCovariance::new(1.0).fit(&DMatrix::zeros(5, 3)), Err(LearnError::TooFewSamples(_))));
}
