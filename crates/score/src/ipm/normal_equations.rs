//! The normal equations `G^T (W^T W)^{-1} G dx = rhs` of the Newton step: the weight block as
//! diagonal plus low rank, solved by Woodbury or dense Cholesky, the free variables by bordering.
use super::IpmSettings;
use super::problem::{ConeVec, Problem, XVec, axpyv, sym};
use super::scaling::Scaling;
use crate::dense::quad_forms;
use crate::dense::{Cholesky, gemv, gemv_halves, identity_plus_syrk_halves, mul, syrk};
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
    /// `M_aa` and its dense Cholesky factor.
    Dense(DMatrix<f64>, Cholesky),
    /// `M_aa = Dg + F^T F = Dg^{1/2} (I + Fs^T Fs) Dg^{1/2}`: `Fs = F Dg^{-1/2}` (`m x N`),
    /// `sqrt(Dg)`, and the factor of `I + Fs Fs^T`.
    Woodbury {
        fs: DMatrix<f64>,
        sqrt_dg: Vec<f64>,
        inner: Cholesky,
        /// The products with `Fs` run as two column halves on rayon's threads
        /// ([`IpmSettings::split_flops`]).
        split: bool,
    },
}

/// `y = alpha op(Fs) x + beta y`, in two halves when `split`.
fn fs_gemv(
    split: bool,
    ta: bool,
    alpha: f64,
    fs: &DMatrix<f64>,
    x: &[f64],
    beta: f64,
    y: &mut [f64],
) {
    if split {
        gemv_halves(ta, alpha, fs, x, beta, y);
    } else {
        gemv(ta, alpha, fs, x, beta, y);
    }
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
        let aa = if n > m_total {
            // Woodbury: rows of F are svec(P_i P_i^T) for each block, then sqrt(d_j) g_j 1^T;
            // each column i is scaled by 1 / sqrt(Dg_i) as it is written.
            let sqrt_dg: Vec<f64> = dg.iter().map(|d| d.sqrt()).collect();
            let split = (m_total * m_total * n) as f64 >= settings.split_flops;
            let mut fs = DMatrix::zeros(m_total, n);
            let write = |i: usize, out: &mut [f64]| {
                let inv = 1.0 / sqrt_dg[i];
                let mut r = 0;
                for p in &scaled {
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
                for (j, row) in problem.rows.iter().enumerate() {
                    out[r + j] = inv * d_row[j].sqrt() * row.a_coeff;
                }
            };
            if split && m_total > 0 {
                fs.as_mut_slice()
                    .par_chunks_mut(m_total)
                    .enumerate()
                    .for_each(|(i, out)| write(i, out));
            } else {
                for (i, mut out) in fs.column_iter_mut().enumerate() {
                    write(i, out.as_mut_slice());
                }
            }
            let inner = if split {
                identity_plus_syrk_halves(&fs)
            } else {
                let mut inner = DMatrix::identity(m_total, m_total);
                syrk(&fs, false, 1.0, 1.0, &mut inner);
                inner
            };
            AaSolver::Woodbury {
                fs,
                sqrt_dg,
                inner: Cholesky::new(inner)?,
                split,
            }
        } else {
            // `M_aa = Dg + sum_b (P_b^T P_b)∘(P_b^T P_b) + sum_j d_j g_j^2 1 1^T`, built in
            // place (`N x N` temporaries would dominate the iteration).
            let mut m = DMatrix::zeros(n, n);
            let mut gram = DMatrix::zeros(n, n);
            for p in &scaled {
                syrk(p, true, 1.0, 0.0, &mut gram);
                m.zip_apply(&gram, |mi, g| *mi += g * g);
            }
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
            let chol = Cholesky::new(m.clone())?;
            AaSolver::Dense(m, chol)
        };
        let mut normal = Normal {
            aa,
            m_at: DMatrix::zeros(n, k),
            m_tt: DMatrix::zeros(k, k),
            aa_inv_at: DMatrix::zeros(n, k),
            schur_t: None,
        };
        if k > 0 {
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
            AaSolver::Dense(_, chol) => chol.solve_in_place(rhs),
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
            AaSolver::Dense(_, chol) => {
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
                let mut u = vec![0.0; fs.nrows()];
                fs_gemv(*split, false, 1.0, fs, rhs, 0.0, &mut u);
                let u = inner.solve(&u);
                fs_gemv(*split, true, -1.0, fs, &u, 1.0, rhs);
                rhs.iter_mut().zip(sqrt_dg).for_each(|(x, s)| *x /= s);
            }
        }
    }

    /// `M [da; dt]` with the unfactored matrix.
    pub(super) fn apply(&self, x: &XVec) -> XVec {
        let dt = DVector::from_column_slice(&x.t);
        let mut ya = match &self.aa {
            AaSolver::Dense(m, _) => {
                let mut y = vec![0.0; x.a.len()];
                gemv(false, 1.0, m, &x.a, 0.0, &mut y);
                y
            }
            AaSolver::Woodbury {
                fs, sqrt_dg, split, ..
            } => {
                // Dg^{1/2} (I + Fs^T Fs) Dg^{1/2} da.
                let mut y: Vec<f64> = x.a.iter().zip(sqrt_dg).map(|(v, s)| v * s).collect();
                let mut fx = vec![0.0; fs.nrows()];
                fs_gemv(*split, false, 1.0, fs, &y, 0.0, &mut fx);
                fs_gemv(*split, true, 1.0, fs, &fx, 1.0, &mut y);
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
