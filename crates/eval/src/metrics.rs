//! Error metrics of MATH.md section 6.

/// `|a - b|_2`.
pub fn l2_error(estimate: &[f64], truth: &[f64]) -> f64 {
    estimate.iter().zip(truth).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt()
}

/// The `q`-quantile (`0 <= q <= 1`, linear interpolation) of `values`; NaN when empty.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (pos - lo as f64) * (v[hi] - v[lo])
}

use nalgebra::{DMatrix, DVector};

fn inverse_sqrt(sigma: &DMatrix<f64>) -> DMatrix<f64> {
    sosdp_learn::covariance::spd_power(sigma, -0.5)
}

/// `|Sigma^{-1/2} (mu_hat - mu)|_2`.
pub fn mahalanobis_error(mu_hat: &[f64], mu: &[f64], sigma: &DMatrix<f64>) -> f64 {
    let diff = DVector::from_iterator(mu.len(), mu_hat.iter().zip(mu).map(|(a, b)| a - b));
    (inverse_sqrt(sigma) * diff).norm()
}

/// `Sigma^{-1/2} Sigma_hat Sigma^{-1/2} - I`.
fn relative(sigma_hat: &DMatrix<f64>, sigma: &DMatrix<f64>) -> DMatrix<f64> {
    let w = inverse_sqrt(sigma);
    &w * sigma_hat * &w - DMatrix::identity(sigma.nrows(), sigma.nrows())
}

/// `|Sigma^{-1/2} Sigma_hat Sigma^{-1/2} - I|_F`.
pub fn frobenius_error(sigma_hat: &DMatrix<f64>, sigma: &DMatrix<f64>) -> f64 {
    relative(sigma_hat, sigma).norm()
}

/// `|Sigma^{-1/2} Sigma_hat Sigma^{-1/2} - I|_op`.
pub fn spectral_error(sigma_hat: &DMatrix<f64>, sigma: &DMatrix<f64>) -> f64 {
    relative(sigma_hat, sigma).symmetric_eigenvalues().iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// `KL(N(mu, Sigma) || N(mu_hat, Sigma_hat))` in closed form.
pub fn gaussian_kl(mu: &[f64], sigma: &DMatrix<f64>, mu_hat: &[f64], sigma_hat: &DMatrix<f64>) -> f64 {
    let d = mu.len() as f64;
    let inv = sigma_hat.clone().try_inverse().unwrap_or_else(|| DMatrix::from_element(sigma.nrows(), sigma.nrows(), f64::NAN));
    let diff = DVector::from_iterator(mu.len(), mu_hat.iter().zip(mu).map(|(a, b)| a - b));
    let trace = (&inv * sigma).trace();
    let quad = (diff.transpose() * &inv * &diff)[(0, 0)];
    let log_det = sigma_hat.clone().symmetric_eigenvalues().iter().map(|v| v.ln()).sum::<f64>()
        - sigma.clone().symmetric_eigenvalues().iter().map(|v| v.ln()).sum::<f64>();
    0.5 * (trace + quad - d + log_det)
}

/// The Pinsker bound `TV <= sqrt(KL / 2)` (MATH.md 5.4 step 5), with the KL in the smaller
/// direction.
pub fn tv_bound(mu: &[f64], sigma: &DMatrix<f64>, mu_hat: &[f64], sigma_hat: &DMatrix<f64>) -> f64 {
    let kl = gaussian_kl(mu, sigma, mu_hat, sigma_hat).min(gaussian_kl(mu_hat, sigma_hat, mu, sigma));
    (kl / 2.0).sqrt().min(1.0)
}
