//! The certified solve shared by the fast CM and SP backends: interior-point method on the
//! active set's reduced problem, expansion to all weights, certification on the full problem,
//! and repair rounds that free every weight whose status the final dual contradicts.
use super::active_set::{classify, contradicts, margins, ActiveSet, Status};
use super::ipm::{self, LmiBlock, Problem, Termination};
use std::borrow::Cow;
use crate::oracle::ScoreEval;
use crate::ScoreError;
use nalgebra::DMatrix;

/// Settings of the fast backends.
#[derive(Clone, Debug)]
pub struct FastSettings {
    /// Largest accepted bracket width `upper - lower`, in points (MATH.md 3.2's zeta).
    pub accuracy: f64,
    /// Margin (in units of the weight's cost) beyond which a weight is folded or dropped
    /// between evaluations (warm start).
    pub margin: f64,
    /// Margin used after the cold-start estimate from a subsample, which is noisier.
    pub cold_margin: f64,
    /// Size of the subsample whose solution seeds the active set of a cold evaluation.
    pub subsample: usize,
    /// Repair rounds before falling back to the reference backend.
    pub max_rounds: usize,
    /// Reuse the active set of the previous evaluation.
    pub warm_start: bool,
}

impl Default for FastSettings {
    fn default() -> Self {
        FastSettings { accuracy: 1e-3, margin: 0.25, cold_margin: 0.5, subsample: 256, max_rounds: 6, warm_start: true }
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

/// True when the bracket answers "is the score <= level?".
pub fn decides(eval: &ScoreEval, level: Option<f64>) -> bool {
    level.is_some_and(|k| eval.upper <= k || eval.lower > k)
}

/// Solve `full` starting from `set`; `certify(a, t, block_duals)` brackets the score of
/// the full problem. `reduced_ok` rejects reduced problems that are infeasible by
/// construction (then the fold is undone). `t0` is the starting value of the free variables. Returns `None` when the rounds are exhausted.
#[allow(clippy::too_many_arguments)]
pub fn solve_certified(
    full: &Problem,
    mut set: ActiveSet,
    settings: &FastSettings,
    map: &ScoreMap,
    level: Option<f64>,
    reduced_ok: impl Fn(&Problem) -> bool,
    t0: &[f64],
    certify: impl Fn(&[f64], &[f64], &[DMatrix<f64>]) -> ScoreEval,
) -> Option<Certified> {
    let mut stats = EvalStats::default();
    let mut gap_tol = 0.25 * settings.accuracy / map.scale;
    for round in 0..settings.max_rounds {
        if round + 1 == settings.max_rounds && set.count(Status::Free) < full.upper.len() {
            // Last round: the full problem.
            set.update(full, vec![Status::Free; full.upper.len()]);
        }
        let reduced = set.reduce(full);
        if !reduced_ok(&reduced) {
            // The fold alone violates an LMI: free the folded half with the smallest margins.
            let mut folded: Vec<usize> = (0..full.upper.len()).filter(|&i| set.status()[i] == Status::Upper).collect();
            if folded.is_empty() {
                return None;
            }
            folded.sort_by(|&i, &j| set.margins()[i].total_cmp(&set.margins()[j]));
            let mut status = set.status().to_vec();
            for &i in &folded[..folded.len().div_ceil(2)] {
                status[i] = Status::Free;
            }
            set.update(full, status);
            continue;
        }
        let fold_cost = full.cost_a * set.folded_mass();
        let a0: Vec<f64> = reduced.upper.iter().map(|u| 0.5 * u).collect();
        let ipm_settings = ipm::Settings { gap_tol, feas_tol: 1e-9, max_iter: 80 };
        let margin = 10.0 * settings.accuracy;
        let sol = ipm::solve(&reduced, &a0, t0, &ipm_settings, |p| {
            level.is_some_and(|k| {
                let (lo, hi) = (map.score(p.dual_objective + fold_cost), map.score(p.primal_objective + fold_cost));
                p.primal_residual < 1e-7 && p.dual_residual < 1e-7 && (lo > k + margin || hi < k - margin)
            })
        });
        stats.iterations += sol.iterations;
        stats.rounds += 1;
        stats.free = reduced.upper.len();
        stats.folded = set.count(Status::Upper);
        let a = set.expand(full, &sol.a);
        let eval = certify(&a, &sol.extra, &sol.block_duals);
        if decides(&eval, level) || eval.width() <= settings.accuracy {
            stats.decided_early = eval.width() > settings.accuracy;
            return Some(Certified { eval, set, stats, block_duals: sol.block_duals, row_duals: sol.row_duals });
        }
        // The dual of this round is at the right theta: re-derive every status from it, and
        // free every weight whose status it contradicts. If none is contradicted, the
        // reduced problem was right and only its accuracy was short: solve more tightly.
        let m = margins(full, &sol.block_duals, &sol.row_duals);
        let contradicted = set.status().iter().zip(&m).any(|(s, &mi)| contradicts(*s, mi));
        if contradicted {
            // First repair: re-derive all statuses; later ones only free the contradicted
            // weights, so that the free set grows and the rounds cannot cycle.
            let fresh = if round == 0 { classify(&m, settings.margin) } else { set.status().to_vec() };
            let status = fresh
                .into_iter()
                .zip(set.status())
                .zip(&m)
                .map(|((fresh, old), &mi)| if contradicts(*old, mi) { Status::Free } else { fresh })
                .collect();
            set.update(full, status);
            set.set_margins(m);
        } else if matches!(sol.termination, Termination::Converged | Termination::Stopped) {
            gap_tol *= 0.01;
        } else {
            let all_free = vec![Status::Free; full.upper.len()];
            set.update(full, all_free);
        }
    }
    None
}

/// The active set for the next evaluation: statuses from the final duals with a margin.
pub fn next_set(full: &Problem, mut set: ActiveSet, block_duals: &[DMatrix<f64>], row_duals: &[f64], margin: f64) -> ActiveSet {
    let m = margins(full, block_duals, row_duals);
    set.update(full, classify(&m, margin));
    set.set_margins(m);
    set
}

/// Active set for a cold evaluation: solve the program on a fixed, evenly spaced subsample
/// of `settings.subsample` weights, rescaled so that it estimates the same dual (costs and
/// row coefficients per weight times `n / n_s`, points times `sqrt(n / n_s)`), and classify
/// every weight by its margin under that dual with `settings.cold_margin`.
pub fn cold_set(full: &Problem, settings: &FastSettings, t0: &[f64]) -> ActiveSet {
    let n = full.upper.len();
    let ns = settings.subsample.min(n);
    if ns == n || ns == 0 {
        return ActiveSet::all_free(full);
    }
    let idx: Vec<usize> = (0..ns).map(|k| k * n / ns).collect();
    let ratio = n as f64 / ns as f64;
    let sub = Problem {
        upper: Cow::Owned(idx.iter().map(|&i| full.upper[i]).collect()),
        cost_a: full.cost_a * ratio,
        cost_extra: full.cost_extra.clone(),
        blocks: full
            .blocks
            .iter()
            .map(|b| LmiBlock {
                constant: b.constant.clone(),
                sign: b.sign,
                points: Cow::Owned(b.points.select_columns(&idx) * ratio.sqrt()),
                extra: b.extra.clone(),
            })
            .collect(),
        rows: full.rows.iter().map(|r| ipm::LinearRow { a_coeff: r.a_coeff * ratio, ..r.clone() }).collect(),
    };
    let a0: Vec<f64> = sub.upper.iter().map(|u| 0.5 * u).collect();
    let sol = ipm::solve(&sub, &a0, t0, &ipm::Settings { gap_tol: 1e-3, feas_tol: 1e-6, max_iter: 60 }, |_| false);
    if sol.termination == Termination::NumericalError {
        return ActiveSet::all_free(full);
    }
    let m = margins(full, &sol.block_duals, &sol.row_duals);
    let mut set = ActiveSet::with_status(full, classify(&m, settings.cold_margin));
    set.set_margins(m);
    set
}

/// The answer of an evaluation: the certified solution, whose next active set (with
/// `settings.margin`) is handed to `keep` for the warm start, or the reference backend's
/// answer when the rounds failed.
pub fn conclude(
    full: &Problem,
    certified: Option<Certified>,
    settings: &FastSettings,
    keep: impl FnOnce(ActiveSet),
    reference: impl FnOnce() -> Result<ScoreEval, ScoreError>,
) -> Result<(ScoreEval, EvalStats), ScoreError> {
    match certified {
        Some(c) => {
            if settings.warm_start {
                keep(next_set(full, c.set, &c.block_duals, &c.row_duals, settings.margin));
            }
            Ok((c.eval, c.stats))
        }
        None => Ok((reference()?, EvalStats { rounds: settings.max_rounds, fallback: true, ..EvalStats::default() })),
    }
}
