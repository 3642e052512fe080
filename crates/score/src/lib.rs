//! Score oracles of the sum-of-squares exponential mechanism (MATH.md sections 2 and 3.2).
//!
//! The crate is organised by concept; each score comes with its certificates and both of its
//! backends:
//!
//! - [`cm`]: the certified-mean score CM (2.1): data, domain, certified brackets and cuts;
//!   [`cm::reference`] its program on clarabel, [`cm::fast`] the fast oracle [`FastCm`] (with
//!   direct chords of its level bodies);
//! - [`sp`]: the spectral score SP (2.2): data, caps, certified brackets; [`sp::reference`]
//!   and [`sp::fast`] ([`FastSp`]) the same way;
//! - [`hs`]: the hypercontractive spectral score HS (MATH.md 5.2b), a prototype on clarabel
//!   ([`hs::reference`], [`ClarabelHs`]) with its certified brackets; no learner uses it yet;
//! - [`anchor`]: minimising CM over `theta` (4.2) and the certified ball around the
//!   minimiser, on clarabel ([`minimise_cm`]) and on the fast backend
//!   ([`FastCm::minimise`]);
//! - [`reference`](mod@reference): the clarabel reference backend, generic over its program
//!   ([`ClarabelCm`], [`ClarabelSp`], [`ClarabelSettings`]);
//! - [`active_set`]: the driver the fast backends share: weights folded at their bounds,
//!   reduced solves, certification and repair rounds, cold and warm starts
//!   ([`FastSettings`]);
//! - [`ipm`]: the specialised primal-dual interior-point method the driver runs (problem, NT
//!   scaling, normal equations as diagonal plus low rank, Mehrotra iteration;
//!   [`ipm::IpmSettings`]);
//! - [`dense`]: the dense linear algebra of the crate (LAPACK/BLAS kernels and the small
//!   symmetric helpers of the certificates).
//!
//! The [`ScoreOracle`] trait the sampler sees, its evaluation and chord types and the exact
//! membership decisions live in `sosdp-oracle` (the seam between scores and the sampler) and
//! are re-exported here.
//!
//! Brackets are certified independently of the backend: the upper end from a primal point
//! made exactly feasible, the lower end from weak duality with any PSD dual matrix.
// Module docs explain the internals they are built from (the solver's stages, its caches);
// their links resolve under `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]
pub mod active_set;
pub mod anchor;
pub mod cm;
pub mod dense;
pub mod hs;
pub mod ipm;
pub mod reference;
pub mod sp;

pub use active_set::{
    AggregateSettings, Answer, ColdStartSettings, CompressSettings, EvalStats, FastSettings,
    MemorySettings, RepairSettings, Start,
};
pub use anchor::reference::minimise_cm;
pub use anchor::{Anchor, BallDomain};
pub use cm::fast::FastCm;
pub use cm::reference::ClarabelCm;
pub use cm::{Certificate, CertifiedMean, Cut};
pub use hs::reference::ClarabelHs;
pub use hs::{HsSettings, Hypercontractive};
pub use reference::ClarabelSettings;
pub use sosdp_oracle::{
    Chord, Decision, Refinement, ScoreError, ScoreEval, ScoreOracle, chord_by_bisection, decide,
    evaluate_batch, on_line,
};
pub use sp::Spectral;
pub use sp::fast::FastSp;
pub use sp::reference::ClarabelSp;
