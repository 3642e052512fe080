//! Semidefinite programming for sosdp (MATH.md section 3.1).
//!
//! - [`svec`]: the symmetric vectorisation convention shared with clarabel.
//! - [`conic`]: conic problems assembled row by row and solved with clarabel, returning
//!   primal, slack and dual vectors so that callers can certify bounds.
use sosdp_openblas as _;

pub mod conic;
pub mod svec;

pub use conic::{Block, Cone, ConicProblem, ConicSolution, SolveSettings, Status};
