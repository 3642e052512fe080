//! Shared helpers of the score property tests.
#![allow(dead_code)]
use nalgebra::{DMatrix, DVector};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use sosdp_eval::{Adversary, CorruptedSample};
use sosdp_score::{CertifiedMean, ClarabelCm, ClarabelSp, ScoreOracle, Spectral};

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

pub fn normal_vec(rng: &mut StdRng, d: usize) -> Vec<f64> {
    (0..d).map(|_| StandardNormal.sample(rng)).collect()
}

/// A small corrupted Gaussian sample: `n x d`, 10% shifted by 3 along axis 0.
pub fn small_data(rng: &mut StdRng, n: usize, d: usize) -> DMatrix<f64> {
    let mean = vec![0.0; d];
    CorruptedSample::identity_covariance(
        rng,
        n,
        &mean,
        0.1,
        &Adversary::ShiftedCluster {
            distance: 3.0,
            axis: 0,
            spread: 0.1,
        },
    )
    .data
}

/// A uniformly random point with `||theta||_{Gamma^{-1}} <= rho` for `Gamma = g I`, `c = 0`.
pub fn random_theta(rng: &mut StdRng, d: usize, g: f64, rho: f64) -> Vec<f64> {
    let dir = DVector::from_column_slice(&normal_vec(rng, d)).normalize();
    let r = rho * g.sqrt() * rng.random::<f64>().powf(1.0 / d as f64);
    (dir * r).as_slice().to_vec()
}

pub fn cm_oracle(data: &DMatrix<f64>, g: f64) -> ClarabelCm {
    let d = data.ncols();
    ClarabelCm::new(
        CertifiedMean::new(data, &vec![0.0; d], &(DMatrix::identity(d, d) * g)).unwrap(),
    )
}

pub fn sp_oracle(data: &DMatrix<f64>, lambda: f64, width: f64) -> ClarabelSp {
    ClarabelSp::new(Spectral::new(data, lambda, width).unwrap())
}

/// A random symmetric positive definite matrix with eigenvalues in `[lo, hi]`.
pub fn random_spd(rng: &mut StdRng, d: usize, lo: f64, hi: f64) -> DMatrix<f64> {
    let g: DMatrix<f64> = DMatrix::from_fn(d, d, |_, _| StandardNormal.sample(rng));
    let q = g.qr().q();
    let eig: DVector<f64> = DVector::from_fn(d, |_, _| lo + (hi - lo) * rng.random::<f64>());
    &q * DMatrix::from_diagonal(&eig) * q.transpose()
}

pub fn score(oracle: &dyn ScoreOracle, theta: &[f64]) -> f64 {
    oracle.evaluate(theta).unwrap().score
}

/// A CM instance of `n` points in dimension `d`: 5% of them in a cluster shifted by 4 along
/// axis 0 from a mean near 0, `c = 0`, `Gamma = g I`.
pub fn instance(seed: u64, n: usize, d: usize, g: f64) -> CertifiedMean {
    let mut r = rng(seed);
    let mean: Vec<f64> = normal_vec(&mut r, d).iter().map(|x| 0.3 * x).collect();
    let adversary = Adversary::ShiftedCluster {
        distance: 4.0,
        axis: 0,
        spread: 0.1,
    };
    let data = CorruptedSample::identity_covariance(&mut r, n, &mean, 0.05, &adversary).data;
    CertifiedMean::new(&data, &vec![0.0; d], &(DMatrix::identity(d, d) * g)).unwrap()
}
