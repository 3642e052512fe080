//! LAPACK `?gesdd` and `?gesvd`: the singular value decomposition `A = U diag(s) V^T`.

use super::Real;
use super::args::{first_illegal, ld_min, mat, mat_mut, xerbla};
use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::svd::{self, ComputeSvdVectors};
use faer::{Mat, MatRef, Par};

/// Which singular vectors a `jobz` / `jobu` / `jobvt` letter asks for, and where they go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Job {
    /// `'A'`: all of them (`U` `m x m`, `V^T` `n x n`), into their own array.
    All,
    /// `'S'`: the leading `min(m, n)`, into their own array.
    Some,
    /// `'O'`: the leading `min(m, n)`, over `A`.
    Overwrite,
    /// `'N'`: none.
    None,
}

impl Job {
    fn parse(letter: u8) -> Option<Job> {
        match letter.to_ascii_uppercase() {
            b'A' => Some(Job::All),
            b'S' => Some(Job::Some),
            b'O' => Some(Job::Overwrite),
            b'N' => Some(Job::None),
            _ => None,
        }
    }

    /// What faer computes for this job.
    fn vectors(self) -> ComputeSvdVectors {
        match self {
            Job::All => ComputeSvdVectors::Full,
            Job::Some | Job::Overwrite => ComputeSvdVectors::Thin,
            Job::None => ComputeSvdVectors::No,
        }
    }
}

/// Work-array sizes `lwork` must reach, and `work[0]` answers to a query: `?gesdd`'s documented
/// minimum for its `jobz`, `?gesvd`'s `max(1, 3 min + max, 5 min)`.
fn lwork_min(routine: &str, job: Job, m: i32, n: i32) -> i32 {
    let (mn, mx) = (m.min(n), m.max(n));
    let v = match (routine, job) {
        ("GESVD", _) => (3 * mn + mx).max(5 * mn),
        (_, Job::None) => 3 * mn + mx.max(7 * mn),
        (_, Job::Overwrite) => 3 * mn + mx.max(5 * mn * mn + 4 * mn),
        _ => 3 * mn + mx.max(4 * mn * mn + 4 * mn),
    };
    if mn == 0 { 1 } else { v.max(1) }
}

/// The SVD of `a`: singular values in non-increasing order, `U` and `V` as `ju` and `jv` ask.
type Factors<T> = (Diag<T>, Option<Mat<T>>, Option<Mat<T>>);

fn factor<T: Real>(a: MatRef<'_, T>, ju: Job, jv: Job) -> Option<Factors<T>> {
    let (m, n) = a.shape();
    let k = m.min(n);
    let cols = |job: Job, full: usize| match job {
        Job::All => Some(full),
        Job::Some | Job::Overwrite => Some(k),
        Job::None => None,
    };
    let mut u = cols(ju, m).map(|c| Mat::<T>::zeros(m, c));
    let mut v = cols(jv, n).map(|c| Mat::<T>::zeros(n, c));
    let mut s = Diag::<T>::zeros(k);
    let params = Default::default();
    let req = svd::svd_scratch::<T>(m, n, ju.vectors(), jv.vectors(), Par::Seq, params);
    let mut buf = MemBuffer::new(req);
    svd::svd(
        a,
        s.as_mut(),
        u.as_mut().map(|u| u.as_mut()),
        v.as_mut().map(|v| v.as_mut()),
        Par::Seq,
        MemStack::new(&mut buf),
        params,
    )
    .ok()?;
    Some((s, u, v))
}

/// Factor the `m x n` `A` at `a` and write the parts LAPACK's `?gesvd`/`?gesdd` return: `s`,
/// `U` into `u` (or over `A`), `V^T` into `vt` (or over `A`). Returns 1 if the solver did not
/// converge, else 0.
///
/// # Safety
/// The Fortran contract of `?gesvd` with jobs `ju`, `jv` (at most one of them `Overwrite`).
#[allow(clippy::too_many_arguments)]
unsafe fn decompose<T: Real>(
    ju: Job,
    jv: Job,
    m: usize,
    n: usize,
    a: *mut T,
    lda: i32,
    s: *mut T,
    u: *mut T,
    ldu: i32,
    vt: *mut T,
    ldvt: i32,
) -> i32 {
    let k = m.min(n);
    let Some((values, uf, vf)) = factor(unsafe { mat(a.cast_const(), m, n, lda) }, ju, jv) else {
        return 1;
    };
    unsafe { std::slice::from_raw_parts_mut(s, k) }
        .iter_mut()
        .zip(values.column_vector().iter())
        .for_each(|(out, v)| *out = *v);
    if let Some(uf) = uf {
        let dst = if ju == Job::Overwrite {
            unsafe { mat_mut(a, m, uf.ncols(), lda) }
        } else {
            unsafe { mat_mut(u, m, uf.ncols(), ldu) }
        };
        { dst }.copy_from(&uf);
    }
    if let Some(vf) = vf {
        let dst = if jv == Job::Overwrite {
            unsafe { mat_mut(a, vf.ncols(), n, lda) }
        } else {
            unsafe { mat_mut(vt, vf.ncols(), n, ldvt) }
        };
        { dst }.copy_from(vf.transpose());
    }
    0
}

/// `?gesdd`: `jobz` `'A'`, `'S'`, `'O'` (the vectors of the smaller side over `A`: `U` when
/// `m >= n`, else `V^T`) or `'N'`. Returns LAPACK's `info`: 0, `-i` for an illegal argument
/// `i`, 1 if the solver did not converge. `lwork = -1` is a workspace query.
///
/// # Safety
/// The Fortran contract of `?gesdd`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gesdd<T: Real>(
    jobz: u8,
    m: i32,
    n: i32,
    a: *mut T,
    lda: i32,
    s: *mut T,
    u: *mut T,
    ldu: i32,
    vt: *mut T,
    ldvt: i32,
    work: *mut T,
    lwork: i32,
) -> i32 {
    let job = Job::parse(jobz);
    let mn = m.min(n);
    let lwmin = lwork_min("GESDD", job.unwrap_or(Job::None), m, n);
    let (all, some, over) = (
        job == Some(Job::All),
        job == Some(Job::Some),
        job == Some(Job::Overwrite),
    );
    if let Some(pos) = first_illegal(&[
        (job.is_none(), 1),
        (m < 0, 2),
        (n < 0, 3),
        (lda < ld_min(m), 5),
        (
            ldu < 1 || ((all || some) && ldu < m) || (over && m < n && ldu < m),
            8,
        ),
        (
            ldvt < 1 || (all && ldvt < n) || (some && ldvt < mn) || (over && m >= n && ldvt < n),
            10,
        ),
        (lwork < lwmin && lwork != -1, 12),
    ]) {
        xerbla::<T>("GESDD", pos);
        return -pos;
    }
    unsafe { *work = T::from_usize(lwmin as usize) };
    if lwork == -1 || m == 0 || n == 0 {
        return 0;
    }
    let (ju, jv) = match job.expect("checked") {
        Job::Overwrite if m >= n => (Job::Overwrite, Job::All),
        Job::Overwrite => (Job::All, Job::Overwrite),
        job => (job, job),
    };
    unsafe { decompose(ju, jv, m as usize, n as usize, a, lda, s, u, ldu, vt, ldvt) }
}

/// `?gesvd`: `jobu` and `jobvt` each `'A'`, `'S'`, `'O'` or `'N'` (not both `'O'`). Returns
/// LAPACK's `info`: 0, `-i` for an illegal argument `i`, 1 if the solver did not converge.
/// `lwork = -1` is a workspace query.
///
/// # Safety
/// The Fortran contract of `?gesvd`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gesvd<T: Real>(
    jobu: u8,
    jobvt: u8,
    m: i32,
    n: i32,
    a: *mut T,
    lda: i32,
    s: *mut T,
    u: *mut T,
    ldu: i32,
    vt: *mut T,
    ldvt: i32,
    work: *mut T,
    lwork: i32,
) -> i32 {
    let (ju, jv) = (Job::parse(jobu), Job::parse(jobvt));
    let mn = m.min(n);
    let lwmin = lwork_min("GESVD", Job::None, m, n);
    let u_own = matches!(ju, Some(Job::All | Job::Some));
    if let Some(pos) = first_illegal(&[
        (ju.is_none(), 1),
        (
            jv.is_none() || (jv == Some(Job::Overwrite) && ju == Some(Job::Overwrite)),
            2,
        ),
        (m < 0, 3),
        (n < 0, 4),
        (lda < ld_min(m), 6),
        (ldu < 1 || (u_own && ldu < m), 9),
        (
            ldvt < 1 || (jv == Some(Job::All) && ldvt < n) || (jv == Some(Job::Some) && ldvt < mn),
            11,
        ),
        (lwork < lwmin && lwork != -1, 13),
    ]) {
        xerbla::<T>("GESVD", pos);
        return -pos;
    }
    unsafe { *work = T::from_usize(lwmin as usize) };
    if lwork == -1 || m == 0 || n == 0 {
        return 0;
    }
    let (ju, jv) = (ju.expect("checked"), jv.expect("checked"));
    unsafe { decompose(ju, jv, m as usize, n as usize, a, lda, s, u, ldu, vt, ldvt) }
}
