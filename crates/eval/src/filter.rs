//! The iterative spectral filter for the mean of an identity-covariance Gaussian under an
//! `eta` fraction of corruptions (Diakonikolas, Kamath, Kane, Li, Moitra, Stewart, "Robust
//! Estimators in High Dimensions without the Computational Intractability", FOCS 2016, and
//! the practical version of "Being Robust (in High Dimensions) Can Be Practical", ICML 2017),
//! as a non-private [`MeanEstimator`] baseline.
use crate::baseline::{Guarantee, MeanEstimator};
use nalgebra::{DMatrix, DVector};
use sosdp_learn::{LearnError, check_data};

/// The spectral filter (robust, not private), deterministic.
///
/// 1. Naive pruning: drop the records farther than `sqrt(d) + 2 sqrt(ln n)` from the
///    coordinate-wise median (a clean record is that far from the mean with probability about
///    `1/n^2`), but never more than half of them (the radius is raised to the median distance
///    if needed). These removals do not count towards the cap below.
/// 2. Repeat on the kept records, at most `max_rounds` times: the mean `mu_hat`, the empirical
///    covariance and its top eigenpair `(lambda, v)`. Stop when
///    `lambda <= 1 + C eta ln(1/eta)` (`C = stop_constant`, default 3, as in the authors'
///    MATLAB code; `C = 10` would accept a 5% cluster at distance 5, whose variance
///    contribution `eta (1 - eta) 5^2 ~ 1.19` is below `10 eta ln(1/eta) ~ 1.5`). Otherwise
///    project, `y_i = |<x_i, v> - median_j <x_j, v>|`, and apply the tail test of the
///    authors' code: scanning the `y` in increasing order, take the first `T = y_(i) - delta`
///    (`delta = 2 eta`) at which the fraction of kept records with a larger projection exceeds
///    `tail_factor * (P(|N(0,1)| > T) + slack)` (`tail_factor` default 2.5, the authors'
///    `cher`; `slack = eta / max(4, d max(1, ln(d eta / 0.1)))`, their
///    `eta / (d log(d eta / tau))` with `tau = 0.1`, guarded for small `d`), and remove the
///    records beyond `y_(i)`. We use the two-sided Gaussian tail since `y` is an absolute
///    value (their code compares with the one-sided tail, which removes more).
/// 3. At most `floor(2 eta n)` records are removed by step 2 in total (the largest
///    projections go first when a round would exceed the cap); stop when no record is
///    removed. Return the mean of the kept records.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FilterMean {
    /// The corruption bound `eta` in `(0, 0.5)` (default 0.05).
    pub eta: f64,
    /// `C` in the stopping rule `lambda <= 1 + C eta ln(1/eta)` (default 3).
    pub stop_constant: f64,
    /// The factor by which the empirical tail must exceed the Gaussian one (default 2.5).
    pub tail_factor: f64,
    /// The most filtering rounds (default 50).
    pub max_rounds: usize,
}

impl Default for FilterMean {
    fn default() -> Self {
        FilterMean {
            eta: 0.05,
            stop_constant: 3.0,
            tail_factor: 2.5,
            max_rounds: 50,
        }
    }
}

/// The outcome of the filter: the estimate and what was removed.
#[derive(Clone, Debug, PartialEq)]
pub struct FilterFit {
    /// The mean of the kept records.
    pub estimate: Vec<f64>,
    /// The indices (rows) of the kept records, increasing.
    pub kept: Vec<usize>,
    /// How many records the naive pruning dropped.
    pub pruned: usize,
    /// How many records the spectral rounds removed (at most `floor(2 eta n)`).
    pub filtered: usize,
    /// How many spectral rounds removed records.
    pub rounds: usize,
    /// The top eigenvalue of the kept records' covariance at the end.
    pub final_lambda: f64,
}

impl FilterMean {
    /// The filter for the corruption bound `eta`, other settings default.
    pub fn new(eta: f64) -> Self {
        FilterMean {
            eta,
            ..Self::default()
        }
    }

    /// Run the filter on `data` (one record per row).
    pub fn fit(&self, data: &DMatrix<f64>) -> Result<FilterFit, LearnError> {
        check_data(data)?;
        if !(self.eta > 0.0 && self.eta < 0.5) {
            return Err(LearnError::Corruption(self.eta));
        }
        if !(self.stop_constant.is_finite() && self.stop_constant > 0.0) {
            return Err(LearnError::InvalidSetting(format!(
                "the filter's stopping constant must be positive and finite, got {}",
                self.stop_constant
            )));
        }
        if !(self.tail_factor.is_finite() && self.tail_factor > 0.0) {
            return Err(LearnError::InvalidSetting(format!(
                "the filter's tail factor must be positive and finite, got {}",
                self.tail_factor
            )));
        }
        let (n, d) = data.shape();
        let eta = self.eta;

        // 1. Naive pruning around the coordinate-wise median.
        let med: Vec<f64> = data
            .column_iter()
            .map(|c| median(c.iter().copied().collect()))
            .collect();
        let dist: Vec<f64> = data
            .row_iter()
            .map(|r| {
                r.iter()
                    .zip(&med)
                    .map(|(x, m)| (x - m) * (x - m))
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        let radius =
            ((d as f64).sqrt() + 2.0 * (n.max(2) as f64).ln().sqrt()).max(median(dist.clone()));
        let mut kept: Vec<usize> = (0..n).filter(|&i| dist[i] <= radius).collect();
        let pruned = n - kept.len();

        // 2. Spectral rounds.
        let cap = (2.0 * eta * n as f64).floor() as usize;
        let threshold = 1.0 + self.stop_constant * eta * (1.0 / eta).ln();
        let delta = 2.0 * eta;
        let slack = eta / (d as f64 * (d as f64 * eta / 0.1).ln().max(1.0)).max(4.0);
        let (mut filtered, mut rounds) = (0, 0);
        let mut final_lambda;
        loop {
            let (mean, lambda, v) = top_direction(data, &kept);
            final_lambda = lambda;
            if lambda <= threshold || rounds >= self.max_rounds || filtered >= cap || kept.len() < 2
            {
                return Ok(FilterFit {
                    estimate: mean,
                    kept,
                    pruned,
                    filtered,
                    rounds,
                    final_lambda,
                });
            }
            let proj: Vec<f64> = kept
                .iter()
                .map(|&i| data.row(i).iter().zip(v.iter()).map(|(x, u)| x * u).sum())
                .collect();
            let centre = median(proj.clone());
            // (|<x, v> - centre|, row) in increasing order.
            let mut y: Vec<(f64, usize)> = proj
                .iter()
                .zip(&kept)
                .map(|(p, &i)| ((p - centre).abs(), i))
                .collect();
            y.sort_by(|a, b| a.0.total_cmp(&b.0));
            let m = y.len();
            let cut = (0..m).find(|&j| {
                let beyond = (m - j - 1) as f64 / m as f64;
                beyond > self.tail_factor * (two_sided_tail(y[j].0 - delta) + slack)
            });
            // Keep positions 0..=j; records tied with y_(j) stay.
            let keep_to = match cut {
                Some(j) => y[j + 1..]
                    .iter()
                    .position(|e| e.0 > y[j].0)
                    .map_or(m, |p| j + 1 + p),
                None => m,
            };
            let remove = (m - keep_to).min(cap - filtered);
            if remove == 0 {
                return Ok(FilterFit {
                    estimate: mean,
                    kept,
                    pruned,
                    filtered,
                    rounds,
                    final_lambda,
                });
            }
            kept = y[..m - remove].iter().map(|e| e.1).collect();
            kept.sort_unstable();
            filtered += remove;
            rounds += 1;
        }
    }
}

/// The mean of the rows `kept` of `data`, and the top eigenpair of their covariance.
fn top_direction(data: &DMatrix<f64>, kept: &[usize]) -> (Vec<f64>, f64, DVector<f64>) {
    let d = data.ncols();
    let m = kept.len() as f64;
    let mut mean = vec![0.0; d];
    for &i in kept {
        for (k, s) in mean.iter_mut().enumerate() {
            *s += data[(i, k)] / m;
        }
    }
    let centred = DMatrix::from_fn(kept.len(), d, |r, k| data[(kept[r], k)] - mean[k]);
    let cov = centred.transpose() * &centred / m;
    let eig = cov.symmetric_eigen();
    let top = eig.eigenvalues.imax();
    (
        mean,
        eig.eigenvalues[top],
        eig.eigenvectors.column(top).into_owned(),
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// `P(|N(0, 1)| > t)` (1 for `t <= 0`).
fn two_sided_tail(t: f64) -> f64 {
    if t <= 0.0 {
        1.0
    } else {
        erfc(t / std::f64::consts::SQRT_2)
    }
}

/// The complementary error function, relative error below `1.2e-7` (the Chebyshev fit of
/// Numerical Recipes, `erfcc`).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -1.26551223
        + t * (1.00002368
            + t * (0.37409196
                + t * (0.09678418
                    + t * (-0.18628806
                        + t * (0.27886807
                            + t * (-1.13520398
                                + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
    let r = t * (-z * z + poly).exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

impl MeanEstimator for FilterMean {
    fn name(&self) -> String {
        format!("spectral filter (eta = {})", self.eta)
    }

    fn guarantee(&self) -> Guarantee {
        Guarantee::None
    }

    fn estimate(&self, data: &DMatrix<f64>, _seed: u64) -> Result<Vec<f64>, LearnError> {
        Ok(self.fit(data)?.estimate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adversary::Adversary;
    use crate::baseline::EmpiricalMean;
    use crate::metrics::l2_error;
    use crate::synthetic::{CorruptedSample, gaussian_samples};
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn erfc_matches_known_values() {
        for (x, want) in [
            (0.0, 1.0),
            (1.0, 0.157_299_207_050_285),
            (2.0, 0.004_677_734_981_047_266),
            (-1.0, 1.842_700_792_949_715),
        ] {
            assert!(
                (erfc(x) - want).abs() <= 2e-7 * want,
                "erfc({x}) = {}",
                erfc(x)
            );
        }
    }

    #[test]
    fn removes_a_shifted_cluster() {
        let (n, d) = (5000, 10);
        let adversary = Adversary::ShiftedCluster {
            distance: 5.0,
            axis: 0,
            spread: 0.1,
        };
        for seed in [1, 2] {
            let mut rng = StdRng::seed_from_u64(seed);
            let s =
                CorruptedSample::identity_covariance(&mut rng, n, &vec![0.0; d], 0.05, &adversary);
            let fit = FilterMean::default().fit(&s.data).unwrap();
            let err = l2_error(&fit.estimate, &s.mean);
            let naive = l2_error(&EmpiricalMean.estimate(&s.data, 0).unwrap(), &s.mean);
            let left = s
                .corrupted
                .iter()
                .filter(|i| fit.kept.binary_search(i).is_ok())
                .count();
            eprintln!(
                "cluster seed {seed}: filter error {err:.4}, empirical {naive:.4}; pruned {}, filtered {} in {} rounds, \
                 corrupted left {left}, final lambda {:.3}",
                fit.pruned, fit.filtered, fit.rounds, fit.final_lambda
            );
            assert!(
                err < 0.5 * naive && err < 0.2,
                "filter {err}, empirical {naive}"
            );
            assert!(fit.filtered <= 500);
        }
    }

    #[test]
    fn prunes_far_outliers() {
        let (n, d) = (5000, 10);
        let mut rng = StdRng::seed_from_u64(3);
        let s = CorruptedSample::identity_covariance(
            &mut rng,
            n,
            &vec![1.0; d],
            0.05,
            &Adversary::ScatteredOutliers { distance: 100.0 },
        );
        let fit = FilterMean::default().fit(&s.data).unwrap();
        let err = l2_error(&fit.estimate, &s.mean);
        eprintln!(
            "scattered: filter error {err:.4}, pruned {}, filtered {}",
            fit.pruned, fit.filtered
        );
        assert!(
            fit.pruned >= 250 && err < 0.1,
            "pruned {}, error {err}",
            fit.pruned
        );
    }

    #[test]
    fn leaves_clean_data_alone() {
        let (n, d) = (5000, 10);
        let mut rng = StdRng::seed_from_u64(4);
        let mean = vec![0.5; d];
        let data = gaussian_samples(&mut rng, n, &mean, None);
        let fit = FilterMean::default().fit(&data).unwrap();
        let err = l2_error(&fit.estimate, &mean);
        let empirical: Vec<f64> = data.row_mean().iter().copied().collect();
        eprintln!(
            "clean: filter error {err:.4}, empirical {:.4}; pruned {}, filtered {}, lambda {:.3}",
            l2_error(&empirical, &mean),
            fit.pruned,
            fit.filtered,
            fit.final_lambda
        );
        assert!(err < 0.1, "error {err}");
        assert!(
            fit.pruned + fit.filtered <= 5,
            "removed {} clean records",
            fit.pruned + fit.filtered
        );
    }

    #[test]
    fn rejects_bad_settings_and_data() {
        let data = DMatrix::from_fn(20, 2, |i, k| (i * 2 + k) as f64);
        for eta in [0.0, 0.5, -0.1, f64::NAN] {
            assert!(matches!(
                FilterMean::new(eta).fit(&data),
                Err(LearnError::Corruption(_))
            ));
        }
        let bad_c = FilterMean {
            stop_constant: f64::NAN,
            ..FilterMean::default()
        };
        assert!(matches!(
            bad_c.fit(&data),
            Err(LearnError::InvalidSetting(_))
        ));
        let mut bad = data.clone();
        bad[(3, 0)] = f64::INFINITY;
        assert!(matches!(
            FilterMean::default().estimate(&bad, 0),
            Err(LearnError::NonFinite { row: 3, column: 0 })
        ));
        assert!(matches!(
            FilterMean::default().estimate(&DMatrix::zeros(0, 2), 0),
            Err(LearnError::EmptyData)
        ));
        // One record: the estimate is that record.
        let one = DMatrix::from_row_slice(1, 2, &[1.0, -2.0]);
        assert_eq!(
            FilterMean::default().estimate(&one, 0).unwrap(),
            vec![1.0, -2.0]
        );
    }
}
