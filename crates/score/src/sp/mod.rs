//! The spectral score SP(X, lambda, gamma) of MATH.md 2.2: problem data and the
//! backend-independent certification of brackets.
//!
//! For a symmetric `S ≻ 0` (the parameter, passed as `theta = svec(S)`), with caps
//! `u_i(S) = min(1, lambda / (x_i^T S^{-1} x_i))` and `P_a = sum_i a_i x_i x_i^T`:
//!
//! ```text
//! SP(S) = min t  s.t.  0 <= a_i <= u_i(S),  t >= n - sum_i a_i,
//!                      P_a ⪯ (1 + gamma) n S,   P_a + t lambda S ⪰ (1 - gamma) n S.
//! ```
//!
//! With `a = 0` the program is feasible at `t = n max(1, (1 - gamma) / lambda)`, the largest
//! value; outside the domain (`S` not positive definite) the score takes that value.
//! Backends work with both LMIs divided by `n`; their duals `Y1, Y2 ⪰ 0` are for those.
//!
//! Brackets:
//! - upper: clip `a` into the box, shrink it until `S^{-1/2} P_a S^{-1/2} / n ⪯ (1 + gamma) I`,
//!   then the least feasible `t` is `max(n - sum a, n ((1 - gamma) - mu_min) / lambda)` with
//!   `mu_min` the smallest eigenvalue of `S^{-1/2} P_a S^{-1/2} / n`;
//! - lower: weak duality. With `nu = 1 - lambda tr(Y2 S) / n >= 0` (scale `Y2` down if needed),
//!   `SP >= nu n - (1 + gamma) tr(Y1 S) + (1 - gamma) tr(Y2 S)
//!          + sum_i u_i min(0, x_i^T (Y1 - Y2) x_i / n - nu)`.
pub mod fast;
pub mod reference;

use crate::cm::check_finite;
use crate::dense::{self, eigen_range, psd_projection, scaled, trace_product, verified_shrink};
use crate::{ScoreError, ScoreEval};
use nalgebra::{Cholesky, DMatrix, Dyn};
use sosdp_oracle::svec::{side_of, smat, svec, triangular_number};

/// Problem data of the SP score.
#[derive(Clone, Debug)]
pub struct Spectral {
    /// Centred points, one column per point (`d x n`).
    x: DMatrix<f64>,
    lambda: f64,
    width: f64,
}

/// `S` as a dense matrix, with what every bound needs when it is positive definite.
pub struct Candidate {
    /// `S = smat(theta)`.
    pub matrix: DMatrix<f64>,
    /// Its factor when `S` is positive definite (`None`: outside the domain).
    pub factor: Option<Factor>,
}

/// Quantities of a positive definite `S = L L^T`, computed once per candidate.
pub struct Factor {
    /// The Cholesky factor `S = L L^T`.
    pub chol: Cholesky<f64, Dyn>,
    /// Whitened points `w_i = L^{-1} x_i` as columns; `|w_i|^2 = x_i^T S^{-1} x_i`.
    pub whitened: DMatrix<f64>,
    /// The caps `u_i(S) = min(1, lambda / (x_i^T S^{-1} x_i))`.
    pub caps: Vec<f64>,
}

impl Factor {
    /// Map a dual `Yw` of the whitened LMIs back: `L^{-T} Yw L^{-1}` (symmetrised).
    pub fn unwhiten(&self, yw: &DMatrix<f64>) -> DMatrix<f64> {
        let l = self.chol.l();
        let half = l
            .transpose()
            .solve_upper_triangular(yw)
            .expect("invertible");
        let full = l
            .transpose()
            .solve_upper_triangular(&half.transpose())
            .expect("invertible");
        (&full + full.transpose()) * 0.5
    }
}

/// `S = smat(theta)` for a `d x d` symmetric parameter, after checking `theta`'s length and
/// finiteness (the parameter of SP and of HS, [`crate::hs`]).
pub(crate) fn symmetric_parameter(d: usize, theta: &[f64]) -> Result<DMatrix<f64>, ScoreError> {
    if side_of(theta.len()) != Some(d) {
        return Err(ScoreError::DimensionMismatch {
            what: "svec(S)",
            expected: triangular_number(d),
            got: theta.len(),
        });
    }
    check_finite("S", theta)?;
    Ok(DMatrix::from_row_slice(d, d, &smat(d, theta)))
}

/// The data (`n x d`, not empty, finite) and the clip `lambda` (positive, finite) of SP and
/// of HS ([`crate::hs`]).
pub(crate) fn check_points_and_clip(points: &DMatrix<f64>, lambda: f64) -> Result<(), ScoreError> {
    let (n, d) = points.shape();
    if n == 0 || d == 0 {
        return Err(ScoreError::EmptyData);
    }
    check_finite("the data", points.as_slice())?;
    if !(lambda.is_finite() && lambda > 0.0) {
        return Err(ScoreError::LambdaNotPositive(lambda));
    }
    Ok(())
}

impl Spectral {
    /// Validate and store the data: `points` is `n x d` (one centred record per row),
    /// `lambda > 0` the leverage cap, `width` (gamma) in `(0, 1)`.
    pub fn new(points: &DMatrix<f64>, lambda: f64, width: f64) -> Result<Self, ScoreError> {
        check_points_and_clip(points, lambda)?;
        if !(width > 0.0 && width < 1.0) {
            return Err(ScoreError::WidthOutOfRange(width));
        }
        Ok(Spectral {
            x: points.transpose(),
            lambda,
            width,
        })
    }

    /// Number of points `n`.
    pub fn n(&self) -> usize {
        self.x.ncols()
    }

    /// Dimension `d` of the points (the parameter is `d x d`).
    pub fn d(&self) -> usize {
        self.x.nrows()
    }

    /// Dimension of `theta = svec(S)`: `d (d + 1) / 2`.
    pub fn dim(&self) -> usize {
        self.d() * (self.d() + 1) / 2
    }

    /// The cap parameter `lambda` of `u_i(S) = min(1, lambda / (x_i^T S^{-1} x_i))`.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The spectral width `gamma` of the two LMIs.
    pub fn width(&self) -> f64 {
        self.width
    }

    /// Points as columns.
    pub fn points(&self) -> &DMatrix<f64> {
        &self.x
    }

    /// The score's largest value, `n max(1, (1 - gamma) / lambda)`.
    pub fn max_score(&self) -> f64 {
        self.n() as f64 * (1.0f64).max((1.0 - self.width) / self.lambda)
    }

    /// Check `theta` (length, finiteness) and unpack it into `S`.
    pub fn candidate(&self, theta: &[f64]) -> Result<Candidate, ScoreError> {
        let matrix = symmetric_parameter(self.d(), theta)?;
        let factor = Cholesky::new(matrix.clone()).map(|chol| {
            let whitened = chol
                .l()
                .solve_lower_triangular(&self.x)
                .expect("Cholesky factor is invertible");
            let caps = whitened
                .column_iter()
                .map(|w| {
                    let lev = w.norm_squared();
                    if lev > 0.0 {
                        (self.lambda / lev).min(1.0)
                    } else {
                        1.0
                    }
                })
                .collect();
            Factor {
                chol,
                whitened,
                caps,
            }
        });
        Ok(Candidate { matrix, factor })
    }

    /// `theta = svec(S)` for a symmetric matrix.
    pub fn theta_of(matrix: &DMatrix<f64>) -> Vec<f64> {
        svec(matrix.nrows(), |i, j| {
            0.5 * (matrix[(i, j)] + matrix[(j, i)])
        })
    }

    /// `sum_i c_i x_i x_i^T`.
    pub fn weighted_scatter(&self, coeffs: &[f64]) -> DMatrix<f64> {
        dense::weighted_scatter(&self.x, coeffs)
    }

    /// Certified upper bound from candidate weights (see the module doc).
    pub fn upper_bound(&self, s: &Candidate, candidate: &[f64]) -> f64 {
        let factor = s
            .factor
            .as_ref()
            .expect("upper_bound needs S positive definite");
        let n = self.n() as f64;
        let mut a: Vec<f64> = candidate
            .iter()
            .zip(&factor.caps)
            .map(|(x, u)| if x.is_finite() { x.clamp(0.0, *u) } else { 0.0 })
            .collect();
        // Eigenvalues of S^{-1/2} P_a S^{-1/2} / n, i.e. of sum (a_i / n) w_i w_i^T.
        let whitened = |a: &[f64]| {
            eigen_range(&dense::weighted_scatter(
                &factor.whitened,
                &scaled(a, 1.0 / n),
            ))
        };
        let (mut mu_min, mu_max) = whitened(&a);
        let cap = 1.0 + self.width;
        if mu_max > cap {
            let shrink = verified_shrink(cap / mu_max, |s| whitened(&scaled(&a, s)).1 <= cap);
            a = scaled(&a, shrink);
            mu_min = whitened(&a).0;
        }
        let kept: f64 = a.iter().sum();
        let t_needed = n * ((1.0 - self.width) - mu_min) / self.lambda;
        (n - kept).max(t_needed).max(0.0).min(self.max_score())
    }

    /// Certified lower bound from candidate duals of the two normalised LMIs.
    pub fn lower_bound(&self, s: &Candidate, y1: &DMatrix<f64>, y2: &DMatrix<f64>) -> f64 {
        let factor = s
            .factor
            .as_ref()
            .expect("lower_bound needs S positive definite");
        let n = self.n() as f64;
        let y1 = psd_projection(y1);
        let mut y2 = psd_projection(y2);
        let load = self.lambda * trace_product(&y2, &s.matrix) / n;
        if load > 1.0 {
            y2 /= load;
        }
        let nu = (1.0 - self.lambda * trace_product(&y2, &s.matrix) / n).max(0.0);
        let diff = &y1 - &y2;
        let per_point: f64 = dense::quad_forms(&self.x, &diff)
            .iter()
            .zip(&factor.caps)
            .map(|(q, u)| u * (q / n - nu).min(0.0))
            .sum();
        let g = nu * n - (1.0 + self.width) * trace_product(&y1, &s.matrix)
            + (1.0 - self.width) * trace_product(&y2, &s.matrix)
            + per_point;
        g.max(0.0)
    }

    /// The bracket for a solver's primal weights and dual matrices, or the largest value
    /// outside the domain.
    pub fn certify(
        &self,
        s: &Candidate,
        weights: &[f64],
        t: f64,
        y1: &DMatrix<f64>,
        y2: &DMatrix<f64>,
    ) -> ScoreEval {
        if s.factor.is_none() {
            return ScoreEval::outside(self.max_score());
        }
        let upper = self.upper_bound(s, weights);
        let lower = self.lower_bound(s, y1, y2).min(upper);
        ScoreEval::bracketed(t, lower, upper)
    }
}
