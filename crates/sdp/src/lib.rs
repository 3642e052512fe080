//! Semidefinite programming for sosdp (MATH.md section 3.1).
//!
//! - [`conic`]: conic problems assembled row by row and solved with clarabel, returning
//!   primal, slack and dual vectors so that callers can certify bounds; PSD blocks are in
//!   the `svec` convention of `sosdp_oracle::svec` (clarabel's).
//! - [`poly`]: named indeterminates, sparse polynomials and monomial bases.
//! - [`program`]: the generic pseudo-expectation (moment) SDP built on [`conic`].
use sosdp_blas as _;

pub mod conic;
pub mod poly;
pub mod program;

pub use conic::{Block, Cone, ConicProblem, ConicSolution, SolveSettings, Status};
pub use poly::{Monomial, Polynomial, Var, Variables, monomials_up_to};
pub use program::{ProgramError, PseudoExpectation, PseudoExpectationProgram};
