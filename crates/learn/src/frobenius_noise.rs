//! Frobenius-norm noise on symmetric matrices (MATH.md 5.2, step 2): the density proportional
//! to `exp(-|N|_F / scale)` on the `D = d (d + 1) / 2` dimensional space of symmetric `d x d`
//! matrices, in `svec` coordinates (where `|svec N| = |N|_F`).
//!
//! **Exact sampling.** The density depends on `N` only through `t = |N|_F`, so `N = t u` with
//! `u` uniform on the unit sphere of `R^D` and `t` with density proportional to
//! `t^{D-1} e^{-t / scale}`: `t ~ Gamma(D, scale)`. The direction is a normalised standard
//! Gaussian vector. With `scale = Delta_F / eps`, `Delta_F` the Frobenius sensitivity of the
//! released matrix, the release `Z + N` is pure `eps`-DP: the log-density ratio at neighbouring
//! `Z, Z'` is at most `|Z - Z'|_F / scale <= eps`, and the normaliser does not depend on `Z`.
//!
//! **Operator-norm quantile** (step 3's `nu`). For unit scale, `|N|_op = G X` with
//! `G ~ Gamma(D, 1)` and `X = |smat u|_op` independent. So
//! `P(|N|_op > y) = E_X Q(D, y / X)`, `Q` the upper regularised incomplete gamma function: the
//! expectation over `X` is a Monte Carlo average over [`QuantileSettings::samples`] draws of
//! `u` from a fixed seed (data-independent; the same table every run), the tail in `G` is
//! exact. The quantile solves the averaged tail `= margin * p`, the margin covering the Monte
//! Carlo error of the average. `cargo run --release -p sosdp-eval --example noise_table` prints the table (docs/learners.md).
use crate::norm_noise::{self, unit_direction};
use crate::special::{gamma_upper, upper_quantile};
use nalgebra::DMatrix;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sosdp_oracle::svec::smat;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// The number of entries of `svec` of a symmetric `d x d` matrix.
fn svec_len(d: usize) -> usize {
    d * (d + 1) / 2
}

/// One draw of the noise: a symmetric `d x d` matrix with density proportional to
/// `exp(-|N|_F / scale)` ([`norm_noise::sample`] in `svec` coordinates).
pub fn sample<R: Rng + ?Sized>(d: usize, scale: f64, rng: &mut R) -> DMatrix<f64> {
    let v = norm_noise::sample(svec_len(d), scale, rng);
    DMatrix::from_row_slice(d, d, &smat(d, &v))
}

/// How the operator-norm quantiles are computed (MATH.md 5.2, step 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuantileSettings {
    /// Monte Carlo draws of the direction's operator norm `X` (default 4000).
    pub samples: usize,
    /// The fixed seed of those draws (default 5_2).
    pub seed: u64,
    /// The averaged tail is solved at `margin * p` (default 0.8): the relative standard error
    /// of the average is below 2% at `d >= 2` for the draws above, so this is ten of them.
    pub margin: f64,
}

impl Default for QuantileSettings {
    fn default() -> Self {
        QuantileSettings {
            samples: 4000,
            seed: 52,
            margin: 0.8,
        }
    }
}

/// Draws of `X = |smat u|_op` for `u` uniform on the unit sphere of `R^D` (cached per `d`).
fn direction_norms(d: usize, settings: &QuantileSettings) -> Vec<f64> {
    /// The draws per `(d, samples, seed)`.
    type Cache = Mutex<HashMap<(usize, usize, u64), Vec<f64>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (d, settings.samples, settings.seed);
    if let Some(v) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return v;
    }
    let mut rng =
        StdRng::seed_from_u64(settings.seed ^ (d as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let norms: Vec<f64> = (0..settings.samples)
        .map(|_| {
            let u = unit_direction(svec_len(d), &mut rng);
            let m = DMatrix::from_row_slice(d, d, &smat(d, &u));
            m.symmetric_eigenvalues()
                .iter()
                .fold(0.0f64, |a, v| a.max(v.abs()))
        })
        .collect();
    if let Ok(mut c) = cache.lock() {
        c.insert(key, norms.clone());
    }
    norms
}

/// `y` with `P(|N|_op > y) <= p` for unit-scale noise in dimension `d` (see the module docs).
/// Cached per `(d, p, settings)`: plans ask for the same few quantiles many times.
pub fn operator_norm_quantile(d: usize, p: f64, settings: &QuantileSettings) -> f64 {
    type Key = (usize, u64, usize, u64, u64);
    static CACHE: OnceLock<Mutex<HashMap<Key, f64>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (
        d,
        p.to_bits(),
        settings.samples,
        settings.seed,
        settings.margin.to_bits(),
    );
    if let Some(q) = cache.lock().ok().and_then(|c| c.get(&key).copied()) {
        return q;
    }
    let norms = direction_norms(d, settings);
    let shape = svec_len(d) as f64;
    let q = upper_quantile(settings.margin * p, |y| {
        norms
            .iter()
            .map(|&x| gamma_upper(shape, y / x))
            .sum::<f64>()
            / norms.len() as f64
    });
    if let Ok(mut c) = cache.lock() {
        c.insert(key, q);
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quantile's tail, checked by direct simulation of `G X` with a different seed: the
    /// empirical exceedance rate at the quantile is below `p` (it targets `0.8 p`), and at a
    /// quantile 20% lower it is well above `p` (the quantile is not vacuously large).
    #[test]
    fn operator_norm_quantile_has_its_tail() {
        let mut rng = StdRng::seed_from_u64(7);
        for &(d, p) in &[(3usize, 0.01), (10, 0.01)] {
            let q = operator_norm_quantile(d, p, &QuantileSettings::default());
            let draws = 40_000;
            let (mut above, mut above_low) = (0usize, 0usize);
            for _ in 0..draws {
                let op = sample(d, 1.0, &mut rng)
                    .symmetric_eigenvalues()
                    .iter()
                    .fold(0.0f64, |a, v| a.max(v.abs()));
                above += usize::from(op > q);
                above_low += usize::from(op > 0.8 * q);
            }
            let (rate, rate_low) = (above as f64 / draws as f64, above_low as f64 / draws as f64);
            // Binomial sd at p = 0.01 and 40000 draws: 0.0005.
            assert!(rate < p, "d {d}: exceedance {rate} at the {p}-quantile {q}");
            assert!(
                rate_low > 3.0 * p,
                "d {d}: 0.8 q is still exceeded only {rate_low}: the quantile is too loose"
            );
        }
    }
}
