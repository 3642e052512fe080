//! The seam between scores and the sampler: a score oracle evaluates `s(theta; Y)` with a
//! certified bracket (MATH.md 3.2).
use crate::ScoreError;
use crate::membership::{Chord, Decision, Refinement};

/// One evaluation of a score at a parameter `theta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreEval {
    /// The solver's value, clamped into `[lower, upper]`.
    pub score: f64,
    /// Certified lower bound, from a dual feasible point.
    pub lower: f64,
    /// Certified upper bound, from a primal feasible point.
    pub upper: f64,
    /// False when `theta` lies outside the score's domain, where the score is "infinite"
    /// and reported as its maximum `n` (MATH.md 2.1).
    pub in_domain: bool,
}

impl ScoreEval {
    /// The value outside the domain: `n`, exactly.
    pub fn outside(n: f64) -> Self {
        ScoreEval {
            score: n,
            lower: n,
            upper: n,
            in_domain: false,
        }
    }

    /// Build from a solver value and certified bounds; the value is clamped into the bracket.
    pub fn bracketed(value: f64, lower: f64, upper: f64) -> Self {
        let value = if value.is_finite() {
            value.clamp(lower, upper)
        } else {
            upper
        };
        ScoreEval {
            score: value,
            lower,
            upper,
            in_domain: true,
        }
    }

    /// Width of the certified bracket.
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }
}

/// A score `s(theta; Y) >= 0` with sensitivity 1 and convex sublevel sets, evaluated by some
/// backend. `theta` is a vector in `R^dim` (for matrix parameters, `svec` of the matrix).
pub trait ScoreOracle {
    /// Dimension of the parameter `theta`.
    fn dim(&self) -> usize;
    /// The largest value the score takes (`n`): its value outside the domain.
    fn max_score(&self) -> f64;
    /// Name of the backend, e.g. `"clarabel"`.
    fn backend(&self) -> &'static str;
    /// True when the score is convex in `theta` on its domain, not only quasi-convex. CM and
    /// SP are: each is `n` minus the maximum of a linear function over a set that is jointly
    /// convex in `(theta, weights)` (MATH.md 2.1, 2.2), hence concave in `theta`. The sampler
    /// uses it to bound the mass of high levels (layer-cake truncation).
    fn convex(&self) -> bool {
        false
    }

    /// Evaluate the score at `theta` with a certified bracket.
    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError>;
    /// Membership "is the score at `theta` at most `level`?", decided exactly
    /// ([`ScoreOracle::decide`]).
    fn member(&self, theta: &[f64], level: f64) -> Result<bool, ScoreError> {
        Ok(self.decide(theta, level)?.member)
    }

    /// The exact decision at `level` and how it was reached: [`crate::membership::decide`]
    /// (refine the bracket until it excludes the level; a fixed tie rule at the floor of
    /// [`ScoreOracle::refinement`]). Wrappers override it to count decisions.
    fn decide(&self, theta: &[f64], level: f64) -> Result<Decision, ScoreError> {
        crate::membership::decide(self, theta, level)
    }

    /// How undecided brackets are refined (default [`Refinement::default`]).
    fn refinement(&self) -> Refinement {
        Refinement::default()
    }

    /// The certified bracket that decides membership at `level`: a full evaluation by
    /// default; backends override it to stop as soon as the bracket decides. The bracket is
    /// certified whatever its width, so a YES answer with upper end `u` also answers YES at
    /// every level at or above `u` (the sampler's level descent skips those levels).
    fn member_eval(&self, theta: &[f64], level: f64) -> Result<ScoreEval, ScoreError> {
        let _ = level;
        self.evaluate(theta)
    }

    /// [`ScoreOracle::member_eval`] with a bracket of width at most `accuracy` (below the
    /// backend's own accuracy) unless it decides first: how [`crate::membership::decide`]
    /// refines. Default: [`ScoreOracle::member_eval`], a backend that cannot tighten its
    /// brackets (its undecided queries then go to the tie rule). A backend that cannot reach
    /// `accuracy` still returns a certified bracket, wider than asked.
    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        let _ = accuracy;
        self.member_eval(theta, level)
    }

    /// Certified outer ends of the chord of `{score <= level}` through `x` (assumed inside)
    /// along `u`: `(lo, hi)` with `lo <= 0 <= hi` such that the score exceeds `level` by more
    /// than the tie band of [`crate::membership`] at every step `s < lo` or `s > hi`, where
    /// [`ScoreOracle::decide`] answers NO whatever the oracle's state; `None` for an end the backend
    /// cannot bound from certificates it already holds. No solve: the default knows nothing;
    /// the fast CM backend answers from its kept cuts. Samplers answer membership
    /// queries beyond them NO without asking.
    fn outer_ends(&self, x: &[f64], u: &[f64], level: f64) -> (Option<f64>, Option<f64>) {
        let _ = (x, u, level);
        (None, None)
    }

    /// The chord of the level body `{score <= level}` through `x` (assumed inside) along
    /// `u`, within the step range `range` (`range.0 <= 0 <= range.1`, e.g. where the line
    /// leaves the parameter domain), each end within `tol` (see [`crate::membership`]).
    /// The default bisects on [`ScoreOracle::member`]; backends may solve for the ends
    /// directly.
    fn chord(
        &self,
        x: &[f64],
        u: &[f64],
        level: f64,
        range: (f64, f64),
        tol: f64,
    ) -> Result<Chord, ScoreError> {
        crate::membership::chord_by_bisection(self, x, u, level, range, tol)
    }
}
