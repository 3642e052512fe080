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
    fold_feasible, next_set, solve_certified, unfolded_budget,
};
use crate::cm::answer::compressed::Relaxed;
use crate::cm::answer::{Query, ShortCircuit};
use crate::cm::memory::Memory;
use crate::cm::reference::ClarabelCm;
use crate::cm::{Certificate, CertifiedMean, Cut};
use crate::ipm::Problem;
use crate::reference::ReferenceProgram;
use nalgebra::DMatrix;
use sosdp_oracle::{Chord, Refinement, ScoreEval, ScoreOracle, check_chord_args};
use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::ControlFlow;
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
    pub(crate) fn keep_compressed_cut(&self, cut: Cut) {
        self.memory
            .keep_compressed_cut(cut, self.settings.memory.kept_cuts);
    }

    /// Keep the certificate of a solve (the oldest one goes when there are
    /// [`crate::MemorySettings::kept_certificates`]).
    pub(crate) fn keep_certificate(&self, certificate: Certificate) {
        self.memory
            .keep_certificate(certificate, self.settings.memory.kept_certificates);
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

    pub(crate) fn full_problem(&self, b: DMatrix<f64>) -> Problem<'_> {
        Problem::packing(b, Cow::Borrowed(&self.points))
    }

    /// The CM score at `theta` with statistics, to bracket width `accuracy`; with `level`, stop
    /// as soon as the bracket decides "score <= level" (see `evaluate_detailed`). A pipeline:
    /// the short-circuit answerers in order (`cm::answer`: screen, kept cut, memo, compressed
    /// program), then the start, the repair rounds and the clarabel fallback.
    pub fn evaluate_to(
        &self,
        theta: &[f64],
        level: Option<f64>,
        accuracy: f64,
    ) -> Result<(ScoreEval, EvalStats), ScoreError> {
        self.answer(theta, level, None, accuracy)
    }

    /// [`Self::evaluate_to`] for a membership question at `level` whose YES is followed by the
    /// question at `next` (below it) at this `theta`: a round whose objectives say YES goes on
    /// until they also decide `next` ([`solve_certified`]), so that its certificate or cut
    /// answers the next question without a solve.
    pub fn evaluate_then(
        &self,
        theta: &[f64],
        level: f64,
        next: f64,
    ) -> Result<(ScoreEval, EvalStats), ScoreError> {
        self.answer(theta, Some(level), Some(next), self.settings.accuracy)
    }

    /// The pipeline of [`Self::evaluate_to`], with the next question's level.
    fn answer(
        &self,
        theta: &[f64],
        level: Option<f64>,
        next: Option<f64>,
        accuracy: f64,
    ) -> Result<(ScoreEval, EvalStats), ScoreError> {
        let cm = self.problem();
        cm.check_theta(theta)?;
        if !cm.in_domain(theta) {
            return Ok(self.answered(
                ScoreEval::outside(cm.n() as f64),
                EvalStats::answered(Answer::Outside, false),
            ));
        }
        let query = Query::new(self, theta, level, next, accuracy);
        for answerer in ShortCircuit::ORDER {
            if let Some((eval, stats)) = answerer.answer(self, &query) {
                return Ok(self.answered(eval, stats));
            }
        }
        let settings = self.settings.with_accuracy(accuracy);
        let (eval, stats) = match self.start(&query, &settings) {
            ControlFlow::Continue((start, kind)) => self.solve(&query, &settings, start, kind)?,
            ControlFlow::Break(answer) => answer,
        };
        Ok(self.answered(eval, stats))
    }

    /// The start of the repair rounds: the statuses the tightest kept cut's dual gives
    /// ([`Self::set_from_dual`], on the warm set when there is one) as a warm guess, else the
    /// warm set, else the cold set ([`cold_set`]). A guess whose fold is infeasible would be
    /// unfolded in the rounds: when the compressed program is tried ([`Query::relax`]), the
    /// program compressed around the guess's dual certifies NO when the score lies above the
    /// level (the query's answer, [`ControlFlow::Break`]); otherwise its dual, computed at this
    /// `theta`, gives the guess ([`Self::relaxed_start`]).
    fn start(
        &self,
        query: &Query,
        settings: &FastSettings,
    ) -> ControlFlow<(ScoreEval, EvalStats), (ActiveSet, Start)> {
        let (full, theta, level) = (query.full(), query.theta, query.level);
        let warm = self
            .take_warm()
            .filter(|set| set.status().len() == full.upper.len());
        let start = match (query.tightest().filter(|_| self.settings.warm_start), warm) {
            (Some((cut, bound)), warm) => self
                .set_from_dual(
                    full,
                    warm,
                    &cut.quad,
                    Some(level.unwrap_or(*bound).max(*bound)),
                )
                .with_origin(Origin::Guess),
            (None, Some(set)) => set,
            (None, None) => cold_set(full, settings, &fold_feasible, &[], true),
        };
        if let Some((cut, _)) = query.tightest()
            && query.relax()
            && start.origin() == Origin::Guess
            && !fold_feasible(&start.reduce(full))
        {
            match self.relaxed_start(full, theta, level, cut, &start) {
                Relaxed::No(relaxed) => {
                    let bound = relaxed.value(theta);
                    let n = self.problem().n() as f64;
                    self.keep_warm(start);
                    self.keep_compressed_cut(relaxed);
                    return ControlFlow::Break((
                        ScoreEval::bracketed(n, bound, n),
                        EvalStats::answered(Answer::Compressed, true),
                    ));
                }
                Relaxed::Guess(guess) => return ControlFlow::Continue((guess, Start::Relaxed)),
                Relaxed::Nothing => {}
            }
        }
        ControlFlow::Continue((start, Start::Prepared))
    }

    /// The repair rounds from `start` ([`solve_certified`]), each accepted round certified by
    /// [`CertifiedMean::certify_with`] (its cut and certificate kept); when they fail, the
    /// clarabel reference backend to the accuracy asked ([`conclude`]).
    fn solve(
        &self,
        query: &Query,
        settings: &FastSettings,
        start: ActiveSet,
        kind: Start,
    ) -> Result<(ScoreEval, EvalStats), ScoreError> {
        let cm = self.problem();
        let n = cm.n() as f64;
        let (full, theta, level, accuracy) =
            (query.full(), query.theta, query.level, query.accuracy);
        let last_cut = RefCell::new(None);
        let last_certificate = RefCell::new(None);
        let certified = solve_certified(
            full,
            start,
            settings,
            &cm_map(n),
            level,
            query.next,
            fold_feasible,
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
            settings,
            |set, _, _| self.keep_warm(set),
            || self.reference.evaluate_to(theta, accuracy),
        )?;
        let answer = (
            answer.0,
            EvalStats {
                start: kind,
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
        Ok(answer)
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

    fn member_eval_then(
        &self,
        theta: &[f64],
        level: f64,
        next: f64,
    ) -> Result<ScoreEval, ScoreError> {
        Ok(self.evaluate_then(theta, level, next)?.0)
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

/// How the CM program of [`FastCm`] maps onto the score: `CM = n + n * objective` (the
/// objective is `-sum a / n`).
pub(crate) fn cm_map(n: f64) -> ScoreMap {
    ScoreMap {
        offset: n,
        scale: n,
    }
}
