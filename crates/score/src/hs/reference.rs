//! The HS program (MATH.md 5.2b) as written, for the clarabel reference backend
//! ([`crate::reference`]), and the extent of its level sets along a direction.
use super::quartic::null_matrix;
use super::{Duals, Hypercontractive, Primal};
use crate::ScoreError;
use crate::reference::{
    Clarabel, ClarabelSettings, ReferenceProgram, block_matrix, solve_certified,
};
use nalgebra::DMatrix;
use sosdp_oracle::ScoreEval;
use sosdp_oracle::svec::{svec_index, svec_scale, triangular_number};
use sosdp_sdp::{Block, Cone, ConicProblem, SolveSettings};

/// The HS score on clarabel; `theta = svec(S)`.
pub type ClarabelHs = Clarabel<Hypercontractive>;

/// Where `S` comes from: a fixed candidate (the score), or variables (the level set's
/// extent, [`Hypercontractive::extent`]).
enum Param<'a> {
    Fixed(&'a DMatrix<f64>),
    Free,
}

/// Variable layout: `a_0..a_{n-1}`, `tau`, `q` (`D`, `svec(Q)`), `R` (upper triangle of a
/// `D x D` matrix, entries unscaled), the null-space coefficients, then (free `S` only) the
/// upper triangle of `S`.
struct Layout {
    n: usize,
    big: usize,
    null: usize,
}

impl Layout {
    fn tau(&self) -> usize {
        self.n
    }
    fn q(&self, p: usize) -> usize {
        self.n + 1 + p
    }
    fn r(&self, p: usize, q: usize) -> usize {
        self.n + 1 + self.big + svec_index(p, q)
    }
    fn null(&self, k: usize) -> usize {
        self.n + 1 + self.big + triangular_number(self.big) + k
    }
    fn s(&self, i: usize, j: usize) -> usize {
        self.null(self.null) + svec_index(i, j)
    }
    fn vars(&self, d: usize, free: bool) -> usize {
        self.null(self.null) + if free { triangular_number(d) } else { 0 }
    }
}

/// The blocks of the program, for reading duals.
struct Blocks {
    rows: Block,
    upper: Block,
    lower: Block,
    schur: Block,
    sos: Block,
}

/// The program of the module doc of [`super`], every PSD block tightened by `margin` (and the
/// band by `margin`). Objective: `tau` (fixed `S`); the caller replaces it for the extent.
fn program(hs: &Hypercontractive, param: &Param, margin: f64) -> (ConicProblem, Blocks, Layout) {
    let (n, d, big) = (hs.n(), hs.d(), hs.dim());
    let nf = n as f64;
    let basis = hs.quartic().null_basis();
    let lay = Layout {
        n,
        big,
        null: basis.len(),
    };
    let free = matches!(param, Param::Free);
    let mut p = ConicProblem::new(lay.vars(d, free));
    p.add_objective(lay.tau(), 1.0);

    let rows = p.add_block(Cone::Nonnegative(2 * n + 2));
    let (mass, trace) = (rows.start + 2 * n, rows.start + 2 * n + 1);
    p.add_term(mass, lay.tau(), 1.0);
    p.add_constant(mass, -1.0);
    p.add_term(trace, lay.tau(), hs.lambda());
    for (i, &cap) in hs.caps().iter().enumerate() {
        p.add_term(rows.start + i, i, 1.0);
        p.add_constant(rows.start + n + i, cap);
        p.add_term(rows.start + n + i, i, -1.0);
        p.add_term(mass, i, 1.0 / nf);
    }

    // Q ⪰ margin I; Q's entry (i, j) is q_p / c_p.
    let q_block = p.add_block(Cone::PsdTriangle(d));
    let upper = p.add_block(Cone::PsdTriangle(d));
    let lower = p.add_block(Cone::PsdTriangle(d));
    let band = hs.band() - margin.min(0.5 * hs.band());
    let x = hs.points();
    for j in 0..d {
        for i in 0..=j {
            let qv = lay.q(svec_index(i, j));
            let c = 1.0 / svec_scale(i, j);
            p.add_psd_term(q_block, i, j, qv, c);
            p.add_psd_term(upper, i, j, qv, -c);
            p.add_psd_term(lower, i, j, qv, c);
            if i == j {
                p.add_term(trace, qv, -1.0);
                p.add_psd_constant(q_block, i, i, -margin);
                p.add_psd_constant(upper, i, i, band);
                p.add_psd_constant(lower, i, i, band);
            }
            match param {
                Param::Fixed(s) => {
                    p.add_psd_constant(upper, i, j, s[(i, j)]);
                    p.add_psd_constant(lower, i, j, -s[(i, j)]);
                }
                Param::Free => {
                    p.add_psd_term(upper, i, j, lay.s(i, j), 1.0);
                    p.add_psd_term(lower, i, j, lay.s(i, j), -1.0);
                }
            }
            for k in 0..n {
                let xx = x[(i, k)] * x[(j, k)] / nf;
                p.add_psd_term(upper, i, j, k, -xx);
                p.add_psd_term(lower, i, j, k, xx);
            }
        }
    }

    // [tau, q^T; q, R] ⪰ margin I.
    let schur = p.add_block(Cone::PsdTriangle(big + 1));
    p.add_psd_term(schur, 0, 0, lay.tau(), 1.0);
    p.add_psd_constant(schur, 0, 0, -margin);
    for col in 0..big {
        p.add_psd_term(schur, 0, col + 1, lay.q(col), 1.0);
        p.add_psd_constant(schur, col + 1, col + 1, -margin);
        for row in 0..=col {
            p.add_psd_term(schur, row + 1, col + 1, lay.r(row, col), 1.0);
        }
    }

    // C (S ⊗_s I) - sum (a_i / n) z_i z_i^T - R + N ⪰ margin I.
    let sos = p.add_block(Cone::PsdTriangle(big));
    let constant = hs.settings().constant;
    let z = hs.lifted();
    match param {
        Param::Fixed(s) => {
            let kron = hs.quartic().sym_kron_identity(s);
            for col in 0..big {
                for row in 0..=col {
                    p.add_psd_constant(sos, row, col, constant * kron[(row, col)]);
                }
            }
        }
        Param::Free => {
            for j in 0..d {
                for i in 0..=j {
                    let mut unit = DMatrix::zeros(d, d);
                    unit[(i, j)] = 1.0;
                    unit[(j, i)] = 1.0;
                    let kron = hs.quartic().sym_kron_identity(&unit);
                    for col in 0..big {
                        for row in 0..=col {
                            let v = constant * kron[(row, col)];
                            p.add_psd_term(sos, row, col, lay.s(i, j), v);
                        }
                    }
                }
            }
        }
    }
    for col in 0..big {
        p.add_psd_constant(sos, col, col, -margin);
        for row in 0..=col {
            p.add_psd_term(sos, row, col, lay.r(row, col), -1.0);
            for k in 0..n {
                p.add_psd_term(sos, row, col, k, -z[(row, k)] * z[(col, k)] / nf);
            }
        }
    }
    for (k, element) in basis.iter().enumerate() {
        for &(row, col, v) in element {
            p.add_psd_term(sos, row, col, lay.null(k), v);
        }
    }
    (
        p,
        Blocks {
            rows,
            upper,
            lower,
            schur,
            sos,
        },
        lay,
    )
}

/// A symmetric `side x side` matrix from upper-triangle variables `entry(p, q)` of `x` (`R`,
/// or a free `S`).
fn upper_triangle(side: usize, x: &[f64], entry: impl Fn(usize, usize) -> usize) -> DMatrix<f64> {
    let mut m = DMatrix::zeros(side, side);
    for col in 0..side {
        for row in 0..=col {
            let v = x[entry(row, col)];
            m[(row, col)] = v;
            m[(col, row)] = v;
        }
    }
    m
}

impl ReferenceProgram for Hypercontractive {
    fn dim(&self) -> usize {
        Hypercontractive::dim(self)
    }

    fn max_score(&self) -> f64 {
        Hypercontractive::max_score(self)
    }

    fn solve(&self, theta: &[f64], settings: &ClarabelSettings) -> Result<ScoreEval, ScoreError> {
        let Some(s) = self.candidate(theta)? else {
            return Ok(ScoreEval::outside(self.max_score()));
        };
        let (p, blocks, lay) = program(self, &Param::Fixed(&s), self.settings().margin);
        let n = self.n();
        let big = self.dim();
        let basis = self.quartic().null_basis();
        let (eval, _) = solve_certified(settings, &p, |sol| {
            let null = null_matrix(big, &basis, &sol.x[lay.null(0)..lay.null(basis.len())]);
            let primal = Primal {
                weights: &sol.x[..n],
                tau: sol.x[lay.tau()],
                q: &sol.x[lay.q(0)..lay.q(0) + big],
                r: upper_triangle(big, &sol.x, |r, c| lay.r(r, c)),
                null,
            };
            let rows = blocks.rows.start;
            let duals = Duals {
                mass: sol.z[rows + 2 * n],
                trace: sol.z[rows + 2 * n + 1],
                upper: block_matrix(&blocks.upper, &sol.z),
                lower: block_matrix(&blocks.lower, &sol.z),
                schur: block_matrix(&blocks.schur, &sol.z),
                sos: block_matrix(&blocks.sos, &sol.z),
            };
            self.certify(&s, n as f64 * sol.x[lay.tau()], &primal, &duals)
        })?;
        Ok(eval)
    }
}

impl Hypercontractive {
    /// The extent of the level set `{S : HS(S) <= level}` along `u`: the largest (`sign = 1`)
    /// or smallest (`sign = -1`) `u^T S u`, and the `S` that attains it. One conic program
    /// (every constraint is affine in `S` too); the solver's value at `tolerance`, not a
    /// certified bracket: a measurement of what the level set admits (docs/limitations.md).
    pub fn extent(
        &self,
        direction: &[f64],
        level: f64,
        sign: f64,
        tolerance: f64,
    ) -> Result<(f64, DMatrix<f64>), ScoreError> {
        let d = self.d();
        if direction.len() != d {
            return Err(ScoreError::DimensionMismatch {
                what: "direction",
                expected: d,
                got: direction.len(),
            });
        }
        let (mut p, _, lay) = program(self, &Param::Free, 0.0);
        // Objective: -sign u^T S u instead of tau; tau <= level / n as a new row.
        p.add_objective(lay.tau(), -1.0);
        for j in 0..d {
            for i in 0..=j {
                let twice = if i == j { 1.0 } else { 2.0 };
                p.add_objective(lay.s(i, j), -sign * twice * direction[i] * direction[j]);
            }
        }
        let cap = p.add_block(Cone::Nonnegative(1));
        p.add_constant(cap.start, level / self.n() as f64);
        p.add_term(cap.start, lay.tau(), -1.0);
        let sol = p.solve(&SolveSettings {
            tolerance,
            max_iter: 500,
            verbose: false,
        });
        if !sol.status.is_solved() {
            return Err(ScoreError::Solver(format!("{:?}", sol.status)));
        }
        let s = upper_triangle(d, &sol.x, |i, j| lay.s(i, j));
        Ok((-sign * sol.primal_objective, s))
    }
}
