//! An oracle wrapper that counts calls and their time, for the release record.
use serde::Serialize;
use sosdp_score::{Chord, ScoreError, ScoreEval, ScoreOracle};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// Numbers of oracle calls by kind (a chord's own membership calls are counted inside the
/// oracle and appear only as one chord here).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct OracleCalls {
    pub evaluations: usize,
    pub memberships: usize,
    pub chords: usize,
    /// Oracle solves (or membership queries) spent inside chords.
    pub chord_queries: usize,
    /// Seconds spent in evaluations, memberships and chords.
    pub evaluation_s: f64,
    pub membership_s: f64,
    pub chord_s: f64,
}

/// `oracle`, counting its calls.
pub struct Counted<'a, O: ?Sized> {
    oracle: &'a O,
    evaluations: AtomicUsize,
    memberships: AtomicUsize,
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
    pub fn new(oracle: &'a O) -> Self {
        Counted {
            oracle,
            evaluations: AtomicUsize::new(0),
            memberships: AtomicUsize::new(0),
            chords: AtomicUsize::new(0),
            chord_queries: AtomicUsize::new(0),
            nanos: Default::default(),
        }
    }

    pub fn calls(&self) -> OracleCalls {
        OracleCalls {
            evaluations: self.evaluations.load(Ordering::Relaxed),
            memberships: self.memberships.load(Ordering::Relaxed),
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

    fn member_eval(&self, theta: &[f64], level: f64) -> Result<ScoreEval, ScoreError> {
        self.memberships.fetch_add(1, Ordering::Relaxed);
        timed(&self.nanos[1], || self.oracle.member_eval(theta, level))
    }

    fn outer_ends(&self, x: &[f64], u: &[f64], level: f64) -> (Option<f64>, Option<f64>) {
        self.oracle.outer_ends(x, u, level)
    }

    fn chord(&self, x: &[f64], u: &[f64], level: f64, range: (f64, f64), tol: f64) -> Result<Chord, ScoreError> {
        self.chords.fetch_add(1, Ordering::Relaxed);
        let chord = timed(&self.nanos[2], || self.oracle.chord(x, u, level, range, tol))?;
        self.chord_queries.fetch_add(chord.queries, Ordering::Relaxed);
        Ok(chord)
    }
}
