//! The staged additive preconditioner (MATH.md 5.2): a public frame `U` with
//! `Sigma ⪯ U ⪯ kappa_J Sigma`, released stage by stage from the pairs' (or the centred
//! records') clipped second moment plus Frobenius-norm noise.
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
//!
//! **Centred records** ([`Points::Records`], MATH.md 5.3b's centring in every frame). Pairs cost
//! twice: a fraction `eta0` of corrupted records spoils `2 eta0` of the `n / 2` pairs. With the
//! prior `|mu| <= R` the stages can run on the `n` records (projected onto a public ball), each
//! stage first releasing a mean in its own frame: with the public centre `mu_j` (`mu_0 = 0`) and
//! `|W_j (mu - mu_j)| <= a_j` (`a_0 = R / sqrt(K)`),
//! 1. `v_j` = the mean of `W_j (x_i - mu_j)` clipped to the ball of radius `q_j = a_j + c`
//!    (`c^2` the `mean_clip_probability` quantile of chi-square(d)), plus norm noise of scale
//!    `2 q_j / (n eps_m)` ([`crate::norm_noise`], `eps_m = mean_share eps_j`), snapped and
//!    clamped into `[-q_j, q_j]^d` (which holds `W_j (mu - mu_j)`): pure `eps_m`-DP;
//!    `mu_{j+1} = mu_j + U_j^{1/2} v_j`;
//! 2. `S_j` as above on the records centred at `mu_{j+1}`, with `(1 - mean_share) eps_j` and
//!    `Delta_F = sqrt 2 lambda / n`.
//!
//! The release is within `e_j` of `W_j (mu - mu_j)` ([`StageMean::accuracy`]: sampling, the
//! clip's bias, `2 eta q_j` for the corruption, the noise's quantile, the rounding), so the
//! clean records centred at it have a whitened mean offset `o` with `|o| <= o_j = e_j + s_n`.
//! Their second moment is their centred sample covariance plus `o o^T`: on the upper side it adds
//! `o_j^2 I`, `rho_j = (eta lambda + o_j^2 + 2 (nu_j + r_j)) / (1 - b_j)`; on the lower side the
//! clip's edge moves in to `sqrt(lambda) - o_j` and the surplus `(v^T o)^2` pays for the offset's
//! share of what the clip and the adversary remove, `b_j = zeta + s_n^2 + (clip_j + loss) / (1 -
//! p_j)` ([`StageMean::slack`]). The next centre's error is `a_{j+1} = sqrt(kappa_j) e_j`
//! (`U_{j+1} ⪰ Sigma`, `U_j ⪯ kappa_j Sigma`). Every quantity is public, and the `S_j` of a
//! stage is computed after its `v_j` is released, so the stages compose to `eps_pre`.
use crate::LearnError;
use crate::frobenius_noise::{self, QuantileSettings, operator_norm_quantile};
use crate::mean::additive_release;
use crate::norm_noise::radius_quantile;
use crate::projection::project_rows;
use crate::release::StageRelease;
use crate::snap;
use crate::special::{chi_square_quantile, chi_square_upper};
use crate::symmetric::{matrix_of, spd_power, svec_of};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use serde::Serialize;

/// `Z = (1/m) sum_i c_i c_i^T`, `c_i` the pair `W x_i` (rows of `x W`, `W` symmetric) clipped to
/// the ball of radius `sqrt(lambda)`. Replacing one pair moves it by at most `sqrt 2 lambda / m`
/// in Frobenius norm and `2 lambda / m` in nuclear norm.
pub fn clipped_second_moment(x: &DMatrix<f64>, w: &DMatrix<f64>, lambda: f64) -> DMatrix<f64> {
    let clipped = project_rows(&(x * w), &vec![0.0; x.ncols()], lambda.sqrt());
    clipped.transpose() * &clipped / x.nrows() as f64
}

/// The rows `W (x_i - centre)` (`W` symmetric) clipped to the ball of radius `radius`: a
/// centred stage's mean is their average, which moves by at most `2 radius / n` when one record
/// is replaced.
pub fn whitened_clipped(
    x: &DMatrix<f64>,
    centre: &DVector<f64>,
    w: &DMatrix<f64>,
    radius: f64,
) -> DMatrix<f64> {
    let offset = DMatrix::from_fn(x.nrows(), x.ncols(), |i, k| x[(i, k)] - centre[k]);
    project_rows(&(offset * w), &vec![0.0; x.ncols()], radius)
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
    /// Centred records ([`Points::Records`]): the share of each stage's eps spent on its mean
    /// (default 1/8; the second moment gets the rest).
    pub mean_share: f64,
    /// Centred records: each stage clips its whitened records to the ball of radius
    /// `a_j + c` around the public centre, `a_j` the centre's planned error and `c^2` this
    /// quantile of chi-square with `d` degrees of freedom (default 0.999).
    pub mean_clip_probability: f64,
}

impl PreconditionerSettings {
    /// `clip_probability`, and the centred stages' `mean_share` and `mean_clip_probability`, in
    /// `(0, 1)`.
    pub fn validate(&self) -> Result<(), LearnError> {
        for (name, value) in [
            ("clip_probability", self.clip_probability),
            ("mean_share", self.mean_share),
            ("mean_clip_probability", self.mean_clip_probability),
        ] {
            if !(value > 0.0 && value < 1.0) {
                return Err(LearnError::InvalidSetting(format!(
                    "the preconditioner's {name} must be in (0, 1), got {value}"
                )));
            }
        }
        Ok(())
    }
}

impl Default for PreconditionerSettings {
    fn default() -> Self {
        PreconditionerSettings {
            clip_probability: 0.99,
            max_stages: 8,
            stages: None,
            stage_tolerance: 0.25,
            quantiles: QuantileSettings::default(),
            mean_share: 0.125,
            mean_clip_probability: 0.999,
        }
    }
}

/// One planned stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PreconditionerStage {
    /// The second moment's share of eps: `eps_j` on pairs, `(1 - mean_share) eps_j` on centred
    /// records (the stage's mean has the rest, [`StageMean::epsilon`]).
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
    /// `rho_j = (eta_p lambda + 2 (nu_j + r_j)) / (1 - b)`; on centred records
    /// `(eta0 lambda + o_j^2 + 2 (nu_j + r_j)) / (1 - b_j)` ([`StageMean`]).
    pub contraction: f64,
    /// `kappa_{j+1}`: `Sigma ⪯ U_{j+1} ⪯ kappa_{j+1} Sigma` on the planned event.
    pub kappa: f64,
    /// Centred records: the stage's mean release and the slack `b_j` it leaves (`None` on
    /// pairs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean: Option<StageMean>,
}

/// The mean release of a stage on centred records ([`Points::Records`]), in the stage's frame
/// `W_j = U_j^{-1/2}` around the public centre `mu_j` (`mu_0 = 0`; `mu_{j+1} = mu_j + U_j^{1/2} v_j`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageMean {
    /// The mean's share of the stage's eps.
    pub epsilon: f64,
    /// `a_j`: `|W_j (mu_j - mu)| <= a_j` on the planned event (`R / sqrt(K)` at `j = 0`,
    /// `sqrt(kappa_{j-1}) e_{j-1}` after: `U_j ⪰ Sigma` and `U_{j-1} ⪯ kappa_{j-1} Sigma`).
    pub centre_error: f64,
    /// `q_j = a_j + c`: the whitened records `W_j (x_i - mu_j)` are clipped to this ball, and
    /// the release is clamped into the box `[-q_j, q_j]^d`, which holds `W_j (mu - mu_j)`.
    pub clip_radius: f64,
    /// The noise's scale `2 q_j / (n eps_m)` (replacing one record moves the clipped mean by
    /// at most `2 q_j / n`).
    pub noise_scale: f64,
    /// The release's grid: the smallest power of two `>= noise_scale`.
    pub grid: f64,
    /// `e_j >= |v_j - W_j (mu - mu_j)|`: the clean records' sampling `s_n`, the clip's bias
    /// `sqrt(d) P(chi^2_{d+1} > c^2)`, the corruption's `2 eta q_j`, the noise's
    /// `1 - beta / (8J)` quantile and the rounding.
    pub accuracy: f64,
    /// `o_j = e_j + s_n`: the whitened clean records, centred at the release, have mean offset
    /// at most `o_j`, which adds `o_j^2` to the upper side and moves the clip's edge inward.
    pub offset: f64,
    /// The stage's slack `b_j = zeta + s_n^2 + (clip_j + loss) / (1 - p_j)`, `clip_j =
    /// P(chi^2_{d+2} > (sqrt(lambda) - o_j)^2)`, `p_j = P(chi^2_d > (sqrt(lambda) - o_j)^2) + eta`.
    pub slack: f64,
}

/// What the stages release the second moment of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Points {
    /// `m` pairs `(y_2i - y_2i-1) / sqrt 2`: mean-free, corruption `eta_p = 2 eta0`.
    Pairs(usize),
    /// `count` records (projected onto `B(0, record_radius)`), centred in every stage by a mean
    /// released in its frame under the prior `|mu| <= mean_prior`: corruption `eta0`, twice the
    /// points, at the price of the means' eps and their offset.
    Records {
        /// The number `n` of records.
        count: usize,
        /// The prior `|mu| <= R`.
        mean_prior: f64,
        /// The records are projected onto `B(0, record_radius)` (by the caller).
        record_radius: f64,
    },
}

impl Points {
    fn count(&self) -> usize {
        match *self {
            Points::Pairs(m) => m,
            Points::Records { count, .. } => count,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Points::Pairs(_) => "pairs",
            Points::Records { .. } => "centred records",
        }
    }
}

/// The public facts of a plan on centred records.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageCentring {
    /// The number `n` of records.
    pub records: usize,
    /// The prior `|mu| <= R`.
    pub mean_prior: f64,
    /// Every record is projected onto `B(0, record_radius)` before the stages (which holds the
    /// clean records on the event of the caller's projection).
    pub record_radius: f64,
    /// `c`, the clip's margin beyond the centre's error.
    pub clip_margin: f64,
    /// `s_n = sqrt(d/n') + sqrt(2 log(8 / beta) / n')`, `n' = (1 - eta) n` (conservative: the
    /// draws are `n`): the mean of the `n` draws before the adversary's replacements is within
    /// `s_n` of `mu` in the norm of `Sigma^{-1}`, and so in every frame's
    /// whitened norm (`|Sigma~_j^{-1/2} W_j g| = |Sigma^{-1/2} g|`, polar decomposition; and
    /// `Sigma~_j ⪯ I`): one event for all stages.
    pub sampling: f64,
}

/// The plans of one preconditioner at every stage count and corruption.
struct Candidates<'a> {
    points: Points,
    d: usize,
    kappa: f64,
    epsilon: f64,
    beta: f64,
    beta_moment: f64,
    lambda: f64,
    sensitivity: f64,
    quantiles: Vec<f64>,
    settings: &'a PreconditionerSettings,
}

impl Candidates<'_> {
    /// The plan with `stages` stages at corruption `eta` of the points, or `None` when some
    /// stage does not contract, its slack reaches 1, or its snapping is out of range.
    fn plan(&self, stages: usize, eta: f64) -> Option<PreconditionerPlan> {
        let (d, lambda) = (self.d, self.lambda);
        let (df, nf) = (d as f64, self.points.count() as f64);
        let j = stages as f64;
        let svec_dim = d * (d + 1) / 2;
        let delta = (df / nf).sqrt() + (2.0 * (4.0 * j / self.beta_moment).ln() / nf).sqrt();
        let zeta = 2.0 * delta + delta * delta;
        let clip_bias = chi_square_upper(df + 2.0, lambda);
        let loss = if eta > 0.0 {
            eta * (1.0 + 2.0 * (1.0 / eta).ln())
        } else {
            0.0
        };
        let slack = zeta + clip_bias + loss;
        if slack >= 1.0 {
            return None;
        }
        let eps_j = self.epsilon / j;
        let centring = match self.points {
            Points::Pairs(_) => None,
            Points::Records {
                count,
                mean_prior,
                record_radius,
            } => Some(StageCentring {
                records: count,
                mean_prior,
                record_radius,
                clip_margin: chi_square_quantile(df, self.settings.mean_clip_probability).sqrt(),
                sampling: (df / (nf * (1.0 - eta))).sqrt()
                    + (2.0 * (8.0 / self.beta).ln() / (nf * (1.0 - eta))).sqrt(),
            }),
        };
        let moment_eps = match centring {
            Some(_) => (1.0 - self.settings.mean_share) * eps_j,
            None => eps_j,
        };
        let noise_scale = self.sensitivity / moment_eps;
        let nu = noise_scale * self.quantiles[stages - 1];
        let grid = snap::grid(noise_scale);
        let rounding = snap::rounding_bound(grid, svec_dim);
        let box_half_width =
            lambda + radius_quantile(svec_dim, noise_scale, self.beta_moment / (4.0 * j));
        if !snap::in_validity_range(noise_scale, box_half_width)
            || snap::epsilon_excess(box_half_width, self.sensitivity) >= snap::MAX_EPSILON_EXCESS
        {
            return None;
        }
        let mut k = self.kappa;
        let mut centre_error = centring
            .as_ref()
            .map_or(0.0, |c| c.mean_prior / self.kappa.sqrt());
        let mut plan_stages = Vec::with_capacity(stages);
        for _ in 0..stages {
            let mean = match &centring {
                None => None,
                Some(c) => {
                    Some(self.stage_mean(c, stages, eps_j, eta, centre_error, zeta, loss)?)
                }
            };
            let (offset, b) = mean.as_ref().map_or((0.0, slack), |m| (m.offset, m.slack));
            let contraction = (eta * lambda + offset * offset + 2.0 * (nu + rounding)) / (1.0 - b);
            if contraction >= 1.0 {
                return None;
            }
            if let Some(m) = &mean {
                centre_error = k.sqrt() * m.accuracy;
            }
            k = (1.0 + zeta) / (1.0 - b) + contraction * k;
            plan_stages.push(PreconditionerStage {
                epsilon: moment_eps,
                noise_scale,
                nu,
                grid,
                rounding,
                box_half_width,
                contraction,
                kappa: k,
                mean,
            });
        }
        Some(PreconditionerPlan {
            prior: self.kappa,
            epsilon: self.epsilon,
            beta: self.beta,
            pair_corruption: eta,
            lambda,
            sensitivity: self.sensitivity,
            sampling_slack: zeta,
            clip_bias,
            corruption_loss: loss,
            slack,
            stages: plan_stages,
            kappa: k,
            tolerated_pair_corruption: 0.0,
            centring,
        })
    }

    /// A stage's mean on centred records ([`StageMean`]) whose centre has error `a`, or `None`
    /// when its snapping is out of range or its offset reaches the clip `sqrt(lambda)` (or the
    /// slack 1).
    #[allow(clippy::too_many_arguments)]
    fn stage_mean(
        &self,
        c: &StageCentring,
        stages: usize,
        eps_j: f64,
        eta: f64,
        a: f64,
        zeta: f64,
        loss: f64,
    ) -> Option<StageMean> {
        let (df, nf) = (self.d as f64, c.records as f64);
        let j = stages as f64;
        let epsilon = self.settings.mean_share * eps_j;
        let clip_radius = a + c.clip_margin;
        let sensitivity = 2.0 * clip_radius / nf;
        let noise_scale = sensitivity / epsilon;
        if !snap::in_validity_range(noise_scale, clip_radius)
            || snap::epsilon_excess(clip_radius, sensitivity) >= snap::MAX_EPSILON_EXCESS
        {
            return None;
        }
        let grid = snap::grid(noise_scale);
        let clip_bias = df.sqrt() * chi_square_upper(df + 1.0, c.clip_margin.powi(2));
        let accuracy = c.sampling
            + clip_bias
            + 2.0 * eta * clip_radius
            + radius_quantile(self.d, noise_scale, self.beta / (8.0 * j))
            + snap::rounding_bound(grid, self.d);
        let offset = accuracy + c.sampling;
        let edge = self.lambda.sqrt() - offset;
        if edge <= 0.0 {
            return None;
        }
        let lost = chi_square_upper(df, edge * edge) + eta;
        let slack = zeta
            + c.sampling * c.sampling
            + (chi_square_upper(df + 2.0, edge * edge) + loss) / (1.0 - lost);
        (lost < 1.0 && slack < 1.0).then_some(StageMean {
            epsilon,
            centre_error: a,
            clip_radius,
            noise_scale,
            grid,
            accuracy,
            offset,
            slack,
        })
    }
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
    /// The points' corrupted fraction: `eta_p = 2 eta0` on pairs, `eta0` on centred records.
    pub pair_corruption: f64,
    /// The clip: the points are clipped to norm `sqrt(lambda)` in each stage's frame.
    pub lambda: f64,
    /// `Delta_F = sqrt 2 lambda / m`.
    pub sensitivity: f64,
    /// The sampling term `zeta` of the slack `b`.
    pub sampling_slack: f64,
    /// The clipping term of the slack `b`.
    pub clip_bias: f64,
    /// The corruption's loss `eta_p (1 + 2 log(1 / eta_p))`, the last term of the slack `b`.
    pub corruption_loss: f64,
    /// The slack `b = zeta + clip_bias + corruption_loss` of every stage on pairs; on centred
    /// records (with `n` and `eta0`) a lower bound on each stage's own [`StageMean::slack`],
    /// which replaces it.
    pub slack: f64,
    /// The stages, in order.
    pub stages: Vec<PreconditionerStage>,
    /// `kappa_J`: `Sigma ⪯ U_J ⪯ kappa_J Sigma` with probability `1 - beta`.
    pub kappa: f64,
    /// The largest corruption of the points at which every stage still contracts and `b < 1`
    /// at this `n`, `d`, eps (on pairs the records' is half of it; on centred records it is the
    /// records').
    pub tolerated_pair_corruption: f64,
    /// The stages run on centred records ([`Points::Records`]); `None` on pairs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub centring: Option<StageCentring>,
}

impl PreconditionerPlan {
    /// The plan for `points` (pairs, or records centred in each stage's frame) in `R^d` under
    /// the prior `I ⪯ Sigma ⪯ K I` with `eps_pre`, failure probability `beta` and the points'
    /// corruption `eta` (`eta_p = 2 eta0` for pairs, `eta0` for records); no data needed.
    pub fn new(
        points: Points,
        d: usize,
        kappa: f64,
        epsilon: f64,
        beta: f64,
        eta: f64,
        settings: &PreconditionerSettings,
    ) -> Result<Self, LearnError> {
        let count = points.count();
        let df = d as f64;
        let lambda = chi_square_quantile(df, settings.clip_probability);
        let sensitivity = std::f64::consts::SQRT_2 * lambda / count as f64;
        let most = settings.max_stages.max(1);
        // Centred, a quarter of beta goes to the stages' means.
        let beta_moment = match points {
            Points::Pairs(_) => beta,
            Points::Records { .. } => 0.75 * beta,
        };
        // The unit-scale operator-norm quantile of each stage count's noise (independent of the
        // corruption, so computed once per stage count).
        let quantiles: Vec<f64> = (1..=most)
            .map(|j| operator_norm_quantile(d, beta_moment / (2.0 * j as f64), &settings.quantiles))
            .collect();
        let base = Candidates {
            points,
            d,
            kappa,
            epsilon,
            beta,
            beta_moment,
            lambda,
            sensitivity,
            quantiles,
            settings,
        };
        let counts = match settings.stages.map(|j| j.clamp(1, most)) {
            Some(j) => j..=j,
            None => 1..=most,
        };
        let plans: Vec<PreconditionerPlan> = counts.filter_map(|j| base.plan(j, eta)).collect();
        let smallest = plans.iter().map(|p| p.kappa).fold(f64::INFINITY, f64::min);
        let best = plans
            .into_iter()
            .filter(|p| p.kappa <= (1.0 + settings.stage_tolerance) * smallest)
            .max_by_key(|p| p.stages.len());
        let Some(mut plan) = best else {
            return Err(LearnError::TooFewSamples(format!(
                "the preconditioner cannot contract at {count} {} in dimension {d} with eps {epsilon} and corruption {eta} of them: \
                 its noise or the corruption's share of the clipped second moment is too large (MATH 5.2)",
                points.name()
            )));
        };
        let stages = plan.stages.len();
        // The tolerated corruption at this plan's stage count: bisection on eta.
        let (mut lo, mut hi) = (0.0, 0.5);
        for _ in 0..50 {
            let mid = 0.5 * (lo + hi);
            if base.plan(stages, mid).is_some() {
                lo = mid
            } else {
                hi = mid
            }
        }
        plan.tolerated_pair_corruption = lo;
        Ok(plan)
    }

    /// How many releases the stages make: one per stage on pairs, two (the mean, then `S_j`)
    /// per stage on centred records.
    pub fn release_count(&self) -> usize {
        self.stages.len() * if self.centring.is_some() { 2 } else { 1 }
    }

    /// Run the stages on the points `x` (one per row: the pairs, or the projected records of a
    /// centred plan): the frame `U_J` and the stage releases (on centred records, each stage's
    /// mean `v_j` before its `S_j`).
    pub fn release<R: Rng + ?Sized>(
        &self,
        x: &DMatrix<f64>,
        rng: &mut R,
    ) -> (DMatrix<f64>, Vec<StageRelease>) {
        let d = x.ncols();
        let origin = vec![0.0; d];
        let mut frame = DMatrix::identity(d, d) * self.prior;
        let mut centre = DVector::zeros(d);
        let mut releases = Vec::with_capacity(self.release_count());
        for (j, stage) in self.stages.iter().enumerate() {
            let w = spd_power(&frame, -0.5);
            let centred;
            let points = match &stage.mean {
                None => x,
                Some(mean) => {
                    let clipped = whitened_clipped(x, &centre, &w, mean.clip_radius);
                    let v = additive_release(
                        &clipped,
                        &origin,
                        mean.clip_radius,
                        mean.noise_scale,
                        mean.grid,
                        rng,
                    );
                    centre += spd_power(&frame, 0.5) * DVector::from_column_slice(&v);
                    releases.push(StageRelease {
                        step: format!(
                            "preconditioner {} mean (v_j, in the frame of U_j around mu_j)",
                            j + 1
                        ),
                        release: v,
                    });
                    centred = DMatrix::from_fn(x.nrows(), d, |i, k| x[(i, k)] - centre[k]);
                    &centred
                }
            };
            let noisy = clipped_second_moment(points, &w, self.lambda)
                + frobenius_noise::sample(d, stage.noise_scale, rng);
            let mut release = svec_of(&noisy);
            let box_centre = vec![0.0; release.len()];
            snap::snap(&mut release, &box_centre, stage.box_half_width, stage.grid);
            frame = self.next_frame(&frame, &matrix_of(&release), stage);
            releases.push(StageRelease {
                step: format!("preconditioner {} (S_j, in the frame of U_j)", j + 1),
                release,
            });
        }
        (frame, releases)
    }

    /// Step 3: `U_{j+1} = U_j^{1/2} (S_j + (nu_j + r_j) I) U_j^{1/2} / (1 - b)`, symmetrised,
    /// eigenvalues clamped below at 1 (`b` the stage's own slack on centred records).
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
                / (1.0 - stage.mean.as_ref().map_or(self.slack, |m| m.slack));
        let eig = (0.5 * (&next + next.transpose())).symmetric_eigen();
        &eig.eigenvectors
            * DMatrix::from_diagonal(&eig.eigenvalues.map(|v| v.max(1.0)))
            * eig.eigenvectors.transpose()
    }

    /// The frame `U_J` from the stage releases in the order [`Self::release`] made them (the
    /// `S_j` in `svec`, each after its mean on centred records), as it computed it:
    /// post-processing of the release, so anyone holding it can recompute the frame.
    pub fn frame_from_releases(&self, releases: &[Vec<f64>]) -> DMatrix<f64> {
        let per_stage = self.release_count() / self.stages.len().max(1);
        let moments: Vec<&Vec<f64>> = releases
            .iter()
            .skip(per_stage - 1)
            .step_by(per_stage)
            .collect();
        let d = moments.first().map_or(0, |r| matrix_of(r).nrows());
        let mut frame = DMatrix::identity(d, d) * self.prior;
        for (stage, s) in self.stages.iter().zip(moments) {
            frame = self.next_frame(&frame, &matrix_of(s), stage);
        }
        frame
    }
}
