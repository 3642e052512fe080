//! Chords of CM level bodies solved directly (MATH.md 3.2: "one SDP maximising s"). The LMI
//! is affine in `(s, a)` jointly, so the far end of the chord of `{CM <= level}` through `x`
//! along `u` is one program of the interior-point method of [`crate::ipm`]:
//!
//! ```text
//! maximise s  s.t.  B(x) + s [[0, u], [u^T, 0]] - sum_i (a_i / n) zh_i zh_i^T ⪰ 0,
//!                   sum_i a_i / n >= 1 - level' / n,   s <= limit,   0 <= a_i <= 1,
//! ```
//!
//! with `s` a free variable with a matrix coefficient and two linear rows, solved on the same
//! active set as the score (and handing its statuses on to the next evaluation).
//!
//! Certificates (both exact, not approximate): the primal `(s, a)`, made feasible by
//! [`CertifiedMean::feasible_weights`], shows `CM(x + s u) <= n - sum a <= level` (the program
//! asks for `level' = level - accuracy / 2`, so that the repaired weights keep the sum); the
//! dual matrix gives a [`crate::cm::Cut`] whose [`crate::cm::Cut::ray_end`] is a step beyond
//! which `CM > level`. The end is accepted when the two are within `tol`; otherwise (the rounds
//! fail) it is found by bisection on membership decisions, so every answer is certified or
//! comes from membership queries. (The accepted end depends, within `tol`, on where the solver
//! stopped, hence on its warm state: chords are not exact decisions.)
use super::fast::FastCm;
use crate::ScoreError;
use crate::active_set::fold::ActiveSet;
use crate::active_set::{Answer, FastSettings, ScoreMap, solve_certified};
use crate::cm::CertifiedMean;
use crate::ipm::{LinearRow, LmiBlock, Problem};
use nalgebra::DMatrix;
use sosdp_oracle::{ScoreEval, end_by_bisection, on_line};
use std::borrow::Cow;
use std::cell::RefCell;

impl FastCm {
    /// The far end of the chord of `{CM <= level}` along the ray `x + s u`, `s` in
    /// `[0, limit]` (`x` assumed inside), within `tol`, and the number of solves spent.
    pub(super) fn chord_end(
        &self,
        x: &[f64],
        u: &[f64],
        level: f64,
        limit: f64,
        tol: f64,
    ) -> Result<(f64, usize), ScoreError> {
        if limit == 0.0 {
            return Ok((0.0, 0));
        }
        let cm = self.problem();
        let full = self.chord_problem(x, u, level - 0.5 * self.settings.accuracy, limit);
        let settings = FastSettings {
            accuracy: tol,
            ..self.settings.clone()
        };
        let (start, t0) = self.chord_start(&full, x, u, level, limit)?;
        // The bracket of the end: certified inside (primal) and certified outside (dual).
        let last_cut = RefCell::new(None);
        let certify = |a: &[f64], t: &[f64], duals: &[DMatrix<f64>]| {
            let s = t[0].clamp(0.0, limit);
            let theta = on_line(x, u, s);
            let inner = if certified_inside(cm, &theta, a, level) {
                s
            } else {
                0.0
            };
            let cut = cm.cut(&duals[0], &theta);
            let outer = cut
                .ray_end(x, u, level)
                .map_or(limit, |o| o.clamp(inner, limit));
            *last_cut.borrow_mut() = Some(cut);
            ScoreEval::bracketed(s, inner, outer)
        };
        // The objective is -s.
        let map = ScoreMap {
            offset: 0.0,
            scale: -1.0,
        };
        match solve_certified(
            &full,
            start,
            &settings,
            &map,
            None,
            None,
            |_| true,
            &[t0],
            certify,
        ) {
            Some(c) => {
                if let Some(cut) = last_cut.into_inner() {
                    self.keep_cut(cut);
                }
                self.keep_next_warm(&full, c.set, &c.block_duals, &c.row_duals);
                Ok((c.eval.lower, c.stats.rounds.max(1)))
            }
            None => {
                self.count_bisected_end();
                let (end, queries) = end_by_bisection(self, x, u, level, (0.0, limit), tol)?;
                Ok((end, queries + 1))
            }
        }
    }

    /// Active set and starting step of a chord end: the statuses of the kept cut that ends
    /// the ray first (the dual of a solve near where this end should be), classified with the
    /// warm margin, and `s` a bit inside that cut's end (an outer bound). Without cuts, the
    /// warm set; without either, the set of an evaluation at `x` (which also keeps a cut).
    fn chord_start(
        &self,
        full: &Problem,
        x: &[f64],
        u: &[f64],
        level: f64,
        limit: f64,
    ) -> Result<(ActiveSet, f64), ScoreError> {
        let cm = self.problem();
        let nearest = if self.settings.warm_start {
            self.memory.nearest_cut(x, u, level)
        } else {
            None
        };
        if let Some((end, y)) = nearest {
            let warm = self.take_warm().filter(|set| set.status().len() == cm.n());
            return Ok((
                self.set_from_dual(full, warm, &y, Some(level)),
                (0.9 * end).clamp(0.0, 0.9 * limit),
            ));
        }
        if let Some(set) = self.take_warm().filter(|set| set.status().len() == cm.n()) {
            return Ok((set, 0.0));
        }
        let (_, stats) = self.evaluate_detailed(x, None)?;
        let set = self
            .take_warm()
            .filter(|set| set.status().len() == cm.n() && stats.answer != Answer::Fallback);
        Ok((set.unwrap_or_else(|| ActiveSet::all_free(full)), 0.0))
    }

    /// The program of the module doc for `level' = target`.
    fn chord_problem(&self, x: &[f64], u: &[f64], target: f64, limit: f64) -> Problem<'_> {
        let cm = self.problem();
        let (n, dim) = (cm.n(), cm.dim());
        // The coefficient of s enters as `- s T`, so T = -[[0, u], [u^T, 0]].
        let mut t = DMatrix::zeros(dim + 1, dim + 1);
        for k in 0..dim {
            t[(k, dim)] = -u[k];
            t[(dim, k)] = -u[k];
        }
        let nf = n as f64;
        Problem {
            upper: Cow::Owned(vec![1.0; n]),
            cost_a: 0.0,
            cost_extra: vec![-1.0],
            blocks: vec![LmiBlock {
                constant: cm.b_matrix(x),
                sign: 1.0,
                points: Cow::Borrowed(&self.points),
                extra: vec![t],
            }],
            rows: vec![
                // target / n - 1 + sum a / n >= 0.
                LinearRow {
                    h: target / nf - 1.0,
                    a_coeff: -1.0 / nf,
                    extra: vec![0.0],
                },
                // limit - s >= 0.
                LinearRow {
                    h: limit,
                    a_coeff: 0.0,
                    extra: vec![1.0],
                },
            ],
        }
    }
}

/// True when the weights `a`, made feasible at `theta`, certify `CM(theta) <= level`.
fn certified_inside(cm: &CertifiedMean, theta: &[f64], a: &[f64], level: f64) -> bool {
    cm.in_domain(theta) && cm.upper_bound(theta, a) <= level
}
