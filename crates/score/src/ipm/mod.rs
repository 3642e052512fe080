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
//! A primal guess outside the cone either keeps its slacks shifted into the cone or, with
//! [`IpmSettings::start_fraction`], starts at a strictly feasible multiple of itself.
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
//!
//! The solver's parts: the problem and the method's vectors (`problem`), the NT scaling
//! (`scaling`), the normal equations (`normal_equations`), the predictor-corrector loop
//! ([`solve`], `iteration`) and its stopping rules ([`IpmSettings`]).
mod iteration;
mod normal_equations;
mod problem;
mod scaling;
mod settings;

use nalgebra::DMatrix;

pub use iteration::solve;
pub use problem::{LinearRow, LmiBlock, Problem};
pub use settings::IpmSettings;

/// How the solve ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    /// An accurate iterate with gap at most `gap_tol`.
    Converged,
    /// The caller's progress callback asked to stop.
    Stopped,
    /// The iteration budget ran out before an accurate iterate.
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
    /// The weights `a`.
    pub a: Vec<f64>,
    /// The free variables `t`.
    pub extra: Vec<f64>,
    /// Dual matrix `Z_b` of each LMI block.
    pub block_duals: Vec<DMatrix<f64>>,
    /// Dual of each linear row.
    pub row_duals: Vec<f64>,
    /// Objective at the primal iterate.
    pub primal_objective: f64,
    /// Dual objective `-h^T z` (a lower bound only when the dual is feasible).
    pub dual_objective: f64,
    /// Newton steps taken.
    pub iterations: usize,
    /// How the solve ended.
    pub termination: Termination,
}

/// The report of one interior-point iteration, as the stopping callback sees it.
#[derive(Clone, Copy, Debug)]
pub struct IterationReport {
    /// Newton steps so far.
    pub iteration: usize,
    /// Objective at the primal iterate.
    pub primal_objective: f64,
    /// Dual objective `-h^T z`.
    pub dual_objective: f64,
    /// Duality gap `s^T z`.
    pub gap: f64,
    /// Relative primal residual (see [`IpmSettings::feas_tol`]).
    pub primal_residual: f64,
    /// Relative dual residual (see [`IpmSettings::feas_tol`]).
    pub dual_residual: f64,
}
