//! Dense linear algebra of the crate, one module: kernels on LAPACK/BLAS (provided by
//! `sosdp-blas`: pure Rust on faer, or OpenBLAS) for the Newton systems of the interior-point
//! method (Cholesky factor and solve, the symmetric rank-k product, general matrix products),
//! the smallest eigenvalue, and
//! the small symmetric helpers the certificates use (eigenvalue range, PSD projection,
//! weighted scatter, quadratic forms, trace products, verified shrinking). Matrices are
//! nalgebra's column-major `DMatrix`.
use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use sosdp_blas as _;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How the passes over many points (columns) are shared among rayon's threads: a pass over
/// `n >= min_points` columns that costs at least `min_flops` (`n` times its flops a column) is
/// cut into chunks of `chunk` consecutive columns (the last one shorter), whose boundaries
/// depend on `n` alone; each chunk is computed as one task, and partial sums are added in chunk
/// order. Whether a pass is chunked depends on its shape alone. Every result is therefore the
/// same for any number of threads, one included: per-point outputs ([`quad_forms`], the
/// transposed [`gemv`]) are the numbers of the whole pass, sums ([`weighted_scatter`], the
/// plain [`gemv`], the Woodbury system `I + Fs Fs^T`, [`identity_plus_syrk`]) are defined by
/// this chunked order. Other passes are one call, as before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Passes {
    /// Columns per chunk (a multiple of the 128-column blocks of [`quad_forms`], so that its
    /// values do not depend on the chunking at all).
    pub chunk: usize,
    /// The fewest columns for which a pass is chunked.
    pub min_points: usize,
    /// The least work (flops) of a chunked pass: below it a task costs more to hand to another
    /// thread than it saves.
    pub min_flops: usize,
}

impl Passes {
    /// The settings every pass of the crate uses: chunks of 512 columns, from 1024 columns and
    /// `4e6` flops (at d = 10, `D = 11`: the quadratic forms of 16600 points, the Woodbury
    /// system `I + Fs Fs^T` of rank 78 from 660 free weights).
    pub const DEFAULT: Passes = Passes {
        chunk: 512,
        min_points: 1024,
        min_flops: 4_000_000,
    };

    /// The chunks of a pass over `n` columns of `flops_per_column` each, or `None` when it
    /// stays whole.
    fn chunks(&self, n: usize, flops_per_column: usize) -> Option<Vec<Range<usize>>> {
        if n < self.min_points
            || n <= self.chunk
            || n.saturating_mul(flops_per_column) < self.min_flops
        {
            return None;
        }
        CHUNKED_PASSES.fetch_add(1, Ordering::Relaxed);
        let chunk = self.chunk.max(1);
        Some(
            (0..n)
                .step_by(chunk)
                .map(|s| s..(s + chunk).min(n))
                .collect(),
        )
    }
}

impl Default for Passes {
    fn default() -> Self {
        Passes::DEFAULT
    }
}

/// The process's [`Passes`] (`chunk`, `min_points`, `min_flops`), [`Passes::DEFAULT`] unless
/// [`set_passes`] changed it.
static PASSES: [AtomicUsize; 3] = [
    AtomicUsize::new(Passes::DEFAULT.chunk),
    AtomicUsize::new(Passes::DEFAULT.min_points),
    AtomicUsize::new(Passes::DEFAULT.min_flops),
];

/// The [`Passes`] every pass of this process uses.
pub fn passes() -> Passes {
    Passes {
        chunk: PASSES[0].load(Ordering::Relaxed),
        min_points: PASSES[1].load(Ordering::Relaxed),
        min_flops: PASSES[2].load(Ordering::Relaxed),
    }
}

/// Replace the process's [`Passes`] (tests and experiments: smaller chunks make small fits take
/// the chunked path). Results depend on these settings (the order of the sums), never on the
/// number of threads. Not for use while a fit runs.
pub fn set_passes(p: Passes) {
    PASSES[0].store(p.chunk.max(1), Ordering::Relaxed);
    PASSES[1].store(p.min_points, Ordering::Relaxed);
    PASSES[2].store(p.min_flops, Ordering::Relaxed);
}

static CHUNKED_PASSES: AtomicUsize = AtomicUsize::new(0);

/// How many passes of this process were chunked ([`Passes`]) so far: tests check that the
/// parallel path was taken.
pub fn chunked_passes() -> usize {
    CHUNKED_PASSES.load(Ordering::Relaxed)
}

/// The partial results `part(range)` of the chunks, computed on rayon's threads, folded in
/// chunk order by `add`.
fn chunked_sum<T: Send>(
    chunks: &[Range<usize>],
    part: impl Fn(Range<usize>) -> T + Sync,
    mut add: impl FnMut(&mut T, T),
) -> T {
    let mut parts = chunks
        .par_iter()
        .map(|r| part(r.clone()))
        .collect::<Vec<T>>()
        .into_iter();
    let mut total = parts.next().expect("a chunked pass has chunks");
    for p in parts {
        add(&mut total, p);
    }
    total
}

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

/// The smallest eigenvalue of a symmetric matrix and a unit eigenvector of it (nalgebra's
/// symmetric eigendecomposition; [`min_eigenvalue`] when the vector is not needed).
pub fn bottom_eigenpair(a: &DMatrix<f64>) -> (f64, DVector<f64>) {
    let eig = a.clone().symmetric_eigen();
    let k = eig.eigenvalues.imin();
    (eig.eigenvalues[k], eig.eigenvectors.column(k).into_owned())
}

/// Smallest eigenvalue of a symmetric matrix (lower triangle read; nalgebra's symmetric QR
/// sweep, eigenvalues only). NaN for non-finite entries.
///
/// Not LAPACK `dsyevr`: at the sizes here nalgebra is as fast as OpenBLAS's (D = 51: 106 against
/// 102 us; D = 11: 6 against 9 us) and faster than the faer `dsyevr` of `sosdp-blas` (150 us at
/// D = 51), so one code path serves both BLAS providers.
pub fn min_eigenvalue(a: &DMatrix<f64>) -> f64 {
    assert_eq!(a.nrows(), a.ncols(), "eigenvalue of a non-square matrix");
    if a.nrows() == 0 {
        return f64::INFINITY;
    }
    if !a.iter().all(|x| x.is_finite()) {
        return f64::NAN;
    }
    a.clone().symmetric_eigenvalues().min()
}

/// `alpha * A^T A + beta * C` (if `transpose`) or `alpha * A A^T + beta * C`, written to the full
/// symmetric `C`.
pub fn syrk(a: &DMatrix<f64>, transpose: bool, alpha: f64, beta: f64, c: &mut DMatrix<f64>) {
    let (n, k) = if transpose {
        (a.ncols(), a.nrows())
    } else {
        (a.nrows(), a.ncols())
    };
    assert_eq!(
        (c.nrows(), c.ncols()),
        (n, n),
        "syrk output has the wrong shape"
    );
    syrk_lower(
        transpose,
        n,
        k,
        a.as_slice(),
        a.nrows(),
        alpha,
        beta,
        c.as_mut_slice(),
    );
    mirror_lower(c);
}

/// The lower triangle of `C = alpha op(A) op(A)^T + beta C` (BLAS `dsyrk`) for a column-major
/// block `a` with leading dimension `lda`: `op(A) = A^T` (`a` is `k x n`) if `transpose`, else
/// `A` (`a` is `n x k`); `c` is `n x n`.
#[allow(clippy::too_many_arguments)]
fn syrk_lower(
    transpose: bool,
    n: usize,
    k: usize,
    a: &[f64],
    lda: usize,
    alpha: f64,
    beta: f64,
    c: &mut [f64],
) {
    if n == 0 {
        return;
    }
    if k == 0 {
        c.iter_mut().for_each(|v| *v *= beta);
        return;
    }
    // SAFETY: `a` holds the op(A) block with leading dimension lda, `c` n * n values; both are
    // column-major.
    unsafe {
        blas::dsyrk(
            b'L',
            if transpose { b'T' } else { b'N' },
            n as i32,
            k as i32,
            alpha,
            a,
            lda.max(1) as i32,
            beta,
            c,
            n as i32,
        )
    };
}

/// Copy the lower triangle of the square `c` onto its upper triangle.
fn mirror_lower(c: &mut DMatrix<f64>) {
    for j in 0..c.ncols() {
        for i in 0..j {
            c[(i, j)] = c[(j, i)];
        }
    }
}

/// `I + A A^T` for an `m x k` matrix `A`, formed as `(I + A_1 A_1^T) + A_2 A_2^T` over the two
/// column halves of `A` (contiguous in column-major storage), each on its own rayon task with
/// single-threaded BLAS. The split is fixed (two halves whatever the number of cores), so the
/// result is the same on every machine; it differs from one [`syrk`] only in the order of the
/// two partial sums.
pub fn identity_plus_syrk_halves(a: &DMatrix<f64>) -> DMatrix<f64> {
    let (m, k) = (a.nrows(), a.ncols());
    let h = k / 2;
    let (first, second) = a.as_slice().split_at(m * h);
    let (mut c, c2) = rayon::join(
        || {
            let mut c = DMatrix::identity(m, m);
            syrk_lower(false, m, h, first, m, 1.0, 1.0, c.as_mut_slice());
            c
        },
        || {
            let mut c = DMatrix::zeros(m, m);
            syrk_lower(false, m, k - h, second, m, 1.0, 0.0, c.as_mut_slice());
            c
        },
    );
    c += c2;
    mirror_lower(&mut c);
    c
}

/// `I + A A^T` for an `m x k` matrix `A`: one [`syrk`] onto the identity, or from
/// [`Passes`]' size, `(I + A_1 A_1^T) + A_2 A_2^T + ...` over the column chunks of
/// [`Passes`], each on a rayon task, added in chunk order.
pub fn identity_plus_syrk(a: &DMatrix<f64>) -> DMatrix<f64> {
    let (m, k) = (a.nrows(), a.ncols());
    let Some(chunks) = passes().chunks(k, m * m) else {
        let mut c = DMatrix::identity(m, m);
        syrk(a, false, 1.0, 1.0, &mut c);
        return c;
    };
    let mut c = chunked_sum(
        &chunks,
        |r| {
            let mut c = if r.start == 0 {
                DMatrix::identity(m, m)
            } else {
                DMatrix::zeros(m, m)
            };
            let block = &a.as_slice()[r.start * m..r.end * m];
            syrk_lower(false, m, r.len(), block, m, 1.0, 1.0, c.as_mut_slice());
            c
        },
        |t, p| *t += p,
    );
    mirror_lower(&mut c);
    c
}

/// [`gemv`] with the work split into two rayon tasks over the column halves of `A`: for
/// `op(A) = A`, `y = (alpha A_1 x_1 + beta y) + alpha A_2 x_2`; for `op(A) = A^T`, the two halves
/// of `y` separately (the same numbers as one [`gemv`] up to rounding: BLAS kernels group
/// columns differently at block edges). Deterministic, as [`identity_plus_syrk_halves`].
pub fn gemv_halves(ta: bool, alpha: f64, a: &DMatrix<f64>, x: &[f64], beta: f64, y: &mut [f64]) {
    let (m, k) = (a.nrows(), a.ncols());
    assert_eq!(
        (x.len(), y.len()),
        if ta { (m, k) } else { (k, m) },
        "gemv: wrong vector lengths"
    );
    let h = k / 2;
    let (first, second) = a.as_slice().split_at(m * h);
    if ta {
        let (y1, y2) = y.split_at_mut(h);
        rayon::join(
            || gemv_slice(true, m, h, alpha, first, x, beta, y1),
            || gemv_slice(true, m, k - h, alpha, second, x, beta, y2),
        );
    } else {
        let (x1, x2) = x.split_at(h);
        let mut y2 = vec![0.0; m];
        rayon::join(
            || gemv_slice(false, m, h, alpha, first, x1, beta, y),
            || gemv_slice(false, m, k - h, alpha, second, x2, 0.0, &mut y2),
        );
        y.iter_mut().zip(&y2).for_each(|(v, w)| *v += w);
    }
}

/// `C = alpha * op(A) op(B) + beta * C` (BLAS `dgemm`), `op` transposing when `ta` / `tb`,
/// without forming a transpose.
pub fn gemm(
    ta: bool,
    tb: bool,
    alpha: f64,
    a: &DMatrix<f64>,
    b: &DMatrix<f64>,
    beta: f64,
    c: &mut DMatrix<f64>,
) {
    let (m, k) = if ta {
        (a.ncols(), a.nrows())
    } else {
        (a.nrows(), a.ncols())
    };
    let (kb, n) = if tb {
        (b.ncols(), b.nrows())
    } else {
        (b.nrows(), b.ncols())
    };
    assert_eq!(k, kb, "gemm: inner dimensions differ");
    assert_eq!(
        (c.nrows(), c.ncols()),
        (m, n),
        "gemm output has the wrong shape"
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        *c *= beta;
        return;
    }
    let flag = |t: bool| if t { b'T' } else { b'N' };
    // SAFETY: shapes checked above; column-major buffers with leading dimensions their row counts.
    unsafe {
        blas::dgemm(
            flag(ta),
            flag(tb),
            m as i32,
            n as i32,
            k as i32,
            alpha,
            a.as_slice(),
            a.nrows().max(1) as i32,
            b.as_slice(),
            b.nrows().max(1) as i32,
            beta,
            c.as_mut_slice(),
            m as i32,
        )
    };
}

/// `C = op(A) B` for packed column-major slices (`op(A)` is `m x k`, stored `k x m` when `ta`;
/// `B` is `k x n`; `C` is the first `m n` entries of `c`), overwritten (BLAS `dgemm`, `beta = 0`).
fn packed_product(ta: bool, m: usize, n: usize, k: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    assert!(
        a.len() >= m * k && b.len() >= k * n && c.len() >= m * n,
        "packed_product: a buffer is too short"
    );
    if m == 0 || n == 0 || k == 0 {
        c[..m * n].fill(0.0);
        return;
    }
    let lda = if ta { k } else { m };
    // SAFETY: the lengths are checked above; leading dimensions are the packed row counts.
    unsafe {
        blas::dgemm(
            if ta { b'T' } else { b'N' },
            b'N',
            m as i32,
            n as i32,
            k as i32,
            1.0,
            a,
            lda as i32,
            b,
            k as i32,
            0.0,
            c,
            m as i32,
        )
    };
}

/// `op(A) op(B)` (see [`gemm`]).
pub fn mul(ta: bool, tb: bool, a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    let m = if ta { a.ncols() } else { a.nrows() };
    let n = if tb { b.nrows() } else { b.ncols() };
    let mut c = DMatrix::zeros(m, n);
    gemm(ta, tb, 1.0, a, b, 0.0, &mut c);
    c
}

/// `A B^T` (BLAS `dgemm`), without forming `B^T`.
pub fn mul_nt(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    mul(false, true, a, b)
}

/// `y = alpha * op(A) x + beta * y` (BLAS `dgemv`), `op` transposing when `ta`.
pub fn gemv(ta: bool, alpha: f64, a: &DMatrix<f64>, x: &[f64], beta: f64, y: &mut [f64]) {
    let (m, n) = if ta {
        (a.ncols(), a.nrows())
    } else {
        (a.nrows(), a.ncols())
    };
    assert_eq!((x.len(), y.len()), (n, m), "gemv: wrong vector lengths");
    let rows = a.nrows();
    let Some(chunks) = passes().chunks(a.ncols(), 2 * rows) else {
        gemv_slice(ta, rows, a.ncols(), alpha, a.as_slice(), x, beta, y);
        return;
    };
    let block = |r: &Range<usize>| &a.as_slice()[r.start * rows..r.end * rows];
    if ta {
        // One output per column: each chunk writes its own part of y.
        let mut parts: Vec<&mut [f64]> = Vec::with_capacity(chunks.len());
        let mut rest = y;
        for r in &chunks {
            let (head, tail) = rest.split_at_mut(r.len());
            parts.push(head);
            rest = tail;
        }
        parts
            .into_par_iter()
            .zip(chunks.par_iter())
            .for_each(|(out, r)| gemv_slice(true, rows, r.len(), alpha, block(r), x, beta, out));
    } else {
        // y = beta y + (A_1 x_1 + A_2 x_2 + ...) alpha, partials added in chunk order.
        let sum = chunked_sum(
            &chunks,
            |r| {
                let mut p = vec![0.0; rows];
                gemv_slice(false, rows, r.len(), alpha, block(&r), &x[r], 0.0, &mut p);
                p
            },
            |t, p| t.iter_mut().zip(&p).for_each(|(v, w)| *v += w),
        );
        if beta == 0.0 {
            y.copy_from_slice(&sum);
        } else {
            y.iter_mut().zip(&sum).for_each(|(v, w)| *v = beta * *v + w);
        }
    }
}

/// [`gemv`] on a column-major `rows x cols` block `a` (leading dimension `rows`).
#[allow(clippy::too_many_arguments)]
fn gemv_slice(
    ta: bool,
    rows: usize,
    cols: usize,
    alpha: f64,
    a: &[f64],
    x: &[f64],
    beta: f64,
    y: &mut [f64],
) {
    let (m, n) = if ta { (cols, rows) } else { (rows, cols) };
    assert_eq!(
        (x.len(), y.len(), a.len()),
        (n, m, rows * cols),
        "gemv: wrong shapes"
    );
    if m == 0 {
        return;
    }
    if n == 0 {
        y.iter_mut().for_each(|v| *v *= beta);
        return;
    }
    // SAFETY: `a` holds rows * cols column-major values with leading dimension rows; the
    // vector lengths match op(a).
    unsafe {
        blas::dgemv(
            if ta { b'T' } else { b'N' },
            rows as i32,
            cols as i32,
            alpha,
            a,
            rows.max(1) as i32,
            x,
            1,
            beta,
            y,
            1,
        )
    };
}

/// Largest and smallest eigenvalues of a symmetric matrix.
pub fn eigen_range(m: &DMatrix<f64>) -> (f64, f64) {
    let ev = m.clone().symmetric_eigenvalues();
    (ev.min(), ev.max())
}

/// Nearest positive semidefinite matrix in Frobenius norm (negative eigenvalues clipped to 0).
pub fn psd_projection(m: &DMatrix<f64>) -> DMatrix<f64> {
    let sym = (m + m.transpose()) * 0.5;
    let eig = sym.symmetric_eigen();
    let clipped = eig.eigenvalues.map(|l| l.max(0.0));
    &eig.eigenvectors * DMatrix::from_diagonal(&clipped) * eig.eigenvectors.transpose()
}

/// `sum_i c_i p_i p_i^T` for the columns `p_i` of `points`.
/// From [`Passes`]' size, the sum of the chunks' scatters in chunk order.
pub fn weighted_scatter(points: &DMatrix<f64>, coeffs: &[f64]) -> DMatrix<f64> {
    let Some(chunks) = passes().chunks(points.ncols(), points.nrows() * points.nrows()) else {
        let mut scaled = points.clone();
        for (mut col, &c) in scaled.column_iter_mut().zip(coeffs) {
            col.scale_mut(c);
        }
        return mul_nt(&scaled, points);
    };
    let scatter = |r: Range<usize>| {
        let cols = points.columns_range(r.clone()).into_owned();
        let mut scaled = cols.clone();
        let c = &coeffs[r.start.min(coeffs.len())..r.end.min(coeffs.len())];
        for (mut col, &c) in scaled.column_iter_mut().zip(c) {
            col.scale_mut(c);
        }
        mul_nt(&scaled, &cols)
    };
    chunked_sum(&chunks, scatter, |t, p| *t += p)
}

/// `p_i^T Z p_i` for the columns `p_i` of `points`. `Z P` is formed in blocks of
/// [`QUAD_BLOCK`] columns into one reused buffer, so that each block's product is still in
/// cache when its dot products read it (at n = 50000, D = 51 the whole product is 20 MB).
pub fn quad_forms(points: &DMatrix<f64>, z: &DMatrix<f64>) -> Vec<f64> {
    let rows = points.nrows();
    assert_eq!(
        z.shape(),
        (rows, rows),
        "quad_forms: Z must be square of the points' size"
    );
    per_point_blocks(points, rows, |block, cols, zp, out| {
        packed_product(false, rows, cols, rows, z.as_slice(), block, zp);
        out.extend(
            block
                .chunks_exact(rows)
                .zip(zp.chunks_exact(rows))
                .map(|(p, q)| p.iter().zip(q).map(|(a, b)| a * b).sum::<f64>()),
        );
    })
}

/// `|F^T p_i|^2` for the columns `p_i` of `points` and a factor `F` (`rows x r`): the quadratic
/// forms of `Z = F F^T` at `r` dot products a point instead of `rows`. `P^T F` is formed in
/// blocks of [`QUAD_BLOCK`] points (the points along the kernel's long side, whatever `r`).
pub fn projected_norms(points: &DMatrix<f64>, factor: &DMatrix<f64>) -> Vec<f64> {
    let (rows, r) = (points.nrows(), factor.ncols());
    assert_eq!(
        factor.nrows(),
        rows,
        "projected_norms: F must have the points' rows"
    );
    per_point_blocks(points, r, |block, cols, pf, out| {
        packed_product(true, cols, r, rows, block, factor.as_slice(), pf);
        out.extend((0..cols).map(|j| (0..r).map(|c| pf[j + c * cols].powi(2)).sum::<f64>()));
    })
}

/// One value per column of `points`, appended by `block(columns, cols, scratch, out)` for
/// blocks of [`QUAD_BLOCK`] columns (`columns` their column-major slice, `scratch` a reused
/// buffer of `width` entries per column), chunked across threads as [`passes`] says (`2 rows
/// width` flops per column). Chunks start at multiples of [`QUAD_BLOCK`]: the same blocks, the
/// same numbers, whatever the number of threads.
fn per_point_blocks(
    points: &DMatrix<f64>,
    width: usize,
    block: impl Fn(&[f64], usize, &mut [f64], &mut Vec<f64>) + Sync,
) -> Vec<f64> {
    let (rows, n) = points.shape();
    if rows == 0 {
        return vec![0.0; n];
    }
    let range = |range: Range<usize>| {
        let (first, n) = (range.start, range.len());
        let mut out = Vec::with_capacity(n);
        let mut scratch = vec![0.0; width * QUAD_BLOCK.min(n)];
        for start in (0..n).step_by(QUAD_BLOCK) {
            let cols = QUAD_BLOCK.min(n - start);
            let columns = &points.as_slice()[(first + start) * rows..(first + start + cols) * rows];
            block(columns, cols, &mut scratch, &mut out);
        }
        out
    };
    match passes().chunks(n, 2 * rows * width) {
        None => range(0..n),
        Some(chunks) => chunks
            .into_par_iter()
            .map(range)
            .collect::<Vec<Vec<f64>>>()
            .concat(),
    }
}

/// Columns per block of [`quad_forms`]: 128 columns of 51 rows are 52 kB (in L2 with the
/// points' block). Measured at D = 51, n = 50000: 4.4 ms per pass against 8.6 ms for the whole
/// product (blocks of 64-256 columns 4.4-4.8 ms, 512-1024 7.9-8.8 ms).
const QUAD_BLOCK: usize = 128;

/// `tr(A B)` for symmetric `A`, `B`.
pub fn trace_product(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    a.component_mul(b).sum()
}

/// True when every entry is finite.
pub fn all_finite<'a>(values: impl IntoIterator<Item = &'a f64>) -> bool {
    values.into_iter().all(|x| x.is_finite())
}

/// The largest factor `s <= first` (tried as `first`, then slightly smaller, geometrically)
/// for which `feasible(s)` holds, or 0. Used to repair a solver's slightly infeasible primal
/// point by shrinking it toward a strictly feasible one: the first guess is exact in exact
/// arithmetic, the retries absorb rounding in the eigenvalue checks.
pub fn verified_shrink(first: f64, feasible: impl Fn(f64) -> bool) -> f64 {
    let mut shrink = first;
    let mut extra = 1e-12;
    for _ in 0..32 {
        if feasible(shrink) {
            return shrink;
        }
        shrink *= 1.0 - extra;
        extra = (extra * 10.0).min(0.5);
    }
    0.0
}

/// `factor * x` for each entry.
pub fn scaled(x: &[f64], factor: f64) -> Vec<f64> {
    x.iter().map(|v| v * factor).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_and_syrk_matches_product() {
        let a = DMatrix::from_fn(7, 4, |i, j| {
            ((i * 3 + j * 5) % 7) as f64 - 2.5 + (i == j) as u8 as f64
        });
        let mut c = DMatrix::identity(4, 4);
        syrk(&a, true, 1.0, 1.0, &mut c);
        let expect = a.transpose() * &a + DMatrix::identity(4, 4);
        assert!((&c - &expect).norm() < 1e-12);
        let chol = Cholesky::new(c.clone()).expect("positive definite");
        let x = chol.solve(&[1.0, 2.0, 3.0, 4.0]);
        let r = &c * nalgebra::DVector::from_vec(x)
            - nalgebra::DVector::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
        assert!(r.norm() < 1e-10);
        assert!(Cholesky::new(-DMatrix::<f64>::identity(3, 3)).is_none());
        let b = DMatrix::from_fn(3, 4, |i, j| (i + 2 * j) as f64);
        assert!((mul_nt(&a, &b) - &a * b.transpose()).norm() < 1e-12);
        let x7 = DMatrix::from_fn(3, 7, |i, j| (i * j) as f64 - 1.5);
        assert!((mul(true, true, &a, &x7) - a.transpose() * x7.transpose()).norm() < 1e-12);
        let mut c2 = DMatrix::from_element(3, 7, 1.0);
        gemm(false, true, 2.0, &b, &a, -1.0, &mut c2);
        assert!(
            (c2 - (&b * a.transpose() * 2.0 - DMatrix::from_element(3, 7, 1.0))).norm() < 1e-12
        );
        let x = [1.0, -2.0, 0.5, 3.0];
        let mut y = vec![1.0; 7];
        gemv(false, 1.0, &a, &x, 2.0, &mut y);
        let expect =
            &a * nalgebra::DVector::from_column_slice(&x) + nalgebra::DVector::from_element(7, 2.0);
        assert!(
            y.iter()
                .zip(expect.iter())
                .all(|(u, v)| (u - v).abs() < 1e-12)
        );
        let mut yt = vec![0.0; 4];
        gemv(true, 1.0, &a, &y, 0.0, &mut yt);
        let expect = a.transpose() * nalgebra::DVector::from_column_slice(&y);
        assert!(
            yt.iter()
                .zip(expect.iter())
                .all(|(u, v)| (u - v).abs() < 1e-9)
        );
    }

    /// The two-halves kernels equal the whole products to rounding (the halves are summed in
    /// another order; BLAS kernels group the columns at block edges differently), for an odd and
    /// an even number of columns; a variant that drops the second half is caught.
    #[test]
    fn halves_match_whole_products() {
        for k in [7, 8] {
            let a = DMatrix::from_fn(5, k, |i, j| {
                ((i * 3 + j * 5) % 7) as f64 - 2.5 + 0.1 * j as f64
            });
            let mut whole = DMatrix::identity(5, 5);
            syrk(&a, false, 1.0, 1.0, &mut whole);
            let halves = identity_plus_syrk_halves(&a);
            assert!((&halves - &whole).norm() < 1e-12, "k = {k}");
            assert!((&halves - halves.transpose()).norm() == 0.0);
            let first = a.columns(0, k / 2).into_owned();
            let mut dropped = DMatrix::identity(5, 5);
            syrk(&first, false, 1.0, 1.0, &mut dropped);
            assert!((&dropped - &whole).norm() > 1.0, "non-vacuity, k = {k}");

            let x: Vec<f64> = (0..k).map(|j| j as f64 - 2.0).collect();
            let (mut y, mut y_halves) = (vec![1.0; 5], vec![1.0; 5]);
            gemv(false, 0.5, &a, &x, -2.0, &mut y);
            gemv_halves(false, 0.5, &a, &x, -2.0, &mut y_halves);
            assert!(y.iter().zip(&y_halves).all(|(u, v)| (u - v).abs() < 1e-12));
            let z = [1.0, -1.0, 2.0, 0.5, 3.0];
            let (mut t, mut t_halves) = (vec![1.0; k], vec![1.0; k]);
            gemv(true, -1.0, &a, &z, 3.0, &mut t);
            gemv_halves(true, -1.0, &a, &z, 3.0, &mut t_halves);
            assert!(t.iter().zip(&t_halves).all(|(u, v)| (u - v).abs() < 1e-12));
        }
    }

    /// `|F^T p_i|^2` equals the quadratic form of `F F^T` at every point, for factors of rank 0
    /// to 3 and more points than one block; dropping a column of `F` is caught.
    #[test]
    fn projected_norms_are_the_quadratic_forms_of_the_factor() {
        let (rows, n) = (11, 3 * QUAD_BLOCK + 5);
        let points = DMatrix::from_fn(rows, n, |i, j| {
            ((i * 7 + j * 13) % 19) as f64 / 19.0 - 0.4 + 0.01 * j as f64
        });
        for r in 0..4 {
            let f = DMatrix::from_fn(rows, r, |i, c| ((i + 3 * c) % 5) as f64 - 1.7);
            let q = projected_norms(&points, &f);
            let expect = quad_forms(&points, &mul_nt(&f, &f));
            assert_eq!(q.len(), n);
            for (a, b) in q.iter().zip(&expect) {
                assert!(
                    (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                    "rank {r}: {a} vs {b}"
                );
            }
            if r > 1 {
                let dropped = projected_norms(&points, &f.columns(0, r - 1).into_owned());
                assert!(
                    dropped
                        .iter()
                        .zip(&expect)
                        .any(|(a, b)| (a - b).abs() > 1e-3),
                    "non-vacuity, rank {r}"
                );
            }
        }
    }

    /// The LAPACK eigenvalue agrees with nalgebra's.
    #[test]
    fn min_eigenvalue_matches_nalgebra() {
        let a = DMatrix::from_fn(9, 9, |i, j| {
            ((i * 7 + j * 3) % 11) as f64 - 5.0 + 0.3 * (i == j) as u8 as f64
        });
        let sym = &a + a.transpose();
        let expect = sym.clone().symmetric_eigenvalues().min();
        assert!(
            (min_eigenvalue(&sym) - expect).abs() < 1e-10,
            "{} vs {expect}",
            min_eigenvalue(&sym)
        );
        assert!(min_eigenvalue(&DMatrix::from_element(2, 2, f64::NAN)).is_nan());
    }
}

#[cfg(test)]
mod chunked_tests {
    use super::*;

    /// Values of mixed magnitudes and signs, whose floating-point sum depends on the grouping.
    fn mixed(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let t = (i as f64 * 0.618_033_988_749_895).fract();
                (t - 0.5) * 10f64.powi((i % 17) as i32 - 8)
            })
            .collect()
    }

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// Non-vacuity of the chunked passes: rayon's own `sum` of the same values depends on the
    /// number of threads (its splits follow the pool), the chunked passes do not.
    #[test]
    fn chunked_passes_do_not_depend_on_the_thread_count_where_a_naive_sum_does() {
        let n = 117 * Passes::DEFAULT.chunk + 77;
        let v = mixed(n);
        let naive: Vec<f64> = (1..=4)
            .map(|t| pool(t).install(|| v.par_iter().sum::<f64>()))
            .collect();
        assert!(
            naive.iter().any(|s| s.to_bits() != naive[0].to_bits()),
            "rayon's sum happened to agree on every pool: {naive:?}"
        );
        let rows = 40;
        let points = DMatrix::from_fn(rows, n, |r, c| v[(c + 31 * r) % n]);
        let x = mixed(rows);
        let before = chunked_passes();
        let run = || {
            let scatter = weighted_scatter(&points, &v);
            let mut y = vec![1.0; rows];
            gemv(false, 0.5, &points, &v, 2.0, &mut y);
            let mut yt = vec![0.0; n];
            gemv(true, 1.0, &points, &x, 0.0, &mut yt);
            let forms = quad_forms(&points, &DMatrix::from_fn(rows, rows, |i, j| v[i + 5 * j]));
            let inner = identity_plus_syrk(&points);
            let norms = projected_norms(&points, &DMatrix::from_fn(rows, 2, |i, j| v[i + 7 * j]));
            (scatter, y, yt, forms, inner, norms)
        };
        let one = pool(1).install(run);
        assert!(
            chunked_passes() >= before + 6,
            "the passes were not chunked"
        );
        for t in 2..=4 {
            let other = pool(t).install(run);
            assert_eq!(format!("{one:?}"), format!("{other:?}"), "{t} threads");
        }
        // Per-point outputs are the numbers of one block at a time (each call below the
        // chunking threshold).
        let z = DMatrix::from_fn(rows, rows, |i, j| v[i + 5 * j]);
        let f = DMatrix::from_fn(rows, 2, |i, j| v[i + 7 * j]);
        let (mut forms, mut norms) = (Vec::new(), Vec::new());
        for start in (0..n).step_by(QUAD_BLOCK) {
            let block = points
                .columns(start, QUAD_BLOCK.min(n - start))
                .into_owned();
            forms.extend(quad_forms(&block, &z));
            norms.extend(projected_norms(&block, &f));
        }
        assert_eq!(one.3, forms);
        assert_eq!(one.5, norms);
        // The chunked sums agree with the unchunked ones to rounding.
        let mut scaled = points.clone();
        for (mut col, &c) in scaled.column_iter_mut().zip(&v) {
            col.scale_mut(c);
        }
        let plain = mul_nt(&scaled, &points);
        assert!((&plain - &one.0).amax() <= 1e-12 * plain.amax());
    }
}
