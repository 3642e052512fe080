//! The exponential mechanism over quasi-convex scores (MATH.md sections 1 and 4).
//!
//! The sampler sees a score only through the [`sosdp_oracle::ScoreOracle`] trait: exact
//! membership decisions on its level sets from certified brackets, and chords. It depends on
//! `sosdp-oracle` alone (no solver, no BLAS); its tests run on synthetic oracles, and the
//! tests on the real CM oracle are the workspace root's integration tests (tests/sampler_*.rs).
//!
//! - [`body`]: convex bodies through chords; the parameter domains (ball, ellipsoid, box,
//!   simplex, spectrahedron, intersections);
//! - [`level_body`]: a score's level bodies through exact membership decisions and chords,
//!   and how a step moves on the line ([`LineMove`]);
//! - [`counted`]: an oracle wrapper counting calls for the release record;
//! - [`hit_and_run`]: the walk (isotropic, rounded and coordinate directions);
//! - [`volume`]: volumes by telescoping nested bodies;
//! - [`levels`]: the level grid with a random offset (4.1);
//! - [`target`]: the law both paths sample;
//! - [`layer_cake`]: volumes and level selection, the pure-DP path (4.4);
//! - [`slice`](mod@slice): Gibbs sampling on (level, theta), the fast path (4.5);
//! - [`mala`]: Metropolis-adjusted Langevin steps with a frozen Gaussian surrogate,
//!   interleaved with slice iterations (4.8);
//! - [`harden`]: output hardening (4.6);
//! - [`reference`]: a quadratic score whose rounded law is known in closed form (tests and
//!   the chain-length calibration);
//! - [`mechanism`]: the entry point and the release record;
//! - [`error`]: [`SamplerError`]; [`progress`]: [`Progress`] reports of long runs, whose
//!   callback may stop the run (`ControlFlow::Break`, [`SamplerError::Cancelled`]).
pub mod body;
pub mod counted;
pub mod error;
pub mod harden;
pub mod hit_and_run;
pub mod layer_cake;
pub mod level_body;
pub mod levels;
pub mod mala;
pub mod mechanism;
pub mod progress;
pub mod reference;
pub mod slice;
pub mod target;
pub mod volume;

pub use body::{Ball, ConvexBody, Cuboid, Domain, Ellipsoid, Intersection, Simplex, Spectrahedron};
pub use error::SamplerError;
pub use hit_and_run::{ChainSettings, Directions};
pub use layer_cake::LayerCakeSettings;
pub use level_body::LineMove;
pub use levels::Levels;
pub use mala::{MalaRecord, MalaSettings};
pub use mechanism::{
    ChainRule, DirectionSetting, MechanismSettings, Release, ReleaseRecord, SamplerKind, Start,
    release,
};
pub use progress::Progress;
pub use slice::SliceSettings;
