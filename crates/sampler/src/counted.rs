//! The oracle as a release sees it ([`Counted`]): every answer total, every call counted
//! and timed for the release record's diagnostics.
//!
//! **Totality** (MATH.md 4.7, 7). Once the data are read, every path must end in a release:
//! whether an error occurs would itself be a data-dependent output. So a call whose
//! arguments are valid (a finite point of the oracle's dimension; for a chord, the checks of
//! [`check_chord_args`]) never fails here. When the wrapped oracle returns an error (e.g. a
//! solver that fails), the answer comes from the always-valid bracket `[0, n]`
//! ([`ScoreEval::unknown`], `n` = [`ScoreOracle::max_score`]; every score of the trait takes
//! its values there: CM lies in `[0, n]`, SP in `[0, n max(1, (1 - gamma) / lambda)]`, its
//! `max_score`) by the existing rules:
//! - an evaluation is that bracket (a level index from it decides the levels it contains,
//!   [`crate::target::Target::index_by_evaluation`]);
//! - a membership decision is [`Decision::unknown`]: YES at every level in `[0, n)` by the tie
//!   rule (the bracket contains the level and cannot be tightened), as at the tie band;
//! - a chord is located by bisection on these decisions ([`chord_by_bisection`]).
//!
//! Such answers are counted ([`OracleCalls::failed`]; with the tie rule's, in
//! [`OracleCalls::ties`]); they are diagnostics, never part of a release. Invalid arguments
//! are still errors: they are programming errors, found before any data-dependent work.
use serde::Serialize;
use sosdp_oracle::{
    Chord, Decision, Refinement, ScoreError, ScoreEval, ScoreOracle, check_chord_args,
    chord_by_bisection,
};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Numbers of oracle calls by kind (a chord's own membership calls are counted inside the
/// oracle and appear only as one chord here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct OracleCalls {
    /// Full evaluations ([`ScoreOracle::evaluate`]).
    pub evaluations: usize,
    /// Membership decisions ([`ScoreOracle::decide`]).
    pub memberships: usize,
    /// Decisions whose first bracket contained the level, so that it was refined
    /// ([`sosdp_oracle::decide`]).
    pub refined: usize,
    /// Tighter brackets asked for by those refinements (solves beyond the first).
    pub refinements: usize,
    /// Decisions made by the tie rule (the bracket still contained the level at the floor or
    /// could not be tightened, or the oracle failed): the only answers that may depend on the
    /// oracle's state.
    pub ties: usize,
    /// Calls the wrapped oracle failed to answer, answered from the always-valid bracket
    /// `[0, n]` instead (module doc).
    pub failed: usize,
    /// Level indices found by one evaluation whose bracket contained a grid level, settled by
    /// membership decisions (counted above; [`crate::target::Target::index_by_evaluation`]).
    /// Filled in by the mechanism from its target; 0 from [`Counted::calls`].
    pub straddled_indices: usize,
    /// Chord queries ([`ScoreOracle::chord`]); a failed one is located by bisection on
    /// membership decisions, counted above too.
    pub chords: usize,
    /// Oracle solves (or membership queries) spent inside chords.
    pub chord_queries: usize,
    /// Seconds spent in evaluations.
    pub evaluation_s: f64,
    /// Seconds spent in membership decisions.
    pub membership_s: f64,
    /// Seconds spent in chords.
    pub chord_s: f64,
}

/// `oracle`, total and counting its calls (module doc).
pub struct Counted<'a, O: ?Sized> {
    oracle: &'a O,
    evaluations: AtomicUsize,
    memberships: AtomicUsize,
    refined: AtomicUsize,
    refinements: AtomicUsize,
    ties: AtomicUsize,
    failed: AtomicUsize,
    chords: AtomicUsize,
    chord_queries: AtomicUsize,
    /// Nanoseconds per kind: evaluations, memberships, chords.
    nanos: [AtomicU64; 3],
}

/// Run `f`, adding its duration to `slot`.
fn timed<T>(slot: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let clock = Instant::now();
    let out = f();
    slot.fetch_add(clock.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

impl<'a, O: ScoreOracle + ?Sized> Counted<'a, O> {
    /// Wrap `oracle` with all counts at zero.
    pub fn new(oracle: &'a O) -> Self {
        Counted {
            oracle,
            evaluations: AtomicUsize::new(0),
            memberships: AtomicUsize::new(0),
            refined: AtomicUsize::new(0),
            refinements: AtomicUsize::new(0),
            ties: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            chords: AtomicUsize::new(0),
            chord_queries: AtomicUsize::new(0),
            nanos: Default::default(),
        }
    }

    /// The counts so far (`straddled_indices` is 0: the target counts those).
    pub fn calls(&self) -> OracleCalls {
        OracleCalls {
            evaluations: self.evaluations.load(Ordering::Relaxed),
            memberships: self.memberships.load(Ordering::Relaxed),
            refined: self.refined.load(Ordering::Relaxed),
            refinements: self.refinements.load(Ordering::Relaxed),
            ties: self.ties.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            straddled_indices: 0,
            chords: self.chords.load(Ordering::Relaxed),
            chord_queries: self.chord_queries.load(Ordering::Relaxed),
            evaluation_s: self.nanos[0].load(Ordering::Relaxed) as f64 * 1e-9,
            membership_s: self.nanos[1].load(Ordering::Relaxed) as f64 * 1e-9,
            chord_s: self.nanos[2].load(Ordering::Relaxed) as f64 * 1e-9,
        }
    }

    /// The argument check before any call: a finite point of the oracle's dimension.
    fn check_point(&self, theta: &[f64]) -> Result<(), ScoreError> {
        if theta.len() != self.oracle.dim() {
            return Err(ScoreError::DimensionMismatch {
                what: "the queried point",
                expected: self.oracle.dim(),
                got: theta.len(),
            });
        }
        match theta.iter().position(|t| !t.is_finite()) {
            Some(index) => Err(ScoreError::NonFinite {
                what: "the queried point",
                index,
            }),
            None => Ok(()),
        }
    }

    /// The answer, or, when the wrapped oracle failed, `unknown()` (counted as failed).
    fn total<T>(&self, answer: Result<T, ScoreError>, unknown: impl FnOnce() -> T) -> T {
        answer.unwrap_or_else(|_| {
            self.failed.fetch_add(1, Ordering::Relaxed);
            unknown()
        })
    }

    /// The wrapped oracle's decision `decide()` at `level` (or [`Decision::unknown`] when it
    /// fails), counted (with its refinements and ties) and timed.
    fn counted_decision(
        &self,
        theta: &[f64],
        level: f64,
        decide: impl FnOnce() -> Result<Decision, ScoreError>,
    ) -> Result<Decision, ScoreError> {
        self.check_point(theta)?;
        self.memberships.fetch_add(1, Ordering::Relaxed);
        let answer = timed(&self.nanos[1], decide);
        let decision = self.total(answer, || Decision::unknown(level, self.oracle.max_score()));
        if decision.refinements > 0 {
            self.refined.fetch_add(1, Ordering::Relaxed);
            self.refinements
                .fetch_add(decision.refinements, Ordering::Relaxed);
        }
        if decision.tie {
            self.ties.fetch_add(1, Ordering::Relaxed);
        }
        Ok(decision)
    }

    /// The wrapped oracle's bracket `eval()` at `theta` (checked first), or the always-valid
    /// bracket when it fails.
    fn bracket(
        &self,
        theta: &[f64],
        eval: impl FnOnce() -> Result<ScoreEval, ScoreError>,
    ) -> Result<ScoreEval, ScoreError> {
        self.check_point(theta)?;
        Ok(self.total(eval(), || self.unknown()))
    }

    /// The always-valid bracket of this oracle's score.
    fn unknown(&self) -> ScoreEval {
        ScoreEval::unknown(self.oracle.max_score())
    }
}

impl<O: ScoreOracle + ?Sized> ScoreOracle for Counted<'_, O> {
    fn dim(&self) -> usize {
        self.oracle.dim()
    }

    fn max_score(&self) -> f64 {
        self.oracle.max_score()
    }

    fn backend(&self) -> &'static str {
        self.oracle.backend()
    }

    fn convex(&self) -> bool {
        self.oracle.convex()
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        self.check_point(theta)?;
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        let answer = timed(&self.nanos[0], || self.oracle.evaluate(theta));
        Ok(self.total(answer, || self.unknown()))
    }

    fn evaluate_within(&self, theta: &[f64], accuracy: f64) -> Result<ScoreEval, ScoreError> {
        self.check_point(theta)?;
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        let answer = timed(&self.nanos[0], || {
            self.oracle.evaluate_within(theta, accuracy)
        });
        Ok(self.total(answer, || self.unknown()))
    }

    /// The wrapped oracle's decision, counted and timed ([`Self::counted_decision`]).
    fn decide(&self, theta: &[f64], level: f64) -> Result<Decision, ScoreError> {
        self.counted_decision(theta, level, || self.oracle.decide(theta, level))
    }

    fn decide_then(&self, theta: &[f64], level: f64, next: f64) -> Result<Decision, ScoreError> {
        self.counted_decision(theta, level, || self.oracle.decide_then(theta, level, next))
    }

    fn refinement(&self) -> Refinement {
        self.oracle.refinement()
    }

    fn member_eval(&self, theta: &[f64], level: f64) -> Result<ScoreEval, ScoreError> {
        self.bracket(theta, || self.oracle.member_eval(theta, level))
    }

    fn member_eval_then(
        &self,
        theta: &[f64],
        level: f64,
        next: f64,
    ) -> Result<ScoreEval, ScoreError> {
        self.bracket(theta, || self.oracle.member_eval_then(theta, level, next))
    }

    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        self.bracket(theta, || self.oracle.member_eval_to(theta, level, accuracy))
    }

    fn outer_ends(&self, x: &[f64], u: &[f64], level: f64) -> (Option<f64>, Option<f64>) {
        self.oracle.outer_ends(x, u, level)
    }

    /// The wrapped oracle's chord, or, when it fails, the chord by bisection on this
    /// wrapper's (total) decisions.
    fn chord(
        &self,
        x: &[f64],
        u: &[f64],
        level: f64,
        range: (f64, f64),
        tol: f64,
    ) -> Result<Chord, ScoreError> {
        check_chord_args(self, x, u, range, tol)?;
        self.check_point(x)?;
        self.chords.fetch_add(1, Ordering::Relaxed);
        let answer = timed(&self.nanos[2], || {
            self.oracle.chord(x, u, level, range, tol)
        });
        let chord = match answer {
            Ok(chord) => chord,
            Err(_) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                chord_by_bisection(self, x, u, level, range, tol)?
            }
        };
        self.chord_queries
            .fetch_add(chord.queries, Ordering::Relaxed);
        Ok(chord)
    }
}
