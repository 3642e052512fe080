//! Synthetic Gaussian data, clean and corrupted.
use crate::Adversary;
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// `n` i.i.d. draws of `N(mean, A A^T)` as rows (`n x d`); `a = None` means `A = I`.
pub fn gaussian_samples<R: Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    mean: &[f64],
    a: Option<&DMatrix<f64>>,
) -> DMatrix<f64> {
    let d = mean.len();
    let g = DMatrix::from_fn(n, d, |_, _| StandardNormal.sample(rng));
    let mut x = match a {
        Some(a) => g * a.transpose(),
        None => g,
    };
    let mu = DVector::from_column_slice(mean).transpose();
    for mut row in x.row_iter_mut() {
        row += &mu;
    }
    x
}

/// A Gaussian sample with a fraction of its rows replaced by an adversary.
#[derive(Clone, Debug)]
pub struct CorruptedSample {
    /// The corrupted data, one record per row.
    pub data: DMatrix<f64>,
    /// The true mean of the clean distribution.
    pub mean: Vec<f64>,
    /// Indices of the rows the adversary replaced.
    pub corrupted: Vec<usize>,
}

impl CorruptedSample {
    /// Draw `n` points from `N(mean, I)` and let `adversary` replace `floor(eta n)` of them.
    pub fn identity_covariance<R: Rng + ?Sized>(
        rng: &mut R,
        n: usize,
        mean: &[f64],
        eta: f64,
        adversary: &Adversary,
    ) -> Self {
        let mut data = gaussian_samples(rng, n, mean, None);
        let corrupted = adversary.corrupt(rng, &mut data, eta);
        CorruptedSample {
            data,
            mean: mean.to_vec(),
            corrupted,
        }
    }
}

/// A Gaussian sample with a general covariance, possibly corrupted.
#[derive(Clone, Debug)]
pub struct CovarianceSample {
    /// The records, one per row (corrupted ones included).
    pub data: DMatrix<f64>,
    /// The true mean.
    pub mean: Vec<f64>,
    /// The true covariance.
    pub covariance: DMatrix<f64>,
    /// The rows the adversary replaced.
    pub corrupted: Vec<usize>,
}

/// `n` draws of `N(mu, Sigma)` in `R^d`: `|mu| = mean_norm` (equal coordinates), `Sigma = Q
/// diag(cond^{k/(d-1)}) Q^T` with `Q` a random rotation (eigenvalues spread geometrically over
/// `[1, cond]`); a fraction `eta` replaced by the adversary (d) of MATH.md 6 with 10x
/// variance along the least-variance direction.
pub fn covariance_sample<R: Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    d: usize,
    mean_norm: f64,
    cond: f64,
    eta: f64,
) -> CovarianceSample {
    covariance_sample_with(
        rng,
        n,
        d,
        mean_norm,
        cond,
        eta,
        &crate::adversary::CovarianceAdversary::inflated(),
    )
}

/// As [`covariance_sample`] (the same `Sigma`, `mu` and clean draws for the same `rng`), with
/// a fraction `eta` replaced by the covariance adversary `adversary`, which sees the true `mu`
/// and `Sigma`.
pub fn covariance_sample_with<R: Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    d: usize,
    mean_norm: f64,
    cond: f64,
    eta: f64,
    adversary: &crate::adversary::CovarianceAdversary,
) -> CovarianceSample {
    let g: DMatrix<f64> = DMatrix::from_fn(d, d, |_, _| StandardNormal.sample(rng));
    let q = g.qr().q();
    let eig: DVector<f64> = DVector::from_fn(d, |k, _| {
        if d > 1 {
            cond.powf(k as f64 / (d - 1) as f64)
        } else {
            1.0
        }
    });
    let a: DMatrix<f64> = &q * DMatrix::from_diagonal(&eig.map(f64::sqrt));
    let covariance = &a * a.transpose();
    let mean = vec![mean_norm / (d as f64).sqrt(); d];
    let mut data = gaussian_samples(rng, n, &mean, Some(&a));
    let corrupted = adversary.corrupt(rng, &mut data, eta, &mean, &covariance);
    CovarianceSample {
        data,
        mean,
        covariance,
        corrupted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adversary::CovarianceAdversary;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    /// `covariance_sample` is the clean draws followed by adversary (d) with a 10-fold
    /// inflation, in that order on the same generator (what its doc promises).
    #[test]
    fn covariance_sample_is_clean_draws_then_the_inflated_direction() {
        let old = covariance_sample(&mut StdRng::seed_from_u64(4), 300, 4, 5.0, 50.0, 0.1);
        let mut rng = StdRng::seed_from_u64(4);
        let mut new = covariance_sample_with(
            &mut rng,
            300,
            4,
            5.0,
            50.0,
            0.0,
            &CovarianceAdversary::inflated(),
        );
        new.corrupted =
            Adversary::InflatedDirection { factor: 10.0 }.corrupt(&mut rng, &mut new.data, 0.1);
        assert!(!new.corrupted.is_empty());
        assert_eq!(
            (old.data, old.mean, old.covariance, old.corrupted),
            (new.data, new.mean, new.covariance, new.corrupted)
        );
        let eig = new_eigenvalues(4, 50.0);
        assert!((eig[0] - 1.0).abs() < 1e-9 && (eig[3] - 50.0).abs() < 1e-9);
    }

    fn new_eigenvalues(d: usize, cond: f64) -> Vec<f64> {
        let s = covariance_sample_with(
            &mut StdRng::seed_from_u64(9),
            10,
            d,
            1.0,
            cond,
            0.0,
            &CovarianceAdversary::far(),
        );
        let mut e: Vec<f64> = s
            .covariance
            .symmetric_eigenvalues()
            .iter()
            .copied()
            .collect();
        e.sort_by(f64::total_cmp);
        e
    }
}
