//! BLAS level 3: `?gemm`, `?syrk`, `?syr2k`.

use super::Real;
use super::args::{Triangle, first_illegal, ld_min, mat, mat_mut, scale, transposed, xerbla};
use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self, BlockStructure};
use faer::reborrow::ReborrowMut;
use faer::{Accum, Par};

/// `C = alpha op(A) op(B) + beta C`, `op(A)` `m x k`, `op(B)` `k x n`, `C` `m x n`.
///
/// # Safety
/// The Fortran contract of `?gemm`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm<T: Real>(
    transa: u8,
    transb: u8,
    m: i32,
    n: i32,
    k: i32,
    alpha: T,
    a: *const T,
    lda: i32,
    b: *const T,
    ldb: i32,
    beta: T,
    c: *mut T,
    ldc: i32,
) {
    let (ta, tb) = (transposed(transa), transposed(transb));
    let nrowa = if ta == Some(false) { m } else { k };
    let nrowb = if tb == Some(false) { k } else { n };
    if let Some(pos) = first_illegal(&[
        (ta.is_none(), 1),
        (tb.is_none(), 2),
        (m < 0, 3),
        (n < 0, 4),
        (k < 0, 5),
        (lda < ld_min(nrowa), 8),
        (ldb < ld_min(nrowb), 10),
        (ldc < ld_min(m), 13),
    ]) {
        return xerbla::<T>("GEMM", pos);
    }
    let (ta, tb) = (ta == Some(true), tb == Some(true));
    if m == 0 || n == 0 || ((alpha == T::ZERO || k == 0) && beta == T::ONE) {
        return;
    }
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let mut c = unsafe { mat_mut(c, m, n, ldc) };
    scale(c.rb_mut(), beta, None);
    if alpha == T::ZERO || k == 0 {
        return;
    }
    let op_a = if ta {
        unsafe { mat(a, k, m, lda) }.transpose()
    } else {
        unsafe { mat(a, m, k, lda) }
    };
    let op_b = if tb {
        unsafe { mat(b, n, k, ldb) }.transpose()
    } else {
        unsafe { mat(b, k, n, ldb) }
    };
    matmul(c, Accum::Add, op_a, op_b, alpha, Par::Seq);
}

/// faer's name for the triangle of `C` a rank-k update writes.
fn structure(t: Triangle) -> BlockStructure {
    match t {
        Triangle::Lower => BlockStructure::TriangularLower,
        Triangle::Upper => BlockStructure::TriangularUpper,
    }
}

/// One triangle of `C = alpha op(A) op(A)^T + beta C`, `op(A)` `n x k` (`A` itself, or `A^T`
/// for `trans = 'T'`); the other triangle is not touched.
///
/// # Safety
/// The Fortran contract of `?syrk`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn syrk<T: Real>(
    uplo: u8,
    trans: u8,
    n: i32,
    k: i32,
    alpha: T,
    a: *const T,
    lda: i32,
    beta: T,
    c: *mut T,
    ldc: i32,
) {
    unsafe { rank_update("SYRK", uplo, trans, n, k, alpha, a, lda, None, beta, c, ldc) }
}

/// One triangle of `C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C`.
///
/// # Safety
/// The Fortran contract of `?syr2k`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn syr2k<T: Real>(
    uplo: u8,
    trans: u8,
    n: i32,
    k: i32,
    alpha: T,
    a: *const T,
    lda: i32,
    b: *const T,
    ldb: i32,
    beta: T,
    c: *mut T,
    ldc: i32,
) {
    unsafe {
        rank_update(
            "SYR2K",
            uplo,
            trans,
            n,
            k,
            alpha,
            a,
            lda,
            Some((b, ldb)),
            beta,
            c,
            ldc,
        )
    }
}

/// The rank-k (`b = None`) or rank-2k update of one triangle of `C`, with the argument checks
/// of `?syrk` / `?syr2k` (whose positions differ only after `A`).
///
/// # Safety
/// The Fortran contract of `?syrk` / `?syr2k`.
#[allow(clippy::too_many_arguments)]
unsafe fn rank_update<T: Real>(
    routine: &str,
    uplo: u8,
    trans: u8,
    n: i32,
    k: i32,
    alpha: T,
    a: *const T,
    lda: i32,
    b: Option<(*const T, i32)>,
    beta: T,
    c: *mut T,
    ldc: i32,
) {
    let (tri, t) = (Triangle::parse(uplo), transposed(trans));
    let nrowa = if t == Some(false) { n } else { k };
    // Positions: ?syrk (uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
    // ?syr2k adds (b, ldb) after lda.
    let shift = if b.is_some() { 2 } else { 0 };
    let ldb_bad = b.is_some_and(|(_, ldb)| ldb < ld_min(nrowa));
    if let Some(pos) = first_illegal(&[
        (tri.is_none(), 1),
        (t.is_none(), 2),
        (n < 0, 3),
        (k < 0, 4),
        (lda < ld_min(nrowa), 7),
        (ldb_bad, 9),
        (ldc < ld_min(n), 10 + shift),
    ]) {
        return xerbla::<T>(routine, pos);
    }
    let (tri, t) = (tri.expect("checked"), t == Some(true));
    if n == 0 || ((alpha == T::ZERO || k == 0) && beta == T::ONE) {
        return;
    }
    let (n, k) = (n as usize, k as usize);
    let mut c = unsafe { mat_mut(c, n, n, ldc) };
    scale(c.rb_mut(), beta, Some(tri));
    if alpha == T::ZERO || k == 0 {
        return;
    }
    let op = |p: *const T, ld: i32| {
        if t {
            unsafe { mat(p, k, n, ld) }.transpose()
        } else {
            unsafe { mat(p, n, k, ld) }
        }
    };
    let op_a = op(a, lda);
    let rect = BlockStructure::Rectangular;
    match b {
        None => triangular::matmul(
            c,
            structure(tri),
            Accum::Add,
            op_a,
            rect,
            op_a.transpose(),
            rect,
            alpha,
            Par::Seq,
        ),
        Some((b, ldb)) => {
            let op_b = op(b, ldb);
            for (x, y) in [(op_a, op_b), (op_b, op_a)] {
                triangular::matmul(
                    c.rb_mut(),
                    structure(tri),
                    Accum::Add,
                    x,
                    rect,
                    y.transpose(),
                    rect,
                    alpha,
                    Par::Seq,
                );
            }
        }
    }
}
