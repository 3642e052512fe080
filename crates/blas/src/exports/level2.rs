//! BLAS level 2: `?gemv`, `?symv`.

use super::Real;
use super::args::{
    Triangle, first_illegal, ld_min, mat, scale_vector, transposed, vector, vector_mut, xerbla,
};
use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::reborrow::ReborrowMut;
use faer::{Accum, Par};

/// `y = alpha op(A) x + beta y`, `A` `m x n`.
///
/// # Safety
/// The Fortran contract of `?gemv`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemv<T: Real>(
    trans: u8,
    m: i32,
    n: i32,
    alpha: T,
    a: *const T,
    lda: i32,
    x: *const T,
    incx: i32,
    beta: T,
    y: *mut T,
    incy: i32,
) {
    let t = transposed(trans);
    if let Some(pos) = first_illegal(&[
        (t.is_none(), 1),
        (m < 0, 2),
        (n < 0, 3),
        (lda < ld_min(m), 6),
        (incx == 0, 8),
        (incy == 0, 11),
    ]) {
        return xerbla::<T>("GEMV", pos);
    }
    if m == 0 || n == 0 || (alpha == T::ZERO && beta == T::ONE) {
        return;
    }
    let (m, n, t) = (m as usize, n as usize, t == Some(true));
    let (len_x, len_y) = if t { (m, n) } else { (n, m) };
    let mut y = unsafe { vector_mut(y, len_y, incy) };
    scale_vector(y.rb_mut(), beta);
    if alpha == T::ZERO {
        return;
    }
    let a = unsafe { mat(a, m, n, lda) };
    let op_a = if t { a.transpose() } else { a };
    let x = unsafe { vector(x, len_x, incx) };
    matmul(
        y.as_mat_mut(),
        Accum::Add,
        op_a,
        x.as_mat(),
        alpha,
        Par::Seq,
    );
}

/// `y = alpha A x + beta y`, `A` `n x n` symmetric with only the `uplo` triangle read.
///
/// # Safety
/// The Fortran contract of `?symv`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn symv<T: Real>(
    uplo: u8,
    n: i32,
    alpha: T,
    a: *const T,
    lda: i32,
    x: *const T,
    incx: i32,
    beta: T,
    y: *mut T,
    incy: i32,
) {
    let tri = Triangle::parse(uplo);
    if let Some(pos) = first_illegal(&[
        (tri.is_none(), 1),
        (n < 0, 2),
        (lda < ld_min(n), 5),
        (incx == 0, 7),
        (incy == 0, 10),
    ]) {
        return xerbla::<T>("SYMV", pos);
    }
    if n == 0 || (alpha == T::ZERO && beta == T::ONE) {
        return;
    }
    let n = n as usize;
    let mut y = unsafe { vector_mut(y, n, incy) };
    scale_vector(y.rb_mut(), beta);
    if alpha == T::ZERO {
        return;
    }
    let a = unsafe { mat(a, n, n, lda) };
    let x = unsafe { vector(x, n, incx) };
    // A = T + S^T with T the owned triangle (diagonal included) and S its strict part.
    let (owned, strict_transposed) = match tri.expect("checked") {
        Triangle::Lower => (
            BlockStructure::TriangularLower,
            BlockStructure::StrictTriangularUpper,
        ),
        Triangle::Upper => (
            BlockStructure::TriangularUpper,
            BlockStructure::StrictTriangularLower,
        ),
    };
    let rect = BlockStructure::Rectangular;
    for (lhs, structure) in [(a, owned), (a.transpose(), strict_transposed)] {
        triangular::matmul(
            y.rb_mut().as_mat_mut(),
            rect,
            Accum::Add,
            lhs,
            structure,
            x.as_mat(),
            rect,
            alpha,
            Par::Seq,
        );
    }
}
