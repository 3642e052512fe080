//! Nesterov–Todd scaling of the cone (boxes, rows and LMI blocks) at an iterate.
use super::problem::{ConeVec, sym};
use crate::dense::{Cholesky, min_eigenvalue, mul, syrk};
use nalgebra::{DMatrix, DVector};

/// Nesterov–Todd scaling of one PSD block: `R^T Z R = R^{-1} S R^{-T} = diag(lambda)`.
pub(super) struct NtBlock {
    pub(super) r: DMatrix<f64>,
    pub(super) r_inv: DMatrix<f64>,
    pub(super) lambda: DVector<f64>,
    /// `(W^T W)^{-1} = R^{-T} R^{-1}`, formed once for [`NtBlock::wtw_inv`].
    wtw_inv: DMatrix<f64>,
}

impl NtBlock {
    /// The scaling from the Cholesky factors `S = Ls Ls^T`, `Z = Lz Lz^T` and the eigenvectors
    /// of `M^T M = Ls^T Z Ls = V diag(lambda^2) V^T`, `M = Lz^T Ls`: `R = Ls V Lambda^{-1/2}`
    /// and `R^{-1} = Lambda^{-3/2} V^T M^T Lz^T` (with `U = M V Lambda^{-1}`, `M = U Lambda V^T`
    /// is the singular value decomposition, and `R^{-1} = Lambda^{-1/2} U^T Lz^T`). Then
    /// `R^T Z R = Lambda^{-1/2} V^T (M^T M) V Lambda^{-1/2} = Lambda`, `R^{-1} S R^{-T} = Lambda`
    /// and `R^{-1} R = Lambda^{-3/2} V^T (M^T M) V Lambda^{-1/2} = I`. A symmetric
    /// eigendecomposition takes 125 us against nalgebra's SVD's 235 us at `D = 56`. The
    /// `lambda_i^2` are the eigenvalues of `S Z`, all equal to the barrier parameter on the
    /// central path, so squaring `M` loses little accuracy near it, where the iterates are. The
    /// products are BLAS calls (`M^T M` and `R^{-T} R^{-1}` by `syrk`) and the diagonal factors
    /// scale columns or rows: the whole scaling took 232 us at `D = 56` against 327 us with
    /// nalgebra's products (whose `tr_mul` took 35 us against 12 us for a plain product).
    pub(super) fn new(s: &DMatrix<f64>, z: &DMatrix<f64>) -> Option<Self> {
        let ls = nalgebra::Cholesky::new(sym(s.clone()))?.unpack();
        let lz = nalgebra::Cholesky::new(sym(z.clone()))?.unpack();
        let m = mul(true, false, &lz, &ls);
        if !m.iter().all(|x| x.is_finite()) {
            return None;
        }
        let p = m.ncols();
        let mut mtm = DMatrix::zeros(p, p);
        syrk(&m, true, 1.0, 0.0, &mut mtm);
        let eig = mtm.symmetric_eigen();
        let lambda = eig.eigenvalues.map(|e| e.sqrt());
        if lambda.iter().any(|l| !(*l > 0.0) || !l.is_finite()) {
            return None;
        }
        let v = eig.eigenvectors;
        // R = Ls V Lambda^{-1/2} (columns scaled); R^{-1} = Lambda^{-3/2} (Lz M V)^T (rows scaled).
        let mut r = mul(false, false, &ls, &v);
        for (mut column, l) in r.column_iter_mut().zip(lambda.iter()) {
            column /= l.sqrt();
        }
        let lzmv = mul(false, false, &lz, &mul(false, false, &m, &v));
        let r_inv = DMatrix::from_fn(p, p, |i, j| lzmv[(j, i)] / (lambda[i] * lambda[i].sqrt()));
        let mut wtw_inv = DMatrix::zeros(p, p);
        syrk(&r_inv, true, 1.0, 0.0, &mut wtw_inv);
        Some(NtBlock {
            r,
            r_inv,
            lambda,
            wtw_inv,
        })
    }

    /// `W^{-T} ds = R^{-1} dS R^{-T}`.
    pub(super) fn scale_s(&self, ds: &DMatrix<f64>) -> DMatrix<f64> {
        sym(mul(
            false,
            true,
            &mul(false, false, &self.r_inv, ds),
            &self.r_inv,
        ))
    }

    /// `W dz = R^T dZ R`.
    pub(super) fn scale_z(&self, dz: &DMatrix<f64>) -> DMatrix<f64> {
        sym(mul(false, false, &mul(true, false, &self.r, dz), &self.r))
    }

    /// `W^T q = R Q R^T`.
    pub(super) fn unscale(&self, q: &DMatrix<f64>) -> DMatrix<f64> {
        sym(mul(false, true, &mul(false, false, &self.r, q), &self.r))
    }

    /// `(W^T W)^{-1} v = Q V Q`, `Q = R^{-T} R^{-1}`.
    pub(super) fn wtw_inv(&self, v: &DMatrix<f64>) -> DMatrix<f64> {
        sym(mul(
            false,
            false,
            &mul(false, false, &self.wtw_inv, v),
            &self.wtw_inv,
        ))
    }

    /// `lambda ⋄^{-1} r`: the `X` with `(Lambda X + X Lambda) / 2 = r`.
    pub(super) fn lambda_solve(&self, r: &DMatrix<f64>) -> DMatrix<f64> {
        DMatrix::from_fn(r.nrows(), r.ncols(), |i, j| {
            2.0 * r[(i, j)] / (self.lambda[i] + self.lambda[j])
        })
    }

    /// `min(cap, largest alpha with Lambda + alpha * d ⪰ 0)` (the largest is infinite when
    /// `d ⪰ 0`). With `M = Lambda^{-1/2} d Lambda^{-1/2}`, a Cholesky factor of `I + cap M`
    /// shows that `cap` is admissible without the eigenvalue (the usual case: another cone or
    /// the unit step binds).
    pub(super) fn max_step(&self, d: &DMatrix<f64>, cap: f64) -> f64 {
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
pub(super) struct Scaling {
    /// `sqrt(s / z)` and `sqrt(s z)` of the scalar cones.
    pub(super) w: ConeVec,
    pub(super) lambda: ConeVec,
    pub(super) blocks: Vec<NtBlock>,
}

impl Scaling {
    pub(super) fn new(s: &ConeVec, z: &ConeVec) -> Option<Self> {
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

    pub(super) fn scale_s(&self, ds: &ConeVec) -> ConeVec {
        ds.map(
            |p, i, x| x / self.w.scalar(p, i),
            |b, m| self.blocks[b].scale_s(m),
        )
    }

    pub(super) fn scale_z(&self, dz: &ConeVec) -> ConeVec {
        dz.map(
            |p, i, x| x * self.w.scalar(p, i),
            |b, m| self.blocks[b].scale_z(m),
        )
    }

    pub(super) fn unscale(&self, q: &ConeVec) -> ConeVec {
        q.map(
            |p, i, x| x * self.w.scalar(p, i),
            |b, m| self.blocks[b].unscale(m),
        )
    }

    pub(super) fn wtw_inv(&self, v: &ConeVec) -> ConeVec {
        v.map(
            |p, i, x| x / self.w.scalar(p, i).powi(2),
            |b, m| self.blocks[b].wtw_inv(m),
        )
    }

    pub(super) fn lambda_solve(&self, r: &ConeVec) -> ConeVec {
        r.map(
            |p, i, x| x / self.lambda.scalar(p, i),
            |b, m| self.blocks[b].lambda_solve(m),
        )
    }

    /// Jordan product `u ∘ v` in scaled coordinates.
    pub(super) fn jordan(u: &ConeVec, v: &ConeVec) -> ConeVec {
        u.map(|p, i, x| x * v.scalar(p, i), |b, m| sym(m * &v.blk[b]))
    }

    /// `min(cap, largest step keeping lambda + alpha * d in the cone)`.
    pub(super) fn max_step(&self, d: &ConeVec, cap: f64) -> f64 {
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
