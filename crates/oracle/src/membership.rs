//! The rule of exact membership decisions on score level sets (MATH.md 3.2, 4.5b): the only
//! access to a level body `K_k = {theta : s(theta) <= k}` the sampler needs.
//!
//! **Decisions.** "Is `s(theta) <= k`?" is answered from certified brackets `[lower, upper]`
//! ([`member_from_bracket`]): YES when `upper <= k`, NO when `lower > k`. A bracket that
//! contains `k` is not an answer: [`decide`](crate::decide) asks the oracle for a tighter one
//! ([`ScoreOracle::member_eval_to`](crate::ScoreOracle::member_eval_to), accuracy divided by [`Refinement::factor`] each time)
//! until it excludes `k`. Only when the bracket is within the floor
//! `f = Refinement::floor * max(1, n)` (`n` the score's maximum), or the oracle cannot
//! tighten it, does the fixed tie rule decide: the point counts as inside (YES). The solver's
//! value inside the bracket never decides, so warm-start state cannot:
//!
//! - `s(theta) <= k`: always YES (no certified lower end exceeds `k`);
//! - `s(theta) > k + f`: always NO, for an oracle that reaches the floor when asked (a
//!   bracket of width at most `f` containing `s` lies above `k`);
//! - `k < s(theta) <= k + f`: the tie band, where the answer may depend on the oracle's state.
//!
//! So the answers are a function of `theta` and `k` alone outside a band of width `f` above
//! each level. With the random level offset (MATH.md 4.1) a bracket of width `w` contains
//! the level with probability about `w` per query, so refinements are rare and ties rarer.
//!
//! **Failures.** A question the oracle fails to answer (an error from a solver) is answered
//! from the always-valid bracket `[0, n]` by the same rules ([`Decision::unknown`], MATH.md
//! 4.7): the tie rule answers YES at every level in `[0, n)`. The sampler's oracle wrapper
//! does so for every call of a release (`sosdp_sampler::counted`), so that whether a release
//! happens never depends on the data.
//!
//! The algorithm is [`decide`](crate::decide); chord ends are located by bisection on its
//! answers ([`chord_by_bisection`](crate::chord_by_bisection)).
use crate::eval::ScoreEval;

/// How [`decide`](crate::decide) refines a bracket that contains the level (MATH.md 4.5b).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Refinement {
    /// Each refinement asks for a bracket this many times narrower than the last one.
    /// Default 100 (MATH.md 4.5b: `zeta -> zeta / 100 -> ...`).
    pub factor: f64,
    /// The floor of the requested accuracy relative to the score's scale: refinement stops
    /// at `floor * max(1, n)` points (`n` = [`ScoreOracle::max_score`](crate::ScoreOracle::max_score)). Default `1e-10`.
    ///
    /// Relative to `n` because the fast backends solve for `sum_i a_i / n` in `[0, 1]`: a
    /// certified bracket in points is `n` times the double-precision accuracy of that
    /// objective, and requests below about `1e-11 n` often stall their interior-point method.
    pub floor: f64,
    /// A refinement whose bracket is wider than `stall` times the previous one shows that
    /// the backend cannot tighten it (a backend without refinement returns the same bracket;
    /// the fast backends, when their rounds fail, the reference backend's): the tie rule
    /// decides. Default 0.5.
    pub stall: f64,
    /// Most refinements of one query (a guard: from the default accuracy `1e-3` the floor is
    /// reached after at most 4). Default 8.
    pub max_refinements: usize,
}

impl Default for Refinement {
    fn default() -> Self {
        Refinement {
            factor: 100.0,
            floor: 1e-10,
            stall: 0.5,
            max_refinements: 8,
        }
    }
}

impl Refinement {
    /// The floor in points for a score with maximum `max_score`: the width of the tie band
    /// (module doc).
    pub fn floor_points(&self, max_score: f64) -> f64 {
        self.floor * max_score.abs().max(1.0)
    }
}

/// The answer to "is `s(theta) <= level`?" and how it was reached.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The answer: true when the point counts as inside the level body.
    pub member: bool,
    /// The last bracket asked for. It decides unless `tie`; its certified ends also answer
    /// other levels (YES at every level `>= upper`, NO at every level `< lower`).
    pub eval: ScoreEval,
    /// Tighter brackets asked for after the first.
    pub refinements: usize,
    /// The bracket still contained the level at the floor (or could not be tightened), and
    /// the tie rule answered YES.
    pub tie: bool,
}

impl Decision {
    /// The decision from the always-valid bracket `[0, n]` ([`ScoreEval::unknown`]), for a
    /// question the oracle failed to answer (MATH.md 4.7): NO at a level below 0, YES at a
    /// level at or above `n`, and between them the bracket contains the level and cannot be
    /// tightened, so the tie rule answers YES. It is the answer [`decide`](crate::decide)
    /// would give from that bracket, and also the tie rule's answer when a refinement fails
    /// after a first bracket that contained the level (that bracket cannot be tightened).
    pub fn unknown(level: f64, n: f64) -> Self {
        let eval = ScoreEval::unknown(n);
        let decided = member_from_bracket(&eval, level);
        Decision {
            member: decided.unwrap_or(true),
            eval,
            refinements: 0,
            tie: decided.is_none(),
        }
    }
}

/// The answer a certified bracket carries at `level`: YES when `upper <= level`, NO when
/// `lower > level`, `None` when the bracket contains the level (see [`decide`](crate::decide)).
pub fn member_from_bracket(eval: &ScoreEval, level: f64) -> Option<bool> {
    if eval.upper <= level {
        Some(true)
    } else if eval.lower > level {
        Some(false)
    } else {
        None
    }
}
