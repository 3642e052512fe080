//! A reference target whose rounded law is known in closed form: the quadratic score
//! `s(theta) = min(cap, (1/2) sum_k c_k (theta_k - mu_k)^2)` with exact brackets, and the law
//! of its score under the rounded target of MATH.md 4.1. The sampler's tests and the
//! chain-length calibration (docs/sampler.md, "Chain lengths") judge chains against it.
//!
//! Under `pi(theta) ∝ exp(-eps' l_{i(theta)})` with levels `l_i = kappa + i` and
//! `i(theta) = ceil(s(theta) - kappa)`, the volume of `{s <= x}` grows as `x^{d/2}` whatever
//! the curvatures `c_k` (a linear change of variables), so, away from the cap and the domain's
//! boundary, the score has the density
//!
//! ```text
//! p(s) ∝ s^{d/2 - 1} exp(-eps' l_{i(s)}),
//! ```
//!
//! the shell `(max(0, l_i - 1), l_i]` has mass `e^{-eps' l_i} (l_i^{d/2} - lo^{d/2}) / (d/2)`,
//! and inside a shell the CDF grows as `x^{d/2}`: [`RoundedQuadraticLaw`]. The curvatures change
//! only the shape of the level bodies (ellipsoids with axes `1 / sqrt(c_k)`), hence how fast a
//! chain with isotropic directions mixes, not the law of the score.
use sosdp_oracle::{ScoreError, ScoreEval, ScoreOracle};

/// `s(theta) = min(cap, (1/2) sum_k c_k (theta_k - mu_k)^2)`, evaluated exactly (brackets of
/// width 0). Quasi-convex; convex only where the cap is not reached, so it does not claim
/// convexity ([`ScoreOracle::convex`] is false).
#[derive(Clone, Debug)]
pub struct QuadraticScore {
    /// The mode `mu`.
    pub mu: Vec<f64>,
    /// The curvatures `c_k > 0`, one per coordinate.
    pub curvature: Vec<f64>,
    /// The score's maximum (the number of records of a real score).
    pub cap: f64,
}

impl QuadraticScore {
    /// The isotropic score `min(cap, (a/2) |theta - mu|^2)`.
    pub fn isotropic(mu: Vec<f64>, a: f64, cap: f64) -> Self {
        let curvature = vec![a; mu.len()];
        QuadraticScore { mu, curvature, cap }
    }

    /// The score at `theta`.
    pub fn score(&self, theta: &[f64]) -> f64 {
        self.quadratic(theta).min(self.cap)
    }

    /// The uncapped score at `theta`.
    pub fn quadratic(&self, theta: &[f64]) -> f64 {
        theta
            .iter()
            .zip(&self.mu)
            .zip(&self.curvature)
            .map(|((t, m), c)| 0.5 * c * (t - m) * (t - m))
            .sum()
    }
}

impl ScoreOracle for QuadraticScore {
    fn dim(&self) -> usize {
        self.mu.len()
    }

    fn max_score(&self) -> f64 {
        self.cap
    }

    fn backend(&self) -> &'static str {
        "quadratic"
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        let s = self.score(theta);
        Ok(ScoreEval::bracketed(s, s, s))
    }
}

/// The exact law of the score of [`QuadraticScore`] in `d` dimensions under the rounded target
/// at offset `kappa` and sampling parameter `eps'` (module doc), for a cap and a domain far
/// beyond the bulk.
#[derive(Clone, Debug)]
pub struct RoundedQuadraticLaw {
    kappa: f64,
    half_d: f64,
    eps: f64,
    /// `ln` of the unnormalised shell masses, shell `i` = `(max(0, l_i - 1), l_i]`.
    log_mass: Vec<f64>,
    /// Normalised CDF of the score at the upper end of each shell.
    cum: Vec<f64>,
    log_z: f64,
}

fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

impl RoundedQuadraticLaw {
    /// The law in dimension `d` at sampling parameter `eps` (`eps'`, half the mechanism's eps)
    /// and level offset `kappa`.
    pub fn new(d: usize, eps: f64, kappa: f64) -> Self {
        let half_d = d as f64 / 2.0;
        // Shells far beyond the Gamma(d/2, eps') bulk of the score carry no mass.
        let top = (half_d / eps + 80.0 * half_d.sqrt() / eps + 50.0).ceil() as usize;
        let mut law = RoundedQuadraticLaw {
            kappa,
            half_d,
            eps,
            log_mass: Vec::new(),
            cum: Vec::new(),
            log_z: 0.0,
        };
        law.log_mass = (0..top)
            .map(|i| law.log_partial(i, law.level(i), half_d))
            .collect();
        law.log_z = log_sum_exp(&law.log_mass);
        let mut acc = 0.0;
        law.cum = law
            .log_mass
            .iter()
            .map(|lm| {
                acc += (lm - law.log_z).exp();
                acc
            })
            .collect();
        law
    }

    fn level(&self, i: usize) -> f64 {
        self.kappa + i as f64
    }

    fn shell_lo(&self, i: usize) -> f64 {
        (self.level(i) - 1.0).max(0.0)
    }

    /// `ln (e^{-eps' l_i} int_{lo_i}^{x} s^{m - 1} ds)` for `x` in shell `i`.
    fn log_partial(&self, i: usize, x: f64, m: f64) -> f64 {
        let lo = self.shell_lo(i);
        if x <= lo {
            return f64::NEG_INFINITY;
        }
        -self.eps * self.level(i) + m * x.ln() + (-(m * (lo / x).ln()).exp_m1()).ln() - m.ln()
    }

    /// `P(s <= x)`.
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        let i = (x - self.kappa).ceil().max(0.0) as usize;
        if i >= self.cum.len() {
            return 1.0;
        }
        let below = if i == 0 { 0.0 } else { self.cum[i - 1] };
        (below + (self.log_partial(i, x, self.half_d) - self.log_z).exp()).min(1.0)
    }

    /// `E[s^k]`.
    pub fn moment(&self, k: u32) -> f64 {
        let m = self.half_d + k as f64;
        let logs: Vec<f64> = (0..self.log_mass.len())
            .map(|i| self.log_partial(i, self.level(i), m))
            .collect();
        (log_sum_exp(&logs) - self.log_z).exp()
    }
}
