//! Answers without a solve (MATH.md 4.9): a certified primal of one solve certifies a whole
//! ellipsoid of parameters.
//!
//! With feasible weights `a` (`A = sum a`) and their normalised scatter
//! `S(a) = sum_i (a_i / n) zh_i zh_i^T = [[S11, s12], [s12^T, s22]]`, the weights `tau a` stay in
//! the box for `tau` in `(0, 1]`, and `L(theta, tau a) = B(theta) - tau S(a)` is PSD exactly when
//! `Gamma - tau S11 ≻ 0` and (Schur complement)
//!
//! ```text
//! (theta - c - tau s12)^T (Gamma - tau S11)^{-1} (theta - c - tau s12) <= 1 - tau s22,
//! ```
//!
//! so `CM(theta) <= n - tau A` on that ellipsoid `E(a, tau)`. A membership question "is
//! `CM(theta) <= l`?" is answered YES, with the upper end `n - tau A < l`, when `theta` lies in
//! `E(a, tau)` for `tau` just above `(n - l) / A`. Both tests carry a relative safety margin
//! ([`Certificate::MARGIN`]) against rounding. The answer is certified, so it is the answer an
//! exact solve would give: a chain with memoisation is the chain without it.
use nalgebra::{DMatrix, DVector};

/// The certificate of one solve: the scatter of its feasible weights and their sum.
#[derive(Clone, Debug)]
pub struct Certificate {
    /// `S11` (`D x D`).
    pub s11: DMatrix<f64>,
    /// `s12` (length `D`).
    pub s12: DVector<f64>,
    /// `s22 = A / n`.
    pub s22: f64,
    /// `A = sum_i a_i`.
    pub total: f64,
}

impl Certificate {
    /// Relative safety margin of the ellipsoid test: the Schur inequality must hold with this
    /// share of its right-hand side to spare, and `tau` exceeds `(n - l) / A` by this share.
    pub const MARGIN: f64 = 1e-9;

    /// The certificate of feasible weights whose normalised scatter is `scatter`
    /// (`(D+1) x (D+1)`) and whose sum is `total`.
    pub fn new(scatter: &DMatrix<f64>, total: f64) -> Self {
        let d = scatter.nrows() - 1;
        Certificate {
            s11: scatter.view((0, 0), (d, d)).into_owned(),
            s12: scatter.view((0, d), (d, 1)).column(0).into_owned(),
            s22: scatter[(d, d)],
            total,
        }
    }

    /// A certified upper bound `n - tau A < level` on `CM(theta)` from this certificate, for the
    /// score with centre `centre`, budget `gamma` and `n` points; `None` when `theta` is not in
    /// the ellipsoid for the smallest usable `tau`. The ellipsoids shrink as `tau` grows and
    /// the `tau` whose ellipsoid holds `theta` form an interval (`L(theta, tau a)` is affine in
    /// `tau` and PSD at 0), so the bound is then improved by bisection for the largest such `tau`
    /// in `[tau, 1]` ([`Certificate::BISECTIONS`] steps): a bound well below the level lets a
    /// descent over levels skip the levels it decides.
    pub fn upper_below(
        &self,
        theta: &[f64],
        centre: &DVector<f64>,
        gamma: &DMatrix<f64>,
        n: f64,
        level: f64,
    ) -> Option<f64> {
        if !(self.total > 0.0) || level >= n {
            return None;
        }
        let smallest = ((n - level) / self.total * (1.0 + Self::MARGIN)).max(0.0);
        if smallest > 1.0 || !(n - smallest * self.total < level) {
            return None;
        }
        let v0 = DVector::from_column_slice(theta) - centre;
        let holds = |tau: f64| self.holds(&v0, gamma, tau);
        if !holds(smallest) {
            return None;
        }
        let (mut good, mut bad) = (smallest, 1.0);
        if holds(1.0) {
            good = 1.0;
        } else {
            for _ in 0..Self::BISECTIONS {
                let mid = 0.5 * (good + bad);
                if holds(mid) {
                    good = mid;
                } else {
                    bad = mid;
                }
            }
        }
        Some(n - good * self.total)
    }

    /// Bisection steps of the largest `tau` ([`Certificate::upper_below`]).
    pub const BISECTIONS: usize = 30;

    /// The Schur test of `L(theta, tau a) ⪰ 0` with the safety margin, `v0 = theta - c`.
    fn holds(&self, v0: &DVector<f64>, gamma: &DMatrix<f64>, tau: f64) -> bool {
        let room = 1.0 - tau * self.s22;
        if room <= 0.0 {
            return false;
        }
        let Some(chol) = (gamma - &self.s11 * tau).cholesky() else {
            return false;
        };
        let v = v0 - &self.s12 * tau;
        v.dot(&chol.solve(&v)) <= room * (1.0 - Self::MARGIN)
    }
}
