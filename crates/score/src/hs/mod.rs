//! The hypercontractive spectral score HS of MATH.md 5.2b: problem data and the
//! backend-independent certification of brackets. A prototype on the reference backend
//! ([`reference`](mod@reference)) for small `d`; no learner uses it yet (docs/limitations.md, section 3).
//!
//! Points `x_1..x_n` in a stage's public frame, caps `u_i = min(1, lambda / |x_i|^2)`,
//! `z_i = svec(x_i x_i^T)` in `R^D`, `D = d (d + 1) / 2`. For a symmetric `S` (the parameter,
//! `theta = svec(S)`), with everything divided by `n` (`a_i` the kept weights, `tau = t / n`
//! the replaced share, `Q` and `R` the replacement's second and fourth moments over `n`,
//! `q = svec(Q)`):
//!
//! ```text
//! HS(S) = n min tau  s.t.  0 <= a_i <= u_i,  tau >= 1 - sum a_i / n,  tr Q <= lambda tau,
//!                          Q ⪰ 0,   (S - nu_0 I) ⪯ P_a / n + Q ⪯ (S + nu_0 I),
//!                          [tau, q^T; q, R] ⪰ 0,
//!                          C (S ⊗_s I) - sum (a_i / n) z_i z_i^T - R + N ⪰ 0,  N in the null space
//! ```
//!
//! (`P_a = sum a_i x_i x_i^T`). The last constraint says that the quartic
//! `C (v^T S v) |v|^2 - sum (a_i / n) <x_i, v>^4 - z(v)^T R z(v)` is a sum of squares
//! ([`quartic`]): MATH.md 5.2b writes "N in the degree-4 SoS cone"; a positive semidefinite
//! `N` would make the constraint empty, so `N` ranges over the Gram matrices of the zero
//! quartic, which is what "the quartic is SoS" means. The kept points and the replacement
//! must have a second moment within `nu_0` of `S` and a certified fourth moment at most
//! `C (v^T S v) |v|^2`, so an adversary's points far along a thin direction of `S` cannot be
//! kept, and the replacement's mass there is paid for through `R ⪰ q q^T / tau`.
//!
//! Properties (tests in `tests/hs.rs`): sensitivity 1 (a record replaced: its weight moves into
//! the replacement, `Q += a_j x_j x_j^T / n`, `R += a_j^2 z_j z_j^T / n`, `tau += 1 / n`; the
//! trace row holds since `a_j |x_j|^2 <= lambda`, the Schur block gains
//! `[1, a_j z_j^T; a_j z_j, a_j^2 z_j z_j^T] / n ⪰ 0`, the SoS block's slack grows by
//! `(a_j - a_j^2) z_j z_j^T / n ⪰ 0` since `a_j <= 1`), quasi-convex (every constraint affine in `(S, a, tau, q, R, N)`).
//! The score is capped at `n` (`min(HS, n)` keeps both properties); outside the domain (`S`
//! not positive definite) it is `n`.
//!
//! Brackets:
//! - upper: the solver's primal point of the program with every PSD block tightened by
//!   [`HsSettings::margin`] (the band by the smaller of it and `nu_0 / 2`), `a` clipped into its box and `tau` raised to the least value the
//!   linear rows allow, checked block by block (eigenvalues); `n tau` if every block holds,
//!   else `n`;
//! - lower: weak duality with duals repaired to be exactly feasible: the SoS block's dual `Psi`
//!   projected onto the moment matrices and shifted by a multiple of the Gaussian moment matrix
//!   until positive semidefinite, the Schur block's dual completed as `[alpha, beta^T; beta, Psi]`
//!   with `alpha >= beta^T Psi^+ beta`, the dual of `Q ⪰ 0` solved from `Q`'s stationarity and
//!   the trace row's dual raised until it is positive semidefinite, everything scaled so that
//!   `tau`'s coefficient is nonnegative; then
//!   `HS >= n s (mu - <Y+, S + nu_0 I> + <Y-, S - nu_0 I> - C <Psi, S ⊗_s I>
//!              + sum_i u_i min(0, (<Y+ - Y-, x_i x_i^T> + z_i^T Psi z_i - mu) / n))`.
pub mod quartic;
pub mod reference;

use crate::dense::{self, min_eigenvalue, psd_projection, trace_product};
use crate::sp::{Spectral, check_points_and_clip, symmetric_parameter};
use crate::{ScoreError, ScoreEval};
use nalgebra::{Cholesky, DMatrix};
use quartic::QuarticForms;
use sosdp_oracle::svec::smat;

/// The score's constants; every field states its default ([`HsSettings::default`]).
#[derive(Clone, Debug)]
pub struct HsSettings {
    /// The hypercontractivity constant `C` (MATH.md 5.2b: 3.5 to 4; a Gaussian's fourth
    /// moment is `3 (v^T Sigma v)^2`). Default 4.
    pub constant: f64,
    /// Margin by which the upper bound's program tightens every PSD block (and the band
    /// `nu_0`, by at most half of it), so that the solver's primal point passes the exact checks. Default `1e-7`.
    pub margin: f64,
}

impl Default for HsSettings {
    fn default() -> Self {
        HsSettings {
            constant: 4.0,
            margin: 1e-7,
        }
    }
}

/// Problem data of the HS score.
#[derive(Clone, Debug)]
pub struct Hypercontractive {
    /// Points in the public frame, one column per point (`d x n`).
    x: DMatrix<f64>,
    /// `z_i = svec(x_i x_i^T)`, one column per point (`D x n`).
    lifted: DMatrix<f64>,
    /// `u_i = min(1, lambda / |x_i|^2)`.
    caps: Vec<f64>,
    lambda: f64,
    band: f64,
    settings: HsSettings,
    quartic: QuarticForms,
}

/// A primal point of the (normalised) program, as the solver returned it.
pub struct Primal<'a> {
    /// Kept weights `a_i`.
    pub weights: &'a [f64],
    /// `tau = t / n`.
    pub tau: f64,
    /// `q = svec(Q)`, length `D`.
    pub q: &'a [f64],
    /// The replacement's fourth moment `R` (`D x D`).
    pub r: DMatrix<f64>,
    /// The null-space element `N` (`D x D`).
    pub null: DMatrix<f64>,
}

/// Dual matrices and multipliers of the (normalised) program, as the solver returned them.
pub struct Duals {
    /// Multiplier of `tau - 1 + sum a_i / n >= 0`.
    pub mass: f64,
    /// Multiplier of `lambda tau - tr Q >= 0`.
    pub trace: f64,
    /// Dual of `S + nu_0 I - P_a / n - Q ⪰ 0` (`d x d`).
    pub upper: DMatrix<f64>,
    /// Dual of `P_a / n + Q - S + nu_0 I ⪰ 0` (`d x d`).
    pub lower: DMatrix<f64>,
    /// Dual of `[tau, q^T; q, R] ⪰ 0` (`(D + 1) x (D + 1)`).
    pub schur: DMatrix<f64>,
    /// Dual of the SoS block (`D x D`).
    pub sos: DMatrix<f64>,
}

impl Hypercontractive {
    /// Validate and store the data: `points` is `n x d` (one record in the stage's frame per
    /// row), `lambda > 0` the clip (`|x_i|^2` above it caps the weight), `band` (`nu_0`) the
    /// second-moment tolerance, positive.
    pub fn new(
        points: &DMatrix<f64>,
        lambda: f64,
        band: f64,
        settings: HsSettings,
    ) -> Result<Self, ScoreError> {
        check_points_and_clip(points, lambda)?;
        let (n, d) = points.shape();
        if !(band.is_finite() && band > 0.0) {
            return Err(ScoreError::InvalidParameter(format!(
                "the band nu_0 must be positive and finite, got {band}"
            )));
        }
        if !(settings.constant.is_finite() && settings.constant > 0.0) {
            return Err(ScoreError::InvalidParameter(format!(
                "the hypercontractivity constant C must be positive and finite, got {}",
                settings.constant
            )));
        }
        if !(settings.margin.is_finite() && settings.margin >= 0.0) {
            return Err(ScoreError::InvalidParameter(format!(
                "the certificate margin must be finite and nonnegative, got {}",
                settings.margin
            )));
        }
        let x = points.transpose();
        let quartic = QuarticForms::new(d);
        let mut lifted = DMatrix::zeros(quartic.side(), n);
        let mut caps = Vec::with_capacity(n);
        for (i, col) in x.column_iter().enumerate() {
            let v: Vec<f64> = col.iter().copied().collect();
            lifted.set_column(i, &nalgebra::DVector::from_vec(quartic.lift(&v)));
            let norm2 = col.norm_squared();
            caps.push(if norm2 > 0.0 {
                (lambda / norm2).min(1.0)
            } else {
                1.0
            });
        }
        Ok(Hypercontractive {
            x,
            lifted,
            caps,
            lambda,
            band,
            settings,
            quartic,
        })
    }

    /// Number of points `n`.
    pub fn n(&self) -> usize {
        self.x.ncols()
    }

    /// Dimension `d` of the points.
    pub fn d(&self) -> usize {
        self.x.nrows()
    }

    /// Dimension of `theta = svec(S)`: `D = d (d + 1) / 2`.
    pub fn dim(&self) -> usize {
        self.quartic.side()
    }

    /// The clip `lambda`.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// The band `nu_0`.
    pub fn band(&self) -> f64 {
        self.band
    }

    /// The constants.
    pub fn settings(&self) -> &HsSettings {
        &self.settings
    }

    /// Points as columns (`d x n`).
    pub fn points(&self) -> &DMatrix<f64> {
        &self.x
    }

    /// Lifted points `z_i` as columns (`D x n`).
    pub fn lifted(&self) -> &DMatrix<f64> {
        &self.lifted
    }

    /// The caps `u_i`.
    pub fn caps(&self) -> &[f64] {
        &self.caps
    }

    /// The quartic-form structure in `d` variables.
    pub fn quartic(&self) -> &QuarticForms {
        &self.quartic
    }

    /// The score's largest value, `n` (its cap).
    pub fn max_score(&self) -> f64 {
        self.n() as f64
    }

    /// Check `theta` (length, finiteness) and unpack it into `S`; `None` when `S` is not
    /// positive definite (outside the domain).
    pub fn candidate(&self, theta: &[f64]) -> Result<Option<DMatrix<f64>>, ScoreError> {
        let s = symmetric_parameter(self.d(), theta)?;
        Ok(Cholesky::new(s.clone()).map(|_| s))
    }

    /// `theta = svec(S)` for a symmetric matrix ([`Spectral::theta_of`]).
    pub fn theta_of(matrix: &DMatrix<f64>) -> Vec<f64> {
        Spectral::theta_of(matrix)
    }

    /// Certified upper bound from a primal point (see the module doc).
    pub fn upper_bound(&self, s: &DMatrix<f64>, primal: &Primal) -> f64 {
        let n = self.n() as f64;
        let d = self.d();
        let a: Vec<f64> = primal
            .weights
            .iter()
            .zip(&self.caps)
            .map(|(x, u)| if x.is_finite() { x.clamp(0.0, *u) } else { 0.0 })
            .collect();
        let q = DMatrix::from_row_slice(d, d, &smat(d, primal.q));
        let kept: f64 = a.iter().sum();
        let tau = primal
            .tau
            .max(1.0 - kept / n)
            .max(q.trace() / self.lambda)
            .max(0.0);
        let a_over_n: Vec<f64> = a.iter().map(|v| v / n).collect();
        let second = dense::weighted_scatter(&self.x, &a_over_n) + &q;
        let identity = DMatrix::<f64>::identity(d, d);
        let band = &identity * self.band;
        let mut schur = DMatrix::zeros(self.dim() + 1, self.dim() + 1);
        schur[(0, 0)] = tau;
        for (p, &v) in primal.q.iter().enumerate() {
            schur[(0, p + 1)] = v;
            schur[(p + 1, 0)] = v;
        }
        schur
            .view_mut((1, 1), (self.dim(), self.dim()))
            .copy_from(&primal.r);
        let sos = self.quartic.sym_kron_identity(s) * self.settings.constant
            - dense::weighted_scatter(&self.lifted, &a_over_n)
            - &primal.r
            + &primal.null;
        let holds = |m: DMatrix<f64>| {
            let sym = (&m + m.transpose()) * 0.5;
            dense::all_finite(sym.iter()) && min_eigenvalue(&sym) >= 0.0
        };
        let feasible = holds(q.clone())
            && holds(s + &band - &second)
            && holds(&second - s + &band)
            && holds(schur)
            && holds(sos);
        if feasible { (n * tau).min(n) } else { n }
    }

    /// Certified lower bound from candidate duals (see the module doc).
    pub fn lower_bound(&self, s: &DMatrix<f64>, duals: &Duals) -> f64 {
        let n = self.n() as f64;
        let d = self.d();
        let big = self.dim();
        let upper = psd_projection(&duals.upper);
        let lower = psd_projection(&duals.lower);
        // Psi: a moment matrix, positive semidefinite.
        let mut psi = self.quartic.project_to_moments(&duals.sos);
        let floor = min_eigenvalue(&psi);
        if floor < 0.0 {
            let gauss = self.quartic.gaussian_moments();
            let scale = psi.abs().max().max(1.0);
            let shift = (-floor + 1e-12 * scale) / min_eigenvalue(&gauss);
            psi += gauss * shift;
        }
        // The Schur block's dual [alpha, beta^T; beta, Psi]: beta restricted to Psi's range.
        let eig = psi.clone().symmetric_eigen();
        let tiny = 1e-12 * eig.eigenvalues.amax().max(1e-300);
        let schur = (&duals.schur + duals.schur.transpose()) * 0.5;
        let beta_in: nalgebra::DVector<f64> = schur.view((1, 0), (big, 1)).column(0).into_owned();
        let coords = eig.eigenvectors.transpose() * &beta_in;
        let mut beta = nalgebra::DVector::zeros(big);
        let mut alpha_min = 0.0;
        for k in 0..big {
            let lam = eig.eigenvalues[k];
            if lam > tiny {
                beta += eig.eigenvectors.column(k) * coords[k];
                alpha_min += coords[k] * coords[k] / lam;
            }
        }
        let alpha = schur[(0, 0)].max(alpha_min * (1.0 + 1e-9) + 1e-300);
        // Y_Q = rho I + Y+ - Y- - 2 smat(beta) ⪰ 0, raising rho if needed.
        let beta_mat = DMatrix::from_row_slice(d, d, &smat(d, beta.as_slice()));
        let identity = DMatrix::<f64>::identity(d, d);
        let mut rho = duals.trace.max(0.0);
        let base = &upper - &lower - beta_mat * 2.0;
        let deficit = min_eigenvalue(&(&base + &identity * rho));
        if deficit < 0.0 {
            rho += -deficit * (1.0 + 1e-9) + 1e-15;
        }
        let mu = duals.mass.max(0.0);
        let load = mu + rho * self.lambda + alpha;
        let scale = if load > 1.0 { 1.0 / load } else { 1.0 };
        let constant = mu - trace_product(&upper, &(s + &identity * self.band))
            + trace_product(&lower, &(s - &identity * self.band))
            - self.settings.constant * trace_product(&psi, &self.quartic.sym_kron_identity(s));
        let second = dense::quad_forms(&self.x, &(&upper - &lower));
        let fourth = dense::quad_forms(&self.lifted, &psi);
        let per_point: f64 = second
            .iter()
            .zip(&fourth)
            .zip(&self.caps)
            .map(|((q2, q4), u)| u * ((q2 + q4 - mu) / n).min(0.0))
            .sum();
        let bound = n * scale * (constant + per_point);
        // Duals so large that the bound overflows certify nothing.
        if bound.is_nan() {
            0.0
        } else {
            bound.clamp(0.0, n)
        }
    }

    /// The bracket for a solver's primal point and duals.
    pub fn certify(
        &self,
        s: &DMatrix<f64>,
        value: f64,
        primal: &Primal,
        duals: &Duals,
    ) -> ScoreEval {
        let upper = self.upper_bound(s, primal);
        let lower = self.lower_bound(s, duals).min(upper);
        ScoreEval::bracketed(value, lower, upper)
    }
}
