//! The Metropolis-adjusted Langevin path (MATH.md 4.8): Metropolis–Hastings with a Langevin
//! proposal on the *same* rounded target as the other paths ([`crate::target`]),
//!
//! ```text
//! pi(theta) ∝ exp(-eps' l_{i(theta)}) 1[theta in Theta].
//! ```
//!
//! **The drift.** The rounded target has no gradient (it is piecewise constant), and a
//! certified subgradient of the score would cost a solve per step. The drift comes from a
//! *frozen Gaussian surrogate* `N(m, C)` of the target instead: with potential
//! `U(theta) = (theta - m)^T C^{-1} (theta - m) / 2` and preconditioner `M = C`,
//! `M grad U(theta) = theta - m`, so the proposal is
//!
//! ```text
//! y = theta - h (theta - m) + sqrt(2h) L xi,   xi ~ N(0, I),   C = L L^T,
//! q(y | theta) ∝ exp(-|L^{-1}(y - theta + h (theta - m))|^2 / (4h)).
//! ```
//!
//! A proposal outside `Theta` is rejected; otherwise the level index `i(y)` is found exactly
//! ([`Target::index_by_evaluation`]: one evaluation, brackets refined while they contain a
//! level, MATH.md 4.5b) and `y` is accepted with probability
//! `min(1, exp(-eps' (l_{i(y)} - l_{i(theta)})) q(theta | y) / q(y | theta))`. The state keeps
//! `i(theta)` from the decision that accepted it (a function of `theta` alone). Since `m`, `C`
//! and `h` are frozen, every quantity of the test is a function of `(theta, y)` alone and the
//! step is an exact Metropolis–Hastings kernel for the rounded target, whatever the surrogate:
//! a poor surrogate costs acceptance, never correctness.
//!
//! **The chain** (all randomness from the caller's generator):
//! 1. *burn-in*: `burn_in` slice iterations ([`crate::slice`]: a level drawn above the point's
//!    index, one hit-and-run step in that level body) from the start;
//! 2. *surrogate*: `m` and `C` from the second half of the burn-in points (the first half is
//!    the transient from the anchor), with shrinkage towards a multiple of the identity
//!    ([`Surrogate::fit`]): `C = (1 - lambda) S + lambda (tr S / d) I`, so that `C` is
//!    positive definite and its condition number is at most `1 + d (1 - lambda) / lambda`
//!    whatever the number of points and the dimension;
//! 3. *adaptation*: `adapt_steps` MALA steps (with a slice iteration after every
//!    `slice_every`) in two halves, each tuning `log h` by Robbins–Monro towards the
//!    acceptance probability `target_acceptance`; after the first half the surrogate is
//!    refitted from the burn-in's second half and the first half's states (MALA states mix
//!    faster than slice iterations, so they sharpen the surrogate at a fraction of the
//!    cost); the frozen `h` is the geometric mean of the step sizes of the last quarter.
//!    These steps are burn-in too: the adaptation uses burn-in only;
//! 4. *the chain*: `steps` MALA steps with `m`, `C`, `h` frozen, one slice iteration after
//!    every `slice_every` of them. A composition of kernels that each leave the target
//!    invariant leaves it invariant; the slice iterations move across kinks and along the
//!    boundary of `Theta`, where Langevin proposals are often rejected, so neither can trap
//!    the chain. The release is the chain's last point.
//!
//! After step 3 the chain is a fixed (time-homogeneous) kernel. The surrogate and `h` depend
//! on the burn-in, i.e. on the data, like the start of any chain; they change how fast the
//! chain mixes, not what it converges to. Chain lengths are public functions of the
//! dimension ([`MalaSettings::for_dim`], measured in docs/sampler.md).
use crate::body::Domain;
use crate::error::SamplerError;
use crate::levels::{Levels, draw_level_above};
use crate::progress::{Progress, report};
use crate::target::Target;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};
use serde::Serialize;
use sosdp_oracle::ScoreOracle;
use std::ops::ControlFlow;

/// Chain lengths and tuning of the MALA path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MalaSettings {
    /// Slice iterations (level draw + one hit-and-run step) from the start; the second half
    /// of their points fits the surrogate. Default `20 d + 100` ([`MalaSettings::for_dim`]).
    pub burn_in: usize,
    /// MALA steps that tune the step size (burn-in too: discarded). Default `5 d + 100`.
    pub adapt_steps: usize,
    /// MALA steps of the frozen chain whose last point is released. Default `20 d + 100`.
    pub steps: usize,
    /// One slice iteration after every `slice_every` MALA steps (adaptation and chain).
    /// Default 10.
    pub slice_every: usize,
    /// The acceptance probability the adaptation aims at, in `(0, 1)`. Default 0.55.
    pub target_acceptance: f64,
    /// The weight `lambda` in `(0, 1]` of the identity part of the surrogate's covariance
    /// ([`Surrogate::fit`]). Default 0.8.
    pub shrinkage: f64,
}

impl MalaSettings {
    /// The defaults for a parameter of dimension `dim` (docs/sampler.md, "MALA (MATH.md
    /// 4.8)": measured on a rounded quadratic score at d = 10 and 50 with n = 50000, eps = 1).
    pub fn for_dim(dim: usize) -> Self {
        let d = dim.max(1);
        MalaSettings {
            burn_in: 20 * d + 100,
            adapt_steps: 5 * d + 100,
            steps: 20 * d + 100,
            slice_every: 10,
            target_acceptance: 0.55,
            shrinkage: 0.8,
        }
    }

    /// Check the settings.
    pub fn validate(&self) -> Result<(), SamplerError> {
        let bad = |what: &str| Err(SamplerError::InvalidSetting(what.into()));
        if self.burn_in < 2 {
            return bad("the MALA path needs >= 2 burn-in iterations");
        }
        if self.steps == 0 || self.slice_every == 0 {
            return bad("the MALA path needs >= 1 step and slice_every >= 1");
        }
        if !(self.target_acceptance > 0.0 && self.target_acceptance < 1.0) {
            return bad("the MALA target acceptance must lie in (0, 1)");
        }
        if !(self.shrinkage > 0.0 && self.shrinkage <= 1.0) {
            return bad("the MALA shrinkage must lie in (0, 1]");
        }
        Ok(())
    }
}

/// What the MALA path did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MalaRecord {
    /// Burn-in slice iterations run.
    pub burn_in: usize,
    /// Adaptation steps run.
    pub adapt_steps: usize,
    /// Mean acceptance probability over the adaptation.
    pub adapt_acceptance: f64,
    /// MALA steps of the frozen chain.
    pub steps: usize,
    /// Of those, accepted proposals.
    pub accepted: usize,
    /// Of those, proposals outside `Theta` (rejected without a query).
    pub outside: usize,
    /// `accepted / steps`.
    pub acceptance_rate: f64,
    /// The frozen step size `h`.
    pub step_size: f64,
    /// `tr C / d`, the mean variance of the frozen surrogate.
    pub surrogate_variance: f64,
    /// Slice iterations interleaved after the burn-in (adaptation and chain).
    pub slice_iterations: usize,
    /// Level indices of proposals computed by MALA steps (adaptation and chain), one oracle
    /// evaluation each plus membership decisions when its bracket straddles a level; the
    /// release record's `oracle_calls` has every call of the release.
    pub evaluations: usize,
    /// The level index of the released point.
    pub final_index: i64,
}

/// A point with its exact level index (MATH.md 4.5b).
#[derive(Clone, Debug, PartialEq)]
pub struct MalaState {
    /// The point, in `Theta`.
    pub theta: Vec<f64>,
    /// `i(theta)`, decided exactly.
    pub index: i64,
}

/// How one MALA step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepOutcome {
    /// The proposal was accepted.
    Accepted,
    /// The proposal was in `Theta` and rejected by the Metropolis–Hastings test.
    Rejected,
    /// The proposal was outside `Theta` (rejected without a query).
    Outside,
}

/// The frozen Gaussian surrogate `N(m, C)` of the target, with `C = L L^T`.
#[derive(Clone, Debug, PartialEq)]
pub struct Surrogate {
    mean: Vec<f64>,
    chol: DMatrix<f64>,
}

impl Surrogate {
    /// `N(mean, cov)`; an error unless `cov` is symmetric positive definite of the mean's
    /// dimension.
    pub fn new(mean: Vec<f64>, cov: DMatrix<f64>) -> Result<Self, SamplerError> {
        let d = mean.len();
        if cov.nrows() != d || cov.ncols() != d {
            return Err(SamplerError::DimensionMismatch {
                what: "the surrogate's covariance",
                expected: d,
                got: cov.nrows(),
            });
        }
        let chol = cov.cholesky().ok_or_else(|| {
            SamplerError::InvalidSetting(
                "the surrogate's covariance is not positive definite".into(),
            )
        })?;
        Ok(Surrogate {
            mean,
            chol: chol.l(),
        })
    }

    /// Fit to `points`: their mean `m` and `C = (1 - lambda) S + lambda (tr S / d) I` with `S`
    /// their sample covariance and `lambda = shrinkage` in `(0, 1]`. With `tr S = 0` (fewer
    /// than two distinct points) `C = fallback^2 I`.
    pub fn fit(points: &[Vec<f64>], shrinkage: f64, fallback: f64) -> Result<Self, SamplerError> {
        let first = points
            .first()
            .ok_or_else(|| SamplerError::InvalidSetting("no points to fit a surrogate".into()))?;
        let d = first.len();
        let n = points.len() as f64;
        let mean: Vec<f64> = (0..d)
            .map(|k| points.iter().map(|p| p[k]).sum::<f64>() / n)
            .collect();
        let mut s = DMatrix::<f64>::zeros(d, d);
        for p in points {
            let v = DVector::from_iterator(d, p.iter().zip(&mean).map(|(a, b)| a - b));
            s += &v * v.transpose();
        }
        s /= (n - 1.0).max(1.0);
        let mean_var = s.trace() / d as f64;
        let cov = if mean_var > 0.0 && mean_var.is_finite() {
            s * (1.0 - shrinkage) + DMatrix::identity(d, d) * (shrinkage * mean_var)
        } else {
            DMatrix::identity(d, d) * (fallback * fallback)
        };
        Surrogate::new(mean, cov)
    }

    /// The mean `m`.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// The covariance `C`.
    pub fn covariance(&self) -> DMatrix<f64> {
        &self.chol * self.chol.transpose()
    }
}

/// The MALA kernel with a frozen surrogate and step size (module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct MalaKernel {
    /// The surrogate giving drift and preconditioner.
    pub surrogate: Surrogate,
    /// The step size `h > 0`.
    pub step: f64,
}

impl MalaKernel {
    /// The proposal's mean `theta - h (theta - m)`.
    pub fn proposal_mean(&self, theta: &[f64]) -> Vec<f64> {
        theta
            .iter()
            .zip(&self.surrogate.mean)
            .map(|(t, m)| t - self.step * (t - m))
            .collect()
    }

    /// A proposal from `theta`.
    pub fn propose<R: Rng + ?Sized>(&self, theta: &[f64], rng: &mut R) -> Vec<f64> {
        let d = theta.len();
        let xi = DVector::from_iterator(d, (0..d).map(|_| StandardNormal.sample(rng)));
        let noise = &self.surrogate.chol * xi * (2.0 * self.step).sqrt();
        self.proposal_mean(theta)
            .iter()
            .zip(noise.iter())
            .map(|(a, b)| a + b)
            .collect()
    }

    /// `log q(to | from)` up to an additive constant shared by all pairs:
    /// `-|L^{-1}(to - from + h (from - m))|^2 / (4h)`.
    pub fn log_proposal_density(&self, from: &[f64], to: &[f64]) -> f64 {
        let d = from.len();
        let mean = self.proposal_mean(from);
        let v = DVector::from_iterator(d, to.iter().zip(&mean).map(|(a, b)| a - b));
        let z = self
            .surrogate
            .chol
            .solve_lower_triangular(&v)
            .unwrap_or_else(|| DVector::from_element(d, f64::INFINITY));
        -z.norm_squared() / (4.0 * self.step)
    }

    /// The log acceptance probability of a move from `from` (level index `from_index`) to
    /// `to` (index `to_index`, both points in `Theta`) for the rounded target with sampling
    /// parameter `eps` and grid `levels`:
    /// `min(0, -eps (l_to - l_from) + log q(from | to) - log q(to | from))`.
    pub fn log_acceptance(
        &self,
        eps: f64,
        levels: &Levels,
        (from, from_index): (&[f64], i64),
        (to, to_index): (&[f64], i64),
    ) -> f64 {
        let target = -eps * (levels.level(to_index) - levels.level(from_index));
        let ratio = self.log_proposal_density(to, from) - self.log_proposal_density(from, to);
        (target + ratio).min(0.0)
    }

    /// One step from `state` (in place), with the acceptance probability it had (0 outside
    /// `Theta`).
    pub fn step<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
        &self,
        target: &Target<O, D>,
        state: &mut MalaState,
        rng: &mut R,
    ) -> Result<(StepOutcome, f64), SamplerError> {
        let y = self.propose(&state.theta, rng);
        if !target.domain.contains(&y)? {
            return Ok((StepOutcome::Outside, 0.0));
        }
        let j = target.index_by_evaluation(&y, target.top)?;
        let log_a = self.log_acceptance(
            target.eps,
            &target.levels,
            (&state.theta, state.index),
            (&y, j),
        );
        // u uniform on (0, 1]: accept when log u <= log a (always when log a = 0).
        let u: f64 = 1.0 - rng.random::<f64>();
        let prob = log_a.exp();
        if u.ln() <= log_a {
            state.theta = y;
            state.index = j;
            Ok((StepOutcome::Accepted, prob))
        } else {
            Ok((StepOutcome::Rejected, prob))
        }
    }
}

/// One slice iteration (as [`crate::slice`]) from `state`: a level above its index, one
/// hit-and-run step in that body, then the new point's index (exact, below the body's).
pub fn slice_iteration<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    target: &Target<O, D>,
    state: &mut MalaState,
    rng: &mut R,
) -> Result<(), SamplerError> {
    let i = draw_level_above(state.index, target.top, target.eps, rng);
    target.walk(target.levels.level(i), &mut state.theta, 1, rng)?;
    state.index = target.index_below(&state.theta, i)?;
    Ok(())
}

/// Burn-in and adaptation (steps 1-3 of the module doc): the state after them, the frozen
/// kernel, and the record's adaptation fields. `progress` hears of every iteration; its
/// `Break` stops the run before the next one with [`SamplerError::Cancelled`]
/// ([`crate::progress`]).
pub fn prepare<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    target: &Target<O, D>,
    start: &[f64],
    start_index: i64,
    settings: &MalaSettings,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<(MalaState, MalaKernel, MalaRecord), SamplerError> {
    settings.validate()?;
    let dim = start.len();
    let total = settings.burn_in + settings.adapt_steps + settings.steps;
    let mut state = MalaState {
        theta: start.to_vec(),
        index: target.index_below(start, start_index)?,
    };
    let mut points = Vec::with_capacity(settings.burn_in);
    for it in 0..settings.burn_in {
        slice_iteration(target, &mut state, rng)?;
        points.push(state.theta.clone());
        report(
            progress,
            Progress {
                phase: "mala",
                done: it + 1,
                total,
            },
        )?;
    }
    let surrogate = Surrogate::fit(
        &points[settings.burn_in / 2..],
        settings.shrinkage,
        1e-3 * target.domain.radius(),
    )?;
    // Robbins-Monro on log h from 1.4 d^{-1/3} (the optimal scale of MALA on a Gaussian with
    // an exact preconditioner), h capped at 1 (beyond, the drift overshoots the mean).
    let mut log_h = (1.4 * (dim.max(1) as f64).powf(-1.0 / 3.0)).min(1.0).ln();
    let mut kernel = MalaKernel {
        surrogate,
        step: log_h.exp(),
    };
    let (mut prob_sum, mut late_log_h, mut late) = (0.0, 0.0, 0usize);
    let (mut slice_iterations, mut evaluations) = (0, 0);
    let half = settings.adapt_steps / 2;
    for t in 0..settings.adapt_steps {
        if t == half && half > 0 {
            // Refit with the first half's states, which mix faster than the slice burn-in,
            // and restart the step size's schedule.
            kernel.surrogate = Surrogate::fit(
                &points[settings.burn_in / 2..],
                settings.shrinkage,
                1e-3 * target.domain.radius(),
            )?;
        }
        kernel.step = log_h.exp();
        let (outcome, prob) = kernel.step(target, &mut state, rng)?;
        prob_sum += prob;
        if outcome != StepOutcome::Outside {
            evaluations += 1;
        }
        let round = if t < half { t } else { t - half };
        log_h = (log_h + (prob - settings.target_acceptance) / (1.0 + round as f64).powf(0.6))
            .clamp(-30.0, 0.0);
        if t >= half + half / 2 {
            late_log_h += log_h;
            late += 1;
        }
        if (t + 1) % settings.slice_every == 0 {
            slice_iteration(target, &mut state, rng)?;
            slice_iterations += 1;
        }
        if t < half {
            points.push(state.theta.clone());
        }
        report(
            progress,
            Progress {
                phase: "mala",
                done: settings.burn_in + t + 1,
                total,
            },
        )?;
    }
    kernel.step = if late > 0 {
        (late_log_h / late as f64).exp()
    } else {
        log_h.exp()
    };
    let surrogate_variance = kernel.surrogate.covariance().trace() / dim.max(1) as f64;
    let record = MalaRecord {
        burn_in: settings.burn_in,
        adapt_steps: settings.adapt_steps,
        adapt_acceptance: prob_sum / settings.adapt_steps.max(1) as f64,
        steps: 0,
        accepted: 0,
        outside: 0,
        acceptance_rate: 0.0,
        step_size: kernel.step,
        surrogate_variance,
        slice_iterations,
        evaluations,
        final_index: state.index,
    };
    Ok((state, kernel, record))
}

/// Run the whole path from `start` (inside `Theta`, in the level body of index
/// `start_index`), calling `observe` with the state after every MALA step of the frozen
/// chain (after the interleaved slice iteration, when one follows the step; diagnostics).
/// A `Break` from `progress` stops the run with [`SamplerError::Cancelled`] ([`prepare`]).
pub fn sample_observed<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    target: &Target<O, D>,
    start: &[f64],
    start_index: i64,
    settings: &MalaSettings,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
    observe: &mut dyn FnMut(&MalaState),
) -> Result<(Vec<f64>, MalaRecord), SamplerError> {
    let (mut state, kernel, mut record) =
        prepare(target, start, start_index, settings, rng, progress)?;
    let (mut accepted, mut outside) = (0, 0);
    for t in 0..settings.steps {
        match kernel.step(target, &mut state, rng)?.0 {
            StepOutcome::Accepted => accepted += 1,
            StepOutcome::Rejected => {}
            StepOutcome::Outside => outside += 1,
        }
        if (t + 1) % settings.slice_every == 0 {
            slice_iteration(target, &mut state, rng)?;
            record.slice_iterations += 1;
        }
        observe(&state);
        report(
            progress,
            Progress {
                phase: "mala",
                done: settings.burn_in + settings.adapt_steps + t + 1,
                total: settings.burn_in + settings.adapt_steps + settings.steps,
            },
        )?;
    }
    record.steps = settings.steps;
    record.accepted = accepted;
    record.outside = outside;
    record.acceptance_rate = accepted as f64 / settings.steps as f64;
    record.evaluations += settings.steps - outside;
    record.final_index = state.index;
    Ok((state.theta, record))
}

/// [`sample_observed`] without an observer: the released point and the record.
pub fn sample<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    target: &Target<O, D>,
    start: &[f64],
    start_index: i64,
    settings: &MalaSettings,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<(Vec<f64>, MalaRecord), SamplerError> {
    sample_observed(
        target,
        start,
        start_index,
        settings,
        rng,
        progress,
        &mut |_| {},
    )
}
