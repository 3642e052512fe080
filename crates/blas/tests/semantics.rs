//! The BLAS/LAPACK contract of the linked provider (the faer exports in the default build,
//! OpenBLAS with the `openblas` feature), called through the `blas` and `lapack` crates as
//! clarabel and sosdp call them: results against naive references, the triangles and padding a
//! routine must not touch (sentinels), `beta = 0` not reading its output (NaN there), `info`
//! codes, workspace queries followed by real calls, and every transpose.

use sosdp_blas as _;

/// A padding / untouched-triangle value no routine computes.
const SENTINEL: f64 = 12345.678;

/// A deterministic stream of values in [-1, 1) (splitmix64).
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    /// A column-major `rows x cols` array with leading dimension `ld`, padding = SENTINEL.
    fn matrix(&mut self, rows: usize, cols: usize, ld: usize) -> Vec<f64> {
        let mut a = vec![SENTINEL; ld * cols.max(1)];
        for j in 0..cols {
            for i in 0..rows {
                a[i + j * ld] = self.next();
            }
        }
        a
    }

    /// A symmetric positive definite `n x n` matrix (leading dimension `ld`), both triangles.
    fn spd(&mut self, n: usize, ld: usize) -> Vec<f64> {
        let g = self.matrix(n, n, n);
        let mut a = vec![SENTINEL; ld * n];
        for j in 0..n {
            for i in 0..n {
                let dot: f64 = (0..n).map(|k| g[i + k * n] * g[j + k * n]).sum();
                a[i + j * ld] = dot + if i == j { n as f64 } else { 0.0 };
            }
        }
        a
    }
}

/// `op(X)(i, j)` of a column-major array with leading dimension `ld`.
fn at(x: &[f64], ld: usize, t: bool, i: usize, j: usize) -> f64 {
    if t { x[j + i * ld] } else { x[i + j * ld] }
}

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-11 * scale.max(1.0)
}

/// Is entry (i, j) in the `uplo` triangle (diagonal included)?
fn owned(uplo: u8, i: usize, j: usize) -> bool {
    if uplo == b'L' { i >= j } else { i <= j }
}

#[test]
fn gemm_every_transpose_and_beta() {
    let mut s = Stream(1);
    for (m, n, k) in [(1, 1, 1), (5, 3, 7), (70, 40, 90)] {
        for ta in [b'N', b'T', b'C'] {
            for tb in [b'N', b'T', b'C'] {
                for beta in [0.0, 1.0, -0.7] {
                    let (tra, trb) = (ta != b'N', tb != b'N');
                    let (ra, ca) = if tra { (k, m) } else { (m, k) };
                    let (rb, cb) = if trb { (n, k) } else { (k, n) };
                    let (lda, ldb, ldc) = (ra + 2, rb + 1, m + 3);
                    let a = s.matrix(ra, ca, lda);
                    let b = s.matrix(rb, cb, ldb);
                    let mut c = s.matrix(m, n, ldc);
                    if beta == 0.0 {
                        (0..n).for_each(|j| (0..m).for_each(|i| c[i + j * ldc] = f64::NAN));
                    }
                    let c0 = c.clone();
                    let alpha = 1.3;
                    unsafe {
                        blas::dgemm(
                            ta, tb, m as i32, n as i32, k as i32, alpha, &a, lda as i32, &b,
                            ldb as i32, beta, &mut c, ldc as i32,
                        )
                    };
                    for j in 0..n {
                        for i in 0..ldc {
                            let got = c[i + j * ldc];
                            if i >= m {
                                assert_eq!(got, SENTINEL, "padding of C written");
                                continue;
                            }
                            let prod: f64 = (0..k)
                                .map(|l| at(&a, lda, tra, i, l) * at(&b, ldb, trb, l, j))
                                .sum();
                            let old = if beta == 0.0 {
                                0.0
                            } else {
                                beta * c0[i + j * ldc]
                            };
                            let want = alpha * prod + old;
                            assert!(
                                close(got, want, k as f64),
                                "gemm {ta} {tb} beta {beta}: {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn gemm_with_alpha_zero_reads_neither_a_nor_b() {
    let (a, b) = (vec![f64::NAN; 4], vec![f64::NAN; 4]);
    let mut c = vec![1.0, 2.0, 3.0, 4.0];
    unsafe { blas::dgemm(b'N', b'N', 2, 2, 2, 0.0, &a, 2, &b, 2, 0.5, &mut c, 2) };
    assert_eq!(c, vec![0.5, 1.0, 1.5, 2.0]);
}

#[test]
fn gemv_with_strides_and_beta() {
    let mut s = Stream(2);
    let (m, n) = (9, 6);
    for trans in [b'N', b'T'] {
        for (incx, incy) in [(1i32, 1i32), (2, -1), (-3, 2)] {
            for beta in [0.0, 0.5] {
                let (lx, ly) = if trans == b'N' { (n, m) } else { (m, n) };
                let lda = m + 2;
                let a = s.matrix(m, n, lda);
                let len_x = 1 + (lx - 1) * incx.unsigned_abs() as usize;
                let x = s.matrix(len_x, 1, len_x);
                let step_y = incy.unsigned_abs() as usize;
                let mut y = vec![SENTINEL; 1 + (ly - 1) * step_y];
                let idx = |len: usize, inc: i32, i: usize| {
                    if inc > 0 {
                        i * inc as usize
                    } else {
                        (len - 1 - i) * inc.unsigned_abs() as usize
                    }
                };
                for i in 0..ly {
                    y[idx(ly, incy, i)] = if beta == 0.0 { f64::NAN } else { s.next() };
                }
                let y0 = y.clone();
                unsafe {
                    blas::dgemv(
                        trans, m as i32, n as i32, 0.9, &a, lda as i32, &x, incx, beta, &mut y,
                        incy,
                    )
                };
                for i in 0..ly {
                    let dot: f64 = (0..lx)
                        .map(|l| at(&a, lda, trans == b'T', i, l) * x[idx(lx, incx, l)])
                        .sum();
                    let old = if beta == 0.0 {
                        0.0
                    } else {
                        beta * y0[idx(ly, incy, i)]
                    };
                    let got = y[idx(ly, incy, i)];
                    assert!(
                        close(got, 0.9 * dot + old, lx as f64),
                        "gemv {trans} {incx} {incy}"
                    );
                }
                for (p, v) in y.iter().enumerate() {
                    if (0..ly).all(|i| idx(ly, incy, i) != p) {
                        assert_eq!(*v, SENTINEL, "gemv wrote between strided entries");
                    }
                }
            }
        }
    }
}

#[test]
fn symv_reads_only_its_triangle() {
    let mut s = Stream(3);
    let n = 11;
    for uplo in [b'L', b'U'] {
        let full = s.spd(n, n);
        let mut a = full.clone();
        (0..n).for_each(|j| {
            (0..n)
                .filter(|&i| !owned(uplo, i, j))
                .for_each(|i| a[i + j * n] = f64::NAN)
        });
        let x: Vec<f64> = (0..n).map(|_| s.next()).collect();
        let mut y: Vec<f64> = (0..n).map(|_| s.next()).collect();
        let y0 = y.clone();
        unsafe { blas::dsymv(uplo, n as i32, 1.5, &a, n as i32, &x, 1, -2.0, &mut y, 1) };
        for i in 0..n {
            let dot: f64 = (0..n).map(|j| full[i + j * n] * x[j]).sum();
            assert!(close(y[i], 1.5 * dot - 2.0 * y0[i], 100.0), "symv {uplo}");
        }
    }
}

/// `?syrk` / `?syr2k`: the owned triangle right (beta = 0 not reading NaN), the other exact.
#[test]
fn rank_updates_touch_only_their_triangle() {
    let mut s = Stream(4);
    for (n, k) in [(1, 3), (9, 4), (80, 50), (5, 0)] {
        for uplo in [b'L', b'U'] {
            for trans in [b'N', b'T'] {
                for beta in [0.0, 0.6] {
                    for two in [false, true] {
                        let t = trans == b'T';
                        let (ra, ca) = if t { (k, n) } else { (n, k) };
                        let lda = ra.max(1) + 1;
                        let a = s.matrix(ra, ca, lda);
                        let b = s.matrix(ra, ca, lda);
                        let ldc = n + 2;
                        let mut c = vec![SENTINEL; ldc * n];
                        for j in 0..n {
                            for i in (0..n).filter(|&i| owned(uplo, i, j)) {
                                c[i + j * ldc] = if beta == 0.0 { f64::NAN } else { s.next() };
                            }
                        }
                        let c0 = c.clone();
                        unsafe {
                            if two {
                                blas::dsyr2k(
                                    uplo, trans, n as i32, k as i32, 0.7, &a, lda as i32, &b,
                                    lda as i32, beta, &mut c, ldc as i32,
                                )
                            } else {
                                blas::dsyrk(
                                    uplo, trans, n as i32, k as i32, 0.7, &a, lda as i32, beta,
                                    &mut c, ldc as i32,
                                )
                            }
                        };
                        for j in 0..n {
                            for i in 0..ldc {
                                let got = c[i + j * ldc];
                                if i >= n || !owned(uplo, i, j) {
                                    assert_eq!(
                                        got, SENTINEL,
                                        "syrk/syr2k wrote outside its triangle"
                                    );
                                    continue;
                                }
                                let prod: f64 = (0..k)
                                    .map(|l| {
                                        let (ai, aj) = (at(&a, lda, t, i, l), at(&a, lda, t, j, l));
                                        if two {
                                            ai * at(&b, lda, t, j, l) + at(&b, lda, t, i, l) * aj
                                        } else {
                                            ai * aj
                                        }
                                    })
                                    .sum();
                                let old = if beta == 0.0 {
                                    0.0
                                } else {
                                    beta * c0[i + j * ldc]
                                };
                                assert!(
                                    close(got, 0.7 * prod + old, k as f64),
                                    "syrk {uplo} {trans} two {two}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn potrf_factors_in_its_triangle_and_leaves_the_other() {
    let mut s = Stream(5);
    for n in [1, 5, 70, 200] {
        for uplo in [b'L', b'U'] {
            let ld = n + 1;
            let full = s.spd(n, ld);
            let mut a = full.clone();
            (0..n).for_each(|j| {
                (0..n)
                    .filter(|&i| !owned(uplo, i, j))
                    .for_each(|i| a[i + j * ld] = SENTINEL)
            });
            let mut info = -99;
            unsafe { lapack::dpotrf(uplo, n as i32, &mut a, ld as i32, &mut info) };
            assert_eq!(info, 0);
            // L(i, j) with L lower: A = L L^T (for 'U', L = U^T).
            let l = |i: usize, j: usize| {
                if i < j {
                    0.0
                } else if uplo == b'L' {
                    a[i + j * ld]
                } else {
                    a[j + i * ld]
                }
            };
            for j in 0..n {
                for i in 0..ld {
                    if i >= n || !owned(uplo, i, j) {
                        assert_eq!(
                            a[i + j * ld],
                            SENTINEL,
                            "potrf {uplo} n {n} touched ({i}, {j})"
                        );
                        continue;
                    }
                    let llt: f64 = (0..n).map(|p| l(i, p) * l(j, p)).sum();
                    assert!(
                        close(llt, full[i + j * ld], n as f64 * n as f64),
                        "potrf {uplo} n {n}"
                    );
                }
            }
            // potrs with the other triangle NaN (not read).
            (0..n).for_each(|j| {
                (0..n)
                    .filter(|&i| !owned(uplo, i, j))
                    .for_each(|i| a[i + j * ld] = f64::NAN)
            });
            let x: Vec<f64> = (0..2 * n).map(|_| s.next()).collect();
            let mut rhs = vec![0.0; 2 * n];
            for c in 0..2 {
                for i in 0..n {
                    rhs[i + c * n] = (0..n).map(|j| full[i + j * ld] * x[j + c * n]).sum();
                }
            }
            unsafe {
                lapack::dpotrs(
                    uplo, n as i32, 2, &a, ld as i32, &mut rhs, n as i32, &mut info,
                )
            };
            assert_eq!(info, 0);
            for (got, want) in rhs.iter().zip(&x) {
                assert!(
                    (got - want).abs() < 1e-9,
                    "potrs {uplo} n {n}: {got} vs {want}"
                );
            }
        }
    }
}

#[test]
fn potrf_reports_the_first_failing_minor() {
    let mut s = Stream(6);
    let n = 6;
    for uplo in [b'L', b'U'] {
        // Indefinite: the leading minor of order 4 is not positive definite.
        let mut a = s.spd(n, n);
        a[3 + 3 * n] = -1000.0;
        let mut info = 0;
        unsafe { lapack::dpotrf(uplo, n as i32, &mut a, n as i32, &mut info) };
        assert_eq!(info, 4, "indefinite, {uplo}");
        // NaN on the diagonal at order 3: reference LAPACK (and the faer exports) report it;
        // OpenBLAS's own potrf tests `ajj <= 0` only, so NaN passes into the factor.
        let mut a = s.spd(n, n);
        a[2 + 2 * n] = f64::NAN;
        unsafe { lapack::dpotrf(uplo, n as i32, &mut a, n as i32, &mut info) };
        if sosdp_blas::BACKEND == "faer" {
            assert_eq!(info, 3, "NaN pivot, {uplo}");
        } else {
            assert!(
                info == 3 || a.iter().any(|v| v.is_nan()),
                "NaN pivot, {uplo}"
            );
        }
    }
    let mut a = vec![1.0; 4];
    let mut info = 0;
    unsafe { lapack::dpotrf(b'X', 2, &mut a, 2, &mut info) };
    assert_eq!(info, -1, "illegal uplo");
    unsafe { lapack::dpotrf(b'L', 2, &mut a, 1, &mut info) };
    assert_eq!(info, -4, "illegal lda");
}

/// Workspace query then the real call, as clarabel does; returns (m, w, z, isuppz).
#[allow(clippy::too_many_arguments)]
fn syevr(
    jobz: u8,
    range: u8,
    uplo: u8,
    a: &[f64],
    n: usize,
    il: i32,
    iu: i32,
    vl: f64,
    vu: f64,
) -> (usize, Vec<f64>, Vec<f64>, Vec<i32>) {
    let mut a = a.to_vec();
    let mut m = 0;
    let mut w = vec![0.0; n];
    let mut z = vec![0.0; n * n];
    let mut isuppz = vec![0; 2 * n];
    let mut call = |work: &mut [f64], lwork: i32, iwork: &mut [i32], liwork: i32| {
        let mut info = 0;
        unsafe {
            lapack::dsyevr(
                jobz,
                range,
                uplo,
                n as i32,
                &mut a,
                n as i32,
                vl,
                vu,
                il,
                iu,
                0.0,
                &mut m,
                &mut w,
                &mut z,
                n as i32,
                &mut isuppz,
                work,
                lwork,
                iwork,
                liwork,
                &mut info,
            )
        };
        info
    };
    let (mut work, mut iwork) = (vec![0.0; 1], vec![0; 1]);
    assert_eq!(call(&mut work, -1, &mut iwork, -1), 0);
    let (lwork, liwork) = (work[0] as usize, iwork[0] as usize);
    assert!(
        lwork >= 26 * n && liwork >= 10 * n,
        "query answered {lwork}, {liwork}"
    );
    let (mut work, mut iwork) = (vec![0.0; lwork], vec![0; liwork]);
    assert_eq!(call(&mut work, lwork as i32, &mut iwork, liwork as i32), 0);
    (m as usize, w, z, isuppz)
}

#[test]
fn syevr_all_values_and_vectors_from_one_triangle() {
    let mut s = Stream(7);
    for n in [1, 4, 51, 130] {
        let g = s.matrix(n, n, n);
        let full: Vec<f64> = (0..n * n)
            .map(|p| (g[p] + g[(p % n) * n + p / n]) / 2.0)
            .collect();
        let trace: f64 = (0..n).map(|i| full[i * (n + 1)]).sum();
        for uplo in [b'L', b'U'] {
            let mut a = full.clone();
            (0..n).for_each(|j| {
                (0..n)
                    .filter(|&i| !owned(uplo, i, j))
                    .for_each(|i| a[i + j * n] = f64::NAN)
            });
            let (m, w, z, isuppz) = syevr(b'V', b'A', uplo, &a, n, 0, 0, 0.0, 0.0);
            assert_eq!(m, n);
            assert!(w.windows(2).all(|p| p[0] <= p[1]), "ascending");
            assert!(close(w.iter().sum::<f64>(), trace, n as f64));
            for c in 0..n {
                for i in 0..n {
                    let az: f64 = (0..n).map(|j| full[i + j * n] * z[j + c * n]).sum();
                    assert!(
                        (az - w[c] * z[i + c * n]).abs() < 1e-10 * n as f64,
                        "A z = w z"
                    );
                }
                for d in 0..n {
                    let dot: f64 = (0..n).map(|i| z[i + c * n] * z[i + d * n]).sum();
                    assert!(
                        (dot - if c == d { 1.0 } else { 0.0 }).abs() < 1e-10 * n as f64,
                        "orthonormal"
                    );
                }
                let (lo, hi) = (isuppz[2 * c] as usize, isuppz[2 * c + 1] as usize);
                assert!(1 <= lo && lo <= hi && hi <= n);
                // OpenBLAS reports the support of the tridiagonal problem's vectors (a known
                // LAPACK quirk); the faer exports report that of the returned ones.
                if sosdp_blas::BACKEND == "faer" {
                    assert!(
                        (0..n)
                            .filter(|&i| i + 1 < lo || i + 1 > hi)
                            .all(|i| z[i + c * n] == 0.0),
                        "support"
                    );
                }
            }
            let (m_n, w_n, _, _) = syevr(b'N', b'A', uplo, &a, n, 0, 0, 0.0, 0.0);
            assert_eq!(m_n, n);
            assert!(
                w_n.iter().zip(&w).all(|(x, y)| close(*x, *y, n as f64)),
                "jobz N = jobz V"
            );
            if n >= 4 {
                let (mi, wi, _, _) = syevr(b'V', b'I', uplo, &a, n, 2, 3, 0.0, 0.0);
                assert_eq!(mi, 2);
                assert!(
                    close(wi[0], w[1], n as f64) && close(wi[1], w[2], n as f64),
                    "range I"
                );
                let (vl, vu) = ((w[0] + w[1]) / 2.0, (w[n - 2] + w[n - 1]) / 2.0);
                let (mv, wv, _, _) = syevr(b'N', b'V', uplo, &a, n, 0, 0, vl, vu);
                assert_eq!(mv, n - 2, "range V is (vl, vu]");
                assert!(close(wv[0], w[1], n as f64));
            }
        }
    }
}

#[test]
fn syevr_checks_its_workspace() {
    let n = 5;
    let mut a = vec![1.0; n * n];
    let (mut m, mut info) = (0, 0);
    let (mut w, mut z, mut isuppz) = (vec![0.0; n], vec![0.0; 1], vec![0; 2 * n]);
    let (mut work, mut iwork) = (vec![0.0; 26 * n - 1], vec![0; 10 * n]);
    unsafe {
        lapack::dsyevr(
            b'N',
            b'A',
            b'L',
            n as i32,
            &mut a,
            n as i32,
            0.0,
            0.0,
            0,
            0,
            0.0,
            &mut m,
            &mut w,
            &mut z,
            1,
            &mut isuppz,
            &mut work,
            (26 * n - 1) as i32,
            &mut iwork,
            (10 * n) as i32,
            &mut info,
        )
    };
    assert_eq!(info, -18);
}

/// `A = U diag(s) V^T` with orthonormal `U`, `V`, and `s` non-increasing.
#[allow(clippy::too_many_arguments)]
fn check_svd(
    a: &[f64],
    m: usize,
    n: usize,
    s: &[f64],
    u: &[f64],
    ldu: usize,
    ucols: usize,
    vt: &[f64],
    ldvt: usize,
    vrows: usize,
) {
    let k = m.min(n);
    assert!(
        s.windows(2).all(|p| p[0] >= p[1]) && s[k - 1] >= 0.0,
        "s non-increasing, non-negative"
    );
    for j in 0..n {
        for i in 0..m {
            let usv: f64 = (0..k)
                .map(|p| u[i + p * ldu] * s[p] * vt[p + j * ldvt])
                .sum();
            assert!(
                (usv - a[i + j * m]).abs() < 1e-10 * (m + n) as f64,
                "U S V^T = A"
            );
        }
    }
    for c in 0..ucols {
        for d in 0..ucols {
            let dot: f64 = (0..m).map(|i| u[i + c * ldu] * u[i + d * ldu]).sum();
            assert!(
                (dot - if c == d { 1.0 } else { 0.0 }).abs() < 1e-10 * m as f64,
                "U orthonormal"
            );
        }
    }
    for c in 0..vrows {
        for d in 0..vrows {
            let dot: f64 = (0..n).map(|j| vt[c + j * ldvt] * vt[d + j * ldvt]).sum();
            assert!(
                (dot - if c == d { 1.0 } else { 0.0 }).abs() < 1e-10 * n as f64,
                "V orthonormal"
            );
        }
    }
}

#[test]
fn gesdd_and_gesvd_decompose() {
    let mut s = Stream(8);
    for (m, n) in [(6, 6), (51, 51), (9, 4), (4, 9)] {
        let a = s.matrix(m, n, m);
        let k = m.min(n);
        for jobz in [b'S', b'A', b'N', b'O'] {
            let (ucols, vrows) = if jobz == b'A' { (m, n) } else { (k, k) };
            let (ldu, ldvt) = (
                m,
                if jobz == b'A' || (jobz == b'O' && m >= n) {
                    n
                } else {
                    k
                },
            );
            let mut work_a = a.clone();
            let (mut sv, mut u, mut vt) = (vec![0.0; k], vec![0.0; ldu * m], vec![0.0; ldvt * n]);
            let mut iwork = vec![0; 8 * k];
            {
                let mut call = |work: &mut [f64], lwork: i32| {
                    let mut info = 0;
                    unsafe {
                        lapack::dgesdd(
                            jobz,
                            m as i32,
                            n as i32,
                            &mut work_a,
                            m as i32,
                            &mut sv,
                            &mut u,
                            ldu as i32,
                            &mut vt,
                            ldvt as i32,
                            work,
                            lwork,
                            &mut iwork,
                            &mut info,
                        )
                    };
                    info
                };
                let mut work = vec![0.0; 1];
                assert_eq!(call(&mut work, -1), 0);
                let lwork = work[0] as usize;
                let info = call(&mut vec![0.0; lwork], lwork as i32);
                assert_eq!(info, 0, "gesdd {jobz} {m}x{n}");
            }
            match jobz {
                b'N' => assert!(sv.windows(2).all(|p| p[0] >= p[1])),
                // 'O': the vectors of the smaller side are over A.
                b'O' if m >= n => check_svd(&a, m, n, &sv, &work_a, m, k, &vt, ldvt, n),
                b'O' => check_svd(&a, m, n, &sv, &u, ldu, m, &work_a, m, k),
                _ => check_svd(&a, m, n, &sv, &u, ldu, ucols, &vt, ldvt, vrows),
            }
        }
        // gesvd, jobu = jobvt = 'S', after a workspace query.
        let mut work_a = a.clone();
        let (mut sv, mut u, mut vt) = (vec![0.0; k], vec![0.0; m * k], vec![0.0; k * n]);
        {
            let mut call = |work: &mut [f64], lwork: i32| {
                let mut info = 0;
                unsafe {
                    lapack::dgesvd(
                        b'S',
                        b'S',
                        m as i32,
                        n as i32,
                        &mut work_a,
                        m as i32,
                        &mut sv,
                        &mut u,
                        m as i32,
                        &mut vt,
                        k as i32,
                        work,
                        lwork,
                        &mut info,
                    )
                };
                info
            };
            let mut work = vec![0.0; 1];
            call(&mut work, -1);
            let lwork = work[0] as usize;
            assert_eq!(call(&mut vec![0.0; lwork], lwork as i32), 0);
        }
        check_svd(&a, m, n, &sv, &u, m, k, &vt, k, k);
    }
}

#[test]
fn gesv_solves_with_lapack_pivots() {
    let mut s = Stream(9);
    for n in [1, 3, 40] {
        let a = s.matrix(n, n, n);
        let x: Vec<f64> = (0..2 * n).map(|_| s.next()).collect();
        let mut b = vec![0.0; 2 * n];
        for c in 0..2 {
            for i in 0..n {
                b[i + c * n] = (0..n).map(|j| a[i + j * n] * x[j + c * n]).sum();
            }
        }
        let (mut lu, mut ipiv, mut info) = (a.clone(), vec![0; n], 0);
        unsafe {
            lapack::dgesv(
                n as i32, 2, &mut lu, n as i32, &mut ipiv, &mut b, n as i32, &mut info,
            )
        };
        assert_eq!(info, 0);
        for (got, want) in b.iter().zip(&x) {
            assert!((got - want).abs() < 1e-8, "gesv n {n}");
        }
        // P A = L U with P the interchanges of ipiv applied in order.
        let mut pa = a.clone();
        for (i, &p) in ipiv.iter().enumerate() {
            let p = p as usize - 1;
            assert!(p >= i && p < n, "ipiv in LAPACK's range");
            (0..n).for_each(|j| pa.swap(i + j * n, p + j * n));
        }
        for j in 0..n {
            for i in 0..n {
                let l = |r: usize, c: usize| {
                    if r == c {
                        1.0
                    } else if r > c {
                        lu[r + c * n]
                    } else {
                        0.0
                    }
                };
                let u = |r: usize, c: usize| if r <= c { lu[r + c * n] } else { 0.0 };
                let prod: f64 = (0..n).map(|p| l(i, p) * u(p, j)).sum();
                assert!((prod - pa[i + j * n]).abs() < 1e-10 * n as f64, "P A = L U");
            }
        }
    }
    let (mut a, mut ipiv, mut b, mut info) =
        (vec![1.0, 2.0, 2.0, 4.0], vec![0; 2], vec![1.0, 1.0], 0);
    unsafe { lapack::dgesv(2, 1, &mut a, 2, &mut ipiv, &mut b, 2, &mut info) };
    assert_eq!(info, 2, "singular: U(2, 2) = 0");
}

#[test]
fn single_precision_twins() {
    let (a, b) = ([1.0f32, 2.0, 3.0, 4.0], [0.5f32, -1.0, 2.0, 1.0]);
    let mut c = [f32::NAN; 4];
    unsafe { blas::sgemm(b'N', b'T', 2, 2, 2, 1.0, &a, 2, &b, 2, 0.0, &mut c, 2) };
    // A = [1 3; 2 4], B = [0.5 2; -1 1]: A B^T = [6.5 2; 9 2].
    assert_eq!(c, [6.5, 9.0, 2.0, 2.0]);
    let mut spd = [4.0f32, 2.0, 2.0, 3.0];
    let mut info = 0;
    unsafe { lapack::spotrf(b'L', 2, &mut spd, 2, &mut info) };
    assert_eq!(info, 0);
    assert!(
        (spd[0] - 2.0).abs() < 1e-6
            && (spd[1] - 1.0).abs() < 1e-6
            && (spd[3] - 2f32.sqrt()).abs() < 1e-6
    );
    assert_eq!(spd[2], 2.0, "upper triangle untouched");
}
