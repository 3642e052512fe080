//! The kept-cut answerer: a kept cut (of a full or a compressed solve) is an affine minorant of
//! the score, so where one exceeds the level the answer is NO.
use super::Query;
use crate::active_set::{Answer, EvalStats};
use crate::cm::fast::FastCm;
use sosdp_oracle::ScoreEval;

/// NO when the largest lower bound the kept cuts give at `theta` exceeds the level of a
/// membership query; `a = 0` gives the upper end `n`.
pub(super) fn answer(fast: &FastCm, query: &Query) -> Option<(ScoreEval, EvalStats)> {
    let k = query.level?;
    let bound = query
        .tightest()
        .map(|t| t.1)
        .into_iter()
        .chain(fast.memory.compressed_bound(query.theta))
        .fold(0.0, f64::max);
    let n = fast.problem().n() as f64;
    (bound > k).then(|| {
        (
            ScoreEval::bracketed(n, bound, n),
            EvalStats::answered(Answer::KeptCut, true),
        )
    })
}
