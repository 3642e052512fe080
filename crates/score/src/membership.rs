//! Exact membership decisions and chords of score level sets (MATH.md 3.2, 4.5b), the only
//! access to a level body `K_k = {theta : s(theta) <= k}` the sampler needs.
//!
//! **Decisions.** "Is `s(theta) <= k`?" is answered from certified brackets `[lower, upper]`
//! ([`member_from_bracket`]): YES when `upper <= k`, NO when `lower > k`. A bracket that
//! contains `k` is not an answer: [`decide`] asks the oracle for a tighter one
//! ([`ScoreOracle::member_eval_to`], accuracy divided by [`Refinement::factor`] each time)
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
//! **Chords.** A chord endpoint is located by bisection on these answers to within `tol` along
//! the line.
use crate::ScoreError;
use crate::oracle::{ScoreEval, ScoreOracle};
use rayon::prelude::*;

/// How [`decide`] refines a bracket that contains the level (MATH.md 4.5b).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Refinement {
    /// Each refinement asks for a bracket this many times narrower than the last one.
    /// Default 100 (MATH.md 4.5b: `zeta -> zeta / 100 -> ...`).
    pub factor: f64,
    /// The floor of the requested accuracy relative to the score's scale: refinement stops
    /// at `floor * max(1, n)` points (`n` = [`ScoreOracle::max_score`]). Default `1e-10`.
    ///
    /// Why relative to `n`: the fast backends solve for `sum_i a_i / n` in `[0, 1]`, and a
    /// certified bracket in points is `n` times the precision of that objective in double
    /// precision. Measured on N(1, I_5) data (centre 0.9, `Gamma = 2 I`, points near the
    /// anchor, scores 0.1 to 500): the fast backend's brackets reached `2e-14 n` to `3e-11 n`,
    /// whatever the score, and requests below about `1e-11 n` often stalled its
    /// interior-point method (then the reference backend answers, at about `1e-9 n`). An
    /// absolute `1e-9` points is `2e-14 n` at n = 50000, out of reach. With `1e-10 n`
    /// (`2e-7` points at n = 2000, `5e-6` at n = 50000), 90 decisions at levels placed inside
    /// the first bracket were all decided without a tie at n = 2000 and 20000; at n = 50000,
    /// 87 of 90 (two first brackets were already within the floor, one fell back).
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

/// The answer a certified bracket carries at `level`: YES when `upper <= level`, NO when
/// `lower > level`, `None` when the bracket contains the level (see [`decide`]).
pub fn member_from_bracket(eval: &ScoreEval, level: f64) -> Option<bool> {
    if eval.upper <= level {
        Some(true)
    } else if eval.lower > level {
        Some(false)
    } else {
        None
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
    let settings = oracle.refinement();
    let floor = settings.floor_points(oracle.max_score());
    let mut eval = oracle.member_eval(theta, level)?;
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

/// The interval `[lo, hi]` of steps `s` (with `lo <= 0 <= hi`) such that `x + s u` is in the
/// level body, each end within `tol` of where the decisions of [`decide`] change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chord {
    pub lo: f64,
    pub hi: f64,
    /// Oracle solves spent: membership queries, or direct chord-end solves of a backend.
    pub queries: usize,
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

/// `x + s u`.
pub fn on_line(x: &[f64], u: &[f64], s: f64) -> Vec<f64> {
    x.iter().zip(u).map(|(a, b)| a + s * b).collect()
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
