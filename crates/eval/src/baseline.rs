//! Mean estimators behind one trait (MATH.md section 6), so the harness runs every estimator
//! on the same data: the sum-of-squares private mean, the non-private empirical mean, the
//! clipped Laplace mean (pure DP at the same eps) and the coordinate-wise median; CoinPress
//! (zCDP, [`crate::coinpress`]) and the spectral filter (robust, [`crate::filter`]) live in
//! their own modules.
use nalgebra::DMatrix;
use rand_distr::{Distribution, Gamma, StandardNormal};
use sosdp_learn::privacy::seeded_rng;
use sosdp_learn::snap;
use sosdp_learn::{LearnError, Learner, PrivateMean, check_data as check};

/// The privacy an estimator offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Guarantee {
    /// No privacy.
    None,
    /// Pure `eps`-differential privacy.
    Pure {
        /// The privacy parameter.
        epsilon: f64,
    },
    /// `rho`-zero-concentrated differential privacy (Bun and Steinke 2016). Weaker than pure
    /// DP: `eps`-DP implies `(eps^2 / 2)`-zCDP, not conversely.
    Zcdp {
        /// The zCDP parameter.
        rho: f64,
    },
    /// `(eps, delta)`-differential privacy.
    Approximate {
        /// The privacy parameter.
        epsilon: f64,
        /// The probability of the excess.
        delta: f64,
    },
}

impl std::fmt::Display for Guarantee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Guarantee::None => write!(f, "none"),
            Guarantee::Pure { epsilon } => write!(f, "pure eps = {epsilon}"),
            Guarantee::Zcdp { rho } => write!(f, "zCDP rho = {rho}"),
            Guarantee::Approximate { epsilon, delta } => {
                write!(f, "eps = {epsilon}, delta = {delta}")
            }
        }
    }
}

/// A mean estimator: `estimate(data, seed)` with one record per row of `data`.
pub trait MeanEstimator {
    /// A short name for tables and plots.
    fn name(&self) -> String;
    /// The privacy the estimator offers.
    fn guarantee(&self) -> Guarantee;
    /// The estimate; `seed` drives the estimator's randomness (ignored by deterministic ones).
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<Vec<f64>, LearnError>;
}

/// The empirical mean (not private, not robust).
#[derive(Clone, Copy, Debug, Default)]
pub struct EmpiricalMean;

impl MeanEstimator for EmpiricalMean {
    fn name(&self) -> String {
        "empirical mean".into()
    }
    fn guarantee(&self) -> Guarantee {
        Guarantee::None
    }
    fn estimate(&self, data: &DMatrix<f64>, _seed: u64) -> Result<Vec<f64>, LearnError> {
        check(data)?;
        Ok(data.row_mean().iter().copied().collect())
    }
}

/// The coordinate-wise median (robust, not private).
#[derive(Clone, Copy, Debug, Default)]
pub struct CoordinateMedian;

impl MeanEstimator for CoordinateMedian {
    fn name(&self) -> String {
        "coordinate-wise median".into()
    }
    fn guarantee(&self) -> Guarantee {
        Guarantee::None
    }
    fn estimate(&self, data: &DMatrix<f64>, _seed: u64) -> Result<Vec<f64>, LearnError> {
        check(data)?;
        Ok(data
            .column_iter()
            .map(|c| median(c.iter().copied().collect()))
            .collect())
    }
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

/// The clipped Laplace mean, pure `eps`-DP: every record is projected onto the ball
/// `B(0, clip)`, the projected records are averaged, and noise with density
/// `∝ exp(-eps |z|_2 / Delta)` is added, `Delta = 2 clip / n` the l2 sensitivity of the
/// clipped mean under replacing one record (the l2 "K-norm" Laplace mechanism: radius
/// `Gamma(d, lambda)`, `lambda = Delta / eps` the noise scale, uniform direction). Expected
/// noise norm `d lambda`.
///
/// After the noise the output is snapped: each coordinate is rounded to the nearest multiple of
/// the public grid step `Lambda` ([`grid`](Self::grid): the smallest power of two `>= lambda`,
/// a function of eps, clip and n only), then clamped to `[-B, B]`, `B` the smallest multiple of
/// `Lambda` `>= clip` (so the output stays on the grid; the clipped mean lies in that box, so
/// the clamp never moves the output away from it).
///
/// Why snap: the noise is sampled in floating point, so which doubles `mean + noise` can take
/// depends on the mean, and an output reachable from one dataset but not from its neighbour
/// gives the dataset away (Mironov 2012, "On significance of the least significant bits for
/// differential privacy"). Why this step: it is the step of Mironov's snapping mechanism,
/// proven `eps (1 + 2^-49 B / Delta)`-DP (here about `eps (1 + 2^-50 n)`) for the
/// one-dimensional Laplace mechanism when `lambda < B < 2^46 lambda`, i.e. `2 < n eps < 2^47`.
/// A grid much finer than the noise (say `2^-40 lambda`) keeps holes: in the tails the sampled
/// noise values are spaced wider than such a grid (`lambda ln u` at `u` near `2^-20` moves in
/// steps of about `2^-33 lambda`), so some grid points remain reachable from one mean only. For
/// this l2 mechanism and `rand_distr`'s samplers the same defence is applied without a proof:
/// every output is a grid point, and a cell of width `>= lambda` has probabilities within about
/// `e^eps` of each other under neighbouring datasets whatever the low-order bits of the sampler
/// do. The price: at most `Lambda / 2 < lambda` per coordinate, a mean square of at most about
/// `lambda^2 / 3` per coordinate against the noise's `(d + 1) lambda^2`: at most about 8% more
/// root-mean-square error at `d = 1`, under 2% at `d = 10`.
#[derive(Clone, Copy, Debug)]
pub struct ClippedLaplaceMean {
    /// The privacy parameter.
    pub epsilon: f64,
    /// The radius of the ball `B(0, clip)` every record is projected onto.
    pub clip: f64,
}

impl ClippedLaplaceMean {
    /// The natural clip for the prior `|mu| <= R` and identity covariance in dimension `d`
    /// with `n` records: `R + sqrt(d) + sqrt(2 log n)` (a clean record is inside with high
    /// probability, so clean data are not biased).
    pub fn for_prior(epsilon: f64, radius: f64, n: usize, d: usize) -> Self {
        ClippedLaplaceMean {
            epsilon,
            clip: radius + (d as f64).sqrt() + (2.0 * (n.max(2) as f64).ln()).sqrt(),
        }
    }

    /// The noise scale `lambda = Delta / eps = 2 clip / (n eps)` for `n` records. Errors on
    /// invalid settings (`eps` or `clip` not positive and finite, `n = 0`) and when `lambda` is
    /// not a normal number.
    pub fn noise_scale(&self, n: usize) -> Result<f64, LearnError> {
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(LearnError::Epsilon(self.epsilon));
        }
        if !(self.clip.is_finite() && self.clip > 0.0) {
            return Err(LearnError::Radius(self.clip));
        }
        if n == 0 {
            return Err(LearnError::EmptyData);
        }
        let scale = 2.0 * self.clip / (n as f64 * self.epsilon);
        if !scale.is_normal() {
            return Err(LearnError::InvalidSetting(format!(
                "the Laplace noise scale {scale} is unusable"
            )));
        }
        Ok(scale)
    }

    /// The public grid step of the output for `n` records: the smallest power of two `>=` the
    /// [`noise_scale`](Self::noise_scale) ([`snap::grid`]). It depends on eps, clip and `n`,
    /// never on the data. Errors outside the snapping mechanism's validity range
    /// (`noise_scale < clip < 2^46 noise_scale`, Mironov 2012), where its guarantee is not shown.
    pub fn grid(&self, n: usize) -> Result<f64, LearnError> {
        let scale = self.noise_scale(n)?;
        if !snap::in_validity_range(scale, self.clip) {
            return Err(LearnError::InvalidSetting(format!(
                "the Laplace noise scale {scale} is outside the snapping mechanism's validity \
                 range for the clip {} (scale < clip < 2^46 scale, Mironov 2012)",
                self.clip
            )));
        }
        Ok(snap::grid(scale))
    }

    /// The estimate: seeded (`Some`: reproducible, for experiments — a seeded output is not
    /// private) or from fresh OS randomness (`None`, as a release should).
    pub fn release(&self, data: &DMatrix<f64>, seed: Option<u64>) -> Result<Vec<f64>, LearnError> {
        check(data)?;
        let (n, d) = data.shape();
        let (noise_scale, grid) = (self.noise_scale(n)?, self.grid(n)?);
        let mut rng = seeded_rng(seed)?;
        let mut sum = vec![0.0; d];
        for row in data.row_iter() {
            let norm = row.norm();
            let scale = if norm > self.clip {
                self.clip / norm
            } else {
                1.0
            };
            sum.iter_mut()
                .zip(row.iter())
                .for_each(|(s, x)| *s += scale * x);
        }
        let radius = Gamma::new(d as f64, noise_scale)
            .map_err(|e| {
                LearnError::InvalidSetting(format!(
                    "the Laplace noise scale {noise_scale} is unusable: {e}"
                ))
            })?
            .sample(&mut rng);
        let dir: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
        let dir_norm = dir
            .iter()
            .map(|x| x * x)
            .sum::<f64>()
            .sqrt()
            .max(f64::MIN_POSITIVE);
        let mut out: Vec<f64> = sum
            .iter()
            .zip(&dir)
            .map(|(s, u)| s / n as f64 + radius * u / dir_norm)
            .collect();
        snap::snap(&mut out, &vec![0.0; d], self.clip, grid);
        Ok(out)
    }
}

impl MeanEstimator for ClippedLaplaceMean {
    fn name(&self) -> String {
        format!("clipped Laplace mean (eps = {})", self.epsilon)
    }
    fn guarantee(&self) -> Guarantee {
        Guarantee::Pure {
            epsilon: self.epsilon,
        }
    }
    /// [`ClippedLaplaceMean::release`] seeded with `seed` (the harness's reproducible runs).
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<Vec<f64>, LearnError> {
        self.release(data, Some(seed))
    }
}

/// The sum-of-squares private mean (MATH.md 5.1) as a [`MeanEstimator`].
impl MeanEstimator for PrivateMean {
    fn name(&self) -> String {
        format!("SoS private mean (eps = {})", self.privacy().epsilon())
    }
    fn guarantee(&self) -> Guarantee {
        Guarantee::Pure {
            epsilon: self.privacy().epsilon(),
        }
    }
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<Vec<f64>, LearnError> {
        let privacy = self.privacy().seed(seed);
        let fit = self.clone().with_privacy(privacy).fit(data)?;
        Ok(fit.release.estimate.as_slice().to_vec())
    }
}

/// A covariance estimator: `estimate(data, seed)` with one record per row of `data`; the
/// covariance-mode counterpart of [`MeanEstimator`] (CoinPress covariance lives in
/// [`crate::coinpress_covariance`]).
pub trait CovarianceEstimator {
    /// A short name for tables and plots.
    fn name(&self) -> String;
    /// The privacy the estimator offers.
    fn guarantee(&self) -> Guarantee;
    /// The estimate (`d x d`); `seed` drives the estimator's randomness (ignored by
    /// deterministic ones).
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<DMatrix<f64>, LearnError>;
}

/// The sample covariance `(1/(n-1)) sum (y_i - y_bar)(y_i - y_bar)^T` of the records (not
/// private, not robust). Needs at least two records.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmpiricalCovariance;

impl CovarianceEstimator for EmpiricalCovariance {
    fn name(&self) -> String {
        "empirical covariance".into()
    }
    fn guarantee(&self) -> Guarantee {
        Guarantee::None
    }
    fn estimate(&self, data: &DMatrix<f64>, _seed: u64) -> Result<DMatrix<f64>, LearnError> {
        check(data)?;
        let (n, d) = data.shape();
        if n < 2 {
            return Err(LearnError::TooFewSamples(format!(
                "the sample covariance needs at least 2 records, got {n}"
            )));
        }
        let mean = data.row_mean();
        let centred = DMatrix::from_fn(n, d, |i, k| data[(i, k)] - mean[k]);
        Ok(centred.transpose() * &centred / (n - 1) as f64)
    }
}

#[cfg(test)]
mod covariance_tests {
    use super::{CovarianceEstimator, EmpiricalCovariance};
    use nalgebra::DMatrix;

    #[test]
    fn empirical_covariance_matches_the_definition() {
        // Rows (0, 0), (2, 0), (1, 3): mean (1, 1); centred (-1, -1), (1, -1), (0, 2).
        let x = DMatrix::from_row_slice(3, 2, &[0.0, 0.0, 2.0, 0.0, 1.0, 3.0]);
        let s = EmpiricalCovariance.estimate(&x, 0).unwrap();
        assert_eq!(s, DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 3.0]));
        assert!(
            EmpiricalCovariance
                .estimate(&DMatrix::zeros(1, 2), 0)
                .is_err()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::{ClippedLaplaceMean, MeanEstimator};
    use nalgebra::DMatrix;

    /// `n x d` records spread around `(1, ..., 1)`, a few beyond the clip.
    fn data(n: usize, d: usize) -> DMatrix<f64> {
        DMatrix::from_fn(n, d, |i, j| {
            1.0 + ((i * 7 + j * 3) % 11) as f64 / 5.0 - 1.0 + if i % 50 == 0 { 40.0 } else { 0.0 }
        })
    }

    #[test]
    fn the_grid_is_the_smallest_power_of_two_above_the_noise_scale() {
        for (eps, clip, n) in [(1.0, 10.0, 200), (0.3, 7.5, 1000), (2.0, 1.0, 3)] {
            let m = ClippedLaplaceMean { epsilon: eps, clip };
            let (scale, grid) = (m.noise_scale(n).unwrap(), m.grid(n).unwrap());
            assert_eq!(
                grid,
                2f64.powi(grid.log2() as i32),
                "{grid} is not a power of two"
            );
            assert!(
                grid >= scale && grid / 2.0 < scale,
                "grid {grid}, scale {scale}"
            );
        }
        // A power of two is its own grid step.
        assert_eq!(
            ClippedLaplaceMean {
                epsilon: 1.0,
                clip: 4.0
            }
            .grid(4)
            .unwrap(),
            2.0
        );
        // Outside Mironov's validity range (noise scale >= clip, or clip >= 2^46 noise scale)
        // the baseline refuses.
        for (eps, clip, n) in [(1.0, 0.5, 1), (1.0, 4.0, 2), (1.0, 1.0, 1usize << 47)] {
            let m = ClippedLaplaceMean { epsilon: eps, clip };
            assert!(m.grid(n).is_err(), "eps {eps}, clip {clip}, n {n}");
        }
        assert!(
            ClippedLaplaceMean {
                epsilon: 0.0,
                clip: 4.0
            }
            .grid(2)
            .is_err()
        );
        assert!(
            ClippedLaplaceMean {
                epsilon: 1.0,
                clip: f64::INFINITY
            }
            .grid(2)
            .is_err()
        );
        assert!(
            ClippedLaplaceMean {
                epsilon: 1e-300,
                clip: 1e300
            }
            .grid(1)
            .is_err()
        );
    }

    #[test]
    fn outputs_lie_on_the_public_grid_inside_the_clamp() {
        let m = ClippedLaplaceMean::for_prior(1.0, 5.0, 200, 3);
        let x = data(200, 3);
        let grid = m.grid(200).unwrap();
        let bound = (m.clip / grid).ceil() * grid;
        for seed in 0..50 {
            for v in m.estimate(&x, seed).unwrap() {
                assert_eq!(
                    (v / grid).fract(),
                    0.0,
                    "seed {seed}: {v} is not a multiple of {grid}"
                );
                assert!(
                    v.abs() <= bound,
                    "seed {seed}: {v} outside [-{bound}, {bound}]"
                );
            }
        }
        // A noise scale (2) near the clip (3), inside the validity range: the clamp binds, and
        // its bound is on the grid too.
        let tiny = ClippedLaplaceMean {
            epsilon: 0.6,
            clip: 3.0,
        };
        let grid = tiny.grid(5).unwrap();
        let outputs: Vec<f64> = (0..20)
            .flat_map(|s| tiny.estimate(&data(5, 2), s).unwrap())
            .collect();
        assert!(
            outputs
                .iter()
                .all(|v| (v / grid).fract() == 0.0 && v.abs() <= (3.0 / grid).ceil() * grid),
            "{outputs:?}"
        );
        assert!(
            outputs
                .iter()
                .any(|v| v.abs() == (3.0 / grid).ceil() * grid),
            "{outputs:?}"
        );
    }

    #[test]
    fn seeded_runs_repeat_and_unseeded_runs_differ() {
        let m = ClippedLaplaceMean::for_prior(1.0, 5.0, 200, 10);
        let x = data(200, 10);
        assert_eq!(
            m.release(&x, Some(7)).unwrap(),
            m.release(&x, Some(7)).unwrap()
        );
        assert_eq!(m.estimate(&x, 7).unwrap(), m.release(&x, Some(7)).unwrap());
        assert_ne!(
            m.release(&x, Some(7)).unwrap(),
            m.release(&x, Some(8)).unwrap()
        );
        // Fresh OS randomness: two runs repeat with probability below 1e-6 (10 coordinates,
        // each on a grid no coarser than twice the noise scale).
        assert_ne!(m.release(&x, None).unwrap(), m.release(&x, None).unwrap());
    }
}
