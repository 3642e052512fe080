//! The screen answerer: the cheap bounds of [`crate::CertifiedMean::screen`] decide the query
//! or bracket the score to the accuracy asked, without a solve.
use super::Query;
use crate::active_set::{Answer, EvalStats};
use crate::cm::fast::FastCm;
use sosdp_oracle::ScoreEval;

/// The screen's bracket, when it answers `query`.
pub(super) fn answer(fast: &FastCm, query: &Query) -> Option<(ScoreEval, EvalStats)> {
    let eval = fast
        .problem()
        .screen(query.theta, query.accuracy, query.level)?;
    let decided_early = eval.width() > query.accuracy;
    Some((eval, EvalStats::answered(Answer::Screen, decided_early)))
}
