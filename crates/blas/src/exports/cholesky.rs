//! LAPACK `?potrf` and `?potrs`: Cholesky factorisation and solves.

use super::Real;
use super::args::{Triangle, first_illegal, ld_min, mat, mat_mut, xerbla};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{self, LltError};
use faer::linalg::triangular_solve;
use faer::reborrow::{Reborrow, ReborrowMut};
use faer::{Mat, MatMut, Par};

/// Factor `A = L L^T` (`uplo = 'L'`) or `A = U^T U` (`'U'`) in place in that triangle and
/// return LAPACK's `info`: 0, `-i` for an illegal argument `i`, or `k > 0` when the leading
/// minor of order `k` is not positive definite (a NaN pivot included).
///
/// The other triangle is left exactly as it was: faer's in-place Cholesky uses it as scratch,
/// so it is saved and restored (clarabel relies on it staying zero).
///
/// # Safety
/// The Fortran contract of `?potrf`.
pub(crate) unsafe fn potrf<T: Real>(uplo: u8, n: i32, a: *mut T, lda: i32) -> i32 {
    let tri = Triangle::parse(uplo);
    if let Some(pos) = first_illegal(&[(tri.is_none(), 1), (n < 0, 2), (lda < ld_min(n), 4)]) {
        xerbla::<T>("POTRF", pos);
        return -pos;
    }
    if n == 0 {
        return 0;
    }
    let n = n as usize;
    let a = unsafe { mat_mut(a, n, n, lda) };
    // faer factors the lower triangle; the upper triangle of A is the lower one of A^T.
    let mut l = match tri.expect("checked") {
        Triangle::Lower => a,
        Triangle::Upper => a.transpose_mut(),
    };
    let kept = strict_upper(l.rb_mut());
    let params = Default::default();
    let mut buf = MemBuffer::new(factor::cholesky_in_place_scratch::<T>(n, Par::Seq, params));
    let result = factor::cholesky_in_place(
        l.rb_mut(),
        Default::default(),
        Par::Seq,
        MemStack::new(&mut buf),
        params,
    );
    l.copy_from_strict_triangular_upper(&kept);
    match result {
        Ok(_) => 0,
        Err(LltError::NonPositivePivot { index }) => index as i32 + 1,
    }
}

/// A copy of the strict upper triangle of `a` (the rest zero).
fn strict_upper<T: Real>(a: MatMut<'_, T>) -> Mat<T> {
    let mut kept = Mat::zeros(a.nrows(), a.ncols());
    kept.copy_from_strict_triangular_upper(a.rb());
    kept
}

/// Solve `A X = B` in place in `B` (`n x nrhs`) from `?potrf`'s factor in the `uplo` triangle
/// (the other triangle is not read); returns LAPACK's `info` (0, or `-i` for an illegal
/// argument `i`).
///
/// # Safety
/// The Fortran contract of `?potrs`.
pub(crate) unsafe fn potrs<T: Real>(
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: *const T,
    lda: i32,
    b: *mut T,
    ldb: i32,
) -> i32 {
    let tri = Triangle::parse(uplo);
    if let Some(pos) = first_illegal(&[
        (tri.is_none(), 1),
        (n < 0, 2),
        (nrhs < 0, 3),
        (lda < ld_min(n), 5),
        (ldb < ld_min(n), 7),
    ]) {
        xerbla::<T>("POTRS", pos);
        return -pos;
    }
    if n == 0 || nrhs == 0 {
        return 0;
    }
    let (n, nrhs) = (n as usize, nrhs as usize);
    let a = unsafe { mat(a, n, n, lda) };
    let l = match tri.expect("checked") {
        Triangle::Lower => a,
        Triangle::Upper => a.transpose(),
    };
    let mut b = unsafe { mat_mut(b, n, nrhs, ldb) };
    triangular_solve::solve_lower_triangular_in_place(l, b.rb_mut(), Par::Seq);
    triangular_solve::solve_upper_triangular_in_place(l.transpose(), b, Par::Seq);
    0
}
