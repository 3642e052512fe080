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
    /// Membership queries spent.
    pub queries: usize,
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
    if x.len() != u.len() || x.len() != oracle.dim() {
        return Err(ScoreError::DimensionMismatch { what: "chord point or direction", expected: oracle.dim(), got: u.len() });
    }
    if !(range.0 <= 0.0 && range.1 >= 0.0 && tol > 0.0) {
        return Err(ScoreError::InvalidParameter("chord needs lo_max <= 0 <= hi_max and tol > 0".into()));
    }
    let mut queries = 0;
    let point = |s: f64| -> Vec<f64> { x.iter().zip(u).map(|(a, b)| a + s * b).collect() };
    let mut end = |limit: f64| -> Result<f64, ScoreError> {
        if limit == 0.0 {
            return Ok(0.0);
        }
        queries += 1;
        if oracle.member(&point(limit), level)? {
            return Ok(limit);
        }
        let (mut inside, mut outside) = (0.0, limit);
        while (outside - inside).abs() > tol {
            let mid = 0.5 * (inside + outside);
            queries += 1;
            if oracle.member(&point(mid), level)? {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        Ok(inside)
    };
    let hi = end(range.1)?;
    let lo = end(range.0)?;
    Ok(Chord { lo, hi, queries })
}

/// Evaluate many parameters in parallel (rayon). Oracles with warm-start state share it, so
/// for independent chains prefer one oracle clone per chain.
pub fn evaluate_batch<O: ScoreOracle + Sync + ?Sized>(oracle: &O, thetas: &[Vec<f64>]) -> Vec<Result<ScoreEval, ScoreError>> {
    thetas.par_iter().map(|t| oracle.evaluate(t)).collect()
}
