//! The stopping rules of the interior-point method, one struct.

/// Stopping rules and budget of one interior-point solve ([`super::solve`]). Defaults in
/// [`IpmSettings::default`]; the fast backends build theirs from [`crate::FastSettings`].
#[derive(Clone, Debug, PartialEq)]
pub struct IpmSettings {
    /// Absolute duality gap `s^T z` at which an accurate iterate is converged (objective
    /// units).
    pub gap_tol: f64,
    /// Relative primal and dual residuals (max-norm over `1 + ` the max-norm of `h`, resp. of
    /// the costs) at or below which an iterate is accurate.
    pub feas_tol: f64,
    /// Largest number of Newton steps.
    pub max_iter: usize,
    /// The method has stalled when an accurate iterate was seen and the dual residual has
    /// since grown beyond `stall_factor * feas_tol` (late Newton systems lose accuracy when
    /// the box duals span many decades); the solve then returns the accurate iterate with the
    /// smallest gap.
    pub stall_factor: f64,
    /// Fraction of the step to the cone's boundary taken (steps are capped at 1).
    pub step_fraction: f64,
    /// A primal guess `x0` outside the cone (its slacks `h - G x0` not strictly feasible) whose
    /// scaled copies `c x0` are strictly feasible for `0 < c < c_max` starts at
    /// `start_fraction * c_max * x0`, with zero primal residual (the packing programs of the CM
    /// score: `c = 0` is feasible); 0 keeps every guess, its slacks shifted into the cone.
    pub start_fraction: f64,
    /// Most steps of iterative refinement of the corrector's Newton solve.
    pub refinement_steps: usize,
    /// The refinement stops once the residual is at most `refinement_tol` times the
    /// right-hand side's max-norm (rounding level), or no longer halves.
    pub refinement_tol: f64,
    /// A Woodbury Newton system whose rank-`N` update costs at least this many flops
    /// (`N m^2` for `N` free weights and rank `m`) is formed, and multiplied by, as two column
    /// halves on rayon's threads, each with single-threaded BLAS. Two cores then share one
    /// solve. Results depend only on the fixed two-way split, not on the core count, as long as
    /// OpenBLAS runs each call on one thread (the `sosdp` binary sets it); `f64::INFINITY`
    /// keeps every product whole.
    pub split_flops: f64,
    /// Largest number of entries of a Newton-system matrix sized by the `N` free weights that
    /// is kept whole: the Woodbury factor `Fs` (`m x N`, `m` the rank of the low-rank part)
    /// and the dense weight block `M_aa` (`N x N`, kept beside its Cholesky factor for the
    /// iterative refinement). Beyond it `Fs` is never formed (its products are
    /// `svec(P diag(c) P^T)` and the quadratic forms `p_i^T U p_i` of the scaled points `P`, and
    /// `I + Fs Fs^T` is accumulated from `stream_columns` of its columns at a time) and `M_aa`
    /// is multiplied through the same structure, so that a solve needs `O(n D)` memory plus one
    /// `min(N, m)`-square factor, never `m x N` (issue 36: at `D = 210` an `Fs` of 90000
    /// columns took 16 GB).
    pub stored_entries: usize,
    /// Columns of `Fs` formed at once when it is streamed (see `stored_entries`).
    pub stream_columns: usize,
}

impl Default for IpmSettings {
    fn default() -> Self {
        IpmSettings {
            gap_tol: 1e-9,
            feas_tol: 1e-9,
            max_iter: 80,
            stall_factor: 1e3,
            step_fraction: 0.99,
            // The private mean's cluster fit (d = 10, n = 20000) ran 12% slower with 0.5; the
            // lifted refinement sets it (`sosdp_learn::CovarianceSettings::refinement_score`).
            start_fraction: 0.0,
            refinement_steps: 8,
            refinement_tol: 1e-14,
            // About 5 ms on one core.
            split_flops: 1e8,
            // 2 GB: every solve up to `D = 55` with `N = 100000` stays whole, so its numbers
            // are the same as before the bound.
            stored_entries: 1 << 28,
            // 180 MB at `m = 22366`, `D = 210`.
            stream_columns: 1024,
        }
    }
}
