//! The memo answerer (MATH.md 4.9): a kept certificate (a feasible primal of a recent solve)
//! whose certified upper bound at `theta` is at most the level answers YES.
use super::Query;
use crate::active_set::{Answer, EvalStats};
use crate::cm::fast::FastCm;
use sosdp_oracle::ScoreEval;

/// YES with the smallest upper bound below the level that the kept certificates give
/// ([`crate::Certificate::upper_below`]); the kept cuts bound the score below.
pub(super) fn answer(fast: &FastCm, query: &Query) -> Option<(ScoreEval, EvalStats)> {
    let upper = fast
        .memory
        .memoised_upper(fast.problem(), query.theta, query.level?)?;
    let lower = query.tightest().map_or(0.0, |t| t.1.max(0.0)).min(upper);
    Some((
        ScoreEval::bracketed(upper, lower, upper),
        EvalStats::answered(Answer::Memo, true),
    ))
}
