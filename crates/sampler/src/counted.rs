//! An oracle wrapper that counts calls and their time, for the release record.
use serde::Serialize;
use sosdp_oracle::{Chord, Decision, Refinement, ScoreError, ScoreEval, ScoreOracle};
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
    /// could not be tightened): the only answers that may depend on the oracle's state.
    pub ties: usize,
    /// Level indices found by one evaluation whose bracket contained a grid level, settled by
    /// membership decisions (counted above; [`crate::target::Target::index_by_evaluation`]).
    /// Filled in by the mechanism from its target; 0 from [`Counted::calls`].
    pub straddled_indices: usize,
    /// Chord queries ([`ScoreOracle::chord`]).
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

/// `oracle`, counting its calls.
pub struct Counted<'a, O: ?Sized> {
    oracle: &'a O,
    evaluations: AtomicUsize,
    memberships: AtomicUsize,
    refined: AtomicUsize,
    refinements: AtomicUsize,
    ties: AtomicUsize,
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
            straddled_indices: 0,
            chords: self.chords.load(Ordering::Relaxed),
            chord_queries: self.chord_queries.load(Ordering::Relaxed),
            evaluation_s: self.nanos[0].load(Ordering::Relaxed) as f64 * 1e-9,
            membership_s: self.nanos[1].load(Ordering::Relaxed) as f64 * 1e-9,
            chord_s: self.nanos[2].load(Ordering::Relaxed) as f64 * 1e-9,
        }
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
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        timed(&self.nanos[0], || self.oracle.evaluate(theta))
    }

    fn evaluate_within(&self, theta: &[f64], accuracy: f64) -> Result<ScoreEval, ScoreError> {
        self.evaluations.fetch_add(1, Ordering::Relaxed);
        timed(&self.nanos[0], || {
            self.oracle.evaluate_within(theta, accuracy)
        })
    }

    /// The wrapped oracle's decision, counted (with its refinements and ties) and timed.
    fn decide(&self, theta: &[f64], level: f64) -> Result<Decision, ScoreError> {
        self.memberships.fetch_add(1, Ordering::Relaxed);
        let decision = timed(&self.nanos[1], || self.oracle.decide(theta, level))?;
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

    fn refinement(&self) -> Refinement {
        self.oracle.refinement()
    }

    fn member_eval(&self, theta: &[f64], level: f64) -> Result<ScoreEval, ScoreError> {
        self.oracle.member_eval(theta, level)
    }

    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        self.oracle.member_eval_to(theta, level, accuracy)
    }

    fn outer_ends(&self, x: &[f64], u: &[f64], level: f64) -> (Option<f64>, Option<f64>) {
        self.oracle.outer_ends(x, u, level)
    }

    fn chord(
        &self,
        x: &[f64],
        u: &[f64],
        level: f64,
        range: (f64, f64),
        tol: f64,
    ) -> Result<Chord, ScoreError> {
        self.chords.fetch_add(1, Ordering::Relaxed);
        let chord = timed(&self.nanos[2], || {
            self.oracle.chord(x, u, level, range, tol)
        })?;
        self.chord_queries
            .fetch_add(chord.queries, Ordering::Relaxed);
        Ok(chord)
    }
}
