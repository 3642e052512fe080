//! LAPACK `?gesv`: solve `A X = B` by LU factorisation with partial pivoting.

use super::Real;
use super::args::{first_illegal, ld_min, mat_mut, xerbla};
use faer::Par;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor;
use faer::linalg::triangular_solve;
use faer::reborrow::{Reborrow, ReborrowMut};

/// Factor `A = P L U` in place (`L` unit lower below the diagonal, `U` on and above it), write
/// the row interchanges to `ipiv` as LAPACK does (1-based: row `i` was swapped with row
/// `ipiv[i]`, in order), and, unless `U` has an exact zero on its diagonal, overwrite `B`
/// (`n x nrhs`) with `X`. Returns LAPACK's `info`: 0, `-i` for an illegal argument `i`, or
/// `i > 0` when `U(i, i) = 0` (then `B` is unchanged).
///
/// # Safety
/// The Fortran contract of `?gesv`.
pub(crate) unsafe fn gesv<T: Real>(
    n: i32,
    nrhs: i32,
    a: *mut T,
    lda: i32,
    ipiv: *mut i32,
    b: *mut T,
    ldb: i32,
) -> i32 {
    if let Some(pos) = first_illegal(&[
        (n < 0, 1),
        (nrhs < 0, 2),
        (lda < ld_min(n), 4),
        (ldb < ld_min(n), 7),
    ]) {
        xerbla::<T>("GESV", pos);
        return -pos;
    }
    if n == 0 {
        return 0;
    }
    let n = n as usize;
    let mut lu = unsafe { mat_mut(a, n, n, lda) };
    let (mut perm, mut perm_inv) = (vec![0usize; n], vec![0usize; n]);
    let params = Default::default();
    let mut buf = MemBuffer::new(factor::lu_in_place_scratch::<usize, T>(
        n,
        n,
        Par::Seq,
        params,
    ));
    factor::lu_in_place(
        lu.rb_mut(),
        &mut perm,
        &mut perm_inv,
        Par::Seq,
        MemStack::new(&mut buf),
        params,
    );
    let ipiv = unsafe { std::slice::from_raw_parts_mut(ipiv, n) };
    for (i, p) in interchanges(&perm).into_iter().enumerate() {
        ipiv[i] = p as i32 + 1;
    }
    if let Some(i) = (0..n).find(|&i| lu[(i, i)] == T::ZERO) {
        return i as i32 + 1;
    }
    if nrhs == 0 {
        return 0;
    }
    let mut b = unsafe { mat_mut(b, n, nrhs as usize, ldb) };
    for (i, &p) in ipiv.iter().enumerate() {
        let p = p as usize - 1;
        if p != i {
            for j in 0..b.ncols() {
                let (x, y) = (b[(i, j)], b[(p, j)]);
                b[(i, j)] = y;
                b[(p, j)] = x;
            }
        }
    }
    let lu = lu.rb();
    triangular_solve::solve_unit_lower_triangular_in_place(lu, b.rb_mut(), Par::Seq);
    triangular_solve::solve_upper_triangular_in_place(lu, b, Par::Seq);
    0
}

/// The sequence of row interchanges (0-based: row `i` swapped with row `out[i] >= i`, in order)
/// that turns the identity into the row order `perm` (row `i` of `P A` is row `perm[i]` of `A`).
fn interchanges(perm: &[usize]) -> Vec<usize> {
    let n = perm.len();
    let mut at: Vec<usize> = (0..n).collect(); // row of A now at position i
    let mut pos: Vec<usize> = (0..n).collect(); // position of row r of A
    (0..n)
        .map(|i| {
            let j = pos[perm[i]];
            let (ri, rj) = (at[i], at[j]);
            at.swap(i, j);
            pos[ri] = j;
            pos[rj] = i;
            j
        })
        .collect()
}
