//! The certified-mean score CM(Z, c, Gamma) of MATH.md 2.1: problem data and the
//! backend-independent certification of brackets.
//!
//! With `v_i = z_i - c`, `zh_i = [v_i; 1]` and
//! `B(theta) = [[Gamma, theta - c], [(theta - c)^T, 1]]`, the score is
//!
//! ```text
//! CM(theta) = n - max { sum_i a_i : 0 <= a_i <= 1,  n B(theta) - sum_i a_i zh_i zh_i^T ⪰ 0 }
//! ```
//!
//! and `n` (the "infinite" value) outside the domain `||theta - c||_{Gamma^{-1}} <= 1`, where even
//! `a = 0` is infeasible. We work with the LMI divided by `n`:
//! `L(theta, a) = B(theta) - sum_i (a_i / n) zh_i zh_i^T ⪰ 0`.
//!
//! Brackets (MATH.md 3.2) are certified from any candidate primal `a` and dual `Y`:
//! - upper: clip `a` into the box and, if `L(theta, a)` has a negative eigenvalue `-e`, shrink
//!   `a` by `b / (b + e)` with `b = lambda_min(B(theta)) > 0` (L is affine in `a`, `B ⪰ 0`), so
//!   the shrunk weights are feasible and `CM <= n - sum a`;
//! - lower: weak duality. For every `Y ⪰ 0` (dual of the normalised LMI),
//!   `max sum a <= tr(Y B(theta)) + sum_i max(0, 1 - zh_i^T Y zh_i / n)`, so
//!   `CM >= n - that`. A candidate `Y` is projected onto the PSD cone first, and the bound
//!   is taken at the best multiple `t Y`, `t >= 0` (see [`best_scaled_bound`]).
//!
//! Outside the level sets the dual direction of the bottom eigenvector `e` of `B(theta)`
//! certifies large scores cheaply ([`CertifiedMean::eigen_bound`]): with `Y = t e e^T`,
//! `tr(Y B) = t lambda_min(B)`, which vanishes at the domain's boundary, where the bound
//! tends to `n` (every weight with `e^T zh_i != 0` must be 0 there).
//!
//! A dual matrix at a fixed scale bounds CM from below at every `theta`, affinely: a [`Cut`].
pub(crate) mod answer;
pub mod chord;
pub mod compress;
pub mod fast;
pub mod memo;
pub(crate) mod memory;
pub mod reference;

pub use memo::Certificate;

use crate::dense::{
    self, all_finite, min_eigenvalue, psd_projection, scaled, trace_product, verified_shrink,
};
use crate::{ScoreError, ScoreEval};
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};
use std::sync::Arc;

/// Problem data of the CM score: centred points, centre and budget matrix.
#[derive(Clone, Debug)]
pub struct CertifiedMean {
    /// `zh_i = [z_i - c; 1]`, one column per point (`(D+1) x n`).
    zh: DMatrix<f64>,
    centre: DVector<f64>,
    gamma: DMatrix<f64>,
    gamma_chol: Cholesky<f64, Dyn>,
    /// `sum_i zh_i zh_i^T / n`: `L(theta, 1) = B(theta) - scatter` (every weight kept).
    scatter: DMatrix<f64>,
    /// The largest eigenvalue of `scatter`, a bound on `e^T scatter e` for unit `e`.
    scatter_max: f64,
}

impl CertifiedMean {
    /// Validate and store the data. `points` has one record per row (`n x D`); `centre` has
    /// length `D`; `gamma` is `D x D` symmetric positive definite.
    pub fn new(
        points: &DMatrix<f64>,
        centre: &[f64],
        gamma: &DMatrix<f64>,
    ) -> Result<Self, ScoreError> {
        let (n, dim) = points.shape();
        if n == 0 || dim == 0 {
            return Err(ScoreError::EmptyData);
        }
        check_finite("the data", points.as_slice())?;
        if centre.len() != dim {
            return Err(ScoreError::DimensionMismatch {
                what: "the centre",
                expected: dim,
                got: centre.len(),
            });
        }
        check_finite("the centre", centre)?;
        if gamma.shape() != (dim, dim) {
            return Err(ScoreError::DimensionMismatch {
                what: "Gamma",
                expected: dim,
                got: gamma.nrows(),
            });
        }
        check_finite("Gamma", gamma.as_slice())?;
        if (gamma - gamma.transpose()).amax() > 1e-12 * gamma.amax().max(1.0) {
            return Err(ScoreError::GammaNotPositiveDefinite);
        }
        let gamma_chol =
            Cholesky::new(gamma.clone()).ok_or(ScoreError::GammaNotPositiveDefinite)?;
        if min_eigenvalue(gamma) <= 0.0 {
            return Err(ScoreError::GammaNotPositiveDefinite);
        }
        let centre = DVector::from_column_slice(centre);
        let zh = DMatrix::from_fn(dim + 1, n, |k, i| {
            if k < dim {
                points[(i, k)] - centre[k]
            } else {
                1.0
            }
        });
        let scatter = dense::weighted_scatter(&zh, &vec![1.0 / n as f64; n]);
        let scatter_max = scatter.clone().symmetric_eigenvalues().max();
        Ok(CertifiedMean {
            zh,
            centre,
            gamma: gamma.clone(),
            gamma_chol,
            scatter,
            scatter_max,
        })
    }

    /// Number of points `n`.
    pub fn n(&self) -> usize {
        self.zh.ncols()
    }

    /// Dimension `D` of the points and of `theta`.
    pub fn dim(&self) -> usize {
        self.zh.nrows() - 1
    }

    /// The centre `c` of the domain.
    pub fn centre(&self) -> &DVector<f64> {
        &self.centre
    }

    /// The budget matrix `Gamma` (`D x D`, positive definite).
    pub fn gamma(&self) -> &DMatrix<f64> {
        &self.gamma
    }

    /// The lifted points `zh_i = [z_i - c; 1]` as columns (`(D+1) x n`).
    pub fn lifted_points(&self) -> &DMatrix<f64> {
        &self.zh
    }

    /// `zh_i^T Y zh_i` for every point.
    pub fn quad_forms(&self, y: &DMatrix<f64>) -> Vec<f64> {
        dense::quad_forms(&self.zh, y)
    }

    /// Check that `theta` is a finite vector of the right length.
    pub fn check_theta(&self, theta: &[f64]) -> Result<(), ScoreError> {
        if theta.len() != self.dim() {
            return Err(ScoreError::DimensionMismatch {
                what: "theta",
                expected: self.dim(),
                got: theta.len(),
            });
        }
        check_finite("theta", theta)
    }

    /// `||theta - c||^2_{Gamma^{-1}}`; the domain is where it is `<= 1`.
    pub fn domain_norm_sq(&self, theta: &[f64]) -> f64 {
        let w = DVector::from_column_slice(theta) - &self.centre;
        let y = self
            .gamma_chol
            .l()
            .solve_lower_triangular(&w)
            .expect("Cholesky factor is invertible");
        y.norm_squared()
    }

    /// True when `theta` is in the CM domain (the Gamma-ellipsoid around `c`), where the score
    /// is finite.
    pub fn in_domain(&self, theta: &[f64]) -> bool {
        self.domain_norm_sq(theta) <= 1.0
    }

    /// The steps `s` with `x + s u` in the domain (`||x + s u - c||_{Gamma^{-1}} <= 1`), or
    /// `None` when the line misses it.
    pub fn line_domain(&self, x: &[f64], u: &[f64]) -> Option<(f64, f64)> {
        let l = self.gamma_chol.l();
        let w = l
            .solve_lower_triangular(&(DVector::from_column_slice(x) - &self.centre))
            .expect("invertible");
        let v = l
            .solve_lower_triangular(&DVector::from_column_slice(u))
            .expect("invertible");
        let (a, b, c) = (v.norm_squared(), w.dot(&v), w.norm_squared() - 1.0);
        let disc = b * b - a * c;
        if !(a > 0.0) || disc < 0.0 {
            return None;
        }
        let root = disc.sqrt();
        Some(((-b - root) / a, (-b + root) / a))
    }

    /// `B(theta) = [[Gamma, theta - c], [(theta - c)^T, 1]]`, `(D+1) x (D+1)`.
    pub fn b_matrix(&self, theta: &[f64]) -> DMatrix<f64> {
        let dim = self.dim();
        let mut b = DMatrix::zeros(dim + 1, dim + 1);
        b.view_mut((0, 0), (dim, dim)).copy_from(&self.gamma);
        for k in 0..dim {
            let w = theta[k] - self.centre[k];
            b[(k, dim)] = w;
            b[(dim, k)] = w;
        }
        b[(dim, dim)] = 1.0;
        b
    }

    /// Turn candidate weights into feasible ones (see the module doc) and return them; their
    /// sum certifies `CM(theta) <= n - sum`. `theta` must be in the domain.
    ///
    /// `L(theta, s a) = B - s S(a)` with `S(a) = sum_i (a_i / n) zh_i zh_i^T` computed once,
    /// from the weights below the cap (`S(a) = S(1) - sum_{a_i < 1} ((1 - a_i) / n) zh_i zh_i^T`)
    /// when they are fewer than the positive ones: most weights sit at 1 where the score is
    /// small, so the sum runs over a few hundred points instead of all `n`.
    pub fn feasible_weights(&self, theta: &[f64], candidate: &[f64]) -> Vec<f64> {
        self.feasible_with_scatter(theta, candidate).0
    }

    /// [`Self::feasible_weights`] and their normalised scatter `S(a)` (the one the feasibility
    /// test used, times the shrink factor): with their sum, a [`Certificate`] beyond `theta`.
    pub fn feasible_with_scatter(
        &self,
        theta: &[f64],
        candidate: &[f64],
    ) -> (Vec<f64>, DMatrix<f64>) {
        let (a, s_a) = self.clipped_with_scatter(candidate);
        let b = self.b_matrix(theta);
        let violation = -min_eigenvalue(&(&b - &s_a));
        self.shrunk_into_cone(&b, a, s_a, violation)
    }

    /// Candidate weights clipped into the box (non-finite ones to 0) and their normalised
    /// scatter `S(a)`: the first step of [`Self::feasible_with_scatter`].
    pub(crate) fn clipped_with_scatter(&self, candidate: &[f64]) -> (Vec<f64>, DMatrix<f64>) {
        let a: Vec<f64> = candidate
            .iter()
            .map(|x| {
                if x.is_finite() {
                    x.clamp(0.0, 1.0)
                } else {
                    0.0
                }
            })
            .collect();
        let s_a = self.normalised_scatter(&a);
        (a, s_a)
    }

    /// Clipped weights `a` with scatter `s_a`, where `L(theta, a) = b - s_a` has smallest
    /// eigenvalue `-violation`, shrunk until `L ⪰ 0`: the second step of
    /// [`Self::feasible_with_scatter`].
    pub(crate) fn shrunk_into_cone(
        &self,
        b: &DMatrix<f64>,
        a: Vec<f64>,
        s_a: DMatrix<f64>,
        violation: f64,
    ) -> (Vec<f64>, DMatrix<f64>) {
        if violation <= 0.0 {
            return (a, s_a);
        }
        let b_min = min_eigenvalue(b);
        if b_min <= 0.0 {
            let p = b.nrows();
            return (vec![0.0; a.len()], DMatrix::zeros(p, p));
        }
        // L(theta, s a) = (1 - s) B + s L(theta, a) ⪰ 0 for s = b / (b + e).
        let shrink = verified_shrink(b_min / (b_min + violation), |s| {
            min_eigenvalue(&(b - &s_a * s)) >= 0.0
        });
        (scaled(&a, shrink), s_a * shrink)
    }

    /// `S(a) = sum_i (a_i / n) zh_i zh_i^T` for weights in `[0, 1]`, summed over the positive
    /// weights or, when fewer, over the weights below 1 (subtracted from `S(1)`).
    fn normalised_scatter(&self, a: &[f64]) -> DMatrix<f64> {
        let n = self.n() as f64;
        let below: Vec<usize> = (0..a.len()).filter(|&i| a[i] < 1.0).collect();
        let positive = a.iter().filter(|x| **x > 0.0).count();
        if below.len() < positive {
            let points = self.zh.select_columns(&below);
            let gaps: Vec<f64> = below.iter().map(|&i| (1.0 - a[i]) / n).collect();
            &self.scatter - dense::weighted_scatter(&points, &gaps)
        } else {
            let keep: Vec<usize> = (0..a.len()).filter(|&i| a[i] > 0.0).collect();
            let coeffs: Vec<f64> = keep.iter().map(|&i| a[i] / n).collect();
            dense::weighted_scatter(&self.zh.select_columns(&keep), &coeffs)
        }
    }

    /// Certified upper bound `n - sum a` from candidate weights.
    pub fn upper_bound(&self, theta: &[f64], candidate: &[f64]) -> f64 {
        let a = self.feasible_weights(theta, candidate);
        (self.n() as f64 - a.iter().sum::<f64>()).max(0.0)
    }

    /// Certified lower bound from a candidate dual matrix `Y` of the normalised LMI
    /// (projected onto the PSD cone first), at its best multiple `t >= 0`:
    /// `max_t n - t tr(Y B) - sum_i max(0, 1 - t zh_i^T Y zh_i / n)`.
    pub fn lower_bound(&self, theta: &[f64], candidate_y: &DMatrix<f64>) -> f64 {
        self.cut(candidate_y, theta).value(theta).max(0.0)
    }

    /// The affine minorant ([`Cut`]) of a candidate dual `Y` (projected onto the PSD cone), at
    /// the multiple `t Y` that is best at `theta`.
    pub fn cut(&self, candidate_y: &DMatrix<f64>, theta: &[f64]) -> Cut {
        let y = psd_projection(candidate_y);
        let q = self.quad_forms(&y);
        self.cut_from_forms(y, q, theta)
    }

    /// The cut of `candidate_y` truncated to its eigenvalues above `rank_tol` times the
    /// largest: `Y_r = sum_{lambda_j > rank_tol lambda_max} lambda_j v_j v_j^T`, positive
    /// semidefinite, so its cut is certified like any other. An interior-point dual is the
    /// optimal dual plus small components along the other directions; at `D = 50` the
    /// truncation at `1e-6` keeps rank 1 or 2 and its bound was as good or better (by up to
    /// `3e-3` points, lower by at most `4e-5`), while the quadratic forms cost `r` instead of
    /// `D + 1` dot products a point.
    pub fn truncated_cut(&self, candidate_y: &DMatrix<f64>, theta: &[f64], rank_tol: f64) -> Cut {
        let sym = (candidate_y + candidate_y.transpose()) * 0.5;
        let eig = sym.symmetric_eigen();
        let largest = eig.eigenvalues.max();
        let keep: Vec<usize> = (0..eig.eigenvalues.len())
            .filter(|&j| eig.eigenvalues[j] > rank_tol * largest && eig.eigenvalues[j] > 0.0)
            .collect();
        // F = [sqrt(lambda_j) v_j]: Y_r = F F^T and zh_i^T Y_r zh_i = |F^T zh_i|^2.
        let factor = DMatrix::from_fn(candidate_y.nrows(), keep.len(), |r, c| {
            eig.eigenvectors[(r, keep[c])] * eig.eigenvalues[keep[c]].sqrt()
        });
        let q = dense::projected_norms(&self.zh, &factor);
        self.cut_from_forms(dense::mul_nt(&factor, &factor), q, theta)
    }

    /// [`Self::cut`] of a dual `y` already in the PSD cone, given its quadratic forms
    /// `q_i = zh_i^T y zh_i` (computed more cheaply by the caller, e.g. in a subspace).
    pub(crate) fn cut_from_forms(&self, y: DMatrix<f64>, q: Vec<f64>, theta: &[f64]) -> Cut {
        let n = self.n() as f64;
        let dim = self.dim();
        let (t, _) = best_scale(n, trace_product(&y, &self.b_matrix(theta)), &q);
        let penalty: f64 = q.iter().map(|qi| (1.0 - t * qi / n).max(0.0)).sum();
        // tr(t Y B(theta)) = t (tr(Y_00 Gamma) + Y_DD) + 2 t y . (theta - c), y = Y[:D, D].
        let y_col: Vec<f64> = (0..dim).map(|k| t * y[(k, dim)]).collect();
        let trace_const = t
            * (trace_product(&y.view((0, 0), (dim, dim)).into_owned(), &self.gamma)
                + y[(dim, dim)]);
        let offset = n - penalty - trace_const
            + 2.0
                * y_col
                    .iter()
                    .zip(self.centre.iter())
                    .map(|(a, c)| a * c)
                    .sum::<f64>();
        let quad = q.iter().map(|qi| t * qi).collect();
        Cut {
            dual: Arc::new(y * t),
            at: theta.into(),
            quad,
            offset,
            gradient: y_col.iter().map(|a| -2.0 * a).collect(),
        }
    }

    /// Certified lower bound from the dual direction `e e^T` of the bottom eigenvector `e` of
    /// `B(theta)` (module doc): cheap, and close to `n` near the domain's boundary.
    pub fn eigen_bound(&self, theta: &[f64]) -> f64 {
        let (beta, e) = dense::bottom_eigenpair(&self.b_matrix(theta));
        self.bound_along(beta.max(0.0), &e)
    }

    /// [`Self::eigen_bound`] for the bottom eigenpair `(beta, e)` of `B(theta)`: one pass over
    /// the points.
    fn bound_along(&self, beta: f64, e: &DVector<f64>) -> f64 {
        // zh^T e by BLAS (one pass over the points).
        let mut q = vec![0.0; self.n()];
        dense::gemv(true, 1.0, &self.zh, e.as_slice(), 0.0, &mut q);
        q.iter_mut().for_each(|p| *p *= *p);
        best_scaled_bound(self.n() as f64, beta, &q)
    }

    /// A ceiling on [`Self::eigen_bound`] without the pass over the points: with
    /// `q_i = (zh_i^T e)^2` and `Q = sum_i q_i = n e^T S e` (`S` the scatter of all points),
    /// `sum_i max(0, 1 - t q_i / n) >= n - t Q / n`, so the bound's function of `t` is at most
    /// `min(t (Q / n - beta), n - t beta)`, whose largest value is `n (1 - beta n / Q)`.
    fn eigen_ceiling(&self, beta: f64, e: &DVector<f64>) -> f64 {
        let spread = e.dot(&(&self.scatter * e));
        if spread > beta {
            self.n() as f64 * (1.0 - beta / spread)
        } else {
            0.0
        }
    }

    /// The answer of a cheap test alone, when it suffices: the exact score 0 when keeping every
    /// weight is feasible (`L(theta, 1) ≻ 0` by a Cholesky factor, the primal `a = 1`; the score
    /// is never negative); otherwise the bracket `[bound, n]` of [`Self::eigen_bound`] (`a = 0`
    /// is feasible in the domain) if it is within `accuracy` of `n` or, for a membership query
    /// at `level`, if `bound > level`. The pass over the points that bound needs is skipped
    /// where its ceiling ([`Self::eigen_ceiling`], with a relative margin of `1e-9` for
    /// rounding) shows that it cannot decide. That ceiling is at most `n (1 - beta / s_max)`
    /// for the bottom eigenvalue `beta` of `B(theta)` and the largest `s_max` of the scatter, so
    /// a Cholesky factor of `B(theta) - delta I` (`beta > delta`) for the `delta` at which that
    /// bound reaches the target shows it without the eigenpair (a sixth of its cost at
    /// `D = 56`). `theta` must be in the domain.
    pub fn screen(&self, theta: &[f64], accuracy: f64, level: Option<f64>) -> Option<ScoreEval> {
        let n = self.n() as f64;
        let b = self.b_matrix(theta);
        if dense::Cholesky::new(&b - &self.scatter).is_some() {
            return Some(ScoreEval::bracketed(0.0, 0.0, 0.0));
        }
        // The ceiling's rounding margin, relative and in points, and its inverse.
        const ROUNDING: f64 = 1e-9;
        let margin = |c: f64| c * (1.0 + ROUNDING) + ROUNDING * n;
        let target = level.map_or(n - accuracy, |k| k.min(n - accuracy));
        // The largest ceiling before the margin that stays below the target (strictly).
        let reach = (target - ROUNDING * n) / (1.0 + ROUNDING) * (1.0 - 1e-12);
        if reach > 0.0 {
            let delta = self.scatter_max * (1.0 - reach / n) * (1.0 + 1e-12);
            let dim = b.nrows();
            if dense::Cholesky::new(&b - DMatrix::identity(dim, dim) * delta).is_some() {
                return None;
            }
        }
        let (beta, e) = dense::bottom_eigenpair(&b);
        let beta = beta.max(0.0);
        let ceiling = margin(self.eigen_ceiling(beta, &e));
        if ceiling < n - accuracy && level.is_none_or(|k| ceiling <= k) {
            return None;
        }
        let bound = self.bound_along(beta, &e);
        (bound >= n - accuracy || level.is_some_and(|k| bound > k))
            .then(|| ScoreEval::bracketed(n, bound, n))
    }

    /// The bracket for a solver's primal weights and dual matrix, or the "infinite" value
    /// outside the domain.
    pub fn certify(&self, theta: &[f64], weights: &[f64], dual_y: &DMatrix<f64>) -> ScoreEval {
        self.certify_with_cut(theta, weights, dual_y).0
    }

    /// [`Self::certify`] and the cut its lower bound came from (`None` outside the domain).
    pub fn certify_with_cut(
        &self,
        theta: &[f64],
        weights: &[f64],
        dual_y: &DMatrix<f64>,
    ) -> (ScoreEval, Option<Cut>) {
        let (eval, cut, _) = self.certify_all(theta, weights, dual_y);
        (eval, cut)
    }

    /// [`Self::certify_with_cut`] and the [`Certificate`] of its upper end (`None` outside the
    /// domain).
    pub fn certify_all(
        &self,
        theta: &[f64],
        weights: &[f64],
        dual_y: &DMatrix<f64>,
    ) -> (ScoreEval, Option<Cut>, Option<Certificate>) {
        self.certify_with(theta, weights, || self.cut(dual_y, theta))
    }

    /// [`Self::certify_all`] with the lower end from the cut `cut_of` gives.
    pub fn certify_with(
        &self,
        theta: &[f64],
        weights: &[f64],
        cut_of: impl FnOnce() -> Cut,
    ) -> (ScoreEval, Option<Cut>, Option<Certificate>) {
        let n = self.n() as f64;
        if !self.in_domain(theta) {
            return (ScoreEval::outside(n), None, None);
        }
        let (feasible, scatter) = self.feasible_with_scatter(theta, weights);
        let total: f64 = feasible.iter().sum();
        let upper = (n - total).max(0.0);
        let cut = cut_of();
        let lower = cut.value(theta).max(0.0).min(upper);
        let value = n - weights.iter().map(|x| x.clamp(0.0, 1.0)).sum::<f64>();
        (
            ScoreEval::bracketed(value, lower, upper),
            Some(cut),
            Some(Certificate::new(&scatter, total)),
        )
    }
}

/// An affine minorant of CM: weak duality with one dual matrix `Y ⪰ 0` at a fixed scale gives
/// `CM(theta) >= n - tr(Y B(theta)) - sum_i max(0, 1 - zh_i^T Y zh_i / n)` for every `theta`
/// (outside the domain CM is `n`, above it), and `B` is affine in `theta`. So the cut is
/// `value(theta) = offset + gradient . theta`: a supporting half-space certificate of every
/// level body, valid everywhere, reusable at any `theta` and along any line.
#[derive(Clone, Debug)]
pub struct Cut {
    /// The quadratic forms `zh_i^T (t Y) zh_i` of the dual at the scale of the cut; the margins
    /// `1 - zh_i^T (t Y) zh_i / n` classify the weights (positive: at the cap). Kept so that a
    /// warm start from this cut costs no pass over the data.
    pub quad: Arc<[f64]>,
    /// The dual `t Y` itself (`(D+1) x (D+1)`, positive semidefinite).
    pub dual: Arc<DMatrix<f64>>,
    /// The parameter at which the multiple `t` was chosen (where the cut is tightest).
    pub at: Arc<[f64]>,
    offset: f64,
    gradient: Vec<f64>,
}

impl Cut {
    /// The lower bound on `CM(theta)`.
    pub fn value(&self, theta: &[f64]) -> f64 {
        self.offset
            + self
                .gradient
                .iter()
                .zip(theta)
                .map(|(g, t)| g * t)
                .sum::<f64>()
    }

    /// Along the ray `x + s u`: the step beyond which the cut exceeds `level` (so every
    /// later point is outside `{CM <= level}`), or `None` when the cut does not increase along
    /// the ray.
    pub fn ray_end(&self, x: &[f64], u: &[f64], level: f64) -> Option<f64> {
        let slope: f64 = self.gradient.iter().zip(u).map(|(g, v)| g * v).sum();
        (slope > 0.0).then(|| (level - self.value(x)) / slope)
    }
}

/// `max_{t >= 0} n - t beta - sum_i max(0, 1 - t q_i / n)` for `beta, q_i >= 0` (weak duality
/// for the dual `t Y` with `beta = tr(Y B)`, `q_i = zh_i^T Y zh_i`), clamped at 0.
///
/// The function of `t` is concave and piecewise linear with breakpoints `n / q_i`; its slope
/// is `-beta + sum_{i : t q_i < n} q_i / n`, so the maximum is at the first breakpoint where
/// the slope turns non-positive (at `t = 0` if it starts so, at the last breakpoint if it
/// never does, which needs `beta = 0`).
pub fn best_scaled_bound(n: f64, beta: f64, q: &[f64]) -> f64 {
    best_scale(n, beta, q).1.max(0.0)
}

/// The maximiser `t` of [`best_scaled_bound`]'s function and its value (not clamped).
///
/// The scan starts at `t = 1` (where the dual of a solve already is, up to rounding) instead
/// of sorting all `n` breakpoints: the slope just right of 1 says on which side the maximum
/// lies, and the breakpoints on that side are taken nearest first, in growing batches by
/// selection, until the slope changes sign (for a solve's dual, after a few). Same maximiser as
/// the scan over all breakpoints in order; linear time unless most breakpoints are needed.
pub fn best_scale(n: f64, beta: f64, q: &[f64]) -> (f64, f64) {
    let value = |t: f64| n - t * beta - q.iter().map(|qi| (1.0 - t * qi / n).max(0.0)).sum::<f64>();
    // Breakpoints `(n / q_i, q_i / n)` on each side of 1 (`q_i = 0` never breaks); only the
    // side the slope at 1 points to is collected.
    let breakpoints = || q.iter().filter(|qi| **qi > 0.0).map(|qi| (n / qi, qi / n));
    let slope_at_one = -beta
        + breakpoints()
            .filter(|b| b.0 > 1.0)
            .map(|b| b.1)
            .sum::<f64>();
    let best_t = if slope_at_one > 0.0 {
        // Rightwards from 1: the last breakpoint at which the slope is still positive.
        let above = breakpoints().filter(|b| b.0 > 1.0).collect();
        let mut slope = slope_at_one;
        let mut best_t = 1.0;
        for (t, drop) in nearest_first(above, |a, b| a.0.total_cmp(&b.0)) {
            if slope <= 0.0 {
                break;
            }
            best_t = t;
            slope -= drop;
        }
        best_t
    } else {
        // Leftwards from 1: the first breakpoint (largest t) left of which the slope is
        // positive; 0 if there is none.
        let below = breakpoints().filter(|b| b.0 <= 1.0).collect();
        let mut slope = slope_at_one;
        let mut best_t = 0.0;
        for (t, drop) in nearest_first(below, |a, b| b.0.total_cmp(&a.0)) {
            slope += drop;
            if slope > 0.0 {
                best_t = t;
                break;
            }
        }
        best_t
    };
    // The unit scale guards against rounding in the breakpoint search.
    [(best_t, value(best_t)), (1.0, value(1.0))]
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("two candidates")
}

/// The items in the order of `cmp`, produced lazily: batches of growing size (16, 64, ...)
/// are selected in place from the rest and sorted, so that taking the first `k` costs
/// `O(n + k log k)`.
fn nearest_first<T: Copy>(
    mut items: Vec<T>,
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Copy,
) -> impl Iterator<Item = T> {
    let mut batch = 16;
    let (mut next, mut end) = (0, 0);
    std::iter::from_fn(move || {
        if next == end && end < items.len() {
            let rest = &mut items[end..];
            let k = batch.min(rest.len());
            if k < rest.len() {
                rest.select_nth_unstable_by(k, cmp);
            }
            rest[..k].sort_unstable_by(cmp);
            end += k;
            batch *= 4;
        }
        (next < end).then(|| {
            next += 1;
            items[next - 1]
        })
    })
}

pub(crate) fn check_finite(what: &'static str, values: &[f64]) -> Result<(), ScoreError> {
    if all_finite(values) {
        Ok(())
    } else {
        let index = values.iter().position(|x| !x.is_finite()).unwrap_or(0);
        Err(ScoreError::NonFinite { what, index })
    }
}

#[cfg(test)]
mod tests {
    use super::{CertifiedMean, best_scale, best_scaled_bound};
    use nalgebra::DMatrix;

    /// `S(a)` summed over the weights below the cap (subtracted from `S(1)`) or over the
    /// positive ones equals the plain sum over all points, for weights mostly at 1, mostly at
    /// 0, and mixed.
    #[test]
    fn normalised_scatter_matches_the_plain_sum() {
        let (n, dim) = (300, 4);
        let points = DMatrix::from_fn(n, dim, |i, k| ((i * 7 + k * 13) % 17) as f64 / 5.0 - 1.5);
        let cm = CertifiedMean::new(
            &points,
            &[0.1, -0.2, 0.0, 0.3],
            &DMatrix::identity(dim, dim),
        )
        .expect("valid");
        for (ones, zeros) in [(280, 10), (10, 280), (150, 100)] {
            let a: Vec<f64> = (0..n)
                .map(|i| {
                    if i < ones {
                        1.0
                    } else if i < ones + zeros {
                        0.0
                    } else {
                        (i % 10) as f64 / 10.0
                    }
                })
                .collect();
            let plain = crate::dense::weighted_scatter(
                &cm.zh,
                &a.iter().map(|x| x / n as f64).collect::<Vec<_>>(),
            );
            let diff = (cm.normalised_scatter(&a) - &plain).amax();
            assert!(
                diff < 1e-12 * plain.amax(),
                "{ones} ones, {zeros} zeros: {diff}"
            );
        }
    }

    /// The ceiling that lets `screen` skip the eigen bound's pass never lies below the bound,
    /// from the centre out to the domain's boundary (where the bound tends to `n`), and it is
    /// informative: below `n / 2` at the centre, where the pass is skipped. A ceiling without
    /// the clean points' spread (`n (1 - beta)`) fails the first assertion.
    #[test]
    fn the_eigen_ceiling_bounds_the_eigen_bound() {
        let (n, dim) = (400, 3);
        let points = DMatrix::from_fn(n, dim, |i, k| ((i * 7 + k * 13) % 19) as f64 / 6.0 - 1.5);
        let gamma = DMatrix::identity(dim, dim) * 1.2;
        let centre = [0.05, -0.1, 0.0];
        let cm = CertifiedMean::new(&points, &centre, &gamma).expect("valid");
        let mut skipped = 0;
        for step in 0..=40 {
            for axis in 0..dim {
                let mut theta = centre.to_vec();
                // Along each axis up to the boundary (radius sqrt(1.2)).
                theta[axis] += 1.2f64.sqrt() * step as f64 / 40.0;
                let (beta, e) = crate::dense::bottom_eigenpair(&cm.b_matrix(&theta));
                let beta = beta.max(0.0);
                let bound = cm.bound_along(beta, &e);
                let ceiling = cm.eigen_ceiling(beta, &e);
                assert!(
                    bound <= ceiling * (1.0 + 1e-12) + 1e-9,
                    "step {step}, axis {axis}: bound {bound} above ceiling {ceiling}"
                );
                skipped += (ceiling < 0.5 * n as f64) as usize;
            }
        }
        assert!(skipped >= 3, "the ceiling never allowed a skip");
    }

    /// The breakpoint search finds the maximum of the concave function over a fine grid of t.
    #[test]
    fn best_scale_matches_grid_search() {
        let n = 7.0;
        let q = [0.0, 0.5, 2.0, 3.5, 7.0, 20.0, 1.0];
        for beta in [0.0, 0.1, 0.7, 2.0, 50.0] {
            let value =
                |t: f64| n - t * beta - q.iter().map(|qi| (1.0 - t * qi / n).max(0.0)).sum::<f64>();
            let grid = (0..=200_000)
                .map(|k| value(k as f64 * 1e-4))
                .fold(0.0f64, f64::max);
            let best = best_scaled_bound(n, beta, &q);
            assert!(
                best >= grid - 1e-12 && best <= grid + 1e-3,
                "beta {beta}: {best} vs grid {grid}"
            );
            let (t, v) = best_scale(n, beta, &q);
            assert!((value(t) - v).abs() < 1e-12 && (v.max(0.0) - best).abs() < 1e-12);
        }
    }

    /// The scan from `t = 1` finds the same maximum as the plain scan over all breakpoints in
    /// order, on both sides of 1 and with many breakpoints below it.
    #[test]
    fn best_scale_matches_sorted_scan() {
        let plain = |n: f64, beta: f64, q: &[f64]| {
            let value =
                |t: f64| n - t * beta - q.iter().map(|qi| (1.0 - t * qi / n).max(0.0)).sum::<f64>();
            let mut breaks: Vec<(f64, f64)> = q
                .iter()
                .filter(|qi| **qi > 0.0)
                .map(|qi| (n / qi, qi / n))
                .collect();
            breaks.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut slope = -beta + breaks.iter().map(|b| b.1).sum::<f64>();
            let mut best_t = 0.0;
            for (t, drop) in &breaks {
                if slope <= 0.0 {
                    break;
                }
                best_t = *t;
                slope -= drop;
            }
            value(best_t).max(value(1.0))
        };
        let mut state = 7u64;
        let mut uniform = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..200 {
            let len = 1 + case * 7;
            let n = len as f64;
            // Quadratic forms around n (margins around 0), a few far below or above.
            let q: Vec<f64> = (0..len)
                .map(|_| n * (0.3 + 1.4 * uniform()).powi(if uniform() < 0.1 { 3 } else { 1 }))
                .collect();
            let beta = n * 2.0 * uniform();
            let (_, v) = best_scale(n, beta, &q);
            let expect = plain(n, beta, &q);
            assert!(
                (v - expect).abs() <= 1e-9 * n,
                "case {case}: {v} vs {expect}"
            );
        }
    }
}
