//! Score oracles of the sum-of-squares exponential mechanism (MATH.md sections 2 and 3.2).
//!
//! - [`cm`]: the certified-mean score CM (2.1) — data, domain, certified brackets;
//! - [`sp`]: the spectral score SP (2.2) — data, caps, certified brackets;
//! - [`clarabel_backend`]: the reference backend solving both programs with clarabel;
//! - [`fast`]: the fast interior-point backend the sampler uses, certified the same way;
//! - [`anchor`]: minimising CM over `theta` (4.2);
//!
//! The [`ScoreOracle`] trait the sampler sees, its evaluation and chord types and the exact
//! membership decisions live in `sosdp-oracle` (the seam between scores and the sampler) and
//! are re-exported here.
//!
//! Brackets are certified independently of the backend: the upper end from a primal point
//! made exactly feasible, the lower end from weak duality with any PSD dual matrix.
pub mod anchor;
pub mod clarabel_backend;
pub mod cm;
pub mod fast;
pub mod linalg;
pub mod sp;

pub use anchor::{Anchor, BallDomain, minimise_cm};
pub use clarabel_backend::{ClarabelCm, ClarabelSettings, ClarabelSp};
pub use cm::{CertifiedMean, Cut};
pub use fast::{FastCm, FastSettings, FastSp};
pub use sosdp_oracle::{
    Chord, Decision, Refinement, ScoreError, ScoreEval, ScoreOracle, chord_by_bisection, decide,
    evaluate_batch, on_line,
};
pub use sp::Spectral;
