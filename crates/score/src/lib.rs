//! Score oracles of the sum-of-squares exponential mechanism (MATH.md sections 2 and 3.2).
//!
//! - [`cm`]: the certified-mean score CM (2.1) — data, domain, certified brackets;
//! - [`sp`]: the spectral score SP (2.2) — data, caps, certified brackets;
//! - [`clarabel_backend`]: the reference backend solving both programs with clarabel;
//! - [`fast`]: the fast interior-point backend the sampler uses, certified the same way;
//! - [`anchor`]: minimising CM over `theta` (4.2);
//! - [`membership`]: exact membership decisions (refined brackets), chords and parallel
//!   batches over any oracle;
//! - [`oracle`]: the [`ScoreOracle`] trait the sampler sees.
//!
//! Brackets are certified independently of the backend: the upper end from a primal point
//! made exactly feasible, the lower end from weak duality with any PSD dual matrix.
pub mod active_set;
pub mod anchor;
pub mod cm;
pub mod dense;
pub mod error;
pub mod ipm;
pub mod membership;
pub mod oracle;
pub mod reference;
pub mod sp;

pub use active_set::{EvalStats, FastSettings};
pub use anchor::{Anchor, BallDomain, minimise_cm};
pub use cm::fast::FastCm;
pub use cm::reference::ClarabelCm;
pub use cm::{CertifiedMean, Cut};
pub use error::ScoreError;
pub use membership::{
    Chord, Decision, Refinement, chord_by_bisection, decide, evaluate_batch, on_line,
};
pub use oracle::{ScoreEval, ScoreOracle};
pub use reference::ClarabelSettings;
pub use sp::Spectral;
pub use sp::fast::FastSp;
pub use sp::reference::ClarabelSp;
