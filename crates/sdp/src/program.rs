//! The generic pseudo-expectation (moment, Lasserre) SDP of MATH.md section 3.1.
//!
//! A degree-`2t` pseudo-expectation over variables `x = (x_1..x_n)` is a linear functional
//! `E~` on polynomials of degree `<= 2t`, given by its moments `y_α = E~[x^α]`, `|α| <= 2t`,
//! with `E~[1] = 1` and moment matrix `M_t(y) = E~[b b^T] ⪰ 0`, where `b` is the vector of
//! all monomials of degree `<= t`. [`PseudoExpectationProgram`] finds one that satisfies
//!
//! - polynomial identities `p = 0`: `E~[p m] = 0` for every monomial `m` with
//!   `deg(p m) <= 2t`;
//! - polynomial inequalities `q >= 0`: the localising matrix
//!   `M_s(q y) = E~[q b_s b_s^T] ⪰ 0`, `s = t - ceil(deg q / 2)`, `b_s` the monomials of
//!   degree `<= s`;
//! - matrix inequalities `M(x) ⪰ 0` (`M` a symmetric `k x k` polynomial matrix): the block
//!   localising matrix `E~[(b_s b_s^T) ⊗ M(x)] ⪰ 0`, `s = t - ceil(deg M / 2)`;
//! - linear conditions on the functional itself: `E~[p] = v`, `E~[p] >= l`;
//!
//! and optimises `E~[p]` over them. It compiles to a [`ConicProblem`] with one variable per
//! moment `y_α`, `1 <= |α| <= 2t` (`E~[1] = 1` is substituted as a constant): zero cones for
//! identities, nonnegative cones for scalar conditions (including `1 x 1` localising
//! matrices), PSD-triangle cones for moment and localising matrices.
use crate::conic::{Cone, ConicProblem, SolveSettings, Status};
use crate::poly::{Monomial, Polynomial, Var, Variables, monomials_up_to};
use sosdp_oracle::svec::svec_scale;
use std::collections::HashMap;
use thiserror::Error;

/// Why a constraint, an objective or a solve was rejected.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ProgramError {
    /// A polynomial's degree exceeds the relaxation degree `2t`.
    #[error("degree {degree} exceeds the relaxation degree 2t = {max}")]
    DegreeTooHigh {
        /// The polynomial's degree.
        degree: usize,
        /// The relaxation degree `2t`.
        max: usize,
    },
    /// A variable of another registry, or added after the program was created.
    #[error(
        "variable #{index} is not one of the program's variables \
         (another registry, or added after the program was created)"
    )]
    ForeignVariable {
        /// The variable's index in its registry.
        index: usize,
    },
    /// A matrix constraint whose rows do not all have `size` entries.
    #[error("matrix constraint is not square: row {row} has {len} entries, expected {size}")]
    NotSquare {
        /// The first row of the wrong length.
        row: usize,
        /// Its number of entries.
        len: usize,
        /// The number of rows (the expected length).
        size: usize,
    },
    /// A matrix constraint whose entries `(i, j)` and `(j, i)` differ.
    #[error("matrix constraint is not symmetric: entries ({i}, {j}) and ({j}, {i}) differ")]
    NotSymmetric {
        /// Row of the first asymmetric entry.
        i: usize,
        /// Its column.
        j: usize,
    },
    /// The solver returned no usable answer (its status).
    #[error("the solver returned no usable answer: {0}")]
    Solver(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sense {
    Minimize,
    Maximize,
}

/// The moments `y_α`, `|α| <= 2t`, in graded order, and their conic variables: the moment
/// at position `k >= 1` is variable `k - 1`; position 0 is `E~[1] = 1`.
#[derive(Clone, Debug)]
struct MomentIndex {
    monomials: Vec<Monomial>,
    position: HashMap<Monomial, usize>,
}

impl MomentIndex {
    fn new(vars: &[Var], max_degree: usize) -> Self {
        let monomials = monomials_up_to(vars, max_degree);
        let position = monomials
            .iter()
            .cloned()
            .enumerate()
            .map(|(k, m)| (m, k))
            .collect();
        MomentIndex {
            monomials,
            position,
        }
    }

    /// All monomials of degree `<= degree` (a prefix, since the order is graded).
    fn basis(&self, degree: usize) -> &[Monomial] {
        &self.monomials[..self.monomials.partition_point(|m| m.degree() <= degree)]
    }

    /// Add `scale * E~[p * shift]` to the expression of `row`. The caller has checked that
    /// `p * shift` only involves the program's variables and has degree `<= 2t`.
    fn add_expectation(
        &self,
        problem: &mut ConicProblem,
        row: usize,
        scale: f64,
        p: &Polynomial,
        shift: &Monomial,
    ) {
        for (m, c) in p.terms() {
            match self.position[&(m * shift)] {
                0 => problem.add_constant(row, scale * c),
                k => problem.add_term(row, k - 1, scale * c),
            }
        }
    }
}

/// "Find a degree-`2t` pseudo-expectation satisfying the constraints, optimising `E~[p]`"
/// (see the module documentation). Without an objective it is a feasibility problem.
#[derive(Clone, Debug)]
pub struct PseudoExpectationProgram {
    vars: Vec<Var>,
    t: usize,
    index: MomentIndex,
    problem: ConicProblem,
    objective: (Sense, Polynomial),
}

impl PseudoExpectationProgram {
    /// The relaxation of degree `2t` over all variables of `vars`, with only `E~[1] = 1` and
    /// `M_t(y) ⪰ 0`. Variables added to `vars` later are not part of it.
    ///
    /// # Panics
    /// If `t == 0`.
    pub fn new(vars: &Variables, t: usize) -> Self {
        assert!(t >= 1, "the relaxation degree 2t must be positive");
        let vars = vars.all();
        let index = MomentIndex::new(&vars, 2 * t);
        let problem = ConicProblem::new(index.monomials.len() - 1);
        let mut program = PseudoExpectationProgram {
            vars,
            t,
            index,
            problem,
            objective: (Sense::Minimize, Polynomial::zero()),
        };
        program.add_localising(&[vec![Polynomial::constant(1.0)]], 0);
        program
    }

    /// The relaxation degree `2t`.
    pub fn degree(&self) -> usize {
        2 * self.t
    }

    /// Number of moments `y_α`, `|α| <= 2t`, including `E~[1]`.
    pub fn n_moments(&self) -> usize {
        self.index.monomials.len()
    }

    /// `p = 0`: `E~[p m] = 0` for every monomial `m` with `deg p + deg m <= 2t`.
    pub fn equality(&mut self, p: &Polynomial) -> Result<(), ProgramError> {
        let degree = self.check(p)?;
        if p.is_zero() {
            return Ok(());
        }
        let multipliers = self.index.basis(self.degree() - degree);
        let block = self.problem.add_block(Cone::Zero(multipliers.len()));
        for (r, m) in multipliers.iter().enumerate() {
            self.index
                .add_expectation(&mut self.problem, block.start + r, 1.0, p, m);
        }
        Ok(())
    }

    /// `q >= 0`: `M_s(q y) ⪰ 0` with `s = t - ceil(deg q / 2)`.
    pub fn inequality(&mut self, q: &Polynomial) -> Result<(), ProgramError> {
        let degree = self.check(q)?;
        self.add_localising(&[vec![q.clone()]], degree);
        Ok(())
    }

    /// `M(x) ⪰ 0` for a symmetric `k x k` polynomial matrix (entries `M[i][j]`, with
    /// `M[i][j] == M[j][i]` exactly): `E~[(b_s b_s^T) ⊗ M(x)] ⪰ 0` with
    /// `s = t - ceil(deg M / 2)`, `deg M` the largest degree of an entry.
    pub fn matrix_psd(&mut self, m: &[Vec<Polynomial>]) -> Result<(), ProgramError> {
        let size = m.len();
        if let Some((i, row)) = m.iter().enumerate().find(|(_, row)| row.len() != size) {
            return Err(ProgramError::NotSquare {
                row: i,
                len: row.len(),
                size,
            });
        }
        let mut degree = 0;
        for (i, row) in m.iter().enumerate() {
            for (j, entry) in row.iter().enumerate() {
                if *entry != m[j][i] {
                    return Err(ProgramError::NotSymmetric { i, j });
                }
                degree = degree.max(self.check(entry)?);
            }
        }
        if size > 0 {
            self.add_localising(m, degree);
        }
        Ok(())
    }

    /// The single linear condition `E~[p] = value` (not the identity `p = value`).
    pub fn moment_equality(&mut self, p: &Polynomial, value: f64) -> Result<(), ProgramError> {
        self.add_moment_condition(Cone::Zero(1), p, value)
    }

    /// The single linear condition `E~[p] >= lower`.
    pub fn moment_inequality(&mut self, p: &Polynomial, lower: f64) -> Result<(), ProgramError> {
        self.add_moment_condition(Cone::Nonnegative(1), p, lower)
    }

    /// Objective: maximise `E~[p]` (replaces any earlier objective).
    pub fn maximize(&mut self, p: &Polynomial) -> Result<(), ProgramError> {
        self.check(p)?;
        self.objective = (Sense::Maximize, p.clone());
        Ok(())
    }

    /// Objective: minimise `E~[p]` (replaces any earlier objective).
    pub fn minimize(&mut self, p: &Polynomial) -> Result<(), ProgramError> {
        self.check(p)?;
        self.objective = (Sense::Minimize, p.clone());
        Ok(())
    }

    /// Solve with clarabel. Infeasible and unbounded programs are reported through
    /// [`PseudoExpectation::status`]; an error means the solver gave no usable answer
    /// (iteration limit, numerical failure).
    pub fn solve(&self, settings: &SolveSettings) -> Result<PseudoExpectation, ProgramError> {
        let (sense, p) = &self.objective;
        let sign = match sense {
            Sense::Minimize => 1.0,
            Sense::Maximize => -1.0,
        };
        let mut problem = self.problem.clone();
        for (m, c) in p.terms() {
            let k = self.index.position[m];
            if k > 0 {
                problem.add_objective(k - 1, sign * c);
            }
        }
        let solution = problem.solve(settings);
        let moments: HashMap<Monomial, f64> = self
            .index
            .monomials
            .iter()
            .cloned()
            .zip(std::iter::once(1.0).chain(solution.x.iter().copied()))
            .collect();
        let mut result = PseudoExpectation {
            status: solution.status.clone(),
            objective: f64::NAN,
            iterations: solution.iterations,
            solve_time_s: solution.solve_time_s,
            moments,
        };
        // Values of infeasible (+inf for a minimum) and unbounded (-inf) programs, in the
        // minimisation form; `sign` turns them back into the user's sense.
        result.objective = match &solution.status {
            Status::Solved | Status::AlmostSolved => result.expect(p),
            Status::PrimalInfeasible => sign * f64::INFINITY,
            Status::DualInfeasible => -sign * f64::INFINITY,
            Status::Failed(reason) => return Err(ProgramError::Solver(reason.clone())),
        };
        Ok(result)
    }

    /// Degree of `p`, after checking that `p` only involves the program's variables and
    /// has degree `<= 2t`.
    fn check(&self, p: &Polynomial) -> Result<usize, ProgramError> {
        for (m, _) in p.terms() {
            for &(v, _) in m.powers() {
                if self.vars.get(v.index()) != Some(&v) {
                    return Err(ProgramError::ForeignVariable { index: v.index() });
                }
            }
        }
        let degree = p.degree();
        if degree > self.degree() {
            return Err(ProgramError::DegreeTooHigh {
                degree,
                max: self.degree(),
            });
        }
        Ok(degree)
    }

    /// `E~[p] - rhs` in `cone` (one row).
    fn add_moment_condition(
        &mut self,
        cone: Cone,
        p: &Polynomial,
        rhs: f64,
    ) -> Result<(), ProgramError> {
        self.check(p)?;
        let row = self.problem.add_block(cone).start;
        self.index
            .add_expectation(&mut self.problem, row, 1.0, p, &Monomial::one());
        self.problem.add_constant(row, -rhs);
        Ok(())
    }

    /// `E~[(b_s b_s^T) ⊗ M] ⪰ 0` for a checked symmetric matrix `m` of degree `degree`:
    /// row `a k + i`, column `b k + j` holds `E~[b_a b_b M_ij]`. A `1 x 1` block becomes a
    /// nonnegative row.
    fn add_localising(&mut self, m: &[Vec<Polynomial>], degree: usize) {
        let k = m.len();
        let basis = self.index.basis(self.t - degree.div_ceil(2));
        let size = basis.len() * k;
        let cone = if size == 1 {
            Cone::Nonnegative(1)
        } else {
            Cone::PsdTriangle(size)
        };
        let block = self.problem.add_block(cone);
        for col in 0..size {
            for row in 0..=col {
                let shift = &basis[row / k] * &basis[col / k];
                let entry = &m[row % k][col % k];
                let r = if size == 1 {
                    block.start
                } else {
                    block.psd_row(row, col)
                };
                let scale = svec_scale(row, col);
                self.index
                    .add_expectation(&mut self.problem, r, scale, entry, &shift);
            }
        }
    }
}

/// A solved program: the status, the optimal value `E~[p]` of the objective in the user's
/// sense (`+inf` for an infeasible minimisation / unbounded maximisation, `-inf` for the
/// reverse; 0 for a feasible program without objective), and the moments found.
/// Moments are meaningful only when `status.is_solved()`.
#[derive(Clone, Debug)]
pub struct PseudoExpectation {
    /// How the solve ended.
    pub status: Status,
    /// The optimal value `E~[p]` in the user's sense (see the type's doc).
    pub objective: f64,
    /// Interior-point iterations of the solve.
    pub iterations: u32,
    /// Solve time, in seconds.
    pub solve_time_s: f64,
    moments: HashMap<Monomial, f64>,
}

impl PseudoExpectation {
    /// `E~[m]`.
    ///
    /// # Panics
    /// If `m` is not a moment of the relaxation (degree `> 2t` or a foreign variable).
    pub fn moment(&self, m: &Monomial) -> f64 {
        *self
            .moments
            .get(m)
            .unwrap_or_else(|| panic!("{m:?} is not a moment of the relaxation"))
    }

    /// `E~[p] = sum_m c_m E~[m]`.
    ///
    /// # Panics
    /// As [`PseudoExpectation::moment`].
    pub fn expect(&self, p: &Polynomial) -> f64 {
        p.terms().map(|(m, c)| c * self.moment(m)).sum()
    }
}
