//! Dense symmetric kernels on LAPACK/BLAS (OpenBLAS, linked by `sosdp-openblas`) for the
//! Newton systems of the fast interior-point method: Cholesky factor and solve, and the
//! symmetric rank-k product. Matrices are nalgebra's column-major `DMatrix`.
use nalgebra::DMatrix;
use sosdp_openblas as _;

/// A Cholesky factor `A = L L^T` of a symmetric positive definite matrix.
pub struct Cholesky {
    factor: DMatrix<f64>,
}

impl Cholesky {
    /// Factor `a` (its lower triangle is read). `None` when `a` is not numerically positive
    /// definite or has non-finite entries.
    pub fn new(mut a: DMatrix<f64>) -> Option<Self> {
        let n = a.nrows();
        assert_eq!(n, a.ncols(), "Cholesky of a non-square matrix");
        if n == 0 {
            return Some(Cholesky { factor: a });
        }
        if !a.iter().all(|x| x.is_finite()) {
            return None;
        }
        let mut info = 0;
        // SAFETY: `a` is an n x n column-major buffer with leading dimension n.
        unsafe { lapack::dpotrf(b'L', n as i32, a.as_mut_slice(), n as i32, &mut info) };
        (info == 0).then_some(Cholesky { factor: a })
    }

    /// Solve `A X = B` in place.
    pub fn solve_in_place(&self, b: &mut DMatrix<f64>) {
        let n = self.factor.nrows();
        assert_eq!(b.nrows(), n, "right-hand side has the wrong number of rows");
        if n == 0 || b.ncols() == 0 {
            return;
        }
        let mut info = 0;
        // SAFETY: factor is n x n from dpotrf; b is n x k column-major with leading dimension n.
        unsafe {
            lapack::dpotrs(
                b'L',
                n as i32,
                b.ncols() as i32,
                self.factor.as_slice(),
                n as i32,
                b.as_mut_slice(),
                n as i32,
                &mut info,
            )
        };
        debug_assert_eq!(info, 0);
    }

    /// Solve `A x = b` for one right-hand side.
    pub fn solve(&self, b: &[f64]) -> Vec<f64> {
        let mut m = DMatrix::from_column_slice(b.len(), 1, b);
        self.solve_in_place(&mut m);
        m.as_slice().to_vec()
    }
}

/// `alpha * A^T A + beta * C` (if `transpose`) or `alpha * A A^T + beta * C`, written to the full
/// symmetric `C`.
pub fn syrk(a: &DMatrix<f64>, transpose: bool, alpha: f64, beta: f64, c: &mut DMatrix<f64>) {
    let (n, k) = if transpose { (a.ncols(), a.nrows()) } else { (a.nrows(), a.ncols()) };
    assert_eq!((c.nrows(), c.ncols()), (n, n), "syrk output has the wrong shape");
    if n == 0 {
        return;
    }
    if k == 0 {
        *c *= beta;
        return;
    }
    let lda = a.nrows().max(1) as i32;
    // SAFETY: shapes checked above; both buffers are column-major with the given leading dims.
    unsafe {
        blas::dsyrk(
            b'L',
            if transpose { b'T' } else { b'N' },
            n as i32,
            k as i32,
            alpha,
            a.as_slice(),
            lda,
            beta,
            c.as_mut_slice(),
            n as i32,
        )
    };
    for j in 0..n {
        for i in 0..j {
            c[(i, j)] = c[(j, i)];
        }
    }
}

/// `A B^T` (BLAS `dgemm`), without forming `B^T`.
pub fn mul_nt(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    assert_eq!(a.ncols(), b.ncols(), "mul_nt: inner dimensions differ");
    let (m, n, k) = (a.nrows(), b.nrows(), a.ncols());
    let mut c = DMatrix::zeros(m, n);
    if m == 0 || n == 0 || k == 0 {
        return c;
    }
    // SAFETY: column-major buffers; a is m x k (lda m), b is n x k (ldb n), c is m x n.
    unsafe {
        blas::dgemm(b'N', b'T', m as i32, n as i32, k as i32, 1.0, a.as_slice(), m as i32, b.as_slice(), n as i32, 0.0, c.as_mut_slice(), m as i32)
    };
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_and_syrk_matches_product() {
        let a = DMatrix::from_fn(7, 4, |i, j| ((i * 3 + j * 5) % 7) as f64 - 2.5 + (i == j) as u8 as f64);
        let mut c = DMatrix::identity(4, 4);
        syrk(&a, true, 1.0, 1.0, &mut c);
        let expect = a.transpose() * &a + DMatrix::identity(4, 4);
        assert!((&c - &expect).norm() < 1e-12);
        let chol = Cholesky::new(c.clone()).expect("positive definite");
        let x = chol.solve(&[1.0, 2.0, 3.0, 4.0]);
        let r = &c * nalgebra::DVector::from_vec(x) - nalgebra::DVector::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
        assert!(r.norm() < 1e-10);
        assert!(Cholesky::new(-DMatrix::<f64>::identity(3, 3)).is_none());
        let b = DMatrix::from_fn(3, 4, |i, j| (i + 2 * j) as f64);
        assert!((mul_nt(&a, &b) - &a * b.transpose()).norm() < 1e-12);
    }
}
