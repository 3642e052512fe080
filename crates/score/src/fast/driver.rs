//! The certified solve shared by the fast CM and SP backends: interior-point method on the
//! active set's reduced problem, expansion to all weights, certification on the full problem,
//! and repair rounds that free every weight whose status the final dual contradicts.
use super::active_set::{
    ActiveSet, Origin, Status, classify, classify_keeping, contradicts, margins,
};
use super::ipm::{self, LmiBlock, Problem, Termination};
use crate::ScoreError;
use nalgebra::DMatrix;
use sosdp_oracle::{Refinement, ScoreEval, member_from_bracket};
use std::borrow::Cow;

/// Settings of the fast backends.
#[derive(Clone, Debug)]
pub struct FastSettings {
    /// Largest accepted bracket width `upper - lower`, in points (MATH.md 3.2's zeta).
    pub accuracy: f64,
    /// Margin (in units of the weight's cost) beyond which a weight is folded or dropped
    /// between evaluations (warm start).
    pub margin: f64,
    /// Margin used after the cold-start estimate from a subsample, which is noisier. Default
    /// 0.25: at D = 55 (n = 5000) the subsample's dual is noisy in its 1596 parameters and 0.5
    /// left ~2000 weights free (cold evaluations 2.5 s, against 0.57 s with 0.25); at D = 10 the
    /// two are alike (`sosdp bench score`).
    pub cold_margin: f64,
    /// Size of the subsample whose solution seeds the active set of a cold evaluation.
    pub subsample: usize,
    /// Repair rounds before falling back to the reference backend (the last frees every
    /// weight). Default 12: with 6, the lifted refinement of the Gaussian learner at d = 5,
    /// n = 100000 with 1% of the records in a tight cluster sent queries to clarabel (minutes
    /// each on 50000 lifted points; its third stage made no progress in 5 minutes), with 12 the
    /// same fit (three refinement stages) took 126 s with no fallback.
    pub max_rounds: usize,
    /// Reuse the active set of the previous evaluation.
    pub warm_start: bool,
    /// How membership queries whose bracket contains the level are refined (MATH.md 4.5b).
    pub refinement: Refinement,
}

impl Default for FastSettings {
    fn default() -> Self {
        FastSettings {
            accuracy: 1e-3,
            margin: 0.02,
            cold_margin: 0.25,
            subsample: 256,
            max_rounds: 12,
            warm_start: true,
            refinement: Refinement::default(),
        }
    }
}

/// What one evaluation did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EvalStats {
    /// Interior-point iterations, summed over rounds (and the cold-start subsample).
    pub iterations: usize,
    /// Reduced problems solved.
    pub rounds: usize,
    /// Free weights in the last reduced problem.
    pub free: usize,
    /// Folded weights in the last reduced problem.
    pub folded: usize,
    /// Stopped as soon as the bracket decided a membership query.
    pub decided_early: bool,
    /// The repair rounds failed and the reference backend answered.
    pub fallback: bool,
    /// A warm guess was given up for a cold start (see [`Origin::Guess`]).
    pub restarted_cold: bool,
}

/// How a problem maps onto the score: `score = offset + scale * objective` (objective of the
/// full problem).
pub struct ScoreMap {
    pub offset: f64,
    pub scale: f64,
}

impl ScoreMap {
    fn score(&self, objective: f64) -> f64 {
        self.offset + self.scale * objective
    }
}

/// A certified solution of the full problem.
pub struct Certified {
    pub eval: ScoreEval,
    pub set: ActiveSet,
    pub stats: EvalStats,
    /// Duals of the last reduced solve (valid duals of the full problem's blocks and rows).
    pub block_duals: Vec<DMatrix<f64>>,
    pub row_duals: Vec<f64>,
}

/// True when the bracket answers "is the score <= level?" ([`member_from_bracket`]).
pub fn decides(eval: &ScoreEval, level: Option<f64>) -> bool {
    level.is_some_and(|k| member_from_bracket(eval, k).is_some())
}

/// Solve `full` starting from `set`; `certify(a, t, block_duals)` brackets the score of
/// the full problem. `reduced_ok` rejects reduced problems that are infeasible by
/// construction (then weights are unfolded). `t0` is the starting value of the free
/// variables. Returns `None` when the rounds are exhausted.
#[allow(clippy::too_many_arguments)]
pub fn solve_certified(
    full: &Problem,
    set: ActiveSet,
    settings: &FastSettings,
    map: &ScoreMap,
    level: Option<f64>,
    reduced_ok: impl Fn(&Problem) -> bool,
    t0: &[f64],
    certify: impl Fn(&[f64], &[f64], &[DMatrix<f64>]) -> ScoreEval,
) -> Option<Certified> {
    let margin = 10.0 * settings.accuracy;
    let stop = |p: &ipm::Progress, fold_cost: f64| {
        level.is_some_and(|k| {
            let (lo, hi) = (
                map.score(p.dual_objective + fold_cost),
                map.score(p.primal_objective + fold_cost),
            );
            p.primal_residual < 1e-7
                && p.dual_residual < 1e-7
                && (lo > k + margin || hi < k - margin)
        })
    };
    let tolerance = ipm::Settings {
        gap_tol: 0.25 * settings.accuracy / map.scale.abs(),
        feas_tol: 1e-9,
        max_iter: 80,
    };
    let rounds = Rounds {
        full,
        settings,
        tolerance,
        reduced_ok: &reduced_ok,
        t0,
        loose_scale: map.scale.abs(),
    };
    let (eval, set, sol, mut stats) = rounds.run(set, stop, |_, a, sol| {
        let eval = certify(a, &sol.extra, &sol.block_duals);
        (decides(&eval, level) || eval.width() <= settings.accuracy).then_some(eval)
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
    tolerance: ipm::Settings,
    reduced_ok: &'p F,
    t0: &'p [f64],
    /// Points of score per objective unit (`|scale|` of the [`ScoreMap`]) when the first round
    /// of a cold start may be solved loosely ([`LOOSE_SHARE`]); 0: never (subsample levels).
    loose_scale: f64,
}

impl<F: Fn(&Problem) -> bool> Rounds<'_, '_, F> {
    /// The cold start's set ([`cold_set`], with the unfolded budget) for a warm guess given up.
    fn cold_start(&self) -> ActiveSet {
        cold_set(self.full, self.settings, self.reduced_ok, self.t0, true)
    }

    /// Each round solves the reduced problem of `set` and hands the expanded weights and the
    /// solution to `accept`; when it declines, the statuses the round's dual contradicts are
    /// freed, the most contradicted first and at most [`repair_budget`] of them (the first
    /// repair re-derives all other statuses from that dual), or, if none is contradicted, the
    /// next round solves more tightly (after a stalled solve: on the free set of its dual).
    /// The last round solves the full problem. `stop(progress, fold_cost)` may end an IPM
    /// solve early.
    ///
    /// A warm guess ([`Origin::Guess`]) gives way to a cold start when its fold is infeasible
    /// or its first dual contradicts more statuses than one repair frees: at d = 50,
    /// n = 50000 (a stage-3-like level body, queries along a new direction well outside it)
    /// the repairs of such guesses grew to 28000 free weights and 30 s per query, where a
    /// cold start takes about 1.5 s.
    fn run<R>(
        &self,
        mut set: ActiveSet,
        stop: impl Fn(&ipm::Progress, f64) -> bool,
        mut accept: impl FnMut(&ActiveSet, &[f64], &ipm::Solution) -> Option<R>,
    ) -> Option<(R, ActiveSet, ipm::Solution, EvalStats)> {
        let full = self.full;
        let n = full.upper.len();
        let mut stats = EvalStats::default();
        let mut tolerance = self.tolerance.clone();
        let mut late_left = LATE_REDERIVE;
        let mut estimate = set.estimate();
        let mut guess = set.origin() == Origin::Guess;
        // The first round of the current start (a warm guess may give way to a cold start).
        let mut first = 0;
        for round in 0..self.settings.max_rounds {
            if round + 1 == self.settings.max_rounds && set.count(Status::Free) < n {
                set.update(full, vec![Status::Free; n]);
            }
            // A warm guess whose fold is infeasible at this `theta` is far off (the query lies
            // well outside the body the guessed dual came from): a cold start instead.
            if round == first && guess && !(self.reduced_ok)(&set.reduce(full)) {
                set = self.cold_start();
                (estimate, guess, stats.restarted_cold) = (set.estimate(), false, true);
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
                Some(removed) => ipm::Settings {
                    gap_tol: tolerance
                        .gap_tol
                        .max(LOOSE_SHARE * removed / self.loose_scale),
                    feas_tol: 1e-7,
                    max_iter: tolerance.max_iter,
                },
                None => tolerance.clone(),
            };
            let sol = ipm::solve(&reduced, &a0, self.t0, &round_tolerance, |p| {
                stop(p, fold_cost)
            });
            stats.iterations += sol.iterations;
            stats.rounds += 1;
            stats.free = reduced.upper.len();
            stats.folded = set.count(Status::Upper);
            let a = set.expand(full, &sol.a);
            if let Some(result) = accept(&set, &a, &sol) {
                return Some((result, set, sol, stats));
            }
            let m = margins(full, &sol.block_duals, &sol.row_duals);
            let mut contradicted: Vec<usize> = (0..n)
                .filter(|&i| contradicts(set.status()[i], m[i]))
                .collect();
            let fresh = {
                // Where the margins are degenerate (the score a small fraction of n, see
                // `cold_set`), an accurate first dual still orders the weights: beyond
                // `DEGENERATE` times the budget unfolded, the budget holds (at D = 50 the plain
                // classification left 28000 of 50000 weights free, a 2-minute round).
                let plain = classify(&m, self.settings.margin);
                if round == first && loose.is_none() {
                    let keep = unfolded_budget(full.upper.iter().zip(&a).map(|(u, a)| u - a).sum());
                    let unfolded = plain.iter().filter(|s| **s != Status::Upper).count();
                    if unfolded > DEGENERATE * keep {
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
            if round == first && guess && contradicted.len() > repair_budget(stats.free) {
                // A warm guess so far off that one repair cannot fix it.
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
                // inexactness (freeing 2 free of them made rounds of thousands of weights at
                // n = 20000, then the full problem).
                let budget = if loose.is_some() {
                    MIN_REPAIR
                } else {
                    repair_budget(stats.free)
                };
                if contradicted.len() > budget {
                    contradicted.sort_unstable_by(|&i, &j| m[j].abs().total_cmp(&m[i].abs()));
                    contradicted.truncate(budget);
                }
                // The first repair re-derives the other statuses from this dual; later repairs
                // only free weights, so that the free set grows and the rounds cannot cycle,
                // except (at most `LATE_REDERIVE` times) when an accurate dual would at least
                // halve the free set (after a far-off fold, weights freed early are decided
                // again).
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
            } else if loose.is_some() && sol.termination == Termination::Converged {
                // The loose round's dual contradicts no status: its own classification, solved
                // accurately next.
                set.update(full, fresh);
                set.set_margins(m);
            } else if matches!(
                sol.termination,
                Termination::Converged | Termination::Stopped
            ) {
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

/// Rounds after the first whose dual may re-derive all statuses (see [`Rounds::run`]).
const LATE_REDERIVE: usize = 2;

/// The first round of a cold start is solved to a duality gap of this share of the estimated
/// score (the subsample's removed weight, in points): its dual only classifies the weights for
/// the next round, whose repair frees at most [`MIN_REPAIR`] of the weights it contradicts.
/// Measured on `sosdp bench score` (D = 10): iterations per cold evaluation at n = 2000
/// 38.5 -> 33.5-36; shares 0.15 and 0.3 saved nothing; without the smaller repair budget,
/// 2 of 20 evaluations at n = 20000 ended on the full problem.
const LOOSE_SHARE: f64 = 0.05;

/// Largest number of contradicted weights one repair round frees: twice the free weights of
/// the round, at least [`MIN_REPAIR`]. (A floor at the rank `m` of the Newton system's
/// low-rank part, on the grounds that below it an iteration costs about the same, was wrong
/// for the dense solve used below `m`, whose cost grows as `N^3`: at D = 55, m = 1596, repairs
/// of 1600 weights made cold evaluations take 5 s.)
fn repair_budget(free: usize) -> usize {
    (2 * free).max(MIN_REPAIR)
}
/// Floor of [`repair_budget`].
const MIN_REPAIR: usize = 256;

/// If the fold alone makes the reduced problem infeasible (`reduced_ok` fails), free the
/// folded weights with the smallest margins, a share that doubles (from 1/64 of the folded
/// weights) until it passes. False when nothing is left to free.
fn unfold_until_feasible(
    full: &Problem,
    set: &mut ActiveSet,
    reduced_ok: impl Fn(&Problem) -> bool,
) -> bool {
    let mut share = 64;
    // The folded weights by margin, smallest first (sorted once: the freed ones are a prefix).
    let mut folded: Vec<usize> = Vec::new();
    let mut freed = 0;
    while !reduced_ok(&set.reduce(full)) {
        if freed == 0 {
            folded = (0..full.upper.len())
                .filter(|&i| set.status()[i] == Status::Upper)
                .collect();
            folded.sort_unstable_by(|&i, &j| set.margins()[i].total_cmp(&set.margins()[j]));
        }
        if freed == folded.len() {
            return false;
        }
        let next = (freed + (folded.len() - freed).div_ceil(share)).min(folded.len());
        let mut status = set.status().to_vec();
        for &i in &folded[freed..next] {
            status[i] = Status::Free;
        }
        freed = next;
        set.update(full, status);
        share = (share / 2).max(1);
    }
    true
}

/// The active set for the next evaluation: statuses from the final duals with a margin.
pub fn next_set(
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

/// Active set for a cold evaluation, from a cascade of subsamples: the same program on an
/// evenly spaced subsample of `max(settings.subsample, n / CASCADE)` weights, rescaled so that
/// it estimates the same dual (costs and row coefficients per weight times `n / n_s`, points
/// times `sqrt(n / n_s)`), is solved (its own cold set coming from the next smaller subsample)
/// until its dual contradicts none of its statuses; every weight of `full` is then classified
/// by its margin under that dual with `settings.cold_margin`. With `budget`, at most
/// [`cold_budget`] of them (for the weight the subsample's optimum removes) stay
/// unfolded, and the set is marked as an estimate ([`Origin::Estimate`]) so that its
/// first round is solved loosely ([`LOOSE_SHARE`]). The smallest level is solved with every
/// weight free (a level is solved directly when the next one would have more than half its
/// weights).
///
/// The anchor goes without the budget and the loose round: its certified ball needs the
/// interior solution that a larger free set gives (with either, the fast anchor's radius came
/// out 0 in `fast_anchor_agrees_with_clarabel`).
///
/// One subsample alone is too noisy when the score is a small fraction of `n` (at
/// `n = 20000` a 256-point subsample sees about five removed points): the classification it
/// gives folds weights that the optimum removes, and the fold is infeasible.
pub fn cold_set(
    full: &Problem,
    settings: &FastSettings,
    reduced_ok: &impl Fn(&Problem) -> bool,
    t0: &[f64],
    budget: bool,
) -> ActiveSet {
    let n = full.upper.len();
    let ns = settings.subsample.max(n / CASCADE);
    if 2 * ns > n || settings.subsample == 0 {
        return ActiveSet::all_free(full);
    }
    let sub = subsample(full, ns);
    let start = cold_set(&sub, settings, reduced_ok, t0, budget);
    let tolerance = ipm::Settings {
        gap_tol: 1e-3,
        feas_tol: 1e-6,
        max_iter: 60,
    };
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
        settings.cold_margin,
        if budget {
            cold_budget(full, removed)
        } else {
            0
        },
    );
    let mut free: Vec<usize> = (0..n).filter(|&i| status[i] == Status::Free).collect();
    let cap = cold_cap(full);
    if free.len() > cap {
        // At large D the subsample's dual leaves a third of the weights within the cold
        // margin (16000 of 50000 at D = 50, m = 1326: ~1 s per iteration, and the method
        // stalls); only the `cap` least decided stay free, the repair rounds free the others
        // that the dual of the reduced problem contradicts.
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
/// `2 removed + UNFOLDED_SLACK`. Measured on `sosdp bench score` (D = 10): cold evaluations
/// 19 -> 12.6 ms at n = 2000, 70 -> 31 ms at n = 20000; tighter budgets (1.2-1.5 removed +
/// 33-132) were slower (more repair rounds).
pub fn unfolded_budget(removed: f64) -> usize {
    (2.0 * removed.max(0.0)).ceil() as usize + UNFOLDED_SLACK
}

/// The unfolded budget of a cold set: [`unfolded_budget`], or `removed + UNFOLDED_SLACK` when
/// the rank `m` of the Newton system's low-rank part is at least [`TIGHT_RANK`]. Above `m`
/// free weights an iteration costs `m^2` per free weight (Woodbury), so at large `m` the
/// loose first round's extra `removed` weights cost more than the repairs they spare. In the
/// third stage of the d = 50 fit (D = 51, m = 1326, score about 1050) the loose rounds of cold
/// queries had 2700-3000 free weights, 0.8-1.1 s of the 1.2-1.5 s of such a query; with the
/// tighter budget 10 slice iterations of that stage took 31 s instead of 45 s (the same
/// chain), and cold evaluations at n = 5000, D = 55 475-586 ms instead of 571-749 ms (runs
/// interleaved). At D = 10 (m = 66) the tighter budget was slower (n = 20000: 40 iterations
/// per cold evaluation instead of 30.5).
fn cold_budget(full: &Problem, removed: f64) -> usize {
    if low_rank(full) >= TIGHT_RANK {
        removed.max(0.0).ceil() as usize + UNFOLDED_SLACK
    } else {
        unfolded_budget(removed)
    }
}

/// See [`cold_budget`]: `m` at D = 45.
const TIGHT_RANK: usize = 1024;

/// The constant part of [`unfolded_budget`]. It was `4 m` (`m` the rank of the Newton
/// system's low-rank part; 264 at D = 10); at D = 50 that is 5304, and degenerate problems (the
/// first stage of a fit) kept ~5400 weights free: 30-137 s per warm evaluation at n = 50000,
/// against 0.2 s now (`oracle_time 50000 50 4 101 0.3`).
const UNFOLDED_SLACK: usize = 256;

/// See the re-derivation in [`Rounds::run`].
const DEGENERATE: usize = 4;

/// Most weights a cold set leaves free: `n / 16`, at least four times the rank `m` of the
/// Newton system's low-rank part and [`MIN_COLD_FREE`].
fn cold_cap(full: &Problem) -> usize {
    (full.upper.len() / 16)
        .max(4 * low_rank(full))
        .max(MIN_COLD_FREE)
}
/// Floor of [`cold_cap`].
const MIN_COLD_FREE: usize = 4096;

/// The rank `m = sum_b p_b (p_b + 1) / 2` of the low-rank part of the Newton system's weight
/// block (blocks with weights).
fn low_rank(full: &Problem) -> usize {
    full.blocks
        .iter()
        .filter(|b| b.has_weights())
        .map(|b| b.constant.nrows() * (b.constant.nrows() + 1) / 2)
        .sum()
}
/// Ratio of consecutive subsample sizes in the cold start's cascade.
const CASCADE: usize = 8;

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
/// reference backend's answer when the rounds failed.
pub fn conclude(
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
                rounds: settings.max_rounds,
                fallback: true,
                ..EvalStats::default()
            },
        )),
    }
}
