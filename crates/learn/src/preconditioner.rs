//! The staged additive preconditioner (MATH.md 5.2): a public frame `U` with
//! `Sigma ⪯ U ⪯ kappa_J Sigma`, released stage by stage from the pairs' clipped second moment
//! plus Frobenius-norm noise.
//!
//! **Stages.** Public inputs: the prior `I ⪯ Sigma ⪯ K I`, `eps_pre`, the clip `lambda` (the
//! `clip_probability` quantile of chi-square with `d` degrees of freedom), `J` stages with
//! `eps_j = eps_pre / J`. `U_0 = K I`. Stage `j`:
//! 1. `W_j = U_j^{-1/2}`; every pair is mapped to `W_j x_i` and clipped to the ball of radius
//!    `sqrt(lambda)`: `c_i`; `Z_j = (1/m) sum_i c_i c_i^T`.
//! 2. Release `S_j = Z_j + N_j`, `N_j` Frobenius noise ([`crate::frobenius_noise`]) of scale
//!    `Delta_F / eps_j`, `Delta_F = sqrt 2 lambda / m`: replacing one pair moves `Z_j` by
//!    `(c c^T - c' c'^T) / m`, whose Frobenius norm is at most `sqrt(|c|^4 + |c'|^4) / m`
//!    (both terms are positive semidefinite) `<= sqrt 2 lambda / m`. Pure `eps_j`-DP; the
//!    stage's frame is a function of earlier releases, so the stages compose to `eps_pre`.
//!    The release is snapped (MATH.md 4.6, [`crate::snap`], Mironov 2012): each `svec`
//!    coordinate rounded to the grid `Lambda_j`, the smallest power of two `>= Delta_F / eps_j`,
//!    and clamped into the public box `[-B_j, B_j]`, `B_j = lambda + t_j`, `t_j` the
//!    `1 - beta_pre / (4J)` quantile of `|N_j|_F` (every `svec` coordinate of `Z_j` lies in
//!    `[-lambda, lambda]`: `|c_k c_l| <= |c|^2 / 2` off the diagonal, times `sqrt 2`). The
//!    snapping's privacy excess is `2^-49 B_j / Delta_F` relative (about `5e-11` at m = 25000;
//!    a stage count whose excess reaches [`snap::MAX_EPSILON_EXCESS`], or outside the validity range `Delta_F / eps_j
//!    < B_j < 2^46 Delta_F / eps_j`, is not planned).
//! 3. `nu_j` = the `1 - beta_pre / (2J)` quantile of `|N_j|_op`, plus the rounding's worst case
//!    `r_j = sqrt(D) Lambda_j / 2` (`|R|_op <= |R|_F`); `U_{j+1} = W_j^{-1} (S_j + (nu_j + r_j)
//!    I) W_j^{-1} / (1 - b)`, symmetrised, eigenvalues clamped below at 1. On the event
//!    `|N_j|_F <= t_j` no coordinate is clamped, so `S_j = Z_j + N_j + R_j`, `|R_j|_F <= r_j`.
//!
//! **Why it is a preconditioner.** Write `Sigma~ = W_j Sigma W_j ⪯ I`. On the planned event:
//! - *lower side*: the clean pairs' clipped second moment is at least
//!   `(1 - zeta - clip_bias) Sigma~` (sampling, clipping), an adversary holding a fraction
//!   `eta_p` of the pairs removes at most `eta_p (1 + 2 log(1/eta_p)) Sigma~` (the largest
//!   `eta_p` quantile of a chi-square with one degree of freedom), and `N_j + R_j + (nu_j +
//!   r_j) I ⪰ 0`, so
//!   `S_j + nu_j I ⪰ (1 - b) Sigma~` with `b = zeta + clip_bias + corruption_loss`: `U_{j+1} ⪰
//!   Sigma`;
//! - *upper side*: `Z_j ⪯ (1 + zeta) Sigma~ + eta_p lambda I` and `N_j + R_j + (nu_j + r_j) I ⪯
//!   2 (nu_j + r_j) I`, so `U_{j+1} ⪯ ((1 + zeta) Sigma + (eta_p lambda + 2 (nu_j + r_j)) U_j) /
//!   (1 - b)` and, with `U_j ⪯ kappa_j Sigma`, `kappa_{j+1} = (1 + zeta)/(1 - b) + rho_j
//!   kappa_j`, `rho_j = (eta_p lambda + 2 (nu_j + r_j)) / (1 - b)`, `kappa_0 = K`.
//!
//! `zeta = 2 delta + delta^2`, `delta = sqrt(d/m) + sqrt(2 log(4J / beta_pre) / m)` (the
//! Gaussian sample-covariance deviation), `clip_bias = P(chi^2_{d+2} > lambda)` (the second
//! moment a unit-covariance Gaussian loses to the clip, the worst case for `Sigma~ ⪯ I`). The
//! plan picks the `J <= max_stages` with the smallest `kappa_J`, and refuses (before the data
//! are read) when `b >= 1` or some `rho_j >= 1`: then the corruption is above what the
//! preconditioner tolerates at this `n`, or `n` is too small.
use crate::LearnError;
use crate::frobenius_noise::{self, QuantileSettings, operator_norm_quantile};
use crate::norm_noise::radius_quantile;
use crate::projection::project_rows;
use crate::release::StageRelease;
use crate::snap;
use crate::special::{chi_square_quantile, chi_square_upper};
use crate::symmetric::{matrix_of, spd_power, svec_of};
use nalgebra::DMatrix;
use rand::Rng;
use serde::Serialize;

/// `Z = (1/m) sum_i c_i c_i^T`, `c_i` the pair `W x_i` (rows of `x W`, `W` symmetric) clipped to
/// the ball of radius `sqrt(lambda)`. Replacing one pair moves it by at most `sqrt 2 lambda / m`
/// in Frobenius norm and `2 lambda / m` in nuclear norm.
pub fn clipped_second_moment(x: &DMatrix<f64>, w: &DMatrix<f64>, lambda: f64) -> DMatrix<f64> {
    let clipped = project_rows(&(x * w), &vec![0.0; x.ncols()], lambda.sqrt());
    clipped.transpose() * &clipped / x.nrows() as f64
}

/// The preconditioner's settings (MATH.md 5.2). Privacy never depends on them; accuracy does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreconditionerSettings {
    /// The clip `lambda` is this quantile of chi-square with `d` degrees of freedom (default
    /// 0.99).
    pub clip_probability: f64,
    /// The most stages the plan considers (default 8).
    pub max_stages: usize,
    /// A fixed number of stages. `None` (the default): among the counts whose `kappa_J` is
    /// within a factor `1 + stage_tolerance` of the smallest, the plan takes the largest (the
    /// worst case is flat there while the realised condition number keeps falling with more
    /// stages: at d = 10, m = 25000, eps_pre = 1, K = 100, with snapped releases, J = 2..4
    /// have kappa_J 9.9, 11.7, 15.6 and realised condition numbers of 2.4-3.3, 2.1-2.5,
    /// 1.7-2.2 over five seeds).
    pub stages: Option<usize>,
    /// See `stages` (default 0.25).
    pub stage_tolerance: f64,
    /// How the noise's operator-norm quantiles are computed.
    pub quantiles: QuantileSettings,
}

impl Default for PreconditionerSettings {
    fn default() -> Self {
        PreconditionerSettings {
            clip_probability: 0.99,
            max_stages: 8,
            stages: None,
            stage_tolerance: 0.25,
            quantiles: QuantileSettings::default(),
        }
    }
}

/// One planned stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PreconditionerStage {
    /// The stage's share `eps_j` of eps.
    pub epsilon: f64,
    /// The noise's scale `Delta_F / eps_j`.
    pub noise_scale: f64,
    /// `nu_j`: `|N_j|_op <= nu_j` with probability `1 - beta_pre / (2J)`.
    pub nu: f64,
    /// The release's grid `Lambda_j`: the smallest power of two `>= noise_scale`.
    pub grid: f64,
    /// `r_j = sqrt(D) Lambda_j / 2`: how far snapping can move the release (Frobenius).
    pub rounding: f64,
    /// The half-width `B_j = lambda + t_j` of the public box every `svec` coordinate of the
    /// release is clamped into (`t_j`: `|N_j|_F <= t_j` with probability `1 - beta_pre / (4J)`).
    pub box_half_width: f64,
    /// `rho_j = (eta_p lambda + 2 (nu_j + r_j)) / (1 - b)`.
    pub contraction: f64,
    /// `kappa_{j+1}`: `Sigma ⪯ U_{j+1} ⪯ kappa_{j+1} Sigma` on the planned event.
    pub kappa: f64,
}

/// The public plan of the preconditioner.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PreconditionerPlan {
    /// The prior `K` (`I ⪯ Sigma ⪯ K I`): the first frame is `U_0 = K I`.
    pub prior: f64,
    /// The preconditioner's share of eps.
    pub epsilon: f64,
    /// The failure probability the plan's event is allowed.
    pub beta: f64,
    /// The pairs' corrupted fraction `eta_p = 2 eta0`.
    pub pair_corruption: f64,
    /// The clip: pairs are clipped to norm `sqrt(lambda)` in each stage's frame.
    pub lambda: f64,
    /// `Delta_F = sqrt 2 lambda / m`.
    pub sensitivity: f64,
    /// The sampling term `zeta` of the slack `b`.
    pub sampling_slack: f64,
    /// The clipping term of the slack `b`.
    pub clip_bias: f64,
    /// The corruption's loss `eta_p (1 + 2 log(1 / eta_p))`, the last term of the slack `b`.
    pub corruption_loss: f64,
    /// The slack `b = zeta + clip_bias + corruption_loss`.
    pub slack: f64,
    /// The stages, in order.
    pub stages: Vec<PreconditionerStage>,
    /// `kappa_J`: `Sigma ⪯ U_J ⪯ kappa_J Sigma` with probability `1 - beta`.
    pub kappa: f64,
    /// The largest pair corruption at which every stage still contracts and `b < 1` at this
    /// `n`, `d`, eps (the tolerated corruption of the records is half of it).
    pub tolerated_pair_corruption: f64,
}

impl PreconditionerPlan {
    /// The plan for `m` pairs in `R^d` under the prior `I ⪯ Sigma ⪯ K I` with `eps_pre`,
    /// failure probability `beta` and pair corruption `eta_p` (no data needed).
    pub fn new(
        m: usize,
        d: usize,
        kappa: f64,
        epsilon: f64,
        beta: f64,
        eta_p: f64,
        settings: &PreconditionerSettings,
    ) -> Result<Self, LearnError> {
        let (mf, df) = (m as f64, d as f64);
        let lambda = chi_square_quantile(df, settings.clip_probability);
        let sensitivity = std::f64::consts::SQRT_2 * lambda / mf;
        let clip_bias = chi_square_upper(df + 2.0, lambda);
        let svec_dim = d * (d + 1) / 2;
        let most = settings.max_stages.max(1);
        // The unit-scale operator-norm quantile of each stage count's noise (independent of the
        // corruption, so computed once per stage count).
        let quantiles: Vec<f64> = (1..=most)
            .map(|j| operator_norm_quantile(d, beta / (2.0 * j as f64), &settings.quantiles))
            .collect();
        let candidate = |stages: usize, eta: f64| -> Option<PreconditionerPlan> {
            let j = stages as f64;
            let delta = (df / mf).sqrt() + (2.0 * (4.0 * j / beta).ln() / mf).sqrt();
            let zeta = 2.0 * delta + delta * delta;
            let loss = if eta > 0.0 {
                eta * (1.0 + 2.0 * (1.0 / eta).ln())
            } else {
                0.0
            };
            let slack = zeta + clip_bias + loss;
            if slack >= 1.0 {
                return None;
            }
            let eps_j = epsilon / j;
            let noise_scale = sensitivity / eps_j;
            let nu = noise_scale * quantiles[stages - 1];
            let grid = snap::grid(noise_scale);
            let rounding = snap::rounding_bound(grid, svec_dim);
            let box_half_width = lambda + radius_quantile(svec_dim, noise_scale, beta / (4.0 * j));
            if !snap::in_validity_range(noise_scale, box_half_width)
                || snap::epsilon_excess(box_half_width, sensitivity) >= snap::MAX_EPSILON_EXCESS
            {
                return None;
            }
            let contraction = (eta * lambda + 2.0 * (nu + rounding)) / (1.0 - slack);
            if contraction >= 1.0 {
                return None;
            }
            let mut k = kappa;
            let plan_stages = (0..stages)
                .map(|_| {
                    k = (1.0 + zeta) / (1.0 - slack) + contraction * k;
                    PreconditionerStage {
                        epsilon: eps_j,
                        noise_scale,
                        nu,
                        grid,
                        rounding,
                        box_half_width,
                        contraction,
                        kappa: k,
                    }
                })
                .collect();
            Some(PreconditionerPlan {
                prior: kappa,
                epsilon,
                beta,
                pair_corruption: eta,
                lambda,
                sensitivity,
                sampling_slack: zeta,
                clip_bias,
                corruption_loss: loss,
                slack,
                stages: plan_stages,
                kappa: k,
                tolerated_pair_corruption: 0.0,
            })
        };
        let counts = match settings.stages.map(|j| j.clamp(1, most)) {
            Some(j) => j..=j,
            None => 1..=most,
        };
        let plans: Vec<PreconditionerPlan> = counts.filter_map(|j| candidate(j, eta_p)).collect();
        let smallest = plans.iter().map(|p| p.kappa).fold(f64::INFINITY, f64::min);
        let best = plans
            .into_iter()
            .filter(|p| p.kappa <= (1.0 + settings.stage_tolerance) * smallest)
            .max_by_key(|p| p.stages.len());
        let Some(mut plan) = best else {
            return Err(LearnError::TooFewSamples(format!(
                "the preconditioner cannot contract at {m} pairs in dimension {d} with eps {epsilon} and pair corruption {eta_p}: \
                 its noise or the corruption's share of the clipped second moment is too large (MATH 5.2)"
            )));
        };
        let stages = plan.stages.len();
        // The tolerated corruption at this plan's stage count: bisection on eta_p.
        let (mut lo, mut hi) = (0.0, 0.5);
        for _ in 0..50 {
            let mid = 0.5 * (lo + hi);
            if candidate(stages, mid).is_some() {
                lo = mid
            } else {
                hi = mid
            }
        }
        plan.tolerated_pair_corruption = lo;
        Ok(plan)
    }

    /// Run the stages on the pairs `x` (one per row): the frame `U_J` and the stage releases.
    pub fn release<R: Rng + ?Sized>(
        &self,
        x: &DMatrix<f64>,
        rng: &mut R,
    ) -> (DMatrix<f64>, Vec<StageRelease>) {
        let d = x.ncols();
        let mut frame = DMatrix::identity(d, d) * self.prior;
        let mut releases = Vec::with_capacity(self.stages.len());
        for (j, stage) in self.stages.iter().enumerate() {
            let w = spd_power(&frame, -0.5);
            let noisy = clipped_second_moment(x, &w, self.lambda)
                + frobenius_noise::sample(d, stage.noise_scale, rng);
            let mut release = svec_of(&noisy);
            let centre = vec![0.0; release.len()];
            snap::snap(&mut release, &centre, stage.box_half_width, stage.grid);
            frame = self.next_frame(&frame, &matrix_of(&release), stage);
            releases.push(StageRelease {
                step: format!("preconditioner {} (S_j, in the frame of U_j)", j + 1),
                release,
            });
        }
        (frame, releases)
    }

    /// Step 3: `U_{j+1} = U_j^{1/2} (S_j + (nu_j + r_j) I) U_j^{1/2} / (1 - b)`, symmetrised,
    /// eigenvalues clamped below at 1.
    fn next_frame(
        &self,
        frame: &DMatrix<f64>,
        released: &DMatrix<f64>,
        stage: &PreconditionerStage,
    ) -> DMatrix<f64> {
        let d = frame.nrows();
        let w_inv = spd_power(frame, 0.5);
        let next =
            &w_inv * (released + DMatrix::identity(d, d) * (stage.nu + stage.rounding)) * &w_inv
                / (1.0 - self.slack);
        let eig = (0.5 * (&next + next.transpose())).symmetric_eigen();
        &eig.eigenvectors
            * DMatrix::from_diagonal(&eig.eigenvalues.map(|v| v.max(1.0)))
            * eig.eigenvectors.transpose()
    }

    /// The frame `U_J` from the stage releases `S_j` (in `svec`), as [`Self::release`] computed
    /// it: post-processing of the release, so anyone holding it can recompute the frame.
    pub fn frame_from_releases(&self, releases: &[Vec<f64>]) -> DMatrix<f64> {
        let d = releases.first().map_or(0, |r| matrix_of(r).nrows());
        let mut frame = DMatrix::identity(d, d) * self.prior;
        for (stage, s) in self.stages.iter().zip(releases) {
            frame = self.next_frame(&frame, &matrix_of(s), stage);
        }
        frame
    }
}
