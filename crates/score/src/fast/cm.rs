//! The fast CM backend (MATH.md 3.2): the interior-point method of [`super::ipm`] on
//! `max sum a s.t. B(theta) - sum_i (a_i / n) zh_i zh_i^T ⪰ 0, 0 <= a <= 1`, restricted to the
//! undecided weights by the active set of [`super::active_set`], certified by
//! [`CertifiedMean::certify`] exactly like the reference backend.
//!
//! Cold start: the same program on a fixed, evenly spaced subsample estimates the dual `Y`;
//! its margins `zh_i^T Y zh_i - 1` seed the active set ([`super::driver::cold_set`]). Warm start: the active set (and its folded matrix) of the previous evaluation. If the
//! repair rounds fail, the evaluation falls back to the clarabel reference backend, which
//! computes the same certified quantity.
use super::active_set::ActiveSet;
use super::driver::{cold_set, conclude, solve_certified, EvalStats, FastSettings, ScoreMap};
use super::ipm::{LmiBlock, Problem};
use crate::clarabel_backend::ClarabelCm;
use crate::cm::CertifiedMean;
use crate::linalg::min_eigenvalue;
use crate::oracle::{ScoreEval, ScoreOracle};
use crate::ScoreError;
use nalgebra::DMatrix;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The CM score on the fast interior-point backend.
#[derive(Debug)]
pub struct FastCm {
    reference: ClarabelCm,
    /// `w_i = zh_i / sqrt(n)` as columns.
    points: DMatrix<f64>,
    settings: FastSettings,
    warm: Mutex<Option<ActiveSet>>,
    /// Evaluations answered by the reference backend.
    fallbacks: AtomicUsize,
}

impl Clone for FastCm {
    fn clone(&self) -> Self {
        FastCm {
            reference: self.reference.clone(),
            points: self.points.clone(),
            settings: self.settings.clone(),
            warm: Mutex::new(None),
            fallbacks: AtomicUsize::new(0),
        }
    }
}

impl FastCm {
    /// The backend for `problem`. Sets OpenBLAS to one thread: its kernels here are small
    /// and its spinning threads cost more than they save (parallelism belongs to rayon,
    /// across evaluations).
    pub fn new(problem: CertifiedMean) -> Self {
        sosdp_openblas::set_num_threads(1);
        let points = problem.lifted_points() / (problem.n() as f64).sqrt();
        FastCm { reference: ClarabelCm::new(problem), points, settings: FastSettings::default(), warm: Mutex::new(None), fallbacks: AtomicUsize::new(0) }
    }

    pub fn with_settings(mut self, settings: FastSettings) -> Self {
        self.settings = settings;
        self
    }

    pub fn problem(&self) -> &CertifiedMean {
        self.reference.problem()
    }

    pub fn settings(&self) -> &FastSettings {
        &self.settings
    }

    /// Number of evaluations (of this instance, not its clones) answered by the reference
    /// backend because the fast path failed.
    pub fn fallbacks(&self) -> usize {
        self.fallbacks.load(Ordering::Relaxed)
    }

    /// Forget the warm-start state (the next evaluation is cold).
    pub fn reset(&self) {
        *self.warm.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn full_problem(&self, b: DMatrix<f64>) -> Problem<'_> {
        let n = self.problem().n();
        Problem {
            upper: Cow::Owned(vec![1.0; n]),
            cost_a: -1.0 / n as f64,
            cost_extra: vec![],
            blocks: vec![LmiBlock { constant: b, sign: 1.0, points: Cow::Borrowed(&self.points), extra: vec![] }],
            rows: vec![],
        }
    }

    /// Evaluate with statistics; with `level`, stop as soon as the bracket decides
    /// "score <= level" (the bracket may then be wider than the accuracy).
    pub fn evaluate_detailed(&self, theta: &[f64], level: Option<f64>) -> Result<(ScoreEval, EvalStats), ScoreError> {
        let cm = self.problem();
        cm.check_theta(theta)?;
        if !cm.in_domain(theta) {
            return Ok((ScoreEval::outside(cm.n() as f64), EvalStats::default()));
        }
        if let Some(eval) = cm.screen(theta, self.settings.accuracy, level) {
            return Ok((eval, EvalStats { decided_early: level.is_some(), ..EvalStats::default() }));
        }
        let n = cm.n() as f64;
        let full = self.full_problem(cm.b_matrix(theta));
        let warm = if self.settings.warm_start {
            self.warm.lock().unwrap_or_else(|e| e.into_inner()).take()
        } else {
            None
        };
        let reduced_ok = |reduced: &Problem| min_eigenvalue(&reduced.blocks[0].constant) > 0.0;
        let start = match warm {
            Some(set) if set.status().len() == full.upper.len() => set,
            _ => cold_set(&full, &self.settings, &reduced_ok, &[]),
        };
        let certified = solve_certified(
            &full,
            start,
            &self.settings,
            &ScoreMap { offset: n, scale: n },
            level,
            reduced_ok,
            &[],
            // The IPM's dual has weight cost 1/n: the certificate's Y (weight cost 1) is n Z.
            |a, _, duals| cm.certify(theta, a, &(&duals[0] * n)),
        );
        let answer = conclude(
            &full,
            certified,
            &self.settings,
            |set| *self.warm.lock().unwrap_or_else(|e| e.into_inner()) = Some(set),
            || self.reference.evaluate(theta),
        )?;
        if answer.1.fallback {
            self.fallbacks.fetch_add(1, Ordering::Relaxed);
        }
        Ok(answer)
    }
}

impl ScoreOracle for FastCm {
    fn dim(&self) -> usize {
        self.problem().dim()
    }

    fn max_score(&self) -> f64 {
        self.problem().n() as f64
    }

    fn backend(&self) -> &'static str {
        "fast"
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        Ok(self.evaluate_detailed(theta, None)?.0)
    }

    fn member(&self, theta: &[f64], level: f64) -> Result<bool, ScoreError> {
        let (eval, _) = self.evaluate_detailed(theta, Some(level))?;
        Ok(crate::membership::member_from_bracket(&eval, level))
    }
}
