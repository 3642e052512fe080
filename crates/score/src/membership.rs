//! Weak membership and chords of score level sets (MATH.md 3.2), the only access to a level
//! body `K_k = {theta : s(theta) <= k}` the sampler needs.
//!
//! Tolerances. A membership answer at level `k` is decided by a certified bracket
//! `[lower, upper]` of width at most the oracle's accuracy `zeta`: YES when `upper <= k`, NO
//! when `lower > k`, and when neither holds (the score is within `zeta` of `k`) the answer is
//! `score <= k` for the value inside the bracket. So YES is guaranteed when
//! `s(theta) <= k - zeta` and NO when `s(theta) > k + zeta`: a weak membership oracle for
//! `K_k` with slack `zeta` in the score. A chord endpoint is located by bisection on these
//! answers to within `tol` along the line.
use crate::oracle::{ScoreEval, ScoreOracle};
use crate::ScoreError;
use rayon::prelude::*;

/// The membership answer carried by a bracket.
pub fn member_from_bracket(eval: &ScoreEval, level: f64) -> bool {
    if eval.upper <= level {
        true
    } else if eval.lower > level {
        false
    } else {
        eval.score <= level
    }
}

/// The interval `[lo, hi]` of steps `s` (with `lo <= 0 <= hi`) such that `x + s u` is in the
/// level body, within `tol` of its true endpoints in the sense of the module doc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chord {
    pub lo: f64,
    pub hi: f64,
    /// Oracle solves spent: membership queries, or direct chord-end solves of a backend.
    pub queries: usize,
}

/// Check the arguments of a chord query (see [`chord_by_bisection`]).
pub fn check_chord_args<O: ScoreOracle + ?Sized>(oracle: &O, x: &[f64], u: &[f64], range: (f64, f64), tol: f64) -> Result<(), ScoreError> {
    if x.len() != u.len() || x.len() != oracle.dim() {
        return Err(ScoreError::DimensionMismatch { what: "chord point or direction", expected: oracle.dim(), got: u.len() });
    }
    if !(range.0 <= 0.0 && range.1 >= 0.0 && tol > 0.0) {
        return Err(ScoreError::InvalidParameter("chord needs lo_max <= 0 <= hi_max and tol > 0".into()));
    }
    Ok(())
}

/// `x + s u`.
pub fn on_line(x: &[f64], u: &[f64], s: f64) -> Vec<f64> {
    x.iter().zip(u).map(|(a, b)| a + s * b).collect()
}

/// Chord of `{score <= level}` through `x` (assumed inside) along `u`, searched within the
/// step range `range = (lo_max, hi_max)` (`lo_max <= 0 <= hi_max`, e.g. where the line
/// leaves the parameter domain). Bisection on weak membership to width `tol`.
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
    Ok(Chord { lo, hi, queries: hi_queries + lo_queries })
}

/// One end of the chord by bisection on weak membership between `inside` (a step known to be
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
pub fn evaluate_batch<O: ScoreOracle + Sync + ?Sized>(oracle: &O, thetas: &[Vec<f64>]) -> Vec<Result<ScoreEval, ScoreError>> {
    thetas.par_iter().map(|t| oracle.evaluate(t)).collect()
}
