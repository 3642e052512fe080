//! A primal-dual interior-point method for the small SDPs behind the scores (MATH.md 3.2):
//!
//! ```text
//! minimise   cost_a * sum_i a_i + sum_k cost_k t_k
//! subject to 0 <= a_i <= u_i,
//!            h_j - g_j * sum_i a_i - sum_k e_jk t_k >= 0                 (a few linear rows)
//!            C_b - sign_b * sum_i a_i w_bi w_bi^T - sum_k t_k T_bk ⪰ 0   (LMI blocks, p_b x p_b)
//! ```
//!
//! with many weights `a` whose coefficient in every LMI is rank one, and a few free
//! variables `t`. CM is one block and no `t`; SP is two blocks, one `t` and one row.
//!
//! The method is the standard infeasible primal-dual path-following method with
//! Nesterov–Todd scaling and Mehrotra's predictor-corrector (as in CVXOPT's `coneqp`,
//! without the homogeneous embedding: the problems here are always feasible and bounded).
//! Writing the constraints as `G x + s = h`, `s, z` in the cone, the Newton step reduces to
//! the normal equations `G^T (W^T W)^{-1} G dx = rhs`, whose weight block is
//!
//! ```text
//! M_aa = Dg + sum_b (P_b^T P_b)∘(P_b^T P_b) + sum_j d_j g_j^2 1 1^T,   P_b = R_b^{-1} W_b,
//! ```
//!
//! `Dg` diagonal (box duals over slacks) and `R_b` the NT scaling of block `b`
//! (`R^T Z R = R^{-1} S R^{-T} = Lambda`). `M_aa` is diagonal plus rank `m = sum_b p_b(p_b+1)/2`
//! (plus rows): it is solved by Woodbury when the number of weights exceeds `m`, and by a
//! dense Cholesky factorisation otherwise. The free variables are eliminated by bordering.
//!
//! Nothing here is trusted: the callers certify every answer with the backend-independent
//! brackets of [`crate::cm`] and [`crate::sp`].
use crate::dense::quad_forms;
use crate::dense::{Cholesky, gemv, min_eigenvalue, mul, syrk};
use nalgebra::{DMatrix, DVector};
use std::borrow::Cow;

/// One LMI block `C - sign * sum_i a_i w_i w_i^T - sum_k t_k T_k ⪰ 0`.
#[derive(Clone, Debug)]
pub struct LmiBlock<'a> {
    pub constant: DMatrix<f64>,
    /// `+1` (packing: weights use up the block) or `-1` (covering).
    pub sign: f64,
    /// The vectors `w_i` as columns (`p x N`), borrowed for a full problem, owned for a
    /// reduced one; `p x 0` for a block without weights (e.g. a ball on the free variables).
    pub points: Cow<'a, DMatrix<f64>>,
    /// `T_k` for each free variable (`p x p` each).
    pub extra: Vec<DMatrix<f64>>,
}

/// A linear row `h - a_coeff * sum_i a_i - sum_k extra_k t_k >= 0`.
#[derive(Clone, Debug)]
pub struct LinearRow {
    pub h: f64,
    pub a_coeff: f64,
    pub extra: Vec<f64>,
}

/// The problem of the module doc.
#[derive(Clone, Debug)]
pub struct Problem<'a> {
    /// Box caps `u_i > 0`, one per weight.
    pub upper: Cow<'a, [f64]>,
    /// Cost of each weight (the same for all).
    pub cost_a: f64,
    /// Cost of each free variable.
    pub cost_extra: Vec<f64>,
    pub blocks: Vec<LmiBlock<'a>>,
    pub rows: Vec<LinearRow>,
}

/// Stopping rules.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Absolute duality gap `s^T z` at which to stop (objective units).
    pub gap_tol: f64,
    /// Relative primal and dual residuals at which to stop.
    pub feas_tol: f64,
    pub max_iter: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            gap_tol: 1e-9,
            feas_tol: 1e-9,
            max_iter: 80,
        }
    }
}

/// How the solve ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    Converged,
    /// The caller's progress callback asked to stop.
    Stopped,
    MaxIterations,
    /// Progress stopped (iteration limit, loss of accuracy or a numerical failure) after an
    /// accurate iterate was reached: the solution is the accurate iterate with the smallest gap.
    Stalled,
    /// A scaling or Newton matrix lost positive definiteness.
    NumericalError,
}

/// Iterate and duals at the end of a solve.
#[derive(Clone, Debug)]
pub struct Solution {
    pub a: Vec<f64>,
    pub extra: Vec<f64>,
    /// Dual matrix `Z_b` of each LMI block.
    pub block_duals: Vec<DMatrix<f64>>,
    /// Dual of each linear row.
    pub row_duals: Vec<f64>,
    pub primal_objective: f64,
    pub dual_objective: f64,
    pub iterations: usize,
    pub termination: Termination,
}

/// What the progress callback sees after each iteration.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub iteration: usize,
    pub primal_objective: f64,
    pub dual_objective: f64,
    pub gap: f64,
    pub primal_residual: f64,
    pub dual_residual: f64,
}

/// A point of the primal space: weights and free variables.
#[derive(Clone, Debug)]
struct XVec {
    a: Vec<f64>,
    t: Vec<f64>,
}

/// A point of the cone space: lower box, upper box, rows, blocks.
#[derive(Clone, Debug)]
struct ConeVec {
    lo: Vec<f64>,
    up: Vec<f64>,
    row: Vec<f64>,
    blk: Vec<DMatrix<f64>>,
}

impl ConeVec {
    fn dot(&self, other: &ConeVec) -> f64 {
        dotv(&self.lo, &other.lo)
            + dotv(&self.up, &other.up)
            + dotv(&self.row, &other.row)
            + self
                .blk
                .iter()
                .zip(&other.blk)
                .map(|(a, b)| a.dot(b))
                .sum::<f64>()
    }

    fn axpy(&mut self, alpha: f64, x: &ConeVec) {
        axpyv(&mut self.lo, alpha, &x.lo);
        axpyv(&mut self.up, alpha, &x.up);
        axpyv(&mut self.row, alpha, &x.row);
        for (a, b) in self.blk.iter_mut().zip(&x.blk) {
            *a += b * alpha;
        }
    }

    fn max_abs(&self) -> f64 {
        let v = self
            .lo
            .iter()
            .chain(&self.up)
            .chain(&self.row)
            .fold(0.0f64, |m, x| m.max(x.abs()));
        self.blk.iter().fold(v, |m, b| m.max(b.amax()))
    }

    /// Apply one map to the scalar parts and another to the blocks, index-aware.
    fn map(
        &self,
        nn: impl Fn(Part, usize, f64) -> f64,
        psd: impl Fn(usize, &DMatrix<f64>) -> DMatrix<f64>,
    ) -> ConeVec {
        ConeVec {
            lo: self
                .lo
                .iter()
                .enumerate()
                .map(|(i, &x)| nn(Part::Lo, i, x))
                .collect(),
            up: self
                .up
                .iter()
                .enumerate()
                .map(|(i, &x)| nn(Part::Up, i, x))
                .collect(),
            row: self
                .row
                .iter()
                .enumerate()
                .map(|(i, &x)| nn(Part::Row, i, x))
                .collect(),
            blk: self
                .blk
                .iter()
                .enumerate()
                .map(|(b, m)| psd(b, m))
                .collect(),
        }
    }

    fn scalar(&self, part: Part, i: usize) -> f64 {
        match part {
            Part::Lo => self.lo[i],
            Part::Up => self.up[i],
            Part::Row => self.row[i],
        }
    }
}

#[derive(Clone, Copy)]
enum Part {
    Lo,
    Up,
    Row,
}

fn dotv(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpyv(y: &mut [f64], alpha: f64, x: &[f64]) {
    for (a, b) in y.iter_mut().zip(x) {
        *a += alpha * b;
    }
}

fn sym(m: DMatrix<f64>) -> DMatrix<f64> {
    (&m + m.transpose()) * 0.5
}

impl LmiBlock<'_> {
    /// True when the weights enter this block (its points have one column per weight).
    pub fn has_weights(&self) -> bool {
        self.points.ncols() > 0
    }

    /// The points of the weights `idx` (none for a block without weights).
    pub fn select(&self, idx: &[usize]) -> DMatrix<f64> {
        if self.has_weights() {
            self.points.select_columns(idx)
        } else {
            DMatrix::zeros(self.points.nrows(), 0)
        }
    }
}

impl Problem<'_> {
    fn n(&self) -> usize {
        self.upper.len()
    }

    fn k(&self) -> usize {
        self.cost_extra.len()
    }

    /// Barrier degree: number of scalar cones plus the block sizes.
    fn degree(&self) -> f64 {
        (2 * self.n()
            + self.rows.len()
            + self
                .blocks
                .iter()
                .map(|b| b.constant.nrows())
                .sum::<usize>()) as f64
    }

    fn h(&self) -> ConeVec {
        ConeVec {
            lo: vec![0.0; self.n()],
            up: self.upper.to_vec(),
            row: self.rows.iter().map(|r| r.h).collect(),
            blk: self.blocks.iter().map(|b| b.constant.clone()).collect(),
        }
    }

    fn c(&self) -> XVec {
        XVec {
            a: vec![self.cost_a; self.n()],
            t: self.cost_extra.clone(),
        }
    }

    /// `G x`.
    fn g(&self, x: &XVec) -> ConeVec {
        let sum_a: f64 = x.a.iter().sum();
        ConeVec {
            lo: x.a.iter().map(|v| -v).collect(),
            up: x.a.clone(),
            row: self
                .rows
                .iter()
                .map(|r| r.a_coeff * sum_a + dotv(&r.extra, &x.t))
                .collect(),
            blk: self
                .blocks
                .iter()
                .map(|b| {
                    let mut m = crate::dense::weighted_scatter(&b.points, &x.a) * b.sign;
                    for (tk, t) in b.extra.iter().zip(&x.t) {
                        m += tk * *t;
                    }
                    m
                })
                .collect(),
        }
    }

    /// `G^T z`.
    fn gt(&self, z: &ConeVec) -> XVec {
        let row_sum: f64 = self
            .rows
            .iter()
            .zip(&z.row)
            .map(|(r, zj)| r.a_coeff * zj)
            .sum();
        let mut a: Vec<f64> =
            z.lo.iter()
                .zip(&z.up)
                .map(|(lo, up)| up - lo + row_sum)
                .collect();
        for (b, zb) in self.blocks.iter().zip(&z.blk) {
            for (ai, q) in a.iter_mut().zip(quad_forms(&b.points, zb)) {
                *ai += b.sign * q;
            }
        }
        let t = (0..self.k())
            .map(|k| {
                self.rows
                    .iter()
                    .zip(&z.row)
                    .map(|(r, zj)| r.extra[k] * zj)
                    .sum::<f64>()
                    + self
                        .blocks
                        .iter()
                        .zip(&z.blk)
                        .map(|(b, zb)| b.extra[k].dot(zb))
                        .sum::<f64>()
            })
            .collect();
        XVec { a, t }
    }
}

/// Iteration cap of the NT scaling's SVD (a few per singular value suffice; without a cap
/// nalgebra iterates until convergence). Past it the step fails as a numerical error.
const SVD_MAX_ITER: usize = 1000;

/// Nesterov–Todd scaling of one PSD block: `R^T Z R = R^{-1} S R^{-T} = diag(lambda)`.
struct NtBlock {
    r: DMatrix<f64>,
    r_inv: DMatrix<f64>,
    lambda: DVector<f64>,
}

impl NtBlock {
    fn new(s: &DMatrix<f64>, z: &DMatrix<f64>) -> Option<Self> {
        let ls = nalgebra::Cholesky::new(sym(s.clone()))?.unpack();
        let lz = nalgebra::Cholesky::new(sym(z.clone()))?.unpack();
        // nalgebra's SVD: at these sizes (11-55) it takes 55-90% of LAPACK `dgesvd`'s time.
        let m = lz.tr_mul(&ls);
        if !m.iter().all(|x| x.is_finite()) {
            return None;
        }
        let svd = m.try_svd(true, true, f64::EPSILON, SVD_MAX_ITER)?;
        let (u, vt, lambda) = (svd.u?, svd.v_t?, svd.singular_values);
        if lambda.iter().any(|l| !(*l > 0.0) || !l.is_finite()) {
            return None;
        }
        let inv_sqrt = lambda.map(|l| 1.0 / l.sqrt());
        let r = &ls * vt.transpose() * DMatrix::from_diagonal(&inv_sqrt);
        let r_inv = DMatrix::from_diagonal(&inv_sqrt) * u.transpose() * lz.transpose();
        Some(NtBlock { r, r_inv, lambda })
    }

    /// `W^{-T} ds = R^{-1} dS R^{-T}`.
    fn scale_s(&self, ds: &DMatrix<f64>) -> DMatrix<f64> {
        sym(&self.r_inv * ds * self.r_inv.transpose())
    }

    /// `W dz = R^T dZ R`.
    fn scale_z(&self, dz: &DMatrix<f64>) -> DMatrix<f64> {
        sym(self.r.transpose() * dz * &self.r)
    }

    /// `W^T q = R Q R^T`.
    fn unscale(&self, q: &DMatrix<f64>) -> DMatrix<f64> {
        sym(&self.r * q * self.r.transpose())
    }

    /// `(W^T W)^{-1} v = R^{-T} R^{-1} V R^{-T} R^{-1}`.
    fn wtw_inv(&self, v: &DMatrix<f64>) -> DMatrix<f64> {
        let inner = &self.r_inv * v * self.r_inv.transpose();
        sym(self.r_inv.transpose() * inner * &self.r_inv)
    }

    /// `lambda ⋄^{-1} r`: the `X` with `(Lambda X + X Lambda) / 2 = r`.
    fn lambda_solve(&self, r: &DMatrix<f64>) -> DMatrix<f64> {
        DMatrix::from_fn(r.nrows(), r.ncols(), |i, j| {
            2.0 * r[(i, j)] / (self.lambda[i] + self.lambda[j])
        })
    }

    /// `min(cap, largest alpha with Lambda + alpha * d ⪰ 0)` (the largest is infinite when
    /// `d ⪰ 0`). With `M = Lambda^{-1/2} d Lambda^{-1/2}`, a Cholesky factor of `I + cap M`
    /// shows that `cap` is admissible without the eigenvalue (the usual case: another cone or
    /// the unit step binds).
    fn max_step(&self, d: &DMatrix<f64>, cap: f64) -> f64 {
        let isq = self.lambda.map(|l| 1.0 / l.sqrt());
        let m = sym(DMatrix::from_fn(d.nrows(), d.ncols(), |i, j| {
            isq[i] * d[(i, j)] * isq[j]
        }));
        if cap.is_finite()
            && Cholesky::new(DMatrix::identity(m.nrows(), m.ncols()) + &m * cap).is_some()
        {
            return cap;
        }
        let min = min_eigenvalue(&m);
        if min < 0.0 { cap.min(-1.0 / min) } else { cap }
    }
}

/// The NT scaling of the whole cone at an iterate.
struct Scaling {
    /// `sqrt(s / z)` and `sqrt(s z)` of the scalar cones.
    w: ConeVec,
    lambda: ConeVec,
    blocks: Vec<NtBlock>,
}

impl Scaling {
    fn new(s: &ConeVec, z: &ConeVec) -> Option<Self> {
        let blocks = s
            .blk
            .iter()
            .zip(&z.blk)
            .map(|(s, z)| NtBlock::new(s, z))
            .collect::<Option<Vec<_>>>()?;
        let w = s.map(|p, i, x| (x / z.scalar(p, i)).sqrt(), |_, m| m.clone());
        let lambda = s.map(
            |p, i, x| (x * z.scalar(p, i)).sqrt(),
            |b, _| DMatrix::from_diagonal(&blocks[b].lambda),
        );
        Some(Scaling { w, lambda, blocks })
    }

    fn scale_s(&self, ds: &ConeVec) -> ConeVec {
        ds.map(
            |p, i, x| x / self.w.scalar(p, i),
            |b, m| self.blocks[b].scale_s(m),
        )
    }

    fn scale_z(&self, dz: &ConeVec) -> ConeVec {
        dz.map(
            |p, i, x| x * self.w.scalar(p, i),
            |b, m| self.blocks[b].scale_z(m),
        )
    }

    fn unscale(&self, q: &ConeVec) -> ConeVec {
        q.map(
            |p, i, x| x * self.w.scalar(p, i),
            |b, m| self.blocks[b].unscale(m),
        )
    }

    fn wtw_inv(&self, v: &ConeVec) -> ConeVec {
        v.map(
            |p, i, x| x / self.w.scalar(p, i).powi(2),
            |b, m| self.blocks[b].wtw_inv(m),
        )
    }

    fn lambda_solve(&self, r: &ConeVec) -> ConeVec {
        r.map(
            |p, i, x| x / self.lambda.scalar(p, i),
            |b, m| self.blocks[b].lambda_solve(m),
        )
    }

    /// Jordan product `u ∘ v` in scaled coordinates.
    fn jordan(u: &ConeVec, v: &ConeVec) -> ConeVec {
        u.map(|p, i, x| x * v.scalar(p, i), |b, m| sym(m * &v.blk[b]))
    }

    /// `min(cap, largest step keeping lambda + alpha * d in the cone)`.
    fn max_step(&self, d: &ConeVec, cap: f64) -> f64 {
        let mut alpha = cap;
        for (l, x) in [
            (&self.lambda.lo, &d.lo),
            (&self.lambda.up, &d.up),
            (&self.lambda.row, &d.row),
        ] {
            for (li, xi) in l.iter().zip(x.iter()) {
                if *xi < 0.0 {
                    alpha = alpha.min(-li / xi);
                }
            }
        }
        for (b, m) in self.blocks.iter().zip(&d.blk) {
            alpha = b.max_step(m, alpha);
        }
        alpha
    }
}

/// The factored normal equations `G^T (W^T W)^{-1} G`.
struct Normal {
    aa: AaSolver,
    /// `M_at` (`N x K`), `M_aa^{-1} M_at`, and the Cholesky factor of the bordered Schur
    /// complement `M_tt - M_at^T M_aa^{-1} M_at`.
    m_at: DMatrix<f64>,
    m_tt: DMatrix<f64>,
    aa_inv_at: DMatrix<f64>,
    schur_t: Option<Cholesky>,
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
    },
}

impl Normal {
    fn new(problem: &Problem, scaling: &Scaling, s: &ConeVec, z: &ConeVec) -> Option<Self> {
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
            let mut fs = DMatrix::zeros(m_total, n);
            for (i, mut out) in fs.column_iter_mut().enumerate() {
                let out = out.as_mut_slice();
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
            }
            let mut inner = DMatrix::identity(m_total, m_total);
            syrk(&fs, false, 1.0, 1.0, &mut inner);
            AaSolver::Woodbury {
                fs,
                sqrt_dg,
                inner: Cholesky::new(inner)?,
            }
        } else {
            // `M_aa = Dg + sum_b (P_b^T P_b)∘(P_b^T P_b) + sum_j d_j g_j^2 1 1^T`, built in
            // place (the N x N temporaries dominated the iteration at D = 55).
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
    fn solve_aa(&self, rhs: &mut DMatrix<f64>) {
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
    fn solve_aa_vec(&self, rhs: &mut [f64]) {
        match &self.aa {
            AaSolver::Dense(_, chol) => {
                let x = chol.solve(rhs);
                rhs.copy_from_slice(&x);
            }
            AaSolver::Woodbury { fs, sqrt_dg, inner } => {
                // Dg^{-1/2} (y - Fs^T (I + Fs Fs^T)^{-1} Fs y), y = Dg^{-1/2} r.
                rhs.iter_mut().zip(sqrt_dg).for_each(|(x, s)| *x /= s);
                let mut u = vec![0.0; fs.nrows()];
                gemv(false, 1.0, fs, rhs, 0.0, &mut u);
                let u = inner.solve(&u);
                gemv(true, -1.0, fs, &u, 1.0, rhs);
                rhs.iter_mut().zip(sqrt_dg).for_each(|(x, s)| *x /= s);
            }
        }
    }

    /// `M [da; dt]` with the unfactored matrix.
    fn apply(&self, x: &XVec) -> XVec {
        let dt = DVector::from_column_slice(&x.t);
        let mut ya = match &self.aa {
            AaSolver::Dense(m, _) => {
                let mut y = vec![0.0; x.a.len()];
                gemv(false, 1.0, m, &x.a, 0.0, &mut y);
                y
            }
            AaSolver::Woodbury { fs, sqrt_dg, .. } => {
                // Dg^{1/2} (I + Fs^T Fs) Dg^{1/2} da.
                let mut y: Vec<f64> = x.a.iter().zip(sqrt_dg).map(|(v, s)| v * s).collect();
                let mut fx = vec![0.0; fs.nrows()];
                gemv(false, 1.0, fs, &y, 0.0, &mut fx);
                gemv(true, 1.0, fs, &fx, 1.0, &mut y);
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
    fn solve(&self, ra: &[f64], rt: &[f64]) -> XVec {
        let mut x = self.solve_once(ra, rt);
        let norm = ra.iter().chain(rt).fold(0.0f64, |m, v| m.max(v.abs()));
        let mut last = f64::INFINITY;
        for _ in 0..8 {
            let mx = self.apply(&x);
            let res_a: Vec<f64> = ra.iter().zip(&mx.a).map(|(r, m)| r - m).collect();
            let res_t: Vec<f64> = rt.iter().zip(&mx.t).map(|(r, m)| r - m).collect();
            let res = res_a
                .iter()
                .chain(&res_t)
                .fold(0.0f64, |m, v| m.max(v.abs()));
            if !(res > 1e-14 * norm) || res > 0.5 * last {
                break;
            }
            last = res;
            let c = self.solve_once(&res_a, &res_t);
            axpyv(&mut x.a, 1.0, &c.a);
            axpyv(&mut x.t, 1.0, &c.t);
        }
        x
    }

    fn solve_once(&self, ra: &[f64], rt: &[f64]) -> XVec {
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

/// Primal iterate plus slacks and duals.
#[derive(Clone)]
struct Iterate {
    x: XVec,
    s: ConeVec,
    z: ConeVec,
}

/// Solve `problem` from the primal guess `(a0, t0)` (weights strictly inside their boxes).
pub fn solve(
    problem: &Problem,
    a0: &[f64],
    t0: &[f64],
    settings: &Settings,
    mut progress: impl FnMut(&Progress) -> bool,
) -> Solution {
    let mut it = initial_point(problem, a0, t0);
    let h = problem.h();
    let c = problem.c();
    let degree = problem.degree();
    let h_scale = 1.0 + h.max_abs();
    let c_scale = 1.0 + c.a.iter().chain(&c.t).fold(0.0f64, |m, x| m.max(x.abs()));
    let mut termination = Termination::MaxIterations;
    let mut iterations = 0;
    // The iterate with the smallest gap among those with small residuals: returned when
    // the method stalls (late Newton systems lose accuracy when the box duals span many
    // decades, which shows as a growing dual residual).
    let mut best: Option<(f64, Iterate)> = None;
    for iter in 0..=settings.max_iter {
        iterations = iter;
        let mut rp = problem.g(&it.x);
        rp.axpy(1.0, &it.s);
        rp.axpy(-1.0, &h);
        let gtz = problem.gt(&it.z);
        let rd = XVec {
            a: gtz.a.iter().zip(&c.a).map(|(x, y)| x + y).collect(),
            t: gtz.t.iter().zip(&c.t).map(|(x, y)| x + y).collect(),
        };
        let gap = it.s.dot(&it.z);
        let pobj = dotv(&c.a, &it.x.a) + dotv(&c.t, &it.x.t);
        let dobj = -h.dot(&it.z);
        let res_p = rp.max_abs() / h_scale;
        let res_d = rd.a.iter().chain(&rd.t).fold(0.0f64, |m, x| m.max(x.abs())) / c_scale;
        let report = Progress {
            iteration: iter,
            primal_objective: pobj,
            dual_objective: dobj,
            gap,
            primal_residual: res_p,
            dual_residual: res_d,
        };
        if !(gap.is_finite() && pobj.is_finite() && dobj.is_finite()) {
            termination = Termination::NumericalError;
            break;
        }
        let accurate = res_p <= settings.feas_tol && res_d <= settings.feas_tol;
        if accurate && gap <= settings.gap_tol {
            termination = Termination::Converged;
            break;
        }
        if progress(&report) {
            termination = Termination::Stopped;
            break;
        }
        if accurate && best.as_ref().is_none_or(|(g, _)| gap < *g) {
            best = Some((gap, it.clone()));
        }
        let stalled = best.is_some() && res_d > 1e3 * settings.feas_tol;
        if iter == settings.max_iter || stalled {
            break;
        }
        let Some(step) = newton_step(problem, &it, &rp, &rd, gap / degree) else {
            termination = Termination::NumericalError;
            break;
        };
        it = step;
    }
    if matches!(
        termination,
        Termination::MaxIterations | Termination::NumericalError
    ) {
        if let Some((_, b)) = best {
            it = b;
            termination = Termination::Stalled;
        }
    }
    let pobj = dotv(&c.a, &it.x.a) + dotv(&c.t, &it.x.t);
    let dobj = -h.dot(&it.z);
    Solution {
        a: it.x.a,
        extra: it.x.t,
        block_duals: it.z.blk,
        row_duals: it.z.row,
        primal_objective: pobj,
        dual_objective: dobj,
        iterations,
        termination,
    }
}

/// One Mehrotra predictor-corrector step.
fn newton_step(
    problem: &Problem,
    it: &Iterate,
    rp: &ConeVec,
    rd: &XVec,
    mu: f64,
) -> Option<Iterate> {
    let scaling = Scaling::new(&it.s, &it.z)?;
    let normal = Normal::new(problem, &scaling, &it.s, &it.z)?;
    let lambda_sq = Scaling::jordan(&scaling.lambda, &scaling.lambda);
    // Direction for a complementarity right-hand side `rc` (scaled coordinates); `refine`:
    // iterative refinement of the Newton solve (see [`Normal::solve`]).
    let direction = |rc: &ConeVec, refine: bool| -> (XVec, ConeVec, ConeVec) {
        let q = scaling.lambda_solve(rc);
        let mut v = scaling.unscale(&q);
        v.axpy(1.0, rp);
        let gv = problem.gt(&scaling.wtw_inv(&v));
        let ra: Vec<f64> = rd.a.iter().zip(&gv.a).map(|(r, g)| -r - g).collect();
        let rt: Vec<f64> = rd.t.iter().zip(&gv.t).map(|(r, g)| -r - g).collect();
        let dx = if refine {
            normal.solve(&ra, &rt)
        } else {
            normal.solve_once(&ra, &rt)
        };
        let gdx = problem.g(&dx);
        let mut w = gdx.clone();
        w.axpy(1.0, &v);
        let dz = scaling.wtw_inv(&w);
        let mut ds = gdx;
        ds.axpy(1.0, rp);
        let ds = ds.map(|_, _, x| -x, |_, m| -m);
        (dx, ds, dz)
    };
    let neg_lsq = lambda_sq.map(|_, _, x| -x, |_, m| -m);
    // The affine direction only sets the centring and the second-order term: without
    // refinement (the iterations are the same; 9% of the time of a cold evaluation at D = 10).
    let (_, ds_a, dz_a) = direction(&neg_lsq, false);
    let (dsa, dza) = (scaling.scale_s(&ds_a), scaling.scale_z(&dz_a));
    let alpha_aff = scaling.max_step(&dza, scaling.max_step(&dsa, 1.0));
    let sigma = (1.0 - alpha_aff).powi(3).clamp(0.0, 1.0);
    let mut rc = neg_lsq;
    rc.axpy(-1.0, &Scaling::jordan(&dsa, &dza));
    let shift = sigma * mu;
    rc = rc.map(
        |_, _, x| x + shift,
        |_, m| m + DMatrix::identity(m.nrows(), m.ncols()) * shift,
    );
    let (dx, ds, dz) = direction(&rc, true);
    // Steps beyond 1 / 0.99 are cut to 1 anyway.
    let alpha_max = scaling.max_step(
        &scaling.scale_z(&dz),
        scaling.max_step(&scaling.scale_s(&ds), 1.0 / 0.99),
    );
    let alpha = (0.99 * alpha_max).min(1.0);
    if !(alpha > 0.0) {
        return None;
    }
    let mut next = Iterate {
        x: it.x.clone(),
        s: it.s.clone(),
        z: it.z.clone(),
    };
    axpyv(&mut next.x.a, alpha, &dx.a);
    axpyv(&mut next.x.t, alpha, &dx.t);
    next.s.axpy(alpha, &ds);
    next.z.axpy(alpha, &dz);
    Some(next)
}

/// Primal point from the guess (slacks shifted into the cone where needed); duals centred on
/// the slacks (`Z_b = y_b S_b^{-1}`) and, for the weights, chosen to satisfy the dual
/// equations exactly.
fn initial_point(problem: &Problem, a0: &[f64], t0: &[f64]) -> Iterate {
    let n = problem.n();
    let x = XVec {
        a: a0.to_vec(),
        t: t0.to_vec(),
    };
    let h = problem.h();
    let mut s = h.clone();
    s.axpy(-1.0, &problem.g(&x));
    for (sj, r) in s.row.iter_mut().zip(&problem.rows) {
        let floor = 0.1 * (1.0 + r.h.abs());
        if *sj < floor {
            *sj = floor;
        }
    }
    for (sb, b) in s.blk.iter_mut().zip(&problem.blocks) {
        *sb = sym(sb.clone());
        let floor = 1e-2 * (1.0 + b.constant.amax());
        let min = sb.clone().symmetric_eigenvalues().min();
        if min < floor {
            let p = sb.nrows();
            *sb += DMatrix::identity(p, p) * (floor - min);
        }
    }
    let nb = problem.blocks.len().max(1) as f64;
    let cost_scale = problem.cost_a.abs().max(
        problem
            .cost_extra
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs())),
    );
    let mut blk = Vec::new();
    let mut q_total = vec![0.0; n];
    let mut target = 0.0;
    for (sb, b) in s.blk.iter().zip(&problem.blocks) {
        let inv = nalgebra::Cholesky::new(sb.clone())
            .map(|c| c.inverse())
            .unwrap_or_else(|| DMatrix::identity(sb.nrows(), sb.nrows()));
        let q = quad_forms(&b.points, &inv);
        let mean_q = q.iter().sum::<f64>() / n.max(1) as f64;
        let y = if problem.cost_a != 0.0 && mean_q > 0.0 {
            problem.cost_a.abs() / (mean_q * nb)
        } else {
            cost_scale.max(1e-12) / sb.nrows() as f64
        };
        for (t, qi) in q_total.iter_mut().zip(&q) {
            *t += b.sign * y * qi;
        }
        target += y;
        blk.push(sym(inv * y));
    }
    let mu_target = target / nb;
    let row: Vec<f64> = s.row.iter().map(|sj| mu_target / sj).collect();
    let row_sum: f64 = problem
        .rows
        .iter()
        .zip(&row)
        .map(|(r, z)| r.a_coeff * z)
        .sum();
    let mut lo = vec![0.0; n];
    let mut up = vec![0.0; n];
    for i in 0..n {
        // nu - mu = d makes the weight's dual equation exact; mu * nu = tau^2 balances them.
        let d = -(problem.cost_a + row_sum + q_total[i]);
        let tau = mu_target / (s.lo[i] * s.up[i]).sqrt();
        let mu = 0.5 * ((d * d + 4.0 * tau * tau).sqrt() - d);
        lo[i] = mu.max(1e-300);
        up[i] = (mu + d).max(1e-300);
    }
    let z = ConeVec { lo, up, row, blk };
    Iterate { x, s, z }
}
