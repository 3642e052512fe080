//! Small dense symmetric linear algebra used to certify score brackets.
use nalgebra::DMatrix;

/// Smallest eigenvalue of a symmetric matrix (lower triangle read; LAPACK, see
/// [`crate::fast::dense::min_eigenvalue`]).
pub fn min_eigenvalue(m: &DMatrix<f64>) -> f64 {
    crate::fast::dense::min_eigenvalue(m)
}

/// Largest and smallest eigenvalues of a symmetric matrix.
pub fn eigen_range(m: &DMatrix<f64>) -> (f64, f64) {
    let ev = m.clone().symmetric_eigenvalues();
    (ev.min(), ev.max())
}

/// Nearest positive semidefinite matrix in Frobenius norm (negative eigenvalues clipped to 0).
pub fn psd_projection(m: &DMatrix<f64>) -> DMatrix<f64> {
    let sym = (m + m.transpose()) * 0.5;
    let eig = sym.symmetric_eigen();
    let clipped = eig.eigenvalues.map(|l| l.max(0.0));
    &eig.eigenvectors * DMatrix::from_diagonal(&clipped) * eig.eigenvectors.transpose()
}

/// `sum_i c_i p_i p_i^T` for the columns `p_i` of `points`.
pub fn weighted_scatter(points: &DMatrix<f64>, coeffs: &[f64]) -> DMatrix<f64> {
    let mut scaled = points.clone();
    for (mut col, &c) in scaled.column_iter_mut().zip(coeffs) {
        col.scale_mut(c);
    }
    crate::fast::dense::mul_nt(&scaled, points)
}

/// `p_i^T Z p_i` for the columns `p_i` of `points`.
pub fn quad_forms(points: &DMatrix<f64>, z: &DMatrix<f64>) -> Vec<f64> {
    let zp = crate::fast::dense::mul(false, false, z, points);
    zp.column_iter()
        .zip(points.column_iter())
        .map(|(a, b)| a.dot(&b))
        .collect()
}

/// `tr(A B)` for symmetric `A`, `B`.
pub fn trace_product(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    a.component_mul(b).sum()
}

/// True when every entry is finite.
pub fn all_finite<'a>(values: impl IntoIterator<Item = &'a f64>) -> bool {
    values.into_iter().all(|x| x.is_finite())
}

/// The largest factor `s <= first` (tried as `first`, then slightly smaller, geometrically)
/// for which `feasible(s)` holds, or 0. Used to repair a solver's slightly infeasible primal
/// point by shrinking it toward a strictly feasible one: the first guess is exact in exact
/// arithmetic, the retries absorb rounding in the eigenvalue checks.
pub fn verified_shrink(first: f64, feasible: impl Fn(f64) -> bool) -> f64 {
    let mut shrink = first;
    let mut extra = 1e-12;
    for _ in 0..32 {
        if feasible(shrink) {
            return shrink;
        }
        shrink *= 1.0 - extra;
        extra = (extra * 10.0).min(0.5);
    }
    0.0
}

/// `factor * x` for each entry.
pub fn scaled(x: &[f64], factor: f64) -> Vec<f64> {
    x.iter().map(|v| v * factor).collect()
}
