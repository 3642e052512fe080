//! The fast SP backend (MATH.md 2.2, 3.2): the interior-point method of [`crate::ipm`] on the
//! two-LMI program written after whitening by `S = L L^T` (`w_i = L^{-1} x_i`, as in the
//! reference backend), with `tau = t / n`:
//!
//! ```text
//! minimise tau  s.t.  0 <= a_i <= u_i(S),   tau - 1 + sum_i a_i / n >= 0,
//!                     (1 + gamma) I - sum_i (a_i / n) w_i w_i^T ⪰ 0,
//!                     sum_i (a_i / n) w_i w_i^T + lambda tau I - (1 - gamma) I ⪰ 0.
//! ```
//!
//! Certified by [`Spectral::certify`] with the duals mapped back through `L`. The active set
//! carries over between evaluations as statuses only (the whitened points change with `S`,
//! so the fold is recomputed per evaluation). Falls back to the clarabel reference backend,
//! to the bracket width asked for, when the repair rounds fail.
use crate::ScoreError;
use crate::active_set::fold::{ActiveSet, Status};
use crate::active_set::warm::WarmPool;
use crate::active_set::{
    Answer, EvalStats, FastSettings, ScoreMap, cold_set, conclude, next_set, solve_certified,
};
use crate::dense::min_eigenvalue;
use crate::ipm::{LinearRow, LmiBlock, Problem};
use crate::reference::ReferenceProgram;
use crate::sp::Spectral;
use crate::sp::reference::ClarabelSp;
use nalgebra::DMatrix;
use sosdp_oracle::{Refinement, ScoreEval, ScoreOracle};
use std::borrow::Cow;

/// The SP score on the fast interior-point backend; `theta = svec(S)`.
#[derive(Debug)]
pub struct FastSp {
    reference: ClarabelSp,
    settings: FastSettings,
    warm: WarmPool<Vec<Status>>,
}

impl Clone for FastSp {
    fn clone(&self) -> Self {
        FastSp {
            reference: self.reference.clone(),
            settings: self.settings.clone(),
            warm: WarmPool::new(),
        }
    }
}

impl FastSp {
    /// The backend for `problem`, with the default [`FastSettings`].
    pub fn new(problem: Spectral) -> Self {
        FastSp {
            reference: ClarabelSp::new(problem),
            settings: FastSettings::default(),
            warm: WarmPool::new(),
        }
    }

    /// The same backend with `settings`.
    pub fn with_settings(mut self, settings: FastSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The score's problem data.
    pub fn problem(&self) -> &Spectral {
        self.reference.problem()
    }

    /// Forget the warm-start state.
    pub fn reset(&self) {
        self.warm.clear();
    }

    /// The SP score at `theta = svec(S)` with statistics, to bracket width `accuracy`; with
    /// `level`, stop as soon as the bracket decides (see `evaluate_detailed`).
    pub fn evaluate_to(
        &self,
        theta: &[f64],
        level: Option<f64>,
        accuracy: f64,
    ) -> Result<(ScoreEval, EvalStats), ScoreError> {
        let settings = self.settings.with_accuracy(accuracy);
        let sp = self.problem();
        let s = sp.candidate(theta)?;
        let Some(factor) = s.factor.as_ref() else {
            return Ok((
                ScoreEval::outside(sp.max_score()),
                EvalStats::answered(Answer::Outside, false),
            ));
        };
        let (n, d) = (sp.n() as f64, sp.d());
        let (g, lambda) = (sp.width(), sp.lambda());
        let points = &factor.whitened / n.sqrt();
        let eye = DMatrix::<f64>::identity(d, d);
        let full = Problem {
            upper: Cow::Borrowed(&factor.caps),
            cost_a: 0.0,
            cost_extra: vec![1.0],
            blocks: vec![
                LmiBlock {
                    constant: &eye * (1.0 + g),
                    sign: 1.0,
                    points: Cow::Borrowed(&points),
                    extra: vec![DMatrix::zeros(d, d)],
                },
                LmiBlock {
                    constant: &eye * -(1.0 - g),
                    sign: -1.0,
                    points: Cow::Borrowed(&points),
                    extra: vec![&eye * -lambda],
                },
            ],
            rows: vec![LinearRow {
                h: -1.0,
                a_coeff: -1.0 / n,
                extra: vec![-1.0],
            }],
        };
        let t0 = [1.0 + (1.0 - g) / lambda];
        let warm = if self.settings.warm_start {
            self.warm.take()
        } else {
            None
        };
        let reduced_ok = |reduced: &Problem| min_eigenvalue(&reduced.blocks[0].constant) > 0.0;
        let start = match warm {
            Some(status) if status.len() == sp.n() => ActiveSet::with_status(&full, status),
            _ => cold_set(&full, &settings, &reduced_ok, &t0, true),
        };
        let certified = solve_certified(
            &full,
            start,
            &settings,
            &ScoreMap {
                offset: 0.0,
                scale: n,
            },
            level,
            None,
            reduced_ok,
            &t0,
            // The IPM minimises tau = t / n: the certificate's duals (objective t) are n Z.
            |a, tau, duals| {
                let y1 = factor.unwhiten(&(&duals[0] * n));
                let y2 = factor.unwhiten(&(&duals[1] * n));
                sp.certify(&s, a, n * tau[0], &y1, &y2)
            },
        );
        conclude(
            certified,
            &settings,
            |set, blocks, rows| {
                self.warm.keep(
                    next_set(&full, set, blocks, rows, self.settings.margin)
                        .status()
                        .to_vec(),
                )
            },
            || self.reference.evaluate_to(theta, accuracy),
        )
    }
}

impl FastSp {
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
/// membership query stopping as soon as its bracket decides, the refinement of the settings.
impl ScoreOracle for FastSp {
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
}
