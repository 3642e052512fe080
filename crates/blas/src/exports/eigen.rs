//! LAPACK `?syevr`: eigenvalues and eigenvectors of a symmetric matrix.

use super::Real;
use super::args::{Triangle, first_illegal, ld_min, mat, mat_mut, xerbla};
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::reborrow::ReborrowMut;
use faer::{Mat, Par};

/// The scalar arguments of `?syevr`, in LAPACK's order (`abstol` is not needed: faer's
/// eigensolver always runs to full accuracy).
pub(crate) struct Syevr<T> {
    pub jobz: u8,
    pub range: u8,
    pub uplo: u8,
    pub n: i32,
    pub lda: i32,
    pub vl: T,
    pub vu: T,
    pub il: i32,
    pub iu: i32,
    pub ldz: i32,
    pub lwork: i32,
    pub liwork: i32,
}

/// The eigenvalues of the symmetric `A` (the `uplo` triangle read) in ascending order, all
/// (`range = 'A'`), those in `(vl, vu]` (`'V'`) or those of 1-based index `il..=iu` (`'I'`), into
/// `w[..m]`, with orthonormal eigenvectors in the columns of `Z` when `jobz = 'V'` and the rows
/// of their non-zero entries in `isuppz`. Returns LAPACK's `info`: 0, `-i` for an illegal
/// argument `i` (`lwork < 26 n`, `liwork < 10 n` included), 1 if the solver did not converge.
/// `lwork = -1` or `liwork = -1` is a workspace query: `work[0] = 26 n`, `iwork[0] = 10 n`.
/// `A` is left unchanged (LAPACK allows it to be destroyed).
///
/// # Safety
/// The Fortran contract of `?syevr`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn syevr<T: Real>(
    args: Syevr<T>,
    a: *mut T,
    m: *mut i32,
    w: *mut T,
    z: *mut T,
    isuppz: *mut i32,
    work: *mut T,
    iwork: *mut i32,
) -> i32 {
    let Syevr {
        jobz,
        range,
        uplo,
        n,
        lda,
        vl,
        vu,
        il,
        iu,
        ldz,
        lwork,
        liwork,
    } = args;
    let (jobz, range) = (jobz.to_ascii_uppercase(), range.to_ascii_uppercase());
    let want_z = jobz == b'V';
    let tri = Triangle::parse(uplo);
    let query = lwork == -1 || liwork == -1;
    let (lwmin, liwmin) = (ld_min(26 * n), ld_min(10 * n));
    if let Some(pos) = first_illegal(&[
        (!matches!(jobz, b'N' | b'V'), 1),
        (!matches!(range, b'A' | b'V' | b'I'), 2),
        (tri.is_none(), 3),
        (n < 0, 4),
        (lda < ld_min(n), 6),
        (range == b'V' && n > 0 && vu <= vl, 8),
        (range == b'I' && (il < 1 || il > ld_min(n)), 9),
        (range == b'I' && (iu < n.min(il) || iu > n), 10),
        (ldz < 1 || (want_z && ldz < n), 15),
        (lwork < lwmin && !query, 18),
        (liwork < liwmin && !query, 20),
    ]) {
        xerbla::<T>("SYEVR", pos);
        return -pos;
    }
    unsafe {
        *work = T::from_usize(lwmin as usize);
        *iwork = liwmin;
    }
    if query {
        return 0;
    }
    unsafe { *m = 0 };
    if n == 0 {
        return 0;
    }
    let n = n as usize;
    // faer reads the lower triangle: that of A, or of A^T for the upper one.
    let a = unsafe { mat(a.cast_const(), n, n, lda) };
    let a = match tri.expect("checked") {
        Triangle::Lower => a,
        Triangle::Upper => a.transpose(),
    };
    let compute = if want_z {
        ComputeEigenvectors::Yes
    } else {
        ComputeEigenvectors::No
    };
    let params = Default::default();
    let mut buf = MemBuffer::new(evd::self_adjoint_evd_scratch::<T>(
        n,
        compute,
        Par::Seq,
        params,
    ));
    let mut s = Diag::<T>::zeros(n);
    let mut u = want_z.then(|| Mat::<T>::zeros(n, n));
    let solved = evd::self_adjoint_evd(
        a,
        s.as_mut(),
        u.as_mut().map(|u| u.as_mut()),
        Par::Seq,
        MemStack::new(&mut buf),
        params,
    );
    if solved.is_err() {
        return 1;
    }
    let values = s.column_vector();
    let chosen: Vec<usize> = match range {
        b'A' => (0..n).collect(),
        b'V' => (0..n)
            .filter(|&i| vl < values[i] && values[i] <= vu)
            .collect(),
        _ => (il as usize - 1..iu as usize).collect(),
    };
    unsafe { *m = chosen.len() as i32 };
    let w = unsafe { std::slice::from_raw_parts_mut(w, n) };
    for (out, &i) in chosen.iter().enumerate() {
        w[out] = values[i];
    }
    if let Some(u) = u {
        let mut z = unsafe { mat_mut(z, n, chosen.len(), ldz) };
        let isuppz = unsafe { std::slice::from_raw_parts_mut(isuppz, 2 * chosen.len()) };
        for (out, &i) in chosen.iter().enumerate() {
            let col = u.col(i);
            z.rb_mut().col_mut(out).copy_from(col);
            let nonzero = |r: &usize| col[*r] != T::ZERO;
            let first = (0..n).find(nonzero).unwrap_or(0);
            let last = (0..n).rev().find(nonzero).unwrap_or(0);
            isuppz[2 * out] = first as i32 + 1;
            isuppz[2 * out + 1] = last as i32 + 1;
        }
    }
    0
}
