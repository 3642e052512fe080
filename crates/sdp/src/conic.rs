//! Conic problems in clarabel's standard form, assembled row by row.
//!
//! A problem is `minimise q^T x` subject to affine expressions lying in cones. Each constraint
//! row `r` is an affine expression `s_r(x) = b_r - (A x)_r`; a block of consecutive rows lies in
//! one cone (zero, nonnegative, second-order, or PSD triangle with the `svec` convention of
//! [`sosdp_oracle::svec`]). We always write the expression itself (`s = const + sum coeff * x`) and
//! store `b = const`, `A = -coeff`, so that callers never handle clarabel's sign convention.
//!
//! The solution carries the primal `x`, the slack `s` and the dual `z` (in the dual cone), so
//! callers can turn solver output into certified bounds (MATH.md 3.2).
use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use sosdp_oracle::svec::{svec_index, svec_scale, triangular_number};

/// A cone for one block of rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cone {
    /// `s = 0`, `len` rows.
    Zero(usize),
    /// `s >= 0` componentwise, `len` rows.
    Nonnegative(usize),
    /// `s_0 >= ||s_1..||`, `len` rows.
    SecondOrder(usize),
    /// `smat(s) ⪰ 0` for an `m x m` matrix; `m (m + 1) / 2` rows.
    PsdTriangle(usize),
}

impl Cone {
    /// Number of rows the cone occupies.
    pub fn rows(&self) -> usize {
        match *self {
            Cone::Zero(n) | Cone::Nonnegative(n) | Cone::SecondOrder(n) => n,
            Cone::PsdTriangle(m) => triangular_number(m),
        }
    }

    fn to_clarabel(self) -> SupportedConeT<f64> {
        match self {
            Cone::Zero(n) => SupportedConeT::ZeroConeT(n),
            Cone::Nonnegative(n) => SupportedConeT::NonnegativeConeT(n),
            Cone::SecondOrder(n) => SupportedConeT::SecondOrderConeT(n),
            Cone::PsdTriangle(m) => SupportedConeT::PSDTriangleConeT(m),
        }
    }
}

/// A block of rows added with [`ConicProblem::add_block`]: its first row and cone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Index of the block's first row.
    pub start: usize,
    /// The cone its rows belong to.
    pub cone: Cone,
}

impl Block {
    /// Row of entry `(i, j)` of a PSD block's matrix.
    pub fn psd_row(&self, i: usize, j: usize) -> usize {
        debug_assert!(matches!(self.cone, Cone::PsdTriangle(m) if i < m && j < m));
        self.start + svec_index(i, j)
    }

    /// The rows of this block in a full-length vector (for example the dual `z`).
    pub fn slice<'a>(&self, v: &'a [f64]) -> &'a [f64] {
        &v[self.start..self.start + self.cone.rows()]
    }
}

/// A conic program `minimise q^T x` s.t. every block's affine expression lies in its cone.
#[derive(Clone, Debug)]
pub struct ConicProblem {
    n_vars: usize,
    q: Vec<f64>,
    b: Vec<f64>,
    a_rows: Vec<usize>,
    a_cols: Vec<usize>,
    a_vals: Vec<f64>,
    blocks: Vec<Block>,
}

/// Solver settings for [`ConicProblem::solve`]; every field states its default
/// ([`SolveSettings::default`]).
#[derive(Clone, Debug)]
pub struct SolveSettings {
    /// Absolute and relative gap and feasibility tolerance (clarabel's `tol_gap_abs`,
    /// `tol_gap_rel`, `tol_feas`). Default `1e-8`.
    pub tolerance: f64,
    /// Iteration budget (clarabel's `max_iter`). Default 200.
    pub max_iter: u32,
    /// Print clarabel's iteration log. Default false.
    pub verbose: bool,
}

impl Default for SolveSettings {
    fn default() -> Self {
        SolveSettings {
            tolerance: 1e-8,
            max_iter: 200,
            verbose: false,
        }
    }
}

/// Outcome reported by the solver.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// Solved to the requested tolerance.
    Solved,
    /// Solved only to clarabel's reduced tolerances.
    AlmostSolved,
    /// Certificate that no `x` satisfies the constraints.
    PrimalInfeasible,
    /// Certificate that the objective is unbounded below.
    DualInfeasible,
    /// Anything else (iteration limit, numerical trouble), with clarabel's word for it.
    Failed(String),
}

impl Status {
    /// True when `x`, `s` and `z` are an (almost) optimal primal-dual pair.
    pub fn is_solved(&self) -> bool {
        matches!(self, Status::Solved | Status::AlmostSolved)
    }
}

/// Primal-dual output of a solve.
#[derive(Clone, Debug)]
pub struct ConicSolution {
    /// How the solve ended.
    pub status: Status,
    /// Primal variables.
    pub x: Vec<f64>,
    /// Slacks `s = b - A x`, i.e. the values of the constraint expressions.
    pub s: Vec<f64>,
    /// Dual variables, in the dual cone, one per row.
    pub z: Vec<f64>,
    /// `q^T x`.
    pub primal_objective: f64,
    /// The dual objective reported by clarabel.
    pub dual_objective: f64,
    /// Interior-point iterations clarabel took.
    pub iterations: u32,
    /// Solve time reported by clarabel, in seconds.
    pub solve_time_s: f64,
}

impl ConicProblem {
    /// An empty problem with `n_vars` variables and zero objective.
    pub fn new(n_vars: usize) -> Self {
        ConicProblem {
            n_vars,
            q: vec![0.0; n_vars],
            b: Vec::new(),
            a_rows: Vec::new(),
            a_cols: Vec::new(),
            a_vals: Vec::new(),
            blocks: Vec::new(),
        }
    }

    /// Number of variables.
    pub fn n_vars(&self) -> usize {
        self.n_vars
    }

    /// Number of constraint rows (all blocks).
    pub fn n_rows(&self) -> usize {
        self.b.len()
    }

    /// The blocks of rows, in the order they were added.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Add `coeff * x_var` to the objective (minimised).
    pub fn add_objective(&mut self, var: usize, coeff: f64) {
        assert!(var < self.n_vars, "objective variable {var} out of range");
        self.q[var] += coeff;
    }

    /// Append a block of rows lying in `cone`; its expressions start at zero.
    pub fn add_block(&mut self, cone: Cone) -> Block {
        let block = Block {
            start: self.b.len(),
            cone,
        };
        self.b.resize(self.b.len() + cone.rows(), 0.0);
        self.blocks.push(block);
        block
    }

    /// Add the constant `value` to the expression of `row`.
    pub fn add_constant(&mut self, row: usize, value: f64) {
        self.b[row] += value;
    }

    /// Add `coeff * x_var` to the expression of `row`. Repeated entries are summed.
    pub fn add_term(&mut self, row: usize, var: usize, coeff: f64) {
        assert!(var < self.n_vars, "variable {var} out of range");
        assert!(row < self.b.len(), "row {row} out of range");
        if coeff != 0.0 {
            self.a_rows.push(row);
            self.a_cols.push(var);
            self.a_vals.push(-coeff);
        }
    }

    /// Add the constant `value` to entries `(i, j)` and `(j, i)` of a PSD block's matrix.
    pub fn add_psd_constant(&mut self, block: Block, i: usize, j: usize, value: f64) {
        self.add_constant(block.psd_row(i, j), value * svec_scale(i, j));
    }

    /// Add `coeff * x_var` to entries `(i, j)` and `(j, i)` of a PSD block's matrix.
    pub fn add_psd_term(&mut self, block: Block, i: usize, j: usize, var: usize, coeff: f64) {
        self.add_term(block.psd_row(i, j), var, coeff * svec_scale(i, j));
    }

    /// Solve with clarabel.
    pub fn solve(&self, settings: &SolveSettings) -> ConicSolution {
        let m = self.b.len();
        let p = CscMatrix::<f64>::zeros((self.n_vars, self.n_vars));
        let a = CscMatrix::new_from_triplets(
            m,
            self.n_vars,
            self.a_rows.clone(),
            self.a_cols.clone(),
            self.a_vals.clone(),
        );
        let cones: Vec<_> = self.blocks.iter().map(|b| b.cone.to_clarabel()).collect();
        let tol = settings.tolerance;
        let clarabel_settings = DefaultSettingsBuilder::default()
            .verbose(settings.verbose)
            .max_iter(settings.max_iter)
            .tol_gap_abs(tol)
            .tol_gap_rel(tol)
            .tol_feas(tol)
            .build()
            .expect("clarabel settings are valid");
        let mut solver =
            match DefaultSolver::new(&p, &self.q, &a, &self.b, &cones, clarabel_settings) {
                Ok(s) => s,
                Err(e) => {
                    return ConicSolution {
                        status: Status::Failed(format!("clarabel rejected the problem: {e}")),
                        x: vec![f64::NAN; self.n_vars],
                        s: vec![f64::NAN; m],
                        z: vec![f64::NAN; m],
                        primal_objective: f64::NAN,
                        dual_objective: f64::NAN,
                        iterations: 0,
                        solve_time_s: 0.0,
                    };
                }
            };
        solver.solve();
        let sol = &solver.solution;
        let status = match sol.status {
            SolverStatus::Solved => Status::Solved,
            SolverStatus::AlmostSolved => Status::AlmostSolved,
            SolverStatus::PrimalInfeasible | SolverStatus::AlmostPrimalInfeasible => {
                Status::PrimalInfeasible
            }
            SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => {
                Status::DualInfeasible
            }
            other => Status::Failed(format!("{other:?}")),
        };
        ConicSolution {
            status,
            x: sol.x.clone(),
            s: sol.s.clone(),
            z: sol.z.clone(),
            primal_objective: sol.obj_val,
            dual_objective: sol.obj_val_dual,
            iterations: sol.iterations,
            solve_time_s: sol.solve_time,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// max x + y s.t. [[1, x], [x, 1]] ⪰ 0, y <= 2, x, y >= 0  →  x = 1, y = 2.
    #[test]
    fn small_sdp_with_mixed_cones() {
        let mut p = ConicProblem::new(2);
        p.add_objective(0, -1.0);
        p.add_objective(1, -1.0);
        let nn = p.add_block(Cone::Nonnegative(3));
        p.add_term(nn.start, 0, 1.0);
        p.add_term(nn.start + 1, 1, 1.0);
        p.add_constant(nn.start + 2, 2.0);
        p.add_term(nn.start + 2, 1, -1.0);
        let psd = p.add_block(Cone::PsdTriangle(2));
        p.add_psd_constant(psd, 0, 0, 1.0);
        p.add_psd_constant(psd, 1, 1, 1.0);
        p.add_psd_term(psd, 0, 1, 0, 1.0);
        let sol = p.solve(&SolveSettings::default());
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.x[0] - 1.0).abs() < 1e-6, "x = {:?}", sol.x);
        assert!((sol.x[1] - 2.0).abs() < 1e-6);
        assert!((sol.primal_objective + 3.0).abs() < 1e-6);
    }

    #[test]
    fn infeasible_problem_is_reported() {
        // x >= 1 and x <= -1.
        let mut p = ConicProblem::new(1);
        let nn = p.add_block(Cone::Nonnegative(2));
        p.add_term(nn.start, 0, 1.0);
        p.add_constant(nn.start, -1.0);
        p.add_term(nn.start + 1, 0, -1.0);
        p.add_constant(nn.start + 1, -1.0);
        assert_eq!(
            p.solve(&SolveSettings::default()).status,
            Status::PrimalInfeasible
        );
    }
}
