//! The active-set driver shared by the fast CM and SP backends (MATH.md 3.2): the
//! interior-point method ([`crate::ipm`]) on the active set's reduced problem, expansion to
//! all weights, certification on the full problem, and repair rounds that free every weight
//! whose status the final dual contradicts; cold starts from a cascade of subsamples
//! ([`cold_set`]) and warm starts from the previous duals ([`next_set`]).
//!
//! - [`fold`]: the active set itself, weights at their bounds folded into constants;
//! - [`group`]: aggregation of many free weights into groups of equal weight (MATH.md 4.10);
//! - [`warm`]: the pool of warm-start states;
//! - [`settings`]: [`FastSettings`], every tolerance and budget of the driver.
pub(crate) mod fold;
pub(crate) mod group;
pub mod settings;
pub(crate) mod warm;

pub use settings::{
    AggregateSettings, ColdStartSettings, CompressSettings, FastSettings, MemorySettings,
    RepairSettings,
};

use self::fold::{ActiveSet, Origin, Status, classify, classify_keeping, contradicts, margins};
use self::group::Grouping;
use crate::ScoreError;
use crate::dense::{bottom_eigenpair, min_eigenvalue};
use crate::ipm::{self, IpmSettings, LmiBlock, Problem, Termination};
use nalgebra::{DMatrix, DVector};
use sosdp_oracle::{ScoreEval, member_from_bracket};
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Which step of an evaluation gave its bracket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Answer {
    /// `theta` lies outside the score's domain: the maximum score, without a solve.
    Outside,
    /// The screen of the CM program answered without a solve ([`crate::CertifiedMean::screen`]).
    Screen,
    /// A kept cut (of a full or a compressed solve) certified "score > level" without a solve.
    KeptCut,
    /// A kept certificate answered the membership query without a solve (MATH.md 4.9).
    Memo,
    /// The compressed program answered the membership query, NO from its cut or YES from its
    /// weights made feasible for the full LMI, or bracketed the score to the accuracy asked
    /// ([`crate::cm::compress`]).
    Compressed,
    /// The certified repair rounds on the full problem.
    #[default]
    Solved,
    /// The repair rounds failed and the reference backend answered.
    Fallback,
}

impl Answer {
    /// Every answer, in the order of [`Answer::index`].
    pub const ALL: [Answer; 7] = [
        Answer::Outside,
        Answer::Screen,
        Answer::KeptCut,
        Answer::Memo,
        Answer::Compressed,
        Answer::Solved,
        Answer::Fallback,
    ];

    /// The position of the answer in [`Answer::ALL`] (the index of its counter).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Where the repair rounds of an evaluation started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Start {
    /// The warm set, the kept cut's guess or the cold set the evaluation prepared (or no
    /// rounds at all).
    #[default]
    Prepared,
    /// The warm guess came from the dual of the compressed program at the query, the kept
    /// cut's guess folding an infeasible set ([`crate::cm::compress`]).
    Relaxed,
}

/// Queries answered, counted by [`Answer`] (of one backend instance, not its clones).
#[derive(Debug, Default)]
pub(crate) struct AnswerCounts([AtomicUsize; Answer::ALL.len()]);

impl AnswerCounts {
    /// Count one query answered by `answer`.
    pub(crate) fn count(&self, answer: Answer) {
        self.0[answer.index()].fetch_add(1, Ordering::Relaxed);
    }

    /// The queries answered by `answer`.
    pub(crate) fn get(&self, answer: Answer) -> usize {
        self.0[answer.index()].load(Ordering::Relaxed)
    }
}

/// What one evaluation did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalStats {
    /// Which step gave the bracket.
    pub answer: Answer,
    /// Where the repair rounds started.
    pub start: Start,
    /// Interior-point iterations, summed over rounds (and the cold-start subsample).
    pub iterations: usize,
    /// Reduced problems solved.
    pub rounds: usize,
    /// Free weights in the last reduced problem.
    pub free: usize,
    /// Group variables the last reduced problem's free weights were aggregated into (0: not
    /// aggregated; [`group`]).
    pub groups: usize,
    /// Reduced problems solved with aggregated weights (of a compressed answer: its compressed
    /// solves so aggregated, [`crate::CompressSettings::aggregate_share`]).
    pub grouped_rounds: usize,
    /// Folded weights in the last reduced problem.
    pub folded: usize,
    /// The bracket decides the membership query but is wider than the accuracy asked (the
    /// answer stopped as soon as it decided).
    pub decided_early: bool,
    /// A warm guess was given up for a cold start (see [`Origin::Guess`]).
    pub restarted_cold: bool,
    /// A round's solve was ended by the membership query's early stop while its certificate on
    /// the full problem left the question open; the later rounds solved without the early stop.
    pub open_stop: bool,
}

impl EvalStats {
    /// The statistics of an evaluation answered by `answer` without repair rounds.
    pub(crate) fn answered(answer: Answer, decided_early: bool) -> Self {
        EvalStats {
            answer,
            decided_early,
            ..EvalStats::default()
        }
    }
}

/// How a problem maps onto the score: `score = offset + scale * objective` (objective of the
/// full problem).
pub(crate) struct ScoreMap {
    /// Score at objective 0, in points.
    pub offset: f64,
    /// Points of score per objective unit.
    pub scale: f64,
}

impl ScoreMap {
    fn score(&self, objective: f64) -> f64 {
        self.offset + self.scale * objective
    }
}

/// A certified solution of the full problem.
pub(crate) struct Certified {
    /// The certified bracket of the score.
    pub eval: ScoreEval,
    /// The active set of the accepted round, as solved.
    pub set: ActiveSet,
    /// What the evaluation did.
    pub stats: EvalStats,
    /// Duals of the last reduced solve (valid duals of the full problem's blocks) ...
    pub block_duals: Vec<DMatrix<f64>>,
    /// ... and of its rows.
    pub row_duals: Vec<f64>,
}

/// True when the bracket answers "is the score <= level?" ([`member_from_bracket`]).
pub(crate) fn decides(eval: &ScoreEval, level: Option<f64>) -> bool {
    level.is_some_and(|k| member_from_bracket(eval, k).is_some())
}

/// Solve `full` starting from `set`; `certify(a, t, block_duals)` brackets the score of
/// the full problem. `reduced_ok` rejects reduced problems that are infeasible by
/// construction (then weights are unfolded). `t0` is the starting value of the free
/// variables. With `level`, a round stops as soon as its objectives decide "score <= level"
/// (by [`FastSettings::stop_margin`]); with `next` as well (the question a YES is followed
/// by, below `level`), a round whose objectives say YES goes on until they also decide
/// `next`, and its certified bracket is accepted once it decides both. Returns `None` when
/// the rounds are exhausted.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_certified(
    full: &Problem,
    set: ActiveSet,
    settings: &FastSettings,
    map: &ScoreMap,
    level: Option<f64>,
    next: Option<f64>,
    reduced_ok: impl Fn(&Problem) -> bool,
    t0: &[f64],
    certify: impl Fn(&[f64], &[f64], &[DMatrix<f64>]) -> ScoreEval,
) -> Option<Certified> {
    let margin = settings.stop_margin * settings.accuracy;
    let stop = |p: &ipm::IterationReport, fold_cost: f64| {
        level.is_some_and(|k| {
            let (lo, hi) = (
                map.score(p.dual_objective + fold_cost),
                map.score(p.primal_objective + fold_cost),
            );
            let decided = |k: f64| lo > k + margin || hi < k - margin;
            p.primal_residual < settings.stop_residual
                && p.dual_residual < settings.stop_residual
                && (lo > k + margin || (hi < k - margin && next.is_none_or(decided)))
        })
    };
    let tolerance = IpmSettings {
        gap_tol: settings.gap_share * settings.accuracy / map.scale.abs(),
        ..settings.round.clone()
    };
    let rounds = Rounds {
        full,
        settings,
        tolerance,
        reduced_ok: &reduced_ok,
        t0,
        loose_scale: map.scale.abs(),
    };
    // A YES at `level` is accepted once it also decides `next`.
    let answers = |eval: &ScoreEval| match level.and_then(|k| member_from_bracket(eval, k)) {
        Some(true) => next.is_none_or(|j| member_from_bracket(eval, j).is_some()),
        Some(false) => true,
        None => false,
    };
    let (eval, set, sol, mut stats) = rounds.run(set, stop, |_, a, sol| {
        let eval = certify(a, &sol.extra, &sol.block_duals);
        (answers(&eval) || eval.width() <= settings.accuracy).then_some(eval)
    })?;
    stats.decided_early = eval.width() > settings.accuracy;
    Some(Certified {
        eval,
        set,
        stats,
        block_duals: sol.block_duals,
        row_duals: sol.row_duals,
    })
}

/// The round loop shared by certified solves and the cold start's subsample levels.
struct Rounds<'p, 'a, F: Fn(&Problem) -> bool> {
    full: &'p Problem<'a>,
    settings: &'p FastSettings,
    tolerance: IpmSettings,
    reduced_ok: &'p F,
    t0: &'p [f64],
    /// Points of score per objective unit (`|scale|` of the [`ScoreMap`]) when the first round
    /// of a cold start may be solved loosely ([`ColdStartSettings::loose_share`]); 0: never
    /// (subsample levels).
    loose_scale: f64,
}

impl<F: Fn(&Problem) -> bool> Rounds<'_, '_, F> {
    /// The cold start's set ([`cold_set`], with the unfolded budget) for a warm guess given up.
    fn cold_start(&self) -> ActiveSet {
        cold_set(self.full, self.settings, self.reduced_ok, self.t0, true)
    }

    /// The aggregation of the free weights of `reduced` ([`group`]), when there are more than
    /// [`AggregateSettings::aggregate_free`] of them, the rank of the Newton system's low-rank part
    /// is at least [`FastSettings::large_rank`], and the set carries margins to group by.
    fn grouping(&self, set: &ActiveSet, reduced: &Problem) -> Option<Grouping> {
        let free = set.free();
        if free.len() <= self.settings.aggregate.aggregate_free
            || low_rank(self.full) < self.settings.large_rank
            || set.margins().len() != self.full.upper.len()
        {
            return None;
        }
        let m: Vec<f64> = free.iter().map(|&i| set.margins()[i]).collect();
        if m.iter().all(|&x| x == 0.0) {
            return None;
        }
        debug_assert_eq!(m.len(), reduced.upper.len());
        Grouping::by_margins(&m, self.settings.aggregate.group_core)
    }

    /// Each round solves the reduced problem of `set` and hands the expanded weights and the
    /// solution to `accept`; when it declines, the statuses the round's dual contradicts are
    /// freed, the most contradicted first and at most [`repair_budget`] of them (the first
    /// repair re-derives all other statuses from that dual), or, if none is contradicted, the
    /// next round solves more tightly (after a stalled solve: on the free set of its dual;
    /// after one `stop` ended: without the early stop, in this and every later round).
    /// The last round solves the full problem. `stop(progress, fold_cost)` may end an IPM
    /// solve early.
    ///
    /// From [`FastSettings::large_rank`] on, a warm guess ([`Origin::Guess`]) gives way to a
    /// cold start when its first dual contradicts more statuses than one repair frees (with
    /// [`crate::RepairSettings::far_off_restarts`]: repairing a guess that far off can grow the
    /// free set to a large share of the weights, costlier than a cold start; in the d = 10
    /// Gaussian's lifted refinement the repairs cost less) or when it is still
    /// undecided after [`crate::RepairSettings::guess_rounds`] rounds; below that rank it is
    /// repaired. A guess whose fold is infeasible is unfolded like any other set
    /// ([`unfold_until_feasible`], along the violated direction), which cost less than a cold
    /// start at `D = 10` (clean mean fits 2.6-3.1 s against 4.2-5.6 s) and at `D = 55` (the
    /// d = 10 Gaussian's lifted refinement: 7:30 and 8:33 against 11:13, the same release),
    /// where a cold start had been the rule from [`FastSettings::large_rank`] on.
    fn run<R>(
        &self,
        mut set: ActiveSet,
        stop: impl Fn(&ipm::IterationReport, f64) -> bool,
        mut accept: impl FnMut(&ActiveSet, &[f64], &ipm::Solution) -> Option<R>,
    ) -> Option<(R, ActiveSet, ipm::Solution, EvalStats)> {
        let full = self.full;
        let n = full.upper.len();
        let mut stats = EvalStats::default();
        let mut tolerance = self.tolerance.clone();
        let mut late_left = self.settings.repair.late_rederive;
        let mut grouped_left = self.settings.aggregate.grouped_rounds;
        let mut estimate = set.estimate();
        let mut guess = set.origin() == Origin::Guess;
        // The first round of the current start (a warm guess may give way to a cold start).
        let mut first = 0;
        for round in 0..self.settings.repair.max_rounds {
            if round + 1 == self.settings.repair.max_rounds && set.count(Status::Free) < n {
                set.update(full, vec![Status::Free; n]);
            }
            if !unfold_until_feasible(full, &mut set, self.reduced_ok) {
                return None;
            }
            let reduced = set.reduce(full);
            let fold_cost = full.cost_a * set.folded_mass();
            let a0: Vec<f64> = reduced.upper.iter().map(|u| 0.5 * u).collect();
            // A cold start's first round only needs a dual good enough to classify: solved
            // loosely, its statuses re-derived for the next round.
            let loose = estimate.filter(|_| round == first && self.loose_scale > 0.0);
            let round_tolerance = match loose {
                Some(removed) => IpmSettings {
                    gap_tol: tolerance
                        .gap_tol
                        .max(self.settings.cold.loose_share * removed / self.loose_scale),
                    feas_tol: self.settings.cold.loose_feas_tol,
                    ..tolerance.clone()
                },
                None => tolerance.clone(),
            };
            let grouping = (grouped_left > 0 && round + 1 < self.settings.repair.max_rounds)
                .then(|| self.grouping(&set, &reduced))
                .flatten();
            // A round `stop` ended whose certificate (on the full problem) left the question
            // open, with no status contradicted, would stop at the same iterate again: after
            // one, the rounds solve to the gap tolerance.
            let early_stop = !stats.open_stop;
            let round_stop = |p: &ipm::IterationReport| early_stop && stop(p, fold_cost);
            let sol = match &grouping {
                Some(g) => {
                    stats.grouped_rounds += 1;
                    g.solve(&reduced, &a0, self.t0, &round_tolerance, round_stop)
                }
                None => ipm::solve(&reduced, &a0, self.t0, &round_tolerance, round_stop),
            };
            stats.iterations += sol.iterations;
            stats.rounds += 1;
            stats.free = reduced.upper.len();
            stats.groups = grouping.as_ref().map_or(0, Grouping::groups);
            stats.folded = set.count(Status::Upper);
            let a = set.expand(full, &sol.a);
            if let Some(result) = accept(&set, &a, &sol) {
                return Some((result, set, sol, stats));
            }
            if grouping.is_some() {
                grouped_left -= 1;
            }
            let m = margins(full, &sol.block_duals, &sol.row_duals);
            let mut contradicted: Vec<usize> = (0..n)
                .filter(|&i| contradicts(set.status()[i], m[i]))
                .collect();
            let fresh = {
                // Where the margins are degenerate (the score a small fraction of n, see
                // `cold_set`), an accurate first dual still orders the weights: beyond
                // `settings.cold.degenerate` times the budget unfolded, the budget holds (the plain
                // classification can leave most weights free).
                let plain = classify(&m, self.settings.margin);
                if round == first && loose.is_none() {
                    let keep = unfolded_budget(
                        self.settings,
                        full.upper.iter().zip(&a).map(|(u, a)| u - a).sum(),
                    );
                    let unfolded = plain.iter().filter(|s| **s != Status::Upper).count();
                    if unfolded > self.settings.cold.degenerate * keep {
                        classify_keeping(&m, self.settings.margin, keep)
                    } else {
                        plain
                    }
                } else {
                    plain
                }
            };
            let fresh_free = fresh.iter().filter(|s| **s == Status::Free).count();
            let accurate = matches!(
                sol.termination,
                Termination::Converged | Termination::Stopped | Termination::Stalled
            );
            // At a large Newton rank (each freed weight costs `m^2` an iteration) a warm guess
            // gives way to a cold start when it is so far off that one repair cannot fix it, or
            // still undecided after `guess_rounds` rounds (its repairs head for the full
            // problem: every weight free, tens of seconds per iteration at D = 50, n = 50000).
            // Below that rank the repairs go on from this dual: cheaper than a cold start
            // (d = 10, n = 20000 clean mean fit 3.6 s against 4.6 s, the same release), while at
            // D = 51 the cold start paid.
            let far_off = self.settings.repair.far_off_restarts
                && round == first
                && contradicted.len() > repair_budget(self.settings, stats.free);
            let undecided = round + 1 - first >= self.settings.repair.guess_rounds;
            if guess && (far_off || undecided) && low_rank(full) >= self.settings.large_rank {
                set = self.cold_start();
                (estimate, guess, first, stats.restarted_cold) =
                    (set.estimate(), false, round + 1, true);
                continue;
            }
            if !contradicted.is_empty() {
                // Repairs free contradicted weights; at most `repair_budget` of them per round,
                // the most contradicted first: a reduced problem whose fold is far off (a warm
                // start after a large move) has a dual that contradicts a large share of the
                // weights, most of which the next, better dual confirms; freeing them all made
                // reduced problems of half the weights (cost `N m^2` per iteration).
                // After the loose round, fewer: its dual's contradictions come partly from its
                // inexactness.
                let budget = if loose.is_some() {
                    self.settings.repair.min_repair
                } else {
                    repair_budget(self.settings, stats.free)
                };
                keep_most_contradicted(&mut contradicted, &m, budget);
                // The first repair re-derives the other statuses from this dual; later repairs only
                // free weights, so that the free set grows and the rounds cannot cycle, except (at
                // most `settings.repair.late_rederive` times) when an accurate dual would at least
                // halve the free set (after a far-off fold, weights freed early are decided again).
                let rederive = round == first
                    || (late_left > 0
                        && accurate
                        && 2 * (fresh_free + contradicted.len()) <= stats.free);
                if round > first && rederive {
                    late_left -= 1;
                }
                let mut status = if rederive {
                    fresh
                        .into_iter()
                        .zip(set.status())
                        .zip(&m)
                        .map(|((fresh, &old), &mi)| if contradicts(old, mi) { old } else { fresh })
                        .collect()
                } else {
                    set.status().to_vec()
                };
                for &i in &contradicted {
                    status[i] = Status::Free;
                }
                set.update(full, status);
                set.set_margins(m);
            } else if grouping.is_some() {
                // The bracket's width is the Jensen gap of groups straddling the margins' zero
                // crossing: the next round regroups by this dual's margins.
                set.set_margins(m);
            } else if loose.is_some() && sol.termination == Termination::Converged {
                // The loose round's dual contradicts no status: its own classification, solved
                // accurately next.
                set.update(full, fresh);
                set.set_margins(m);
            } else if sol.termination == Termination::Stopped {
                stats.open_stop = true;
            } else if sol.termination == Termination::Converged {
                tolerance.gap_tol *= 0.01;
            } else if sol.termination == Termination::Stalled
                && late_left > 0
                && fresh_free < stats.free
            {
                // The method stalled on a large reduced problem (its Newton systems lose
                // accuracy) at an accurate iterate whose dual contradicts no status: that dual
                // classifies the weights well, and the smaller problem it leaves free is
                // solved accurately. (Freeing every weight instead made the next round the
                // full problem.)
                late_left -= 1;
                set.update(full, fresh);
                set.set_margins(m);
            } else {
                set.update(full, vec![Status::Free; n]);
            }
        }
        None
    }
}

/// Largest number of contradicted weights one repair round frees: twice the free weights of
/// the round, at least [`RepairSettings::min_repair`].
pub(crate) fn repair_budget(settings: &FastSettings, free: usize) -> usize {
    (2 * free).max(settings.repair.min_repair)
}

/// Keep the `budget` weights of `contradicted` whose margins `m` are largest in absolute value
/// (the most contradicted statuses).
pub(crate) fn keep_most_contradicted(contradicted: &mut Vec<usize>, m: &[f64], budget: usize) {
    if contradicted.len() > budget {
        contradicted.sort_unstable_by(|&i, &j| m[j].abs().total_cmp(&m[i].abs()));
        contradicted.truncate(budget);
    }
}

/// True when the folded weights alone keep a reduced packing program feasible (its constant,
/// `B(theta)` minus the folded scatter, is positive definite).
pub(crate) fn fold_feasible(reduced: &Problem) -> bool {
    min_eigenvalue(&reduced.blocks[0].constant) > 0.0
}

/// If the fold alone makes the reduced problem infeasible (`reduced_ok` fails), free folded
/// weights until it passes: each step frees a share of the folded weights that doubles (from
/// 1/64 of them), those that push hardest along the violated direction first. When the first
/// block is a packing block (`sign > 0`, constant `B - sum_folded u_i w_i w_i^T`) whose
/// smallest eigenvalue is negative, with unit eigenvector `v`, that is the largest
/// `u_i (v^T w_i)^2` (recomputed at each step, as the direction moves); otherwise the smallest
/// margins. False when nothing is left to free.
///
/// A dual that folds a tight cluster (its records have nearly equal margins, all kept) leaves
/// the fold infeasible along the cluster's direction; freed by margin, the cluster's records
/// came last, and the repair rounds ended on the full problem (d = 5, n = 100000, a 1% cluster:
/// cold evaluations with every weight free, 5-9 s each, most of a centred stage's time).
pub(crate) fn unfold_until_feasible(
    full: &Problem,
    set: &mut ActiveSet,
    reduced_ok: impl Fn(&Problem) -> bool,
) -> bool {
    let mut share = 64;
    loop {
        let reduced = set.reduce(full);
        if reduced_ok(&reduced) {
            return true;
        }
        let mut folded: Vec<usize> = (0..full.upper.len())
            .filter(|&i| set.status()[i] == Status::Upper)
            .collect();
        if folded.is_empty() {
            return false;
        }
        let count = folded.len().div_ceil(share);
        let push = violated_direction(&reduced).map(|v| {
            let points = &full.blocks[0].points;
            let mut push = vec![0.0; full.upper.len()];
            for &i in &folded {
                push[i] = full.upper[i] * points.column(i).dot(&v).powi(2);
            }
            push
        });
        // The `count` weights to free first: largest push, else smallest margin.
        let first = |i: &usize, j: &usize| match &push {
            Some(push) => push[*j].total_cmp(&push[*i]),
            None => set.margins()[*i].total_cmp(&set.margins()[*j]),
        };
        if count < folded.len() {
            folded.select_nth_unstable_by(count, first);
        }
        let mut status = set.status().to_vec();
        for &i in &folded[..count] {
            status[i] = Status::Free;
        }
        set.update(full, status);
        share = (share / 2).max(1);
    }
}

/// The unit eigenvector of the smallest eigenvalue of the first block's constant, when that
/// block is a packing block (`sign > 0`) and the eigenvalue is negative.
fn violated_direction(reduced: &Problem) -> Option<DVector<f64>> {
    let block = reduced.blocks.first().filter(|b| b.sign > 0.0)?;
    let (bottom, v) = bottom_eigenpair(&block.constant);
    (bottom < 0.0).then_some(v)
}

/// The active set for the next evaluation: statuses from the final duals with a margin.
pub(crate) fn next_set(
    full: &Problem,
    mut set: ActiveSet,
    block_duals: &[DMatrix<f64>],
    row_duals: &[f64],
    margin: f64,
) -> ActiveSet {
    let m = margins(full, block_duals, row_duals);
    set.update(full, classify(&m, margin));
    set.set_margins(m);
    set
}

/// Active set for a cold evaluation, from a cascade of subsamples: the same program on an evenly
/// spaced subsample of `max(settings.cold.subsample, n / settings.cold.cascade)` weights, rescaled
/// so that it estimates the same dual (costs and row coefficients per weight times `n / n_s`,
/// points times `sqrt(n / n_s)`), is solved (its own cold set coming from the next smaller
/// subsample) until its dual contradicts none of its statuses; every weight of `full` is then
/// classified by its margin under that dual with `settings.cold.cold_margin`. With `budget`, at
/// most the cold budget of them (for the weight the subsample's optimum removes) stay unfolded, and
/// the set is marked as an estimate ([`Origin::Estimate`]) so that its first round is solved
/// loosely ([`ColdStartSettings::loose_share`]). The smallest level is solved with every weight
/// free (a level is solved directly when the next one would have more than half its weights).
///
/// The anchor goes without the budget and the loose round: its certified ball needs the
/// interior solution that a larger free set gives (with either, the fast anchor's radius came
/// out 0 in `fast_anchor_agrees_with_clarabel`).
///
/// One subsample alone is too noisy when the score is a small fraction of `n` (at
/// `n = 20000` a 256-point subsample sees about five removed points): the classification it
/// gives folds weights that the optimum removes, and the fold is infeasible.
pub(crate) fn cold_set(
    full: &Problem,
    settings: &FastSettings,
    reduced_ok: &impl Fn(&Problem) -> bool,
    t0: &[f64],
    budget: bool,
) -> ActiveSet {
    let n = full.upper.len();
    let ns = settings.cold.subsample.max(n / settings.cold.cascade);
    if 2 * ns > n || settings.cold.subsample == 0 {
        return ActiveSet::all_free(full);
    }
    let sub = subsample(full, ns);
    let start = cold_set(&sub, settings, reduced_ok, t0, budget);
    let tolerance = settings.cold.subsample_round.clone();
    let rounds = Rounds {
        full: &sub,
        settings,
        tolerance,
        reduced_ok,
        t0,
        loose_scale: 0.0,
    };
    let consistent = rounds.run(
        start,
        |_, _| false,
        |set, a, sol| {
            let m = margins(&sub, &sol.block_duals, &sol.row_duals);
            let contradicted = set
                .status()
                .iter()
                .zip(&m)
                .any(|(s, &mi)| contradicts(*s, mi));
            // The weight the subsample's optimum removes, scaled to `n` weights.
            let removed =
                sub.upper.iter().zip(a).map(|(u, a)| u - a).sum::<f64>() * n as f64 / ns as f64;
            (sol.termination != Termination::NumericalError && !contradicted).then_some(removed)
        },
    );
    let Some((removed, _, sol, _)) = consistent else {
        return ActiveSet::all_free(full);
    };
    let m = margins(full, &sol.block_duals, &sol.row_duals);
    let mut status = classify_keeping(
        &m,
        settings.cold.cold_margin,
        if budget {
            cold_budget(full, settings, removed)
        } else {
            0
        },
    );
    let mut free: Vec<usize> = (0..n).filter(|&i| status[i] == Status::Free).collect();
    let cap = cold_cap(full, settings);
    if free.len() > cap {
        // At large D the subsample's dual can leave a large share of the weights within the
        // cold margin (slow iterations, and the method stalls); only the `cap` least decided
        // stay free, the repair rounds free the others that the dual of the reduced problem
        // contradicts.
        free.sort_unstable_by(|&i, &j| m[i].abs().total_cmp(&m[j].abs()));
        for &i in &free[cap..] {
            status[i] = if m[i] > 0.0 {
                Status::Upper
            } else {
                Status::Lower
            };
        }
    }
    let mut set = ActiveSet::with_status(full, status);
    if budget {
        set = set.with_origin(Origin::Estimate(removed));
    }
    set.set_margins(m);
    set
}

/// Most weights an active set derived from an estimated dual leaves unfolded
/// ([`classify_keeping`]) when the program removes about `removed` weight:
/// `2 removed + unfolded_slack` ([`ColdStartSettings::unfolded_slack`]).
pub(crate) fn unfolded_budget(settings: &FastSettings, removed: f64) -> usize {
    (2.0 * removed.max(0.0)).ceil() as usize + settings.cold.unfolded_slack
}

/// The unfolded budget of a cold set: [`unfolded_budget`], or `removed + unfolded_slack` when
/// the rank `m` of the Newton system's low-rank part is at least
/// [`ColdStartSettings::tight_rank`]. Above `m` free weights an iteration costs `m^2` per free
/// weight (Woodbury), so at large `m` the loose first round's extra `removed` weights cost
/// more than the repairs they spare.
fn cold_budget(full: &Problem, settings: &FastSettings, removed: f64) -> usize {
    if low_rank(full) >= settings.cold.tight_rank {
        removed.max(0.0).ceil() as usize + settings.cold.unfolded_slack
    } else {
        unfolded_budget(settings, removed)
    }
}

/// Most weights a cold set leaves free: `n / cold_free_divisor`, at least
/// `cold_free_rank` times the rank `m` of the Newton system's low-rank part and
/// `min_cold_free` (fields of [`FastSettings`]).
fn cold_cap(full: &Problem, settings: &FastSettings) -> usize {
    (full.upper.len() / settings.cold.cold_free_divisor)
        .max(settings.cold.cold_free_rank * low_rank(full))
        .max(settings.cold.min_cold_free)
}

/// The rank `m = sum_b p_b (p_b + 1) / 2` of the low-rank part of the Newton system's weight
/// block (blocks with weights).
pub(crate) fn low_rank(full: &Problem) -> usize {
    full.blocks
        .iter()
        .filter(|b| b.has_weights())
        .map(|b| b.constant.nrows() * (b.constant.nrows() + 1) / 2)
        .sum()
}

/// The program on the evenly spaced subsample of `ns` weights, rescaled to estimate the same
/// dual (see [`cold_set`]).
fn subsample(full: &Problem, ns: usize) -> Problem<'static> {
    let n = full.upper.len();
    let idx: Vec<usize> = (0..ns).map(|k| k * n / ns).collect();
    let ratio = n as f64 / ns as f64;
    Problem {
        upper: Cow::Owned(idx.iter().map(|&i| full.upper[i]).collect()),
        cost_a: full.cost_a * ratio,
        cost_extra: full.cost_extra.clone(),
        blocks: full
            .blocks
            .iter()
            .map(|b| LmiBlock {
                constant: b.constant.clone(),
                sign: b.sign,
                points: Cow::Owned(b.select(&idx) * ratio.sqrt()),
                extra: b.extra.clone(),
            })
            .collect(),
        rows: full
            .rows
            .iter()
            .map(|r| ipm::LinearRow {
                a_coeff: r.a_coeff * ratio,
                ..r.clone()
            })
            .collect(),
    }
}

/// The answer of an evaluation: the certified solution, whose active set as solved and final
/// duals (block, row) are handed to `keep` for the warm start (see [`next_set`]), or the
/// reference backend's answer when the rounds failed (`reference` asks it for the bracket
/// width the evaluation was asked for, [`crate::reference::Clarabel::evaluate_to`], so that refinements reach
/// the tie band's floor through the fallback too).
pub(crate) fn conclude(
    certified: Option<Certified>,
    settings: &FastSettings,
    keep: impl FnOnce(ActiveSet, &[DMatrix<f64>], &[f64]),
    reference: impl FnOnce() -> Result<ScoreEval, ScoreError>,
) -> Result<(ScoreEval, EvalStats), ScoreError> {
    match certified {
        Some(c) => {
            if settings.warm_start {
                keep(c.set, &c.block_duals, &c.row_duals);
            }
            Ok((c.eval, c.stats))
        }
        None => Ok((
            reference()?,
            EvalStats {
                answer: Answer::Fallback,
                rounds: settings.repair.max_rounds,
                ..EvalStats::default()
            },
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use rand_distr::{Distribution, StandardNormal};

    /// A fold that keeps a tight cluster is infeasible along the cluster's direction: the
    /// unfolding frees the cluster in its first step (1/64 of the folded weights), where the
    /// order by margin (the cluster's records are the surest to keep) needs more than that
    /// step (non-vacuity: the smallest margins alone leave the fold infeasible).
    #[test]
    fn unfolding_frees_a_folded_cluster_along_the_violated_direction() {
        let (dim, n, cluster) = (6, 6400, 40);
        let mut rng = StdRng::seed_from_u64(3);
        let scale = (n as f64).sqrt();
        let points = DMatrix::from_fn(dim, n, |r, c| {
            if c < cluster {
                if r == 0 { 12.0 / scale } else { 0.0 }
            } else {
                let z: f64 = StandardNormal.sample(&mut rng);
                z / scale
            }
        });
        // `B = 1.5 I`: the clean scatter is about I, the cluster adds 40 * 144 / 6400 = 0.9 along
        // e_1, so the fold of every weight is infeasible there and feasible without the cluster.
        let full = Problem::packing(DMatrix::identity(dim, dim) * 1.5, Cow::Owned(points));
        let margins: Vec<f64> = (0..n)
            .map(|i| if i < cluster { 0.9 } else { 0.5 })
            .collect();
        let folded_set = || {
            let mut set = ActiveSet::with_status(&full, vec![Status::Upper; n]);
            set.set_margins(margins.clone());
            set
        };
        assert!(!fold_feasible(&folded_set().reduce(&full)));

        let mut set = folded_set();
        assert!(unfold_until_feasible(&full, &mut set, fold_feasible));
        assert!(fold_feasible(&set.reduce(&full)));
        let step = n.div_ceil(64);
        assert_eq!(set.count(Status::Free), step);
        assert!((0..cluster).all(|i| set.status()[i] == Status::Free));

        // The same step by margin (the smallest first) frees none of the cluster.
        let mut by_margin = folded_set();
        let mut status = vec![Status::Upper; n];
        for s in &mut status[cluster..cluster + step] {
            *s = Status::Free;
        }
        by_margin.update(&full, status);
        assert!(!fold_feasible(&by_margin.reduce(&full)));
    }

    /// A round whose early stop ended its solve while its certificate left the question open
    /// (here `accept` declines every stopped solve) is followed by a round without the early
    /// stop, which runs to its tolerance and is accepted. Stopping again would end every
    /// round at the same iterate until the repairs ran out (then the clarabel fallback:
    /// minutes at n = 25000, D = 55).
    #[test]
    fn a_stop_left_open_is_followed_by_a_solve_without_it() {
        let (dim, n) = (4, 400);
        let mut rng = StdRng::seed_from_u64(5);
        let scale = (n as f64).sqrt();
        let points = DMatrix::from_fn(dim, n, |_, _| {
            let z: f64 = StandardNormal.sample(&mut rng);
            z / scale
        });
        let full = Problem::packing(DMatrix::identity(dim, dim) * 0.8, Cow::Owned(points));
        let settings = FastSettings::default();
        let rounds = Rounds {
            full: &full,
            settings: &settings,
            tolerance: settings.round.clone(),
            reduced_ok: &fold_feasible,
            t0: &[],
            loose_scale: 0.0,
        };
        let (termination, _, _, stats) = rounds
            .run(
                ActiveSet::all_free(&full),
                |p, _| p.primal_residual < 1e-6 && p.dual_residual < 1e-6,
                |_, _, sol| (sol.termination != Termination::Stopped).then_some(sol.termination),
            )
            .expect("the round after the open stop is accepted");
        assert!(
            matches!(termination, Termination::Converged | Termination::Stalled),
            "{termination:?}"
        );
        assert_eq!((stats.rounds, stats.open_stop), (2, true));
    }
}
