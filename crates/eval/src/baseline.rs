//! Mean estimators behind one trait (MATH.md section 6), so the harness runs every estimator
//! on the same data: the sum-of-squares private mean, the non-private empirical mean, the
//! clipped Laplace mean (pure DP at the same eps) and the coordinate-wise median; CoinPress
//! (zCDP, [`crate::coinpress`]) and the spectral filter (robust, [`crate::filter`]) live in
//! their own modules.
use nalgebra::DMatrix;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Gamma, StandardNormal};
use sosdp_learn::{check_data as check, LearnError, PrivateMean};

/// The privacy an estimator offers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Privacy {
    /// No privacy.
    None,
    /// Pure `eps`-differential privacy.
    Pure { epsilon: f64 },
    /// `rho`-zero-concentrated differential privacy (Bun and Steinke 2016). Weaker than pure
    /// DP: `eps`-DP implies `(eps^2 / 2)`-zCDP, not conversely.
    Zcdp { rho: f64 },
}

impl std::fmt::Display for Privacy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Privacy::None => write!(f, "none"),
            Privacy::Pure { epsilon } => write!(f, "pure eps = {epsilon}"),
            Privacy::Zcdp { rho } => write!(f, "zCDP rho = {rho}"),
        }
    }
}

/// A mean estimator: `estimate(data, seed)` with one record per row of `data`.
pub trait MeanEstimator {
    /// A short name for tables and plots.
    fn name(&self) -> String;
    fn privacy(&self) -> Privacy;
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
    fn privacy(&self) -> Privacy {
        Privacy::None
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
    fn privacy(&self) -> Privacy {
        Privacy::None
    }
    fn estimate(&self, data: &DMatrix<f64>, _seed: u64) -> Result<Vec<f64>, LearnError> {
        check(data)?;
        Ok(data.column_iter().map(|c| median(c.iter().copied().collect())).collect())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { 0.5 * (v[m - 1] + v[m]) }
}

/// The clipped Laplace mean, pure `eps`-DP: every record is projected onto the ball
/// `B(0, clip)`, the projected records are averaged, and noise with density
/// `∝ exp(-eps |z|_2 / Delta)` is added, `Delta = 2 clip / n` the l2 sensitivity of the
/// clipped mean under replacing one record (the l2 "K-norm" Laplace mechanism: radius
/// `Gamma(d, Delta / eps)`, uniform direction). Expected noise norm `d Delta / eps`.
#[derive(Clone, Copy, Debug)]
pub struct ClippedLaplaceMean {
    pub epsilon: f64,
    pub clip: f64,
}

impl ClippedLaplaceMean {
    /// The natural clip for the prior `|mu| <= R` and identity covariance in dimension `d`
    /// with `n` records: `R + sqrt(d) + sqrt(2 log n)` (a clean record is inside with high
    /// probability, so clean data are not biased).
    pub fn for_prior(epsilon: f64, radius: f64, n: usize, d: usize) -> Self {
        ClippedLaplaceMean { epsilon, clip: radius + (d as f64).sqrt() + (2.0 * (n.max(2) as f64).ln()).sqrt() }
    }
}

impl MeanEstimator for ClippedLaplaceMean {
    fn name(&self) -> String {
        format!("clipped Laplace mean (eps = {})", self.epsilon)
    }
    fn privacy(&self) -> Privacy {
        Privacy::Pure { epsilon: self.epsilon }
    }
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<Vec<f64>, LearnError> {
        check(data)?;
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(LearnError::Epsilon(self.epsilon));
        }
        if !(self.clip.is_finite() && self.clip > 0.0) {
            return Err(LearnError::Radius(self.clip));
        }
        let (n, d) = data.shape();
        let mut sum = vec![0.0; d];
        for row in data.row_iter() {
            let norm = row.norm();
            let scale = if norm > self.clip { self.clip / norm } else { 1.0 };
            sum.iter_mut().zip(row.iter()).for_each(|(s, x)| *s += scale * x);
        }
        let sensitivity = 2.0 * self.clip / n as f64;
        let mut rng = StdRng::seed_from_u64(seed);
        let radius = Gamma::new(d as f64, sensitivity / self.epsilon)
            .map_err(|e| LearnError::InvalidSetting(format!("the Laplace noise scale {} is unusable: {e}", sensitivity / self.epsilon)))?
            .sample(&mut rng);
        let dir: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
        let dir_norm = dir.iter().map(|x| x * x).sum::<f64>().sqrt().max(f64::MIN_POSITIVE);
        Ok(sum.iter().zip(&dir).map(|(s, u)| s / n as f64 + radius * u / dir_norm).collect())
    }
}

/// The sum-of-squares private mean (MATH.md 5.1) as a [`MeanEstimator`].
impl MeanEstimator for PrivateMean {
    fn name(&self) -> String {
        format!("SoS private mean (eps = {})", self.epsilon())
    }
    fn privacy(&self) -> Privacy {
        Privacy::Pure { epsilon: self.epsilon() }
    }
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<Vec<f64>, LearnError> {
        Ok(self.clone().seed(seed).fit(data)?.estimate)
    }
}
