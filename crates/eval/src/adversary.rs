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
    ShiftedCluster {
        /// Distance of the cluster's centre from the empirical mean.
        distance: f64,
        /// The coordinate along which the cluster is shifted.
        axis: usize,
        /// Standard deviation of the cluster around its centre.
        spread: f64,
    },
    /// (b) Remove the records with the largest projection on `axis` and put them at the
    /// empirical mean of the rest.
    Subtractive {
        /// The coordinate whose largest projections are removed.
        axis: usize,
    },
    /// (c) Records scattered uniformly on a sphere of radius `distance` around the mean.
    ScatteredOutliers {
        /// Radius of the sphere around the mean.
        distance: f64,
    },
    /// (d) For covariance: records along the direction of least empirical variance `v`, at
    /// `mean + g sqrt(factor v) u` with `g` standard normal (variance inflated `factor`-fold).
    InflatedDirection {
        /// The factor by which the variance along the direction is inflated.
        factor: f64,
    },
    /// (e) Random label noise of a mixture: the replaced records are draws of a second
    /// mixture component `N(mean + distance u, I)`, `u` one random unit direction, wrongly
    /// labelled as clean.
    MixtureNoise {
        /// Distance of the second component's mean from the first's.
        distance: f64,
    },
}

impl Adversary {
    /// Corrupt `floor(eta n)` rows of `data` in place; returns their indices.
    pub fn corrupt<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        data: &mut DMatrix<f64>,
        eta: f64,
    ) -> Vec<usize> {
        let (n, d) = data.shape();
        let m = ((eta * n as f64).floor() as usize).min(n);
        if m == 0 {
            return Vec::new();
        }
        let mean: DVector<f64> = data.row_mean().transpose();
        match *self {
            Adversary::ShiftedCluster {
                distance,
                axis,
                spread,
            } => {
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
                let rest_mean: Vec<f64> = (0..d)
                    .map(|k| {
                        keep.iter().map(|&i| data[(i, k)]).sum::<f64>() / keep.len().max(1) as f64
                    })
                    .collect();
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
                    let dir: DVector<f64> =
                        DVector::from_fn(d, |_, _| StandardNormal.sample(rng)).normalize();
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
                let (u, var) = (
                    eig.eigenvectors.column(k_min).into_owned(),
                    eig.eigenvalues[k_min],
                );
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
                let u: DVector<f64> =
                    DVector::from_fn(d, |_, _| StandardNormal.sample(rng)).normalize();
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

/// Adversaries for covariance data (MATH.md 6), placed with the TRUE `mu` and `Sigma` of the
/// clean distribution: `v` is the unit eigenvector of the smallest eigenvalue `lambda_min` of
/// `Sigma` (its thinnest direction), `sqrt(lambda_min)` the standard deviation along it.
#[derive(Clone, Debug, PartialEq)]
pub enum CovarianceAdversary {
    /// Far outliers: every replaced record at `mu + distance sqrt(lambda_min) v + spread g`,
    /// `g ~ N(0, I)`, all on the same side ([`CovarianceAdversary::far`]: 15 standard
    /// deviations out, jitter `N(0, 0.01 I)`).
    Far {
        /// Distance out along `v`, in units of `sqrt(lambda_min)`.
        distance: f64,
        /// Standard deviation of the jitter.
        spread: f64,
    },
    /// A tight cluster `distance` Mahalanobis units out along `v`: `mu + distance
    /// sqrt(lambda_min) v + spread g` ([`CovarianceAdversary::cluster`]: 6 units, jitter
    /// `N(0, 0.01^2 I)`).
    Cluster {
        /// Distance out along `v`, in Mahalanobis units.
        distance: f64,
        /// Standard deviation of the jitter.
        spread: f64,
    },
    /// (d) The existing [`Adversary::InflatedDirection`] (empirical least-variance direction,
    /// variance inflated `factor`-fold).
    Inflated {
        /// The factor by which the variance along the direction is inflated.
        factor: f64,
    },
    /// (b) Subtractive: the `floor(eta n)` records with the largest `|<x_i - mu, v>|` are moved
    /// to `mu`. The variance along `v` shrinks to `E[g^2; |g| < z] = 1 - eta - 2 z phi(z)` times
    /// `lambda_min` (`g ~ N(0, 1)`, `z` its two-sided `eta` quantile): 0.72 at `eta = 0.05`.
    /// Every method that trusts the central records is fooled; MCD's support keeps them.
    Subtractive,
}

/// The unit eigenvector `v` of the smallest eigenvalue `lambda_min` of `covariance`, and
/// `sqrt(lambda_min)`.
fn thinnest(covariance: &DMatrix<f64>) -> (DVector<f64>, f64) {
    let eig = (0.5 * (covariance + covariance.transpose())).symmetric_eigen();
    let k_min = eig.eigenvalues.imin();
    (
        eig.eigenvectors.column(k_min).into_owned(),
        eig.eigenvalues[k_min].max(0.0).sqrt(),
    )
}

impl CovarianceAdversary {
    /// 15 standard deviations out along the thinnest direction, jitter `N(0, 0.01 I)`.
    pub fn far() -> Self {
        CovarianceAdversary::Far {
            distance: 15.0,
            spread: 0.1,
        }
    }

    /// 6 Mahalanobis units out along the thinnest direction, jitter `N(0, 0.01^2 I)`.
    pub fn cluster() -> Self {
        CovarianceAdversary::Cluster {
            distance: 6.0,
            spread: 0.01,
        }
    }

    /// Variance inflated 10-fold along the empirical least-variance direction (the adversary
    /// of [`crate::covariance_sample`]).
    pub fn inflated() -> Self {
        CovarianceAdversary::Inflated { factor: 10.0 }
    }

    /// Corrupt `floor(eta n)` random rows of `data` (records of `N(mean, covariance)`) in place;
    /// returns their indices.
    pub fn corrupt<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        data: &mut DMatrix<f64>,
        eta: f64,
        mean: &[f64],
        covariance: &DMatrix<f64>,
    ) -> Vec<usize> {
        let (n, d) = data.shape();
        let m = ((eta * n as f64).floor() as usize).min(n);
        if m == 0 {
            return Vec::new();
        }
        match *self {
            CovarianceAdversary::Far { distance, spread }
            | CovarianceAdversary::Cluster { distance, spread } => {
                let (v, sd) = thinnest(covariance);
                let idx = sample(rng, n, m).into_vec();
                for &i in &idx {
                    for k in 0..d {
                        let g: f64 = StandardNormal.sample(rng);
                        data[(i, k)] = mean[k] + distance * sd * v[k] + spread * g;
                    }
                }
                idx
            }
            CovarianceAdversary::Inflated { factor } => {
                Adversary::InflatedDirection { factor }.corrupt(rng, data, eta)
            }
            CovarianceAdversary::Subtractive => {
                let (v, _) = thinnest(covariance);
                let along: Vec<f64> = (0..n)
                    .map(|i| {
                        (0..d)
                            .map(|k| (data[(i, k)] - mean[k]) * v[k])
                            .sum::<f64>()
                            .abs()
                    })
                    .collect();
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by(|&i, &j| along[j].total_cmp(&along[i]));
                order.truncate(m);
                for &i in &order {
                    for k in 0..d {
                        data[(i, k)] = mean[k];
                    }
                }
                order
            }
        }
    }
}

#[cfg(test)]
mod covariance_tests {
    use super::CovarianceAdversary;
    use nalgebra::DMatrix;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use rand_distr::{Distribution, StandardNormal};

    #[test]
    fn far_and_cluster_sit_along_the_thinnest_direction() {
        // Sigma = diag(4, 1, 9): thinnest direction e_2, standard deviation 1.
        let sigma = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![4.0, 1.0, 9.0]));
        let mean = [1.0, 2.0, 3.0];
        for (adv, distance, spread) in [
            (CovarianceAdversary::far(), 15.0, 0.1),
            (CovarianceAdversary::cluster(), 6.0, 0.01),
        ] {
            let mut data = DMatrix::zeros(1000, 3);
            let idx = adv.corrupt(&mut StdRng::seed_from_u64(1), &mut data, 0.1, &mean, &sigma);
            assert_eq!(idx.len(), 100);
            let along: Vec<f64> = idx.iter().map(|&i| data[(i, 1)] - mean[1]).collect();
            // All on one side (the eigenvector's sign is arbitrary), at distance +- 5 spreads.
            let side = along[0].signum();
            assert!(
                along
                    .iter()
                    .all(|a| (side * a - distance).abs() < 5.0 * spread),
                "{adv:?}: {along:?}"
            );
            assert!(
                idx.iter()
                    .all(|&i| (data[(i, 0)] - 1.0).abs() < 5.0 * spread
                        && (data[(i, 2)] - 3.0).abs() < 5.0 * spread)
            );
            let untouched = (0..1000)
                .filter(|i| !idx.contains(i))
                .all(|i| data.row(i).iter().all(|&x| x == 0.0));
            assert!(untouched);
        }
    }

    /// Sigma = diag(4, 1, 9): the 5% of records farthest out along e_2 go to the mean, and the
    /// variance along e_2 drops to about 0.72 (the other coordinates' stay near 4 and 9).
    #[test]
    fn subtractive_empties_the_tails_of_the_thinnest_direction() {
        let sd = nalgebra::DVector::from_vec(vec![2.0, 1.0, 3.0]);
        let sigma = DMatrix::from_diagonal(&sd.map(|s| s * s));
        let mean = [1.0, 2.0, 3.0];
        let mut rng = StdRng::seed_from_u64(2);
        let n = 40_000;
        let mut data = DMatrix::from_fn(n, 3, |_, k| {
            let g: f64 = StandardNormal.sample(&mut rng);
            mean[k] + sd[k] * g
        });
        let before = data.clone();
        let idx =
            CovarianceAdversary::Subtractive.corrupt(&mut rng, &mut data, 0.05, &mean, &sigma);
        assert_eq!(idx.len(), 2000);
        let least_moved = idx
            .iter()
            .map(|&i| (before[(i, 1)] - 2.0).abs())
            .fold(f64::INFINITY, f64::min);
        let most_kept = (0..n)
            .filter(|i| !idx.contains(i))
            .map(|i| (before[(i, 1)] - 2.0).abs())
            .fold(0.0, f64::max);
        assert!(least_moved >= most_kept, "{least_moved} < {most_kept}");
        assert!(
            idx.iter()
                .all(|&i| data.row(i).iter().zip(&mean).all(|(x, m)| x == m))
        );
        let variance = |k: usize| {
            data.column(k)
                .iter()
                .map(|x| (x - mean[k]).powi(2))
                .sum::<f64>()
                / n as f64
        };
        assert!((variance(1) - 0.72).abs() < 0.02, "{}", variance(1));
        assert!((variance(0) / 4.0 - 0.95).abs() < 0.04 && (variance(2) / 9.0 - 0.95).abs() < 0.04);
    }
}
