//! The seam between score oracles and the sampler, as `rand_core` is for `rand`: the
//! [`ScoreOracle`] trait, its evaluation and chord types, exact membership decisions and the
//! `svec` convention for matrix parameters. No solver and no BLAS: the sampler builds and
//! tests against this crate alone, and `sosdp-score` implements the trait for its backends.
//!
//! **What an oracle promises** (MATH.md 3.2). A score `s(theta; Y)` on `R^dim`, with
//! sensitivity 1, values in `[0, n]` (`n` outside its domain), and convex sublevel sets
//! `K_k = {theta : s(theta) <= k}` (the scores are quasi-convex; CM and SP are even convex,
//! [`ScoreOracle::convex`]). Every evaluation returns a certified bracket ([`ScoreEval`]):
//! `lower <= s(theta) <= upper` holds whatever the solver's state, the upper end from a
//! feasible primal point, the lower end from weak duality.
//!
//! **How the sampler uses it.** The sampler never reads a score's value: it asks "is
//! `s(theta) <= k`?" and gets an exact [`Decision`] ([`decide`], the rule in [`membership`]):
//! brackets are refined until they exclude the level, and a fixed tie rule answers only
//! inside a band of width [`Refinement::floor_points`] above each level. Since the level sets
//! are convex, these answers make each `K_k` a convex body the hit-and-run walk can move in,
//! along [`Chord`]s located by bisection ([`chord_by_bisection`]) or by a backend's own
//! solves ([`ScoreOracle::chord`]).
//!
//! Modules, each depending only on those listed before it:
//! - [`error`]: [`ScoreError`], what the trait returns on failure;
//! - [`svec`]: the symmetric vectorisation of matrix parameters (MATH.md 0);
//! - [`eval`]: [`ScoreEval`], one certified evaluation;
//! - [`membership`]: the decision rule ([`Refinement`], [`Decision`], [`member_from_bracket`]);
//! - [`chord`]: [`Chord`] and points on a line;
//! - [`oracle`]: the trait and the algorithms its default methods use.
pub mod chord;
pub mod error;
pub mod eval;
pub mod membership;
pub mod oracle;
pub mod svec;

pub use chord::{Chord, on_line};
pub use error::ScoreError;
pub use eval::ScoreEval;
pub use membership::{Decision, Refinement, member_from_bracket};
pub use oracle::{
    ScoreOracle, check_chord_args, chord_by_bisection, decide, decide_then, end_by_bisection,
    evaluate_batch,
};
