//! The fast backend (MATH.md 3.2): a specialised primal-dual interior-point method for the
//! score programs, an active set that keeps clearly decided weights out of it, and warm
//! starts across evaluations. Every answer is certified on the full problem by the same
//! brackets as the reference backend.
//!
//! - [`ipm`]: the interior-point method (NT scaling, Mehrotra predictor-corrector, Newton
//!   systems as diagonal plus low rank);
//! - [`active_set`]: folding weights at their bounds into constants;
//! - [`driver`]: reduced solve, certification and repair rounds, shared by CM and SP;
//! - [`dense`]: LAPACK/BLAS kernels;
//! - [`chord`]: chords of CM level bodies, each end one program;
//! - [`anchor`]: the CM minimiser (MATH.md 4.2) on the same method;
//! - [`cm`], [`sp`]: the CM and SP oracles;
//! - [`warm`]: the pool of warm-start states.
pub mod active_set;
pub mod anchor;
pub mod chord;
pub mod cm;
pub mod dense;
pub mod driver;
pub mod ipm;
pub mod sp;
pub mod warm;

pub use cm::FastCm;
pub use driver::{EvalStats, FastSettings};
pub use sp::FastSp;
