//! The decision rule of MATH.md 4.5b on a score known exactly: a bracket that contains the
//! level is refined until it excludes it; only at the floor (or for a backend that cannot
//! tighten) does the tie rule answer YES, and the solver's value inside a bracket never
//! decides.
use sosdp_oracle::{Refinement, ScoreError, ScoreEval, ScoreOracle, decide};
use std::cell::Cell;

/// A score known exactly, `s(theta) = theta_0`, whose brackets are placed by a state: each
/// answer's bracket has the requested width (the backend's `1e-3` at first) and sits at a
/// position inside it that a counter moves, and the solver's value inside it moves too (a
/// stand-in for warm-start state). `tighten = false`: a backend that cannot refine.
struct Placed {
    calls: Cell<u64>,
    tighten: bool,
}

impl Placed {
    fn new(tighten: bool) -> Self {
        Placed {
            calls: Cell::new(0),
            tighten,
        }
    }

    fn bracket(&self, s: f64, width: f64) -> ScoreEval {
        let k = self.calls.get();
        self.calls.set(k + 1);
        let share = 0.05 + 0.9 * ((k as f64 * 0.618034) % 1.0);
        let lower = s - share * width;
        ScoreEval::bracketed(
            lower + ((k as f64 * 0.414214) % 1.0) * width,
            lower,
            lower + width,
        )
    }
}

impl ScoreOracle for Placed {
    fn dim(&self) -> usize {
        1
    }

    fn max_score(&self) -> f64 {
        1.0
    }

    fn backend(&self) -> &'static str {
        "placed"
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        Ok(self.bracket(theta[0], 1e-3))
    }

    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        if self.tighten {
            Ok(self.bracket(theta[0], accuracy))
        } else {
            self.member_eval(theta, level)
        }
    }
}

/// The floor and the tie rule, exactly: with brackets of the requested width, a level at the
/// score itself is refined 1e-3 -> 1e-5 -> 1e-7 -> 1e-9 -> the floor 1e-10 (four refinements)
/// and then answered YES by the tie rule; levels two floors away are decided without a tie,
/// whatever the state. A backend that cannot tighten sends an undecided query to the tie rule
/// after one refinement that does not narrow the bracket; its decided queries are exact.
/// Not vacuous: the solver's value inside the first bracket (the old rule's answer,
/// `value <= level`) does change with the state, on both sides of the level.
#[test]
fn floor_and_tie_rule() {
    let floor = Refinement::default().floor_points(1.0);
    assert_eq!(floor, 1e-10);
    let s = 0.25;
    let mut old_rule = [false; 2];
    for start in 0..20 {
        let first = Placed::new(true);
        first.calls.set(start);
        old_rule[(first.member_eval(&[s], s).unwrap().score <= s) as usize] = true;
        let oracle = Placed::new(true);
        oracle.calls.set(start);
        let at = decide(&oracle, &[s], s).unwrap();
        assert!(
            at.member && at.tie && at.refinements == 4 && at.eval.width() <= 1.01 * floor,
            "{at:?}"
        );
        for (level, member) in [(s + 2.0 * floor, true), (s - 2.0 * floor, false)] {
            let d = decide(&oracle, &[s], level).unwrap();
            assert!(d.member == member && !d.tie, "level {level}: {d:?}");
        }
        let stuck = Placed::new(false);
        stuck.calls.set(start);
        let d = decide(&stuck, &[s], s).unwrap();
        assert!(d.member && d.tie && d.refinements == 1, "{d:?}");
        for (level, member) in [(s + 2e-3, true), (s - 2e-3, false)] {
            let d = decide(&stuck, &[s], level).unwrap();
            assert!(
                d.member == member && !d.tie && d.refinements == 0,
                "level {level}: {d:?}"
            );
        }
    }
    assert_eq!(
        old_rule,
        [true, true],
        "the value inside the bracket does not depend on the state"
    );
}
