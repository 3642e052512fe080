//! Adversaries of MATH.md section 6 that replace an `eta` fraction of the records.
use nalgebra::{DMatrix, DVector};
use rand::seq::index::sample;
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// How the corrupted records are chosen and where they go.
#[derive(Clone, Debug, PartialEq)]
pub enum Adversary {
    /// (a) A tight cluster (standard deviation `spread`) at `distance` from the empirical mean
    /// along coordinate `axis`; replaces random records.
    ShiftedCluster { distance: f64, axis: usize, spread: f64 },
    /// (b) Remove the records with the largest projection on `axis` and put them at the
    /// empirical mean of the rest.
    Subtractive { axis: usize },
    /// (c) Records scattered uniformly on a sphere of radius `distance` around the mean.
    ScatteredOutliers { distance: f64 },
    /// (d) For covariance: records along the direction of least empirical variance `v`, at
    /// `mean + g sqrt(factor v) u` with `g` standard normal (variance inflated `factor`-fold).
    InflatedDirection { factor: f64 },
    /// (e) Random label noise of a mixture: the replaced records are draws of a second
    /// mixture component `N(mean + distance u, I)`, `u` one random unit direction, wrongly
    /// labelled as clean.
    MixtureNoise { distance: f64 },
}

impl Adversary {
    /// Corrupt `floor(eta n)` rows of `data` in place; returns their indices.
    pub fn corrupt<R: Rng + ?Sized>(&self, rng: &mut R, data: &mut DMatrix<f64>, eta: f64) -> Vec<usize> {
        let (n, d) = data.shape();
        let m = ((eta * n as f64).floor() as usize).min(n);
        if m == 0 {
            return Vec::new();
        }
        let mean: DVector<f64> = data.row_mean().transpose();
        match *self {
            Adversary::ShiftedCluster { distance, axis, spread } => {
                let idx = sample(rng, n, m).into_vec();
                for &i in &idx {
                    for k in 0..d {
                        let noise: f64 = StandardNormal.sample(rng);
                        let shift = if k == axis % d { distance } else { 0.0 };
                        data[(i, k)] = mean[k] + shift + spread * noise;
                    }
                }
                idx
            }
            Adversary::Subtractive { axis } => {
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|&i, &j| data[(j, axis % d)].total_cmp(&data[(i, axis % d)]));
                let idx: Vec<usize> = order[..m].to_vec();
                let keep: Vec<usize> = order[m..].to_vec();
                let rest_mean: Vec<f64> =
                    (0..d).map(|k| keep.iter().map(|&i| data[(i, k)]).sum::<f64>() / keep.len().max(1) as f64).collect();
                for &i in &idx {
                    for k in 0..d {
                        data[(i, k)] = rest_mean[k];
                    }
                }
                idx
            }
            Adversary::ScatteredOutliers { distance } => {
                let idx = sample(rng, n, m).into_vec();
                for &i in &idx {
                    let dir: DVector<f64> = DVector::from_fn(d, |_, _| StandardNormal.sample(rng)).normalize();
                    let r = distance * (0.5 + 0.5 * rng.random::<f64>());
                    for k in 0..d {
                        data[(i, k)] = mean[k] + r * dir[k];
                    }
                }
                idx
            }
            Adversary::InflatedDirection { factor } => {
                let centred = DMatrix::from_fn(n, d, |i, k| data[(i, k)] - mean[k]);
                let cov = centred.transpose() * &centred / n as f64;
                let eig = cov.symmetric_eigen();
                let k_min = eig.eigenvalues.imin();
                let (u, var) = (eig.eigenvectors.column(k_min).into_owned(), eig.eigenvalues[k_min]);
                let idx = sample(rng, n, m).into_vec();
                for &i in &idx {
                    let g: f64 = StandardNormal.sample(rng);
                    for k in 0..d {
                        data[(i, k)] = mean[k] + g * (factor * var).sqrt() * u[k];
                    }
                }
                idx
            }
            Adversary::MixtureNoise { distance } => {
                let u: DVector<f64> = DVector::from_fn(d, |_, _| StandardNormal.sample(rng)).normalize();
                let idx = sample(rng, n, m).into_vec();
                for &i in &idx {
                    for k in 0..d {
                        let g: f64 = StandardNormal.sample(rng);
                        data[(i, k)] = mean[k] + distance * u[k] + g;
                    }
                }
                idx
            }
        }
    }
}
