//! The Fortran BLAS/LAPACK symbols, in pure Rust on faer.
//!
//! Each symbol follows the reference BLAS/LAPACK contract (netlib's documentation of the routine
//! of that name): column-major arrays with leading dimensions, arguments by pointer, the same
//! argument checks (an illegal argument is reported on stderr, as `xerbla` does, and LAPACK
//! routines return `info = -i`), the same quick returns, `beta = 0` never reading the output,
//! workspace queries (`lwork = -1`) answered with the sizes the routine checks, and triangles a
//! routine does not own left untouched. The results agree with OpenBLAS's to rounding; where
//! LAPACK leaves a choice (the signs of eigenvectors and singular vectors), faer's is taken.
//!
//! Implemented: `?gemm`, `?gemv`, `?symv`, `?syrk`, `?syr2k` (BLAS); `?potrf`, `?potrs`,
//! `?syevr`, `?gesdd`, `?gesvd`, `?gesv` (LAPACK), for `d` (f64) and `s` (f32): every routine
//! clarabel 0.11's `sdp` feature and sosdp's dense kernels reference.

mod args;
mod cholesky;
mod eigen;
mod level2;
mod level3;
mod lu;
mod svd;

use std::ffi::{c_char, c_int};

/// A real scalar the exports are instantiated for (f32 and f64).
pub(crate) trait Real:
    faer::traits::RealField
    + Copy
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::MulAssign
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// The routine-name prefix LAPACK uses for this type (`D` or `S`).
    const PREFIX: char;
    /// `n` as a scalar (workspace sizes are returned in `work[0]`).
    fn from_usize(n: usize) -> Self;
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const PREFIX: char = 'D';
    fn from_usize(n: usize) -> Self {
        n as f64
    }
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const PREFIX: char = 'S';
    fn from_usize(n: usize) -> Self {
        n as f32
    }
}

/// Export one precision's symbols (`$T` the scalar, then each symbol's name).
macro_rules! export {
    ($T:ty, $gemm:ident, $gemv:ident, $symv:ident, $syrk:ident, $syr2k:ident, $potrf:ident,
     $potrs:ident, $syevr:ident, $gesdd:ident, $gesvd:ident, $gesv:ident) => {
        /// BLAS `?gemm`: `C = alpha op(A) op(B) + beta C`.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gemm(
            transa: *const c_char,
            transb: *const c_char,
            m: *const c_int,
            n: *const c_int,
            k: *const c_int,
            alpha: *const $T,
            a: *const $T,
            lda: *const c_int,
            b: *const $T,
            ldb: *const c_int,
            beta: *const $T,
            c: *mut $T,
            ldc: *const c_int,
        ) {
            unsafe {
                level3::gemm(
                    *transa as u8,
                    *transb as u8,
                    *m,
                    *n,
                    *k,
                    *alpha,
                    a,
                    *lda,
                    b,
                    *ldb,
                    *beta,
                    c,
                    *ldc,
                )
            }
        }

        /// BLAS `?gemv`: `y = alpha op(A) x + beta y`.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gemv(
            trans: *const c_char,
            m: *const c_int,
            n: *const c_int,
            alpha: *const $T,
            a: *const $T,
            lda: *const c_int,
            x: *const $T,
            incx: *const c_int,
            beta: *const $T,
            y: *mut $T,
            incy: *const c_int,
        ) {
            unsafe {
                level2::gemv(
                    *trans as u8,
                    *m,
                    *n,
                    *alpha,
                    a,
                    *lda,
                    x,
                    *incx,
                    *beta,
                    y,
                    *incy,
                )
            }
        }

        /// BLAS `?symv`: `y = alpha A x + beta y`, `A` symmetric, one triangle read.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $symv(
            uplo: *const c_char,
            n: *const c_int,
            alpha: *const $T,
            a: *const $T,
            lda: *const c_int,
            x: *const $T,
            incx: *const c_int,
            beta: *const $T,
            y: *mut $T,
            incy: *const c_int,
        ) {
            unsafe { level2::symv(*uplo as u8, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy) }
        }

        /// BLAS `?syrk`: one triangle of `C = alpha op(A) op(A)^T + beta C`.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $syrk(
            uplo: *const c_char,
            trans: *const c_char,
            n: *const c_int,
            k: *const c_int,
            alpha: *const $T,
            a: *const $T,
            lda: *const c_int,
            beta: *const $T,
            c: *mut $T,
            ldc: *const c_int,
        ) {
            unsafe {
                level3::syrk(
                    *uplo as u8,
                    *trans as u8,
                    *n,
                    *k,
                    *alpha,
                    a,
                    *lda,
                    *beta,
                    c,
                    *ldc,
                )
            }
        }

        /// BLAS `?syr2k`: one triangle of
        /// `C = alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C`.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $syr2k(
            uplo: *const c_char,
            trans: *const c_char,
            n: *const c_int,
            k: *const c_int,
            alpha: *const $T,
            a: *const $T,
            lda: *const c_int,
            b: *const $T,
            ldb: *const c_int,
            beta: *const $T,
            c: *mut $T,
            ldc: *const c_int,
        ) {
            unsafe {
                level3::syr2k(
                    *uplo as u8,
                    *trans as u8,
                    *n,
                    *k,
                    *alpha,
                    a,
                    *lda,
                    b,
                    *ldb,
                    *beta,
                    c,
                    *ldc,
                )
            }
        }

        /// LAPACK `?potrf`: the Cholesky factor of a positive definite matrix, in place in
        /// one triangle (the other untouched).
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $potrf(
            uplo: *const c_char,
            n: *const c_int,
            a: *mut $T,
            lda: *const c_int,
            info: *mut c_int,
        ) {
            unsafe { *info = cholesky::potrf(*uplo as u8, *n, a, *lda) }
        }

        /// LAPACK `?potrs`: solve `A X = B` from `?potrf`'s factor.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $potrs(
            uplo: *const c_char,
            n: *const c_int,
            nrhs: *const c_int,
            a: *const $T,
            lda: *const c_int,
            b: *mut $T,
            ldb: *const c_int,
            info: *mut c_int,
        ) {
            unsafe { *info = cholesky::potrs(*uplo as u8, *n, *nrhs, a, *lda, b, *ldb) }
        }

        /// LAPACK `?syevr`: selected eigenvalues (and eigenvectors) of a symmetric matrix.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $syevr(
            jobz: *const c_char,
            range: *const c_char,
            uplo: *const c_char,
            n: *const c_int,
            a: *mut $T,
            lda: *const c_int,
            vl: *const $T,
            vu: *const $T,
            il: *const c_int,
            iu: *const c_int,
            abstol: *const $T,
            m: *mut c_int,
            w: *mut $T,
            z: *mut $T,
            ldz: *const c_int,
            isuppz: *mut c_int,
            work: *mut $T,
            lwork: *const c_int,
            iwork: *mut c_int,
            liwork: *const c_int,
            info: *mut c_int,
        ) {
            let _ = abstol; // the eigensolver runs to full accuracy
            unsafe {
                *info = eigen::syevr(
                    eigen::Syevr {
                        jobz: *jobz as u8,
                        range: *range as u8,
                        uplo: *uplo as u8,
                        n: *n,
                        lda: *lda,
                        vl: *vl,
                        vu: *vu,
                        il: *il,
                        iu: *iu,
                        ldz: *ldz,
                        lwork: *lwork,
                        liwork: *liwork,
                    },
                    a,
                    m,
                    w,
                    z,
                    isuppz,
                    work,
                    iwork,
                )
            }
        }

        /// LAPACK `?gesdd`: the singular value decomposition (vectors by `jobz`).
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gesdd(
            jobz: *const c_char,
            m: *const c_int,
            n: *const c_int,
            a: *mut $T,
            lda: *const c_int,
            s: *mut $T,
            u: *mut $T,
            ldu: *const c_int,
            vt: *mut $T,
            ldvt: *const c_int,
            work: *mut $T,
            lwork: *const c_int,
            iwork: *mut c_int,
            info: *mut c_int,
        ) {
            let _ = iwork; // faer needs no integer workspace
            unsafe {
                *info = svd::gesdd(
                    *jobz as u8,
                    *m,
                    *n,
                    a,
                    *lda,
                    s,
                    u,
                    *ldu,
                    vt,
                    *ldvt,
                    work,
                    *lwork,
                )
            }
        }

        /// LAPACK `?gesvd`: the singular value decomposition (vectors by `jobu`, `jobvt`).
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gesvd(
            jobu: *const c_char,
            jobvt: *const c_char,
            m: *const c_int,
            n: *const c_int,
            a: *mut $T,
            lda: *const c_int,
            s: *mut $T,
            u: *mut $T,
            ldu: *const c_int,
            vt: *mut $T,
            ldvt: *const c_int,
            work: *mut $T,
            lwork: *const c_int,
            info: *mut c_int,
        ) {
            unsafe {
                *info = svd::gesvd(
                    *jobu as u8,
                    *jobvt as u8,
                    *m,
                    *n,
                    a,
                    *lda,
                    s,
                    u,
                    *ldu,
                    vt,
                    *ldvt,
                    work,
                    *lwork,
                )
            }
        }

        /// LAPACK `?gesv`: solve `A X = B` by LU with partial pivoting.
        ///
        /// # Safety
        /// The Fortran contract: every pointer valid for the sizes its arguments give.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $gesv(
            n: *const c_int,
            nrhs: *const c_int,
            a: *mut $T,
            lda: *const c_int,
            ipiv: *mut c_int,
            b: *mut $T,
            ldb: *const c_int,
            info: *mut c_int,
        ) {
            unsafe { *info = lu::gesv(*n, *nrhs, a, *lda, ipiv, b, *ldb) }
        }
    };
}

export!(
    f64, dgemm_, dgemv_, dsymv_, dsyrk_, dsyr2k_, dpotrf_, dpotrs_, dsyevr_, dgesdd_, dgesvd_,
    dgesv_
);
export!(
    f32, sgemm_, sgemv_, ssymv_, ssyrk_, ssyr2k_, spotrf_, spotrs_, ssyevr_, sgesdd_, sgesvd_,
    sgesv_
);
