//! The normal equations `G^T (W^T W)^{-1} G dx = rhs` of the Newton step: the weight block as
//! diagonal plus low rank, solved by Woodbury or dense Cholesky, the free variables by bordering.
//!
//! Memory: with `N` free weights and rank `m`, the Woodbury factor `Fs` is `m x N` and the dense
//! block `N x N`. Each is kept whole only up to [`IpmSettings::stored_entries`] entries; beyond
//! it the products run through the scaled points `P_b` (`p_b x N`) themselves ([`Streamed`]),
//! so a solve holds one `min(N, m)`-square factor and `O(N p)` besides.
use super::IpmSettings;
use super::problem::{ConeVec, Problem, XVec, axpyv, sym};
use super::scaling::Scaling;
use crate::dense::quad_forms;
use crate::dense::{
    Cholesky, gemv, gemv_halves, identity_plus_syrk, identity_plus_syrk_halves, mul, passes, syrk,
    weighted_scatter,
};
use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

/// The factored normal equations `G^T (W^T W)^{-1} G`.
pub(super) struct Normal {
    aa: AaSolver,
    /// `M_at` (`N x K`), `M_aa^{-1} M_at`, and the Cholesky factor of the bordered Schur
    /// complement `M_tt - M_at^T M_aa^{-1} M_at`.
    pub(super) m_at: DMatrix<f64>,
    pub(super) m_tt: DMatrix<f64>,
    pub(super) aa_inv_at: DMatrix<f64>,
    pub(super) schur_t: Option<Cholesky>,
}

enum AaSolver {
    /// `M_aa = Dg + sum_b (P_b^T P_b)∘(P_b^T P_b) + rows 1 1^T`: its dense Cholesky factor and,
    /// for the products of the iterative refinement, `M_aa` itself when it has at most
    /// [`IpmSettings::stored_entries`] entries, else its structure.
    Dense {
        kept: Option<DMatrix<f64>>,
        chol: Cholesky,
        structure: Streamed,
        dg: Vec<f64>,
    },
    /// `M_aa = Dg + F^T F = Dg^{1/2} (I + Fs^T Fs) Dg^{1/2}`: `Fs = F Dg^{-1/2}` (`m x N`),
    /// `sqrt(Dg)`, and the factor of `I + Fs Fs^T`.
    Woodbury {
        fs: Factor,
        sqrt_dg: Vec<f64>,
        inner: Cholesky,
        /// The products with a stored `Fs` run as two column halves on rayon's threads
        /// ([`IpmSettings::split_flops`]).
        split: bool,
    },
}

/// The Woodbury factor `Fs`: its structure, and `Fs` itself when it has at most
/// [`IpmSettings::stored_entries`] entries.
struct Factor {
    stored: Option<DMatrix<f64>>,
    structure: Streamed,
}

/// The low-rank part of the weight block from its definition: column `i` of `Fs` is
/// `c_i [svec(p_{b,i} p_{b,i}^T) for each block b; sqrt(d_j) g_j for each row j]` with
/// `p_{b,i}` the scaled points (columns of `P_b`) and `c_i = 1 / sqrt(Dg_i)` (1 for the dense
/// block's `F`). So `Fs y = [svec(P_b diag(c∘y) P_b^T); sqrt(d_j) g_j sum_i c_i y_i]` and
/// `(Fs^T u)_i = c_i (sum_b p_{b,i}^T smat(u_b) p_{b,i} + sum_j sqrt(d_j) g_j u_j)`
/// (`svec(A) . svec(B) = tr(A B)`): `O(N p^2)` flops a product, no `m x N` array.
struct Streamed {
    scaled: Vec<DMatrix<f64>>,
    /// `(sqrt(d_j), g_j)` for each linear row.
    row_coeffs: Vec<(f64, f64)>,
    /// `c_i`.
    column_scale: Vec<f64>,
}

impl Streamed {
    fn m(&self) -> usize {
        self.scaled
            .iter()
            .map(|p| svec_len(p.nrows()))
            .sum::<usize>()
            + self.row_coeffs.len()
    }

    /// `y = alpha op(Fs) x + beta y`.
    fn gemv(&self, ta: bool, alpha: f64, x: &[f64], beta: f64, y: &mut [f64]) {
        if beta == 0.0 {
            y.fill(0.0);
        } else {
            y.iter_mut().for_each(|v| *v *= beta);
        }
        if ta {
            // x has length m, y length N.
            let mut r = 0;
            let mut forms = vec![0.0; y.len()];
            for p in &self.scaled {
                let side = p.nrows();
                let u = smat_of_svec(side, &x[r..r + svec_len(side)]);
                for (f, q) in forms.iter_mut().zip(quad_forms(p, &u)) {
                    *f += q;
                }
                r += svec_len(side);
            }
            let rows: f64 = self
                .row_coeffs
                .iter()
                .zip(&x[r..])
                .map(|((s, g), u)| s * g * u)
                .sum();
            for ((v, f), c) in y.iter_mut().zip(&forms).zip(&self.column_scale) {
                *v += alpha * c * (f + rows);
            }
        } else {
            // x has length N, y length m.
            let weights: Vec<f64> = x
                .iter()
                .zip(&self.column_scale)
                .map(|(v, c)| alpha * v * c)
                .collect();
            let mut r = 0;
            for p in &self.scaled {
                let side = p.nrows();
                let a = weighted_scatter(p, &weights);
                for (out, v) in y[r..r + svec_len(side)].iter_mut().zip(svec_of(&a)) {
                    *out += v;
                }
                r += svec_len(side);
            }
            let total: f64 = weights.iter().sum();
            for (out, (s, g)) in y[r..].iter_mut().zip(&self.row_coeffs) {
                *out += s * g * total;
            }
        }
    }

    /// Column `i` of `Fs` into `out` (length `m`).
    fn write_column(&self, i: usize, out: &mut [f64]) {
        let inv = self.column_scale[i];
        let mut r = 0;
        for p in &self.scaled {
            let col = p.column(i);
            let col = col.as_slice();
            for c in 0..col.len() {
                let vc = inv * col[c];
                for x in &col[..c] {
                    out[r] = std::f64::consts::SQRT_2 * x * vc;
                    r += 1;
                }
                out[r] = col[c] * vc;
                r += 1;
            }
        }
        for (j, (s, g)) in self.row_coeffs.iter().enumerate() {
            out[r + j] = inv * s * g;
        }
    }

    /// `I + Fs Fs^T`, accumulated from `columns` columns of `Fs` at a time (each block formed on
    /// rayon's threads, multiplied by single-threaded BLAS).
    fn identity_plus_gram(&self, columns: usize) -> DMatrix<f64> {
        let (m, n) = (self.m(), self.column_scale.len());
        let mut inner = DMatrix::identity(m, m);
        let columns = columns.max(1);
        for start in (0..n).step_by(columns) {
            let cols = columns.min(n - start);
            let mut block = DMatrix::zeros(m, cols);
            block
                .as_mut_slice()
                .par_chunks_mut(m.max(1))
                .enumerate()
                .for_each(|(c, out)| self.write_column(start + c, out));
            syrk(&block, false, 1.0, 1.0, &mut inner);
        }
        inner
    }
}

impl AaSolver {
    /// The scaled points `P_b` of the blocks with weights.
    fn scaled(&self) -> &[DMatrix<f64>] {
        match self {
            AaSolver::Dense { structure, .. } => &structure.scaled,
            AaSolver::Woodbury { fs, .. } => &fs.structure.scaled,
        }
    }
}

impl Factor {
    /// `y = alpha op(Fs) x + beta y`, a stored `Fs` in two halves when `split`.
    fn gemv(&self, split: bool, ta: bool, alpha: f64, x: &[f64], beta: f64, y: &mut [f64]) {
        match &self.stored {
            Some(fs) if split => gemv_halves(ta, alpha, fs, x, beta, y),
            Some(fs) => gemv(ta, alpha, fs, x, beta, y),
            None => self.structure.gemv(ta, alpha, x, beta, y),
        }
    }

    fn rank(&self) -> usize {
        self.structure.m()
    }
}

/// The symmetric matrix `U` with `svec(U) = v` (column-major upper triangle, off-diagonal
/// entries scaled by `sqrt(2)`, the layout of [`Streamed::write_column`]).
fn smat_of_svec(side: usize, v: &[f64]) -> DMatrix<f64> {
    let mut u = DMatrix::zeros(side, side);
    let mut r = 0;
    for c in 0..side {
        for x in 0..c {
            let w = v[r] / std::f64::consts::SQRT_2;
            u[(x, c)] = w;
            u[(c, x)] = w;
            r += 1;
        }
        u[(c, c)] = v[r];
        r += 1;
    }
    u
}

/// `svec(A)` in the layout of [`smat_of_svec`].
fn svec_of(a: &DMatrix<f64>) -> Vec<f64> {
    let side = a.nrows();
    let mut out = Vec::with_capacity(svec_len(side));
    for c in 0..side {
        for x in 0..c {
            out.push(std::f64::consts::SQRT_2 * a[(x, c)]);
        }
        out.push(a[(c, c)]);
    }
    out
}

impl Normal {
    pub(super) fn new(
        problem: &Problem,
        scaling: &Scaling,
        s: &ConeVec,
        z: &ConeVec,
        settings: &IpmSettings,
    ) -> Option<Self> {
        let n = problem.n();
        let k = problem.k();
        let dg: Vec<f64> = (0..n)
            .map(|i| z.lo[i] / s.lo[i] + z.up[i] / s.up[i])
            .collect();
        let d_row: Vec<f64> = z.row.iter().zip(&s.row).map(|(z, s)| z / s).collect();
        // Blocks without weights contribute nothing to the weight block.
        let scaled: Vec<DMatrix<f64>> = problem
            .blocks
            .iter()
            .zip(&scaling.blocks)
            .filter(|(b, _)| b.has_weights())
            .map(|(b, nt)| mul(false, false, &nt.r_inv, b.points.as_ref()))
            .collect();
        let m_total: usize =
            scaled.iter().map(|p| svec_len(p.nrows())).sum::<usize>() + problem.rows.len();
        let row_coeffs: Vec<(f64, f64)> = problem
            .rows
            .iter()
            .zip(&d_row)
            .map(|(row, d)| (d.sqrt(), row.a_coeff))
            .collect();
        let aa = if n > m_total {
            // Woodbury: rows of F are svec(P_i P_i^T) for each block, then sqrt(d_j) g_j 1^T;
            // each column i is scaled by 1 / sqrt(Dg_i) as it is written.
            let sqrt_dg: Vec<f64> = dg.iter().map(|d| d.sqrt()).collect();
            let streamed = Streamed {
                scaled,
                row_coeffs,
                column_scale: sqrt_dg.iter().map(|s| 1.0 / s).collect(),
            };
            let split = (m_total * m_total * n) as f64 >= settings.split_flops;
            let (stored, inner) = if m_total * n <= settings.stored_entries {
                let mut fs = DMatrix::zeros(m_total, n);
                if (split || n >= passes().min_points) && m_total > 0 {
                    // One column per weight: the same numbers on any number of threads.
                    fs.as_mut_slice()
                        .par_chunks_mut(m_total)
                        .enumerate()
                        .for_each(|(i, out)| streamed.write_column(i, out));
                } else {
                    for (i, mut out) in fs.column_iter_mut().enumerate() {
                        streamed.write_column(i, out.as_mut_slice());
                    }
                }
                let inner = if split {
                    identity_plus_syrk_halves(&fs)
                } else {
                    identity_plus_syrk(&fs)
                };
                (Some(fs), inner)
            } else {
                (None, streamed.identity_plus_gram(settings.stream_columns))
            };
            AaSolver::Woodbury {
                fs: Factor {
                    stored,
                    structure: streamed,
                },
                sqrt_dg,
                inner: Cholesky::new(inner)?,
                split,
            }
        } else {
            // `M_aa = Dg + sum_b (P_b^T P_b)∘(P_b^T P_b) + sum_j d_j g_j^2 1 1^T`, built in
            // place (`N x N` temporaries would dominate the iteration): the first block's Gram
            // matrix is squared where it lies, later blocks' through one temporary.
            let mut m = DMatrix::zeros(n, n);
            let mut gram = None;
            for (b, p) in scaled.iter().enumerate() {
                if b == 0 {
                    syrk(p, true, 1.0, 0.0, &mut m);
                    m.apply(|g| *g *= *g);
                } else {
                    let gram = gram.get_or_insert_with(|| DMatrix::zeros(n, n));
                    syrk(p, true, 1.0, 0.0, gram);
                    m.zip_apply(gram, |mi, g| *mi += g * g);
                }
            }
            drop(gram);
            let rows: f64 = problem
                .rows
                .iter()
                .zip(&d_row)
                .map(|(row, d)| d * row.a_coeff * row.a_coeff)
                .sum();
            m.add_scalar_mut(rows);
            for (i, d) in dg.iter().enumerate() {
                m[(i, i)] += d;
            }
            let (kept, chol) = if n * n <= settings.stored_entries {
                (Some(m.clone()), Cholesky::new(m)?)
            } else {
                (None, Cholesky::new(m)?)
            };
            AaSolver::Dense {
                kept,
                chol,
                structure: Streamed {
                    scaled,
                    row_coeffs,
                    column_scale: vec![1.0; n],
                },
                dg,
            }
        };
        let mut normal = Normal {
            aa,
            m_at: DMatrix::zeros(n, k),
            m_tt: DMatrix::zeros(k, k),
            aa_inv_at: DMatrix::zeros(n, k),
            schur_t: None,
        };
        if k > 0 {
            let scaled = normal.aa.scaled();
            let mut m_at = DMatrix::zeros(n, k);
            let mut m_tt = DMatrix::zeros(k, k);
            let t_scaled: Vec<Vec<DMatrix<f64>>> = problem
                .blocks
                .iter()
                .zip(&scaling.blocks)
                .map(|(b, nt)| {
                    b.extra
                        .iter()
                        .map(|t| sym(&nt.r_inv * t * nt.r_inv.transpose()))
                        .collect()
                })
                .collect();
            for kk in 0..k {
                let mut col: Vec<f64> = vec![0.0; n];
                let weighted = problem
                    .blocks
                    .iter()
                    .zip(&t_scaled)
                    .filter(|(b, _)| b.has_weights());
                for (p, (b, ts)) in scaled.iter().zip(weighted) {
                    for (c, q) in col.iter_mut().zip(quad_forms(p, &ts[kk])) {
                        *c += b.sign * q;
                    }
                }
                let row_part: f64 = problem
                    .rows
                    .iter()
                    .zip(&d_row)
                    .map(|(r, d)| d * r.a_coeff * r.extra[kk])
                    .sum();
                for (i, c) in col.iter().enumerate() {
                    m_at[(i, kk)] = c + row_part;
                }
                for l in 0..k {
                    m_tt[(kk, l)] = t_scaled.iter().map(|ts| ts[kk].dot(&ts[l])).sum::<f64>()
                        + problem
                            .rows
                            .iter()
                            .zip(&d_row)
                            .map(|(r, d)| d * r.extra[kk] * r.extra[l])
                            .sum::<f64>();
                }
            }
            let mut aa_inv_at = m_at.clone();
            normal.solve_aa(&mut aa_inv_at);
            let schur = &m_tt - m_at.tr_mul(&aa_inv_at);
            normal.schur_t = Some(Cholesky::new(sym(schur))?);
            normal.m_tt = m_tt;
            normal.m_at = m_at;
            normal.aa_inv_at = aa_inv_at;
        }
        Some(normal)
    }

    /// `M_aa^{-1} R` in place.
    pub(super) fn solve_aa(&self, rhs: &mut DMatrix<f64>) {
        match &self.aa {
            AaSolver::Dense { chol, .. } => chol.solve_in_place(rhs),
            AaSolver::Woodbury { .. } => {
                for mut col in rhs.column_iter_mut() {
                    self.solve_aa_vec(col.as_mut_slice());
                }
            }
        }
    }

    /// `M_aa^{-1} r` in place for one right-hand side.
    pub(super) fn solve_aa_vec(&self, rhs: &mut [f64]) {
        match &self.aa {
            AaSolver::Dense { chol, .. } => {
                let x = chol.solve(rhs);
                rhs.copy_from_slice(&x);
            }
            AaSolver::Woodbury {
                fs,
                sqrt_dg,
                inner,
                split,
            } => {
                // Dg^{-1/2} (y - Fs^T (I + Fs Fs^T)^{-1} Fs y), y = Dg^{-1/2} r.
                rhs.iter_mut().zip(sqrt_dg).for_each(|(x, s)| *x /= s);
                let mut u = vec![0.0; fs.rank()];
                fs.gemv(*split, false, 1.0, rhs, 0.0, &mut u);
                let u = inner.solve(&u);
                fs.gemv(*split, true, -1.0, &u, 1.0, rhs);
                rhs.iter_mut().zip(sqrt_dg).for_each(|(x, s)| *x /= s);
            }
        }
    }

    /// `M [da; dt]` with the unfactored matrix.
    pub(super) fn apply(&self, x: &XVec) -> XVec {
        let dt = DVector::from_column_slice(&x.t);
        let mut ya = match &self.aa {
            AaSolver::Dense { kept: Some(m), .. } => {
                let mut y = vec![0.0; x.a.len()];
                gemv(false, 1.0, m, &x.a, 0.0, &mut y);
                y
            }
            AaSolver::Dense {
                kept: None,
                structure,
                dg,
                ..
            } => {
                // (F^T F + Dg) da with the unit-scaled F of the structure.
                let mut fx = vec![0.0; structure.m()];
                structure.gemv(false, 1.0, &x.a, 0.0, &mut fx);
                let mut y: Vec<f64> = x.a.iter().zip(dg).map(|(v, d)| v * d).collect();
                structure.gemv(true, 1.0, &fx, 1.0, &mut y);
                y
            }
            AaSolver::Woodbury {
                fs, sqrt_dg, split, ..
            } => {
                // Dg^{1/2} (I + Fs^T Fs) Dg^{1/2} da.
                let mut y: Vec<f64> = x.a.iter().zip(sqrt_dg).map(|(v, s)| v * s).collect();
                let mut fx = vec![0.0; fs.rank()];
                fs.gemv(*split, false, 1.0, &y, 0.0, &mut fx);
                fs.gemv(*split, true, 1.0, &fx, 1.0, &mut y);
                y.iter_mut().zip(sqrt_dg).for_each(|(v, s)| *v *= s);
                y
            }
        };
        if !x.t.is_empty() {
            gemv(false, 1.0, &self.m_at, &x.t, 1.0, &mut ya);
        }
        let mut yt = vec![0.0; x.t.len()];
        gemv(true, 1.0, &self.m_at, &x.a, 0.0, &mut yt);
        let yt = DVector::from_vec(yt) + &self.m_tt * &dt;
        XVec {
            a: ya,
            t: yt.as_slice().to_vec(),
        }
    }

    /// Solve the bordered system for `(da, dt)`, with iterative refinement against the
    /// unfactored matrix (the Woodbury form loses digits when `Dg` spans many decades). The
    /// refinement stops when the residual is at rounding level or no longer halves (as
    /// LAPACK's refinement does: further steps only repeat the rounding of the residual).
    pub(super) fn solve(&self, ra: &[f64], rt: &[f64], settings: &IpmSettings) -> XVec {
        let mut x = self.solve_once(ra, rt);
        let norm = ra.iter().chain(rt).fold(0.0f64, |m, v| m.max(v.abs()));
        let mut last = f64::INFINITY;
        for _ in 0..settings.refinement_steps {
            let mx = self.apply(&x);
            let res_a: Vec<f64> = ra.iter().zip(&mx.a).map(|(r, m)| r - m).collect();
            let res_t: Vec<f64> = rt.iter().zip(&mx.t).map(|(r, m)| r - m).collect();
            let res = res_a
                .iter()
                .chain(&res_t)
                .fold(0.0f64, |m, v| m.max(v.abs()));
            if !(res > settings.refinement_tol * norm) || res > 0.5 * last {
                break;
            }
            last = res;
            let c = self.solve_once(&res_a, &res_t);
            axpyv(&mut x.a, 1.0, &c.a);
            axpyv(&mut x.t, 1.0, &c.t);
        }
        x
    }

    pub(super) fn solve_once(&self, ra: &[f64], rt: &[f64]) -> XVec {
        let mut y = ra.to_vec();
        self.solve_aa_vec(&mut y);
        let Some(schur) = &self.schur_t else {
            return XVec { a: y, t: vec![] };
        };
        let mut rhs_t = rt.to_vec();
        gemv(true, -1.0, &self.m_at, &y, 1.0, &mut rhs_t);
        let dt = schur.solve(&rhs_t);
        gemv(false, -1.0, &self.aa_inv_at, &dt, 1.0, &mut y);
        XVec { a: y, t: dt }
    }
}

fn svec_len(p: usize) -> usize {
    p * (p + 1) / 2
}
