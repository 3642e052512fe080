//! The fast CM backend (MATH.md 3.2): the interior-point method of [`crate::ipm`] on
//! `max sum a s.t. B(theta) - sum_i (a_i / n) zh_i zh_i^T ⪰ 0, 0 <= a <= 1`, restricted to the
//! undecided weights by the active set of [`crate::active_set`], certified by
//! [`CertifiedMean::certify`] exactly like the reference backend.
//!
//! Cold start: the same program on a fixed, evenly spaced subsample estimates the dual `Y`;
//! its margins `zh_i^T Y zh_i - 1` seed the active set ([`crate::active_set::cold_set`]). Warm
//! start: the statuses the dual of the kept cut tightest at `theta` gives (the dual of a recent
//! solve closest to optimal there), applied to the previous evaluation's active set (its
//! folded matrix is updated, not recomputed); where the margins are degenerate, at most
//! [`crate::active_set::unfolded_budget`] weights stay unfolded. If the repair rounds fail, the
//! evaluation falls back to the clarabel reference backend, which computes the same certified
//! quantity to the bracket width asked for.
use crate::ScoreError;
use crate::active_set::fold::{ActiveSet, Origin, classify_keeping};
use crate::active_set::{
    Answer, AnswerCounts, EvalStats, FastSettings, ScoreMap, Start, cold_set, conclude, decides,
    fold_feasible, low_rank, next_set, solve_certified, unfold_until_feasible, unfolded_budget,
};
use crate::cm::compress::{Compressed, with_direction};
use crate::cm::memory::Memory;
use crate::cm::reference::ClarabelCm;
use crate::cm::{Certificate, CertifiedMean, Cut};
use crate::dense::{bottom_eigenpair, min_eigenvalue};
use crate::ipm::Problem;
use crate::reference::ReferenceProgram;
use nalgebra::DMatrix;
use sosdp_oracle::{Chord, Refinement, ScoreEval, ScoreOracle, check_chord_args};
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The CM score on the fast interior-point backend.
#[derive(Debug)]
pub struct FastCm {
    pub(crate) reference: ClarabelCm,
    /// `w_i = zh_i / sqrt(n)` as columns.
    pub(crate) points: DMatrix<f64>,
    pub(crate) settings: FastSettings,
    /// Warm states, kept cuts and certificates.
    pub(crate) memory: Memory,
    /// Evaluations and anchors answered, by [`Answer`].
    answers: AnswerCounts,
    /// Chord ends the direct solve could not certify (found by bisection instead).
    bisected_ends: AtomicUsize,
}

impl Clone for FastCm {
    fn clone(&self) -> Self {
        FastCm {
            reference: self.reference.clone(),
            points: self.points.clone(),
            settings: self.settings.clone(),
            memory: Memory::default(),
            answers: AnswerCounts::default(),
            bisected_ends: AtomicUsize::new(0),
        }
    }
}

impl FastCm {
    /// The backend for `problem`, with the default [`FastSettings`]. Its BLAS kernels are
    /// small: the binary runs OpenBLAS on one thread (parallelism belongs to rayon, across
    /// evaluations).
    pub fn new(problem: CertifiedMean) -> Self {
        let points = problem.lifted_points() / (problem.n() as f64).sqrt();
        FastCm {
            reference: ClarabelCm::new(problem),
            points,
            settings: FastSettings::default(),
            memory: Memory::default(),
            answers: AnswerCounts::default(),
            bisected_ends: AtomicUsize::new(0),
        }
    }

    /// The same backend with `settings`.
    pub fn with_settings(mut self, settings: FastSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The score's problem data.
    pub fn problem(&self) -> &CertifiedMean {
        self.reference.problem()
    }

    /// The backend's settings.
    pub fn settings(&self) -> &FastSettings {
        &self.settings
    }

    /// Number of evaluations and anchors (of this instance, not its clones) that `answer`
    /// answered: [`Answer::Fallback`] counts those the reference backend answered because the
    /// fast path failed (anchors included), [`Answer::Memo`] the membership questions a kept
    /// certificate answered without a solve (MATH.md 4.9), [`Answer::Compressed`] the
    /// questions and evaluations the compressed program answered ([`crate::cm::compress`]).
    pub fn answers(&self, answer: Answer) -> usize {
        self.answers.get(answer)
    }

    /// Number of chord ends (of this instance) that the direct solve of [`super::chord`]
    /// could not certify, so that bisection on membership found them.
    pub fn bisected_ends(&self) -> usize {
        self.bisected_ends.load(Ordering::Relaxed)
    }

    /// The kept certificates, oldest first (MATH.md 4.9).
    pub fn kept_certificates(&self) -> Vec<Certificate> {
        self.memory.certificates()
    }

    /// Count one evaluation or anchor answered by `answer`.
    pub(crate) fn count(&self, answer: Answer) {
        self.answers.count(answer);
    }

    pub(crate) fn count_bisected_end(&self) {
        self.bisected_ends.fetch_add(1, Ordering::Relaxed);
    }

    /// Forget the warm-start state and the kept cuts (the next evaluation is cold).
    pub fn reset(&self) {
        self.memory.clear();
    }

    /// Take the warm-start state (if enabled).
    pub(crate) fn take_warm(&self) -> Option<ActiveSet> {
        if self.settings.warm_start {
            self.memory.take_warm()
        } else {
            None
        }
    }

    /// Keep an active set of the CM program (or of any program on the same weights) for the
    /// next evaluation.
    pub(crate) fn keep_warm(&self, set: ActiveSet) {
        self.memory.keep_warm(set);
    }

    /// Keep (when warm starts are on) the active set that the final duals of a solve of `full`
    /// give with the warm margin ([`next_set`]).
    pub(crate) fn keep_next_warm(
        &self,
        full: &Problem,
        set: ActiveSet,
        block_duals: &[DMatrix<f64>],
        row_duals: &[f64],
    ) {
        if self.settings.warm_start {
            self.keep_warm(next_set(
                full,
                set,
                block_duals,
                row_duals,
                self.settings.margin,
            ));
        }
    }

    /// Keep the cut of a solve (the oldest one goes when there are
    /// [`crate::MemorySettings::kept_cuts`]).
    pub(crate) fn keep_cut(&self, cut: Cut) {
        self.memory.keep_cut(cut, self.settings.memory.kept_cuts);
    }

    /// Keep a cut of the compressed program (as many as [`Self::keep_cut`]).
    fn keep_compressed_cut(&self, cut: Cut) {
        self.memory
            .keep_compressed_cut(cut, self.settings.memory.kept_cuts);
    }

    /// Keep the certificate of a solve (the oldest one goes when there are
    /// [`crate::MemorySettings::kept_certificates`]).
    fn keep_certificate(&self, certificate: Certificate) {
        self.memory
            .keep_certificate(certificate, self.settings.memory.kept_certificates);
    }

    /// For a query at `theta` whose warm guess `start` (from the kept cut `cut`) folds an
    /// infeasible set: the program compressed around `cut`'s dual ([`crate::cm::compress`]). Its
    /// cut may certify NO; otherwise the statuses its margins give are the guess, once their fold
    /// is feasible. While it is not, the fold's most violated direction (the bottom eigenvector of
    /// `B(theta)` minus the folded scatter) joins the subspace and the compressed program is solved
    /// again, at most [`crate::CompressSettings::relaxed_directions`] times.
    fn relaxed_start(
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
        for extra in 0..=self.settings.compress.relaxed_directions {
            let Some(Compressed { cut: relaxed, .. }) =
                cm.compressed_cut(theta, &basis, &self.points, &margins, level, &self.settings)
            else {
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
                // Still infeasible: the folded weights the compressed dual is least sure of
                // are freed until the fold is feasible.
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
        let n = self.problem().n() as f64;
        let free = cut
            .quad
            .iter()
            .filter(|q| (1.0 - *q / n).abs() <= self.settings.compress.compress_margin)
            .count();
        free as f64 <= self.settings.compress.compress_answer_free * n
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
    /// again, at most [`crate::CompressSettings::relaxed_directions`] times. Returns the answer's
    /// bracket and certificate (YES) when decided, and the last compressed cut.
    fn compressed_answer(
        &self,
        theta: &[f64],
        level: Option<f64>,
        accuracy: f64,
        cut: &Cut,
    ) -> (Option<(ScoreEval, Option<Certificate>)>, Option<Cut>) {
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
        let mut last = None;
        for _ in 0..=self.settings.compress.relaxed_directions {
            let Some(solved) =
                cm.compressed_cut(theta, &basis, &self.points, &margins, level, &settings)
            else {
                break;
            };
            let lower = solved.cut.value(theta).max(0.0);
            if level.is_some_and(|k| lower > k) {
                return (
                    Some((ScoreEval::bracketed(n, lower, n), None)),
                    Some(solved.cut),
                );
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
                return (Some((eval, Some(certificate))), Some(solved.cut));
            }
            last = Some(solved.cut);
            if violation <= 0.0 {
                // Feasible as they are: the compressed optimum is within its gap of the level.
                break;
            }
            basis = with_direction(&basis, bottom_eigenpair(&slack).1.as_slice());
        }
        (None, last)
    }

    /// The active set a dual `Y` (certificate scale, given by its quadratic forms
    /// `quad_i = zh_i^T Y zh_i`) gives with the warm margin: statuses from the margins
    /// `1 - quad_i / n`, the fold updated from `base` when given
    /// (only the weights whose status changes) or computed afresh. With an estimate `score`
    /// of the score, at most [`unfolded_budget`] weights stay unfolded ([`classify_keeping`]).
    pub(crate) fn set_from_dual(
        &self,
        full: &Problem,
        base: Option<ActiveSet>,
        quad: &[f64],
        score: Option<f64>,
    ) -> ActiveSet {
        let n = self.problem().n() as f64;
        let m: Vec<f64> = quad.iter().map(|q| 1.0 - q / n).collect();
        let keep = score.map_or(0, |s| unfolded_budget(&self.settings, s.min(n)));
        let status = classify_keeping(&m, self.settings.margin, keep);
        let mut set = match base {
            Some(mut set) => {
                set.update(full, status);
                set
            }
            None => ActiveSet::with_status(full, status),
        };
        set.set_margins(m);
        set
    }

    fn full_problem(&self, b: DMatrix<f64>) -> Problem<'_> {
        Problem::packing(b, Cow::Borrowed(&self.points))
    }

    /// The CM score at `theta` with statistics, to bracket width `accuracy`; with `level`, stop
    /// as soon as the bracket decides "score <= level" (see `evaluate_detailed`).
    pub fn evaluate_to(
        &self,
        theta: &[f64],
        level: Option<f64>,
        accuracy: f64,
    ) -> Result<(ScoreEval, EvalStats), ScoreError> {
        let settings = self.settings.with_accuracy(accuracy);
        let cm = self.problem();
        cm.check_theta(theta)?;
        if !cm.in_domain(theta) {
            return Ok(self.answered(
                ScoreEval::outside(cm.n() as f64),
                EvalStats::answered(Answer::Outside, false),
            ));
        }
        if let Some(eval) = cm.screen(theta, accuracy, level) {
            let decided_early = eval.width() > accuracy;
            return Ok(self.answered(eval, EvalStats::answered(Answer::Screen, decided_early)));
        }
        let n = cm.n() as f64;
        let tightest = self.memory.tightest_cut(theta);
        if let Some(k) = level {
            // A kept cut may already certify "score > level"; a = 0 gives the upper end.
            let bound = tightest
                .as_ref()
                .map(|t| t.1)
                .into_iter()
                .chain(self.memory.compressed_bound(theta))
                .fold(0.0, f64::max);
            if bound > k {
                return Ok(self.answered(
                    ScoreEval::bracketed(n, bound, n),
                    EvalStats::answered(Answer::KeptCut, true),
                ));
            }
        }
        if let Some(k) = level
            && let Some(upper) = self.memory.memoised_upper(cm, theta, k)
        {
            // A kept certificate answers YES (MATH.md 4.9); the kept cuts bound it below.
            let lower = tightest.as_ref().map_or(0.0, |t| t.1.max(0.0)).min(upper);
            return Ok(self.answered(
                ScoreEval::bracketed(upper, lower, upper),
                EvalStats::answered(Answer::Memo, true),
            ));
        }
        let full = self.full_problem(cm.b_matrix(theta));
        let relax = self.settings.compress.compress_rank > 0
            && low_rank(&full) >= self.settings.large_rank
            && tightest
                .as_ref()
                .is_some_and(|(cut, _)| self.compressible(cut));
        if relax && let Some((cut, _)) = &tightest {
            // Near a kept cut the compressed program is nearly exact (MATH.md 4.9): it
            // answers most questions, and brackets most scores, in tens of milliseconds,
            // where the full program may need a cold start.
            let (answer, relaxed) = self.compressed_answer(theta, level, accuracy, cut);
            if let Some(relaxed) = relaxed {
                self.keep_compressed_cut(relaxed);
            }
            if let Some((eval, certificate)) = answer {
                if let Some(certificate) = certificate {
                    self.keep_certificate(certificate);
                }
                let decided_early = eval.width() > accuracy;
                return Ok(
                    self.answered(eval, EvalStats::answered(Answer::Compressed, decided_early))
                );
            }
        }
        let reduced_ok = fold_feasible;
        let warm = self
            .take_warm()
            .filter(|set| set.status().len() == full.upper.len());
        let start = match (tightest.as_ref().filter(|_| self.settings.warm_start), warm) {
            (Some((cut, bound)), warm) => self
                .set_from_dual(
                    &full,
                    warm,
                    &cut.quad,
                    Some(level.unwrap_or(*bound).max(*bound)),
                )
                .with_origin(Origin::Guess),
            (None, Some(set)) => set,
            (None, None) => cold_set(&full, &settings, &reduced_ok, &[], true),
        };
        let (mut start, mut start_kind) = (start, Start::Prepared);
        if let Some((cut, _)) = &tightest
            && relax
            && start.origin() == Origin::Guess
            && !reduced_ok(&start.reduce(&full))
        {
            // The warm guess folds an infeasible set, so the rounds would restart cold. The
            // program compressed around the guess's dual certifies NO when the score lies
            // above the level; otherwise its dual, computed at this `theta`, gives the guess.
            match self.relaxed_start(&full, theta, level, cut, &start) {
                Relaxed::No(relaxed) => {
                    let bound = relaxed.value(theta);
                    self.keep_warm(start);
                    self.keep_compressed_cut(relaxed);
                    return Ok(self.answered(
                        ScoreEval::bracketed(n, bound, n),
                        EvalStats::answered(Answer::Compressed, true),
                    ));
                }
                Relaxed::Guess(guess) => (start, start_kind) = (guess, Start::Relaxed),
                Relaxed::Nothing => {}
            }
        }
        let last_cut = RefCell::new(None);
        let last_certificate = RefCell::new(None);
        let certified = solve_certified(
            &full,
            start,
            &settings,
            &cm_map(n),
            level,
            reduced_ok,
            &[],
            // The IPM's dual has weight cost 1/n: the certificate's Y (weight cost 1) is n Z.
            |a, _, duals| {
                let y = &duals[0] * n;
                let (mut eval, mut cut, certificate) = cm.certify_with(theta, a, || {
                    cm.truncated_cut(&y, theta, self.settings.cut_rank_tol)
                });
                if eval.in_domain && !(decides(&eval, level) || eval.width() <= settings.accuracy) {
                    // Undecided: the whole dual's cut may be tighter; the better one counts.
                    let whole = cm.cut(&y, theta);
                    let bound = whole.value(theta).max(0.0).min(eval.upper);
                    if bound > eval.lower {
                        eval = ScoreEval::bracketed(eval.score, bound, eval.upper);
                        cut = Some(whole);
                    }
                }
                *last_cut.borrow_mut() = cut;
                *last_certificate.borrow_mut() = certificate;
                eval
            },
        );
        // The set is kept as solved: the next evaluation re-derives its statuses from the
        // tightest kept cut (this solve's is among them), so the final duals' margins (a pass
        // over all n points) are not computed here.
        let answer = conclude(
            certified,
            &settings,
            |set, _, _| self.keep_warm(set),
            || self.reference.evaluate_to(theta, accuracy),
        )?;
        let answer = (
            answer.0,
            EvalStats {
                start: start_kind,
                ..answer.1
            },
        );
        if answer.1.answer != Answer::Fallback {
            if let Some(cut) = last_cut.into_inner() {
                self.keep_cut(cut);
            }
            if let Some(certificate) = last_certificate.into_inner() {
                self.keep_certificate(certificate);
            }
        }
        Ok(self.answered(answer.0, answer.1))
    }

    /// The answer `(eval, stats)`, counted by [`EvalStats::answer`].
    fn answered(&self, eval: ScoreEval, stats: EvalStats) -> (ScoreEval, EvalStats) {
        self.count(stats.answer);
        (eval, stats)
    }
}

impl FastCm {
    /// Evaluate with statistics; with `level`, stop as soon as the bracket decides
    /// "score <= level" (the bracket may then be wider than the accuracy).
    pub fn evaluate_detailed(
        &self,
        theta: &[f64],
        level: Option<f64>,
    ) -> Result<(ScoreEval, EvalStats), ScoreError> {
        self.evaluate_to(theta, level, self.settings.accuracy)
    }
}

/// Dimension and maximum from the program ([`ReferenceProgram`]), backend `"fast"`, convex, a
/// membership query stopping as soon as its bracket decides, the refinement of the settings
/// (as [`FastSp`](crate::FastSp)); outer chord ends from the kept cuts, chords solved directly.
impl ScoreOracle for FastCm {
    fn dim(&self) -> usize {
        ReferenceProgram::dim(self.problem())
    }

    fn max_score(&self) -> f64 {
        ReferenceProgram::max_score(self.problem())
    }

    fn backend(&self) -> &'static str {
        "fast"
    }

    fn convex(&self) -> bool {
        true
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        Ok(self.evaluate_detailed(theta, None)?.0)
    }

    fn evaluate_within(&self, theta: &[f64], accuracy: f64) -> Result<ScoreEval, ScoreError> {
        let accuracy = accuracy.max(self.settings.accuracy);
        Ok(self.evaluate_to(theta, None, accuracy)?.0)
    }

    fn member_eval(&self, theta: &[f64], level: f64) -> Result<ScoreEval, ScoreError> {
        Ok(self.evaluate_detailed(theta, Some(level))?.0)
    }

    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        Ok(self.evaluate_to(theta, Some(level), accuracy)?.0)
    }

    fn refinement(&self) -> Refinement {
        self.settings.refinement
    }

    /// From the kept cuts: beyond the first step where a cut exceeds `level + f` (`f` the
    /// floor of the settings' [`crate::Refinement`], the width of the tie band), the score exceeds
    /// `level + f`, so every bracket of width at most `f` lies above `level` and the exact
    /// decision ([`sosdp_oracle::decide`]) is NO, whatever the oracle's state. (Within
    /// the band a query may be answered YES by the tie rule, so a cut above `level` alone
    /// does not fix the answer; a bracket of width `zeta` no longer can answer YES above
    /// `level`, so `level + zeta` is not needed.)
    fn outer_ends(&self, x: &[f64], u: &[f64], level: f64) -> (Option<f64>, Option<f64>) {
        let k = level + self.settings.refinement.floor_points(self.max_score());
        let back: Vec<f64> = u.iter().map(|v| -v).collect();
        (
            self.memory.outer_end(x, &back, k).map(|s| -s),
            self.memory.outer_end(x, u, k),
        )
    }

    /// Each end solved directly ([`super::chord`]), certified on both sides.
    fn chord(
        &self,
        x: &[f64],
        u: &[f64],
        level: f64,
        range: (f64, f64),
        tol: f64,
    ) -> Result<Chord, ScoreError> {
        check_chord_args(self, x, u, range, tol)?;
        self.problem().check_theta(x)?;
        let (hi, hi_solves) = self.chord_end(x, u, level, range.1, tol)?;
        let back: Vec<f64> = u.iter().map(|v| -v).collect();
        let (lo, lo_solves) = self.chord_end(x, &back, level, -range.0, tol)?;
        Ok(Chord {
            lo: -lo,
            hi,
            queries: hi_solves + lo_solves,
        })
    }
}

/// What the compressed program says about a query whose warm guess folds an infeasible set
/// ([`FastCm::relaxed_start`]).
enum Relaxed {
    /// Its cut certifies "score > level".
    No(Cut),
    /// A warm guess from its dual, whose fold is feasible.
    Guess(ActiveSet),
    /// Neither: the rounds restart cold.
    Nothing,
}

/// How the CM program of [`FastCm`] maps onto the score: `CM = n + n * objective` (the
/// objective is `-sum a / n`).
pub(crate) fn cm_map(n: f64) -> ScoreMap {
    ScoreMap {
        offset: n,
        scale: n,
    }
}
