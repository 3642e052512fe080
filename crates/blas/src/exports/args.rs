//! Fortran arguments: flags, argument checks, column-major views, and the `beta` scaling every
//! BLAS routine starts with.

use super::Real;
use faer::reborrow::ReborrowMut;
use faer::{ColMut, ColRef, MatMut, MatRef};
use std::ptr::NonNull;

/// Which triangle of a symmetric or triangular matrix a routine owns.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Triangle {
    /// `uplo = 'L'`.
    Lower,
    /// `uplo = 'U'`.
    Upper,
}

impl Triangle {
    /// `uplo` (either case); `None` for any other letter.
    pub fn parse(uplo: u8) -> Option<Triangle> {
        match uplo.to_ascii_uppercase() {
            b'L' => Some(Triangle::Lower),
            b'U' => Some(Triangle::Upper),
            _ => None,
        }
    }
}

/// `trans` (either case) as "is transposed": `'N'` no, `'T'` and `'C'` (real: the same) yes.
pub(crate) fn transposed(trans: u8) -> Option<bool> {
    match trans.to_ascii_uppercase() {
        b'N' => Some(false),
        b'T' | b'C' => Some(true),
        _ => None,
    }
}

/// `max(1, n)`: the smallest legal leading dimension of an array with `n` rows.
pub(crate) fn ld_min(n: i32) -> i32 {
    n.max(1)
}

/// The first failing argument check, as its 1-based argument position, LAPACK's order: each
/// entry is `(the argument is illegal, its position)`.
pub(crate) fn first_illegal(checks: &[(bool, i32)]) -> Option<i32> {
    checks.iter().find(|(bad, _)| *bad).map(|&(_, pos)| pos)
}

/// Report an illegal argument as the reference `xerbla` does (on stderr; the routine then
/// returns, LAPACK routines with `info = -pos`).
pub(crate) fn xerbla<T: Real>(routine: &str, pos: i32) {
    eprintln!(
        " ** On entry to {}{routine} parameter number {pos} had an illegal value",
        T::PREFIX
    );
}

/// A pointer a view may hold: `p`, or a dangling one when the caller passed null for an empty
/// array.
fn non_null<T>(p: *const T) -> *const T {
    if p.is_null() {
        NonNull::dangling().as_ptr()
    } else {
        p
    }
}

/// The column-major `rows x cols` matrix at `p` with leading dimension `ld`.
///
/// # Safety
/// `p` is valid for reads of `(cols - 1) ld + rows` values when the matrix is not empty.
pub(crate) unsafe fn mat<'a, T>(p: *const T, rows: usize, cols: usize, ld: i32) -> MatRef<'a, T> {
    unsafe { MatRef::from_raw_parts(non_null(p), rows, cols, 1, ld as isize) }
}

/// The column-major `rows x cols` matrix at `p` with leading dimension `ld`, writable.
///
/// # Safety
/// As [`mat`], for writes, and no other live reference to those values.
pub(crate) unsafe fn mat_mut<'a, T>(p: *mut T, rows: usize, cols: usize, ld: i32) -> MatMut<'a, T> {
    unsafe { MatMut::from_raw_parts_mut(non_null(p).cast_mut(), rows, cols, 1, ld as isize) }
}

/// The BLAS vector of `len` values at `p` with increment `inc` (non-zero; a negative increment
/// walks the array backwards from its end, as BLAS defines).
///
/// # Safety
/// `p` is valid for reads of `1 + (len - 1) |inc|` values when `len > 0`.
pub(crate) unsafe fn vector<'a, T>(p: *const T, len: usize, inc: i32) -> ColRef<'a, T> {
    unsafe { ColRef::from_raw_parts(non_null(vector_start(p, len, inc)), len, inc as isize) }
}

/// [`vector`], writable.
///
/// # Safety
/// As [`vector`], for writes, and no other live reference to those values.
pub(crate) unsafe fn vector_mut<'a, T>(p: *mut T, len: usize, inc: i32) -> ColMut<'a, T> {
    let start = vector_start(p.cast_const(), len, inc);
    unsafe { ColMut::from_raw_parts_mut(non_null(start).cast_mut(), len, inc as isize) }
}

/// Where element 0 of a BLAS vector lies: `p`, or for `inc < 0` the array's last element.
fn vector_start<T>(p: *const T, len: usize, inc: i32) -> *const T {
    if inc < 0 && len > 0 {
        p.wrapping_add((len - 1) * inc.unsigned_abs() as usize)
    } else {
        p
    }
}

/// `C = beta C` on the part of `C` a routine owns (`None`: all of it; else one triangle), with
/// `beta = 0` writing zeros without reading `C` (so NaN there does not propagate), as BLAS does.
pub(crate) fn scale<T: Real>(mut c: MatMut<'_, T>, beta: T, part: Option<Triangle>) {
    if beta == T::ONE {
        return;
    }
    for j in 0..c.ncols() {
        let rows = match part {
            None => 0..c.nrows(),
            Some(Triangle::Lower) => j.min(c.nrows())..c.nrows(),
            Some(Triangle::Upper) => 0..(j + 1).min(c.nrows()),
        };
        let column = c.rb_mut().col_mut(j).subrows_mut(rows.start, rows.len());
        if beta == T::ZERO {
            column.iter_mut().for_each(|v| *v = T::ZERO);
        } else {
            column.iter_mut().for_each(|v| *v *= beta);
        }
    }
}

/// [`scale`] of a vector.
pub(crate) fn scale_vector<T: Real>(y: ColMut<'_, T>, beta: T) {
    scale(y.as_mat_mut(), beta, None)
}
