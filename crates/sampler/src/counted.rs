//! An oracle wrapper that counts calls, for the release record.
use serde::Serialize;
use sosdp_score::{Chord, ScoreError, ScoreEval, ScoreOracle};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Numbers of oracle calls by kind (a chord's own membership calls are counted inside the
/// oracle and appear only as one chord here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct OracleCalls {
    pub evaluations: usize,
    pub memberships: usize,
    pub chords: usize,
    /// Membership queries spent inside chords.
    pub chord_queries: usize,
}

/// `oracle`, counting its calls.
pub struct Counted<'a, O: ?Sized> {
    oracle: &'a O,
    evaluations: AtomicUsize,
    memberships: AtomicUsize,
    chords: AtomicUsize,
    chord_queries: AtomicUsize,
}

impl<'a, O: ScoreOracle + ?Sized> Counted<'a, O> {
    pub fn new(oracle: &'a O) -> Self {
        Counted {
            oracle,
            evaluations: AtomicUsize::new(0),
            memberships: AtomicUsize::new(0),
            chords: AtomicUsize::new(0),
            chord_queries: AtomicUsize::new(0),
        }
    }

    pub fn calls(&self) -> OracleCalls {
        OracleCalls {
            evaluations: self.evaluations.load(Ordering::Relaxed),
            memberships: self.memberships.load(Ordering::Relaxed),
            chords: self.chords.load(Ordering::Relaxed),
            chord_queries: self.chord_queries.load(Ordering::Relaxed),
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
        self.oracle.evaluate(theta)
    }

    fn member(&self, theta: &[f64], level: f64) -> Result<bool, ScoreError> {
        self.memberships.fetch_add(1, Ordering::Relaxed);
        self.oracle.member(theta, level)
    }

    fn chord(&self, x: &[f64], u: &[f64], level: f64, range: (f64, f64), tol: f64) -> Result<Chord, ScoreError> {
        self.chords.fetch_add(1, Ordering::Relaxed);
        let chord = self.oracle.chord(x, u, level, range, tol)?;
        self.chord_queries.fetch_add(chord.queries, Ordering::Relaxed);
        Ok(chord)
    }
}
