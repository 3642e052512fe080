//! Shared by the root tests of the fast CM backend's certified shortcuts (`memoisation.rs`,
//! `compression.rs`, `index_accuracy.rs`): a corrupted instance and a short slice release on a
//! ball domain.
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp_eval::{Adversary, CorruptedSample};
use sosdp_sampler::{Ball, Ellipsoid, Intersection, MechanismSettings, Release, Start, release};
use sosdp_score::{BallDomain, CertifiedMean, FastCm};
use std::ops::ControlFlow;

/// CM on `n` draws of `N(0.1 (1, ..., 1), I_d)` with 8% in a cluster of spread 0.1 at distance
/// 3 along the first axis; centre 0, `Gamma = gamma I`.
pub fn cluster_instance(seed: u64, n: usize, d: usize, gamma: f64) -> CertifiedMean {
    let data = CorruptedSample::identity_covariance(
        &mut StdRng::seed_from_u64(seed),
        n,
        &vec![0.1; d],
        0.08,
        &Adversary::ShiftedCluster {
            distance: 3.0,
            axis: 0,
            spread: 0.1,
        },
    )
    .data;
    CertifiedMean::new(&data, &vec![0.0; d], &(DMatrix::identity(d, d) * gamma)).unwrap()
}

/// A 60-iteration slice release (seed 11, eps = 1) of `oracle` on the ball of radius 0.6
/// around 0 within the CM domain of `gamma I`, started at the oracle's anchor.
#[allow(dead_code)] // index_accuracy.rs takes the whole release
pub fn short_release(oracle: &FastCm, d: usize, gamma: f64) -> Vec<f64> {
    let settings = MechanismSettings::new(1.0, d).unwrap();
    short_release_with(oracle, d, gamma, settings).theta
}

/// [`short_release`] with `settings` (their slice iterations set to 60), the whole release.
pub fn short_release_with(
    oracle: &FastCm,
    d: usize,
    gamma: f64,
    mut settings: MechanismSettings,
) -> Release {
    let radius = 0.6;
    let domain = Intersection::new(vec![
        Box::new(Ball::new(vec![0.0; d], radius).unwrap()),
        Box::new(Ellipsoid::new(vec![0.0; d], &(DMatrix::identity(d, d) * gamma)).unwrap()),
    ])
    .unwrap();
    let anchor = oracle
        .minimise(Some(&BallDomain {
            centre: vec![0.0; d],
            radius,
        }))
        .unwrap();
    let start = Start {
        theta: anchor.theta,
        score_upper: anchor.eval.upper,
    };
    settings.slice.iterations = 60;
    release(
        oracle,
        &domain,
        &start,
        &settings,
        &mut StdRng::seed_from_u64(11),
        &mut |_| ControlFlow::Continue(()),
    )
    .unwrap()
}
