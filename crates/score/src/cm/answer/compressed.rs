//! The compressed answerer (MATH.md 4.9): near a kept cut the program compressed around its
//! dual ([`crate::cm::compress`]) is nearly exact. It answers most questions, and brackets
//! most scores, in tens of milliseconds, where the full program may need a cold start; and
//! when the kept cut's warm guess folds an infeasible set, its dual at the query gives the
//! start instead ([`FastCm::relaxed_start`]).
use super::Query;
use crate::active_set::fold::{ActiveSet, Origin};
use crate::active_set::{Answer, EvalStats, fold_feasible, low_rank, unfold_until_feasible};
use crate::cm::compress::{Compressed, with_direction};
use crate::cm::fast::FastCm;
use crate::cm::{Certificate, Cut};
use crate::dense::{bottom_eigenpair, min_eigenvalue};
use crate::ipm::Problem;
use sosdp_oracle::ScoreEval;

/// The compressed program's answer to `query` when it is tried ([`Query::relax`]): its cut is
/// kept, and the certificate of a YES.
pub(super) fn answer(fast: &FastCm, query: &Query) -> Option<(ScoreEval, EvalStats)> {
    let (cut, _) = query.tightest().filter(|_| query.relax())?;
    let Attempt {
        answer,
        cut: relaxed,
        grouped_solves: grouped_rounds,
    } = fast.compressed_answer(query.theta, query.level, query.accuracy, cut);
    if let Some(relaxed) = relaxed {
        fast.keep_compressed_cut(relaxed);
    }
    let (eval, certificate) = answer?;
    if let Some(certificate) = certificate {
        fast.keep_certificate(certificate);
    }
    let decided_early = eval.width() > query.accuracy;
    Some((
        eval,
        EvalStats {
            grouped_rounds,
            ..EvalStats::answered(Answer::Compressed, decided_early)
        },
    ))
}

/// What one compressed answer ([`FastCm::compressed_answer`]) gave.
struct Attempt {
    /// The answer's bracket and its certificate (of a YES), when it decided.
    answer: Option<(ScoreEval, Option<Certificate>)>,
    /// The last compressed cut.
    cut: Option<Cut>,
    /// Compressed solves whose free weights were aggregated.
    grouped_solves: usize,
}

/// What the compressed program says about a query whose warm guess folds an infeasible set
/// ([`FastCm::relaxed_start`]).
pub(crate) enum Relaxed {
    /// Its cut certifies "score > level".
    No(Cut),
    /// A warm guess from its dual, whose fold is feasible.
    Guess(ActiveSet),
    /// Neither: the rounds unfold the guess ([`crate::active_set::unfold_until_feasible`]).
    Nothing,
}

impl FastCm {
    /// True when the compressed program is tried for a query whose full program is `full`:
    /// compression is on ([`crate::CompressSettings::compress_rank`] > 0), the rank of the
    /// Newton system's low-rank part is at least [`crate::FastSettings::large_rank`], and the
    /// kept cut `tightest` is [`Self::compressible`].
    pub(crate) fn compresses_near(&self, full: &Problem, tightest: Option<&(Cut, f64)>) -> bool {
        self.settings.compress.compress_rank > 0
            && low_rank(full) >= self.settings.large_rank
            && tightest.is_some_and(|(cut, _)| self.compressible(cut))
    }

    /// For a query at `theta` whose warm guess `start` (from the kept cut `cut`) folds an
    /// infeasible set: the program compressed around `cut`'s dual ([`crate::cm::compress`]). Its
    /// cut may certify NO; otherwise the statuses its margins give are the guess, once their fold
    /// is feasible. While it is not, the fold's most violated direction (the bottom eigenvector of
    /// `B(theta)` minus the folded scatter) joins the subspace and the compressed program is solved
    /// again, at most [`crate::CompressSettings::relaxed_directions`] times.
    pub(crate) fn relaxed_start(
        &self,
        full: &Problem,
        theta: &[f64],
        level: Option<f64>,
        cut: &Cut,
        start: &ActiveSet,
    ) -> Relaxed {
        let cm = self.problem();
        let n = cm.n() as f64;
        let mut basis = cm.compression_basis(theta, cut, self.settings.compress.compress_rank);
        let mut margins: Vec<f64> = cut.quad.iter().map(|q| 1.0 - q / n).collect();
        let aggregate = self.aggregates(cut);
        for extra in 0..=self.settings.compress.relaxed_directions {
            let Some(Compressed { cut: relaxed, .. }) = cm.compressed_cut(
                theta,
                &basis,
                &self.points,
                &margins,
                level,
                aggregate,
                &self.settings,
            ) else {
                return Relaxed::Nothing;
            };
            let bound = relaxed.value(theta);
            if level.is_some_and(|k| bound > k) {
                return Relaxed::No(relaxed);
            }
            let guess = self
                .set_from_dual(
                    full,
                    Some(start.clone()),
                    &relaxed.quad,
                    Some(level.unwrap_or(bound).max(bound)),
                )
                .with_origin(Origin::Guess);
            let (bottom, direction) = bottom_eigenpair(&guess.reduce(full).blocks[0].constant);
            if bottom > 0.0 {
                self.keep_compressed_cut(relaxed);
                return Relaxed::Guess(guess);
            }
            if extra == self.settings.compress.relaxed_directions {
                // Still infeasible: folded weights are freed until the fold is feasible
                // (those along its violated direction first).
                let mut guess = guess;
                if unfold_until_feasible(full, &mut guess, fold_feasible) {
                    self.keep_compressed_cut(relaxed);
                    return Relaxed::Guess(guess);
                }
                break;
            }
            margins = relaxed.quad.iter().map(|q| 1.0 - q / n).collect();
            basis = with_direction(&basis, direction.as_slice());
        }
        Relaxed::Nothing
    }

    /// True when at most [`crate::CompressSettings::compress_answer_free`] of the weights would be
    /// free in the program compressed around `cut` (their margins under its dual within
    /// [`crate::CompressSettings::compress_margin`] of 0): otherwise its solve costs more than the
    /// warm or cold full solve it would spare.
    fn compressible(&self, cut: &Cut) -> bool {
        self.start_free_share(cut) <= self.settings.compress.compress_answer_free
    }

    /// True when the program compressed around `cut` aggregates its free weights: more than
    /// [`crate::CompressSettings::aggregate_share`] of them start free.
    fn aggregates(&self, cut: &Cut) -> bool {
        self.start_free_share(cut) > self.settings.compress.aggregate_share
    }

    /// The share of the weights that start free in the program compressed around `cut`: their
    /// margins under its dual within [`crate::CompressSettings::compress_margin`] of 0.
    fn start_free_share(&self, cut: &Cut) -> f64 {
        let n = self.problem().n() as f64;
        let free = cut
            .quad
            .iter()
            .filter(|q| (1.0 - *q / n).abs() <= self.settings.compress.compress_margin)
            .count();
        free as f64 / n
    }

    /// A membership question at `level` answered on the program compressed around the kept
    /// cut `cut` ([`crate::cm::compress`]): NO when the compressed dual's cut exceeds `level`
    /// at `theta`, YES when the compressed weights, made feasible for the full LMI
    /// ([`CertifiedMean::feasible_with_scatter`]), remove at most `level` points. Both are
    /// certified on the full program, so the answer is the one any certified bracket gives.
    /// Without a level (an evaluation), the bracket of that cut and those weights when it is
    /// at most `accuracy` wide (the compressed solve then runs to a tenth of it).
    /// While neither holds and the weights violate the full LMI, its most violated direction
    /// (the bottom eigenvector of `L(theta, a)`) joins the subspace and the program is solved
    /// again, at most [`crate::CompressSettings::relaxed_directions`] times. Its free weights
    /// are aggregated where [`crate::CompressSettings::aggregate_share`] says so; a question
    /// the grouped solves leave open goes to the full program (at d = 10, 17 of 74 compressed
    /// questions, about 67 ms each, against 0.07-1.2 s for a compressed solve of single weights).
    fn compressed_answer(
        &self,
        theta: &[f64],
        level: Option<f64>,
        accuracy: f64,
        cut: &Cut,
    ) -> Attempt {
        let cm = self.problem();
        let n = cm.n() as f64;
        let b = cm.b_matrix(theta);
        // An evaluation needs the compressed optimum to a tenth of the bracket width.
        let mut settings = self.settings.clone();
        if level.is_none() {
            settings.compress.compress_round.gap_tol = settings
                .compress
                .compress_round
                .gap_tol
                .min(0.1 * accuracy / n);
        }
        let margins: Vec<f64> = cut.quad.iter().map(|q| 1.0 - q / n).collect();
        let mut basis = cm.compression_basis(theta, cut, self.settings.compress.compress_rank);
        let (mut last, mut grouped, mut directions) = (None, 0, 0);
        let aggregate = self.aggregates(cut);
        while let Some(solved) = cm.compressed_cut(
            theta,
            &basis,
            &self.points,
            &margins,
            level,
            aggregate,
            &settings,
        ) {
            grouped += solved.grouped_solves;
            let lower = solved.cut.value(theta).max(0.0);
            if level.is_some_and(|k| lower > k) {
                return Attempt {
                    answer: Some((ScoreEval::bracketed(n, lower, n), None)),
                    cut: Some(solved.cut),
                    grouped_solves: grouped,
                };
            }
            // The repair of `feasible_with_scatter`, its scatter and violation kept for the
            // violated direction below.
            let (clipped, s_a) = cm.clipped_with_scatter(&solved.weights);
            let slack = &b - &s_a;
            let violation = -min_eigenvalue(&slack);
            let (feasible, scatter) = cm.shrunk_into_cone(&b, clipped, s_a, violation);
            let total: f64 = feasible.iter().sum();
            let upper = (n - total).max(0.0);
            if level.map_or(upper - lower <= accuracy, |k| upper <= k) {
                let eval = ScoreEval::bracketed(upper, lower.min(upper), upper);
                let certificate = Certificate::new(&scatter, total);
                return Attempt {
                    answer: Some((eval, Some(certificate))),
                    cut: Some(solved.cut),
                    grouped_solves: grouped,
                };
            }
            last = Some(solved.cut);
            if violation <= 0.0 || directions == self.settings.compress.relaxed_directions {
                // Feasible as they are (the compressed optimum is within its gap of the level),
                // or every relaxed direction is spent.
                break;
            }
            basis = with_direction(&basis, bottom_eigenpair(&slack).1.as_slice());
            directions += 1;
        }
        Attempt {
            answer: None,
            cut: last,
            grouped_solves: grouped,
        }
    }
}
