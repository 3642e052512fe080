//! The [`ScoreOracle`] trait the sampler sees, and the generic algorithms its default
//! methods use: exact decisions ([`decide`]), chords by bisection ([`chord_by_bisection`])
//! and parallel batches ([`evaluate_batch`]).
use crate::chord::{Chord, on_line};
use crate::error::ScoreError;
use crate::eval::ScoreEval;
use crate::membership::{Decision, Refinement, member_from_bracket};
use rayon::prelude::*;

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
    /// [`ScoreOracle::evaluate`] where a bracket up to `accuracy` wide will do: backends that
    /// can stop earlier than their own accuracy do (the bracket is certified whatever its
    /// width). Default: [`ScoreOracle::evaluate`].
    fn evaluate_within(&self, theta: &[f64], accuracy: f64) -> Result<ScoreEval, ScoreError> {
        let _ = accuracy;
        self.evaluate(theta)
    }
    /// Membership "is the score at `theta` at most `level`?", decided exactly
    /// ([`ScoreOracle::decide`]).
    fn member(&self, theta: &[f64], level: f64) -> Result<bool, ScoreError> {
        Ok(self.decide(theta, level)?.member)
    }

    /// The exact decision at `level` and how it was reached: [`decide`]
    /// (refine the bracket until it excludes the level; a fixed tie rule at the floor of
    /// [`ScoreOracle::refinement`]). Wrappers override it to count decisions.
    fn decide(&self, theta: &[f64], level: f64) -> Result<Decision, ScoreError> {
        decide(self, theta, level)
    }

    /// [`ScoreOracle::decide`] for a question whose YES is followed by the question at `next`
    /// (below `level`) at the same `theta`, as the sampler's level index descends one grid
    /// level at a time: the first bracket comes from [`ScoreOracle::member_eval_then`].
    /// Wrappers override it to count decisions.
    fn decide_then(&self, theta: &[f64], level: f64, next: f64) -> Result<Decision, ScoreError> {
        decide_then(self, theta, level, next)
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

    /// [`ScoreOracle::member_eval`] for a question whose YES is followed by the question at
    /// `next` (below `level`) at the same `theta`: a backend may go on after a YES until its
    /// bracket also decides `next`, in the same solve (a narrower bracket, certified like any
    /// other, so the answer is the same). Default: [`ScoreOracle::member_eval`].
    fn member_eval_then(
        &self,
        theta: &[f64],
        level: f64,
        next: f64,
    ) -> Result<ScoreEval, ScoreError> {
        let _ = next;
        self.member_eval(theta, level)
    }

    /// [`ScoreOracle::member_eval`] with a bracket of width at most `accuracy` (below the
    /// backend's own accuracy) unless it decides first: how [`decide`]
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
        chord_by_bisection(self, x, u, level, range, tol)
    }
}

/// Decide "is `s(theta) <= level`?" exactly (module doc): [`ScoreOracle::member_eval`], then,
/// while the bracket contains the level, brackets `factor` times narrower
/// ([`ScoreOracle::member_eval_to`]) down to the floor of the oracle's
/// [`ScoreOracle::refinement`]. The tie rule (YES) answers a bracket that still contains the
/// level once the floor has been asked for or attained, once a refinement stalls
/// ([`Refinement::stall`]: the backend cannot tighten), or after
/// [`Refinement::max_refinements`].
pub fn decide<O: ScoreOracle + ?Sized>(
    oracle: &O,
    theta: &[f64],
    level: f64,
) -> Result<Decision, ScoreError> {
    refine(oracle, theta, level, oracle.member_eval(theta, level)?)
}

/// [`decide`] from the bracket of [`ScoreOracle::member_eval_then`] (a YES will be followed by
/// the question at `next`).
pub fn decide_then<O: ScoreOracle + ?Sized>(
    oracle: &O,
    theta: &[f64],
    level: f64,
    next: f64,
) -> Result<Decision, ScoreError> {
    refine(
        oracle,
        theta,
        level,
        oracle.member_eval_then(theta, level, next)?,
    )
}

/// The refinement loop of [`decide`] from the first bracket `eval`.
fn refine<O: ScoreOracle + ?Sized>(
    oracle: &O,
    theta: &[f64],
    level: f64,
    mut eval: ScoreEval,
) -> Result<Decision, ScoreError> {
    let settings = oracle.refinement();
    let floor = settings.floor_points(oracle.max_score());
    // The accuracy asked for by the last refinement (none yet).
    let mut requested = f64::INFINITY;
    let mut refinements = 0;
    loop {
        if let Some(member) = member_from_bracket(&eval, level) {
            return Ok(Decision {
                member,
                eval,
                refinements,
                tie: false,
            });
        }
        let width = eval.width();
        if requested <= floor || width <= floor || refinements == settings.max_refinements {
            return Ok(Decision {
                member: true,
                eval,
                refinements,
                tie: true,
            });
        }
        requested = (width / settings.factor).max(floor);
        eval = oracle.member_eval_to(theta, level, requested)?;
        refinements += 1;
        if eval.width() > settings.stall * width && member_from_bracket(&eval, level).is_none() {
            return Ok(Decision {
                member: true,
                eval,
                refinements,
                tie: true,
            });
        }
    }
}

/// Check the arguments of a chord query (see [`chord_by_bisection`]).
pub fn check_chord_args<O: ScoreOracle + ?Sized>(
    oracle: &O,
    x: &[f64],
    u: &[f64],
    range: (f64, f64),
    tol: f64,
) -> Result<(), ScoreError> {
    if x.len() != u.len() || x.len() != oracle.dim() {
        return Err(ScoreError::DimensionMismatch {
            what: "chord point or direction",
            expected: oracle.dim(),
            got: u.len(),
        });
    }
    if !(range.0 <= 0.0 && range.1 >= 0.0 && tol > 0.0) {
        return Err(ScoreError::InvalidParameter(
            "chord needs lo_max <= 0 <= hi_max and tol > 0".into(),
        ));
    }
    Ok(())
}

/// Chord of `{score <= level}` through `x` (assumed inside) along `u`, searched within the
/// step range `range = (lo_max, hi_max)` (`lo_max <= 0 <= hi_max`, e.g. where the line
/// leaves the parameter domain). Bisection on membership decisions to width `tol`.
pub fn chord_by_bisection<O: ScoreOracle + ?Sized>(
    oracle: &O,
    x: &[f64],
    u: &[f64],
    level: f64,
    range: (f64, f64),
    tol: f64,
) -> Result<Chord, ScoreError> {
    check_chord_args(oracle, x, u, range, tol)?;
    let (hi, hi_queries) = end_by_bisection(oracle, x, u, level, (0.0, range.1), tol)?;
    let (lo, lo_queries) = end_by_bisection(oracle, x, u, level, (0.0, range.0), tol)?;
    Ok(Chord {
        lo,
        hi,
        queries: hi_queries + lo_queries,
    })
}

/// One end of the chord by bisection on membership decisions between `inside` (a step known to be
/// inside, e.g. 0) and `limit` (the end of the search range; `limit` itself is queried
/// first). Returns the end and the number of queries.
pub fn end_by_bisection<O: ScoreOracle + ?Sized>(
    oracle: &O,
    x: &[f64],
    u: &[f64],
    level: f64,
    (inside, limit): (f64, f64),
    tol: f64,
) -> Result<(f64, usize), ScoreError> {
    if limit == inside {
        return Ok((inside, 0));
    }
    let mut queries = 1;
    if oracle.member(&on_line(x, u, limit), level)? {
        return Ok((limit, queries));
    }
    let (mut inside, mut outside) = (inside, limit);
    while (outside - inside).abs() > tol {
        let mid = 0.5 * (inside + outside);
        queries += 1;
        if oracle.member(&on_line(x, u, mid), level)? {
            inside = mid;
        } else {
            outside = mid;
        }
    }
    Ok((inside, queries))
}

/// Evaluate many parameters in parallel (rayon). Oracles with warm-start state share it, so
/// for independent chains prefer one oracle clone per chain.
pub fn evaluate_batch<O: ScoreOracle + Sync + ?Sized>(
    oracle: &O,
    thetas: &[Vec<f64>],
) -> Vec<Result<ScoreEval, ScoreError>> {
    thetas.par_iter().map(|t| oracle.evaluate(t)).collect()
}
