//! Symmetric matrices: powers of positive definite ones and the `svec` convention
//! (`sosdp_oracle::svec`, MATH.md 0) in which the covariance learner's stages release them.
use nalgebra::DMatrix;
use sosdp_oracle::svec::{side_of, smat, svec};

/// `A^p` for a symmetric positive definite `A` (eigen-decomposition).
pub fn spd_power(a: &DMatrix<f64>, p: f64) -> DMatrix<f64> {
    let eig = (0.5 * (a + a.transpose())).symmetric_eigen();
    let vals = eig.eigenvalues.map(|v| v.max(f64::MIN_POSITIVE).powf(p));
    &eig.eigenvectors * DMatrix::from_diagonal(&vals) * eig.eigenvectors.transpose()
}

/// The matrix of an `svec`.
pub fn matrix_of(v: &[f64]) -> DMatrix<f64> {
    let d = side_of(v.len()).unwrap_or(0);
    DMatrix::from_row_slice(d, d, &smat(d, v))
}

/// `svec` of a (symmetrised) matrix.
pub fn svec_of(a: &DMatrix<f64>) -> Vec<f64> {
    svec(a.nrows(), |i, j| 0.5 * (a[(i, j)] + a[(j, i)]))
}
