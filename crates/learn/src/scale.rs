//! The covariance's scale without a prior (MATH.md 5.5 (a), the scale): a pure `eps_s`-DP
//! release of a public variance unit `u` such that, for records from `N(mu, Sigma)` whose
//! condition number is at most a public `C`, `u I ⪯ Sigma ⪯ kappa u I` with a public `kappa`.
//! A learner with a covariance prior (the Gaussian, the covariance: [`Scaled`]) then runs on the
//! records divided by `sqrt(u)`, with the prior `I ⪯ Sigma / u ⪯ kappa I`, instead of a user's
//! `I ⪯ Sigma ⪯ K I` in units nobody wrote down.
//!
//! **Statistic.** Shuffle the records by a uniformly random permutation (public randomness, as
//! the learners do: a file sorted by some column would otherwise pair similar records), then
//! pair them in that order, `(x_1, x_2), (x_3, x_4), ...`: `m = floor(n / 2)` pairs. For every
//! fixed permutation the mechanism below is `eps_s`-DP, so its mixture over permutations is. For a pair of clean draws, `z = x_2i - x_2i-1 ~ N(0, 2 Sigma)` and `X = |z|^2 / 2
//! = sum_k lambda_k g_k^2` (`lambda_k` the eigenvalues of `Sigma`, `g_k` standard normal), so
//! `lambda_max g^2 ⪯ X ⪯ lambda_max chi^2_d` in the stochastic order. The mechanism releases a
//! bin of a public grid holding the `tau`-quantile of the `m` values `v_i = log2 X_i`, for a
//! public level `tau` the plan chooses (below).
//!
//! **Mechanism** (the exponential mechanism for a quantile; a deviation from the stable
//! histogram MATH.md 5.5 (a) names: it needs no delta and never refuses). The grid's edges are
//! `e_j = -L + j w`, `j = 0..J`, `J = ceil(2 L / w)`, `L` = [`GRID_LIMIT`], `w` public (default
//! 1/4); its `J + 2` bins are `(-inf, e_0)`, `[e_{j-1}, e_j)` and `[e_J, inf)`. With `r(y) =
//! #{i : v_i < y}` (`r(-inf) = 0`, `r(inf) = m`) and `t = tau m`, the bin `b = [l, h)` has the
//! utility `u(b) = -max(0, r(l) - t, t - r(h))`: 0 for the bin of the quantile, minus the number
//! of values between it and the quantile otherwise. Replacing one record moves one `v_i`, so every
//! `r(y)` by at most 1 and every utility by at most 1: sampling `b` with probability
//! proportional to `exp(eps_s u(b) / 2)` is `eps_s`-DP (McSherry-Talwar 2007). The release is
//! the bin's index, a point of a public grid.
//!
//! **Accuracy** (with probability `1 - beta_s`, half for each event). The largest utility is 0,
//! so `P(u(b) <= -Delta) <= (J + 2) exp(-eps_s Delta / 2) = beta_s / 2` for
//! `Delta = 2 log(2 (J + 2) / beta_s) / eps_s`. By the DKW inequality the `m` pairs drawn before
//! the adversary acted have `|F_m(y) - F(y)| <= s = sqrt(log(4 / beta_s) / (2 m))` for every `y` (`F` the law
//! of `v`); the adversary, holding `eta0 n` records, changes at most `eta_p m = eta0 n` pairs.
//! On these events `r(h) > t - Delta` and `r(l) < t + Delta`, so
//! `F(h) > p_1 = tau - Delta / m - eta_p - s` and `F(l) < p_2 = tau + Delta / m + eta_p + s`,
//! and by the stochastic order
//!
//! - `2^h > lambda_max q_1`, `q_1` the `p_1`-quantile of chi-square with 1 degree of freedom;
//! - `2^l < lambda_max q_d`, `q_d` the `p_2`-quantile of chi-square with `d` degrees of freedom.
//!
//! With `lambda_min >= lambda_max / C`, the unit `u = 2^l / (C q_d)` and `kappa = 2^w C q_d /
//! q_1` give `u I ⪯ Sigma ⪯ kappa u I`. `kappa` depends on `(n, d, eps_s, eta0, beta_s, C, w)`
//! only: it is in the public plan, and the data choose only `u`.
//!
//! **The level.** The plan takes the `tau` in `{0.50, 0.51, ..., 0.99}` (with `0 < p_1`, `p_2 <
//! 1`) that minimises `q_d / q_1`: near the median `q_d / q_1` is about `2.2 d` (`chi^2_1` puts
//! much of its mass near 0), while in the upper tail the two quantiles come closer (`d = 10`,
//! `n = 100000`, `eps_s = 0.1`: `tau = 0.97`, `q_d / q_1` 5.3 against 22 at the median).
//!
//! **End bins.** An end bin stands for its finite edge (`l = e_0 - w` or `l = e_J`); it is
//! released on these events only when `lambda_max` lies outside the grid's range
//! `[2^{e_0} / q_1, 2^{e_J} / q_d]` ([`ScalePlan::range`], within a few factors of 2 of
//! `2^-900` and `2^900`), the one assumption of this step besides the condition number's.
use crate::covariance::PrivateCovariance;
use crate::learner::{Learner, Plan, check_size};
use crate::localise::BALL_PRIOR;
use crate::privacy::{Privacy, check_shares, seeded_rng};
use crate::release::{AccuracyBound, Fit, Release, StageRelease, scaled_guarantee};
use crate::special::chi_square_quantile;
use crate::{LearnError, check_data};
use nalgebra::DMatrix;
use rand::{Rng, RngExt};
use serde::Serialize;
use sosdp_sampler::Progress;
use std::ops::ControlFlow;

/// The grid's half-range `L` in `log2` of a variance: `2^{±L}` and the unit's powers are far
/// inside the range of doubles (a release multiplies an estimate of order `kappa` by `u`).
pub const GRID_LIMIT: f64 = 900.0;

/// The condition number bound `C` the command line and the Python package assume when neither
/// `K` nor `C` is given: generous, since `K` grows only linearly in `C` and the preconditioner's
/// stages shrink it geometrically (d = 5, n = 100000, eps = 2: Mahalanobis-Frobenius 0.030
/// with `C = 1000` against 0.027 with `C = 50`, medians of 3 seeds; at d = 10 it costs more,
/// docs/guide.md).
pub const DEFAULT_CONDITION: f64 = 1000.0;

/// The scale's settings (MATH.md 5.5 (a)); privacy never depends on them, only accuracy.
#[derive(Clone, Debug, PartialEq)]
pub struct ScaleSettings {
    /// The share of eps the scale spends (default 0.05: at n = 100000, eps = 2 its rank error
    /// `Delta` is 279 pairs, 0.6% of them); the learner after it gets the rest.
    pub epsilon_share: f64,
    /// The share of `beta` of the scale's bracket (default 0.25); the learner gets the rest.
    pub beta_share: f64,
    /// The grid's width `w` in `log2` units (default 1/4: the unit is known to a factor
    /// `2^(1/4)`, at the cost of `log(J + 2)` in the rank error).
    pub grid_width: f64,
}

impl Default for ScaleSettings {
    fn default() -> Self {
        ScaleSettings {
            epsilon_share: 0.05,
            beta_share: 0.25,
            grid_width: 0.25,
        }
    }
}

impl ScaleSettings {
    /// Check the shares (in `(0, 1)`) and the width (in `[2^-10, 64]`).
    pub fn validate(&self) -> Result<(), LearnError> {
        check_shares(
            "the scale",
            [
                ("epsilon_share", self.epsilon_share),
                ("beta_share", self.beta_share),
            ],
        )?;
        if !(self.grid_width >= 1.0 / 1024.0 && self.grid_width <= 64.0) {
            return Err(LearnError::InvalidSetting(format!(
                "the scale's grid width (log2 units) must lie in [2^-10, 64], got {}",
                self.grid_width
            )));
        }
        Ok(())
    }

    /// `eps_s = epsilon_share * eps`, the scale's eps.
    pub(crate) fn epsilon(&self, privacy: &Privacy) -> f64 {
        self.epsilon_share * privacy.epsilon
    }

    /// The shared settings of the learner after the scale: eps `eps - eps_s`, the same delta,
    /// beta `(1 - beta_share) beta`, the seed plus two (a localised learner after it takes
    /// that seed and that seed plus one, none of them the scale's).
    pub(crate) fn rest_privacy(&self, privacy: &Privacy) -> Privacy {
        privacy.after_step(self.epsilon(privacy), self.beta_share, 2)
    }

    /// The scale's plan for `n` records in `R^d` whose covariance has condition number at most
    /// `condition`, with `privacy`'s eps (its share), corruption and beta (its share).
    pub fn plan(
        &self,
        privacy: &Privacy,
        n: usize,
        d: usize,
        condition: f64,
    ) -> Result<ScalePlan, LearnError> {
        ScalePlan::new(
            n,
            d,
            self.epsilon(privacy),
            privacy.corruption,
            self.beta_share * privacy.beta,
            condition,
            self.grid_width,
        )
    }
}

/// The scale's public plan: every number of it is computed from `(n, d, eps_s, eta0, beta_s, C,
/// w)` before the data are read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScalePlan {
    /// `eps_s`, the scale's eps (pure: the scale spends no delta).
    pub epsilon: f64,
    /// `C`, the bound on the covariance's condition number the bracket assumes.
    pub condition: f64,
    /// `w`, the grid's width in `log2` units of a variance.
    pub grid_width: f64,
    /// `e_0 = -L`, the grid's lowest edge (`log2`).
    pub lowest_edge: f64,
    /// `J`: the grid has the edges `e_0 + j w`, `j = 0..J`, and `J + 2` bins.
    pub edges: usize,
    /// `m = floor(n / 2)`, the number of pairs.
    pub pairs: usize,
    /// `tau`, the level of the released quantile (chosen by the plan, module docs).
    pub level: f64,
    /// `Delta`: the released bin is within this many values of the quantile's (probability
    /// `1 - beta_s / 2`).
    pub rank_error: f64,
    /// `s`, the DKW deviation of the pairs' empirical law (probability `1 - beta_s / 2`).
    pub sampling_error: f64,
    /// `eta_p = eta0 n / m`, the largest fraction of pairs the adversary touches.
    pub pair_corruption: f64,
    /// `p_1 = tau - Delta / m - eta_p - s` and `p_2 = tau + Delta / m + eta_p + s`: the released
    /// bin's edges bracket these quantiles of the clean pairs' law.
    pub quantiles: [f64; 2],
    /// `q_1`, the `p_1`-quantile of chi-square with 1 degree of freedom.
    pub lower_chi_square: f64,
    /// `q_d`, the `p_2`-quantile of chi-square with `d` degrees of freedom.
    pub upper_chi_square: f64,
    /// `kappa = 2^w C q_d / q_1`: `u I ⪯ Sigma ⪯ kappa u I` for the released unit `u`.
    pub kappa: f64,
    /// `[2^{e_0} / q_1, 2^{e_J} / q_d]`: the bracket assumes `lambda_max` in this range.
    pub range: [f64; 2],
    /// `beta_s`: the probability that the bracket fails under the assumptions.
    pub beta: f64,
}

impl ScalePlan {
    /// The plan for `n` records in `R^d` with `eps_s`, corruption `eta0`, `beta_s`, condition
    /// number at most `condition` and grid width `grid_width`; refused (before the data are
    /// read) when the quantiles `p_1, p_2` leave `(0, 1)`: too few records for `eps_s` and the
    /// corruption.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        n: usize,
        d: usize,
        epsilon: f64,
        eta0: f64,
        beta: f64,
        condition: f64,
        grid_width: f64,
    ) -> Result<Self, LearnError> {
        check_condition(condition)?;
        let pairs = n / 2;
        let m = pairs as f64;
        let edges = (2.0 * GRID_LIMIT / grid_width).ceil() as usize;
        let rank_error = 2.0 * (2.0 * (edges + 2) as f64 / beta).ln() / epsilon;
        let sampling_error = ((4.0 / beta).ln() / (2.0 * m)).sqrt();
        let pair_corruption = eta0 * n as f64 / m;
        let spread = rank_error / m + pair_corruption + sampling_error;
        // (q_d / q_1, tau, [p_1, p_2], q_1, q_d) for the feasible levels; the smallest ratio.
        let best = (50..100)
            .map(|k| k as f64 / 100.0)
            .filter(|tau| tau - spread > 0.0 && tau + spread < 1.0)
            .map(|tau| {
                let quantiles = [tau - spread, tau + spread];
                let q1 = chi_square_quantile(1.0, quantiles[0]);
                let qd = chi_square_quantile(d as f64, quantiles[1]);
                (qd / q1, tau, quantiles, q1, qd)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0));
        let Some((_, level, quantiles, lower_chi_square, upper_chi_square)) = best else {
            return Err(LearnError::InvalidSetting(format!(
                "too few records to find the covariance's scale privately: {pairs} pairs with eps_s = {epsilon} and corruption {eta0} leave even the median's bracket [{}, {}] outside (0, 1) (rank error {rank_error:.0} pairs, sampling error {sampling_error:.3}); give more records, a larger eps, or the prior --kappa",
                0.5 - spread,
                0.5 + spread
            )));
        };
        let kappa = grid_width.exp2() * condition * upper_chi_square / lower_chi_square;
        let lowest_edge = -GRID_LIMIT;
        let top_edge = lowest_edge + edges as f64 * grid_width;
        Ok(ScalePlan {
            epsilon,
            condition,
            grid_width,
            lowest_edge,
            edges,
            pairs,
            level,
            rank_error,
            sampling_error,
            pair_corruption,
            quantiles,
            lower_chi_square,
            upper_chi_square,
            kappa,
            range: [
                lowest_edge.exp2() / lower_chi_square,
                top_edge.exp2() / upper_chi_square,
            ],
            beta,
        })
    }

    /// The number of bins, `J + 2`.
    pub fn bins(&self) -> usize {
        self.edges + 2
    }

    /// The edge `e_j = e_0 + j w`.
    fn edge(&self, j: usize) -> f64 {
        self.lowest_edge + j as f64 * self.grid_width
    }

    /// The unit `u = 2^l / (C q_d)` of bin `b` (`l` its lower edge; `e_0 - w` for the lowest
    /// bin, whose lower edge is `-inf`).
    pub fn unit(&self, bin: usize) -> f64 {
        let lower = if bin == 0 {
            self.lowest_edge - self.grid_width
        } else {
            self.edge(bin - 1)
        };
        lower.exp2() / (self.condition * self.upper_chi_square)
    }

    /// The assumption the bracket adds to a learner's (the condition number's, and the grid's
    /// range).
    pub fn assumption(&self) -> String {
        format!(
            "the covariance's condition number is at most C = {} and its largest eigenvalue lies in [{:e}, {:e}]; its scale u is found privately (probability 1 - {}), so that u I ⪯ Sigma ⪯ K u I with K = {}",
            self.condition, self.range[0], self.range[1], self.beta, self.kappa
        )
    }

    /// A learner's accuracy bound on the rescaled records as the scaled fit's: its covariance
    /// prior `I ⪯ Sigma ⪯ K I` replaced by [`ScalePlan::assumption`], the localisation's ball
    /// stated in units of `sqrt(u)`, and the probability `1 - beta` of the whole fit. The
    /// bounds' metrics (`Sigma^-1/2`-whitened) do not change with the units.
    pub(crate) fn qualify(&self, bound: AccuracyBound, privacy: &Privacy) -> AccuracyBound {
        let assumptions = bound
            .assumptions
            .into_iter()
            .map(|a| {
                if a == PrivateCovariance::prior_assumption(self.kappa) {
                    self.assumption()
                } else if a.starts_with(BALL_PRIOR) {
                    format!("{a} (in units of sqrt(u), on the records divided by sqrt(u))")
                } else {
                    a
                }
            })
            .collect();
        AccuracyBound {
            probability: 1.0 - privacy.beta,
            assumptions,
            ..bound
        }
    }

    /// The exponential mechanism's law over the bins for the sorted values `v` (module docs):
    /// probabilities proportional to `exp(eps_s u(b) / 2)`.
    pub fn law(&self, sorted: &[f64]) -> Vec<f64> {
        let t = self.level * sorted.len() as f64;
        let rank = |y: f64| sorted.partition_point(|&v| v < y) as f64;
        let mut below = 0.0;
        let log_weights: Vec<f64> = (0..self.bins())
            .map(|b| {
                let above = if b <= self.edges {
                    rank(self.edge(b))
                } else {
                    sorted.len() as f64
                };
                let utility = -(below - t).max(t - above).max(0.0);
                below = above;
                0.5 * self.epsilon * utility
            })
            .collect();
        let top = log_weights
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = log_weights.iter().map(|l| (l - top).exp()).collect();
        let total: f64 = weights.iter().sum();
        weights.into_iter().map(|w| w / total).collect()
    }
}

/// Refuse a condition number bound that is not finite or below 1.
pub(crate) fn check_condition(condition: f64) -> Result<(), LearnError> {
    if condition.is_finite() && condition >= 1.0 {
        return Ok(());
    }
    Err(LearnError::InvalidSetting(format!(
        "the condition number bound C must be finite and at least 1, got {condition}"
    )))
}

/// `log2(|a - b|^2 / 2)` for two records, formed from the halves `h = a / 2 - b / 2` (no
/// overflow) scaled by their largest entry: `1 + 2 log2 max|h| + log2 |h / max|h||^2`; `-inf`
/// for identical records. Finite records give a value or `-inf`, never NaN.
pub fn log2_half_square_distance(a: &[f64], b: &[f64]) -> f64 {
    let h: Vec<f64> = a.iter().zip(b).map(|(x, y)| 0.5 * x - 0.5 * y).collect();
    let top = h.iter().fold(0.0_f64, |t, v| t.max(v.abs()));
    if top == 0.0 {
        return f64::NEG_INFINITY;
    }
    let norm: f64 = h.iter().map(|v| (v / top) * (v / top)).sum();
    1.0 + 2.0 * top.log2() + norm.log2()
}

/// The values `v_i` of the pairs of rows `(order[0], order[1]), (order[2], order[3]), ...` of
/// `data`, sorted.
pub fn pair_values(data: &DMatrix<f64>, order: &[usize]) -> Vec<f64> {
    let row = |i: usize| -> Vec<f64> { data.row(i).iter().copied().collect() };
    let mut values: Vec<f64> = order
        .chunks_exact(2)
        .map(|pair| log2_half_square_distance(&row(pair[1]), &row(pair[0])))
        .collect();
    values.sort_by(f64::total_cmp);
    values
}

/// One draw from `law` (probabilities over the bins), by inversion of its cumulative sums with
/// one uniform draw.
pub fn draw_bin<R: Rng + ?Sized>(law: &[f64], rng: &mut R) -> usize {
    let draw: f64 = rng.random();
    let mut cumulative = 0.0;
    law.iter()
        .position(|p| {
            cumulative += p;
            cumulative > draw
        })
        .unwrap_or(law.len() - 1)
}

/// The scale with the public `plan` (module docs): shuffle, pair, draw the bin, and return its
/// unit `u` ([`ScalePlan::unit`]).
pub fn locate_scale<R: Rng + ?Sized>(data: &DMatrix<f64>, plan: &ScalePlan, rng: &mut R) -> f64 {
    let order = rand::seq::index::sample(rng, data.nrows(), data.nrows()).into_vec();
    let law = plan.law(&pair_values(data, &order));
    plan.unit(draw_bin(&law, rng))
}

/// The records divided by `sqrt(u)`, each entry clamped into the doubles' finite range (a
/// record that far out is projected by the learner anyway), so that every later step sees
/// finite records.
pub fn rescale_rows(data: &DMatrix<f64>, unit: f64) -> DMatrix<f64> {
    let factor = unit.sqrt().recip();
    data.map(|x| (x * factor).clamp(-f64::MAX, f64::MAX))
}

/// A learner that takes the covariance prior `I ⪯ Sigma ⪯ kappa I` and can run after the
/// scale: on the records divided by `sqrt(u)`, its estimate maps back to the records' units.
pub trait Rescalable: Learner + Clone {
    /// The same learner with the prior `kappa`.
    fn with_kappa(self, kappa: f64) -> Self;

    /// An estimate from the records divided by `sqrt(u)`, in the records' units.
    fn unscale(estimate: Self::Estimate, unit: f64) -> Self::Estimate;
}

/// A learner run after the scale (module docs): the pure `eps_s`-DP scale releases `u`, then
/// `L`, with `eps - eps_s`, `(1 - beta_share) beta` and the public prior `kappa` of the scale's
/// plan, fits the records divided by `sqrt(u)`; its estimate is mapped back
/// ([`Rescalable::unscale`]). The fit's privacy is the composition of the two (delta is all
/// `L`'s). The condition number bound `C` stays an assumption the user states (HKMN23 Theorem
/// 1.4 finds it privately; that is not built): the scale needs no units, only the ratio.
#[derive(Clone, Debug)]
pub struct Scaled<L> {
    privacy: Privacy,
    condition: f64,
    scale: ScaleSettings,
    learner: L,
}

/// The public plan of a [`Scaled`] learner: the scale's, then the learner's on the rescaled
/// records (prior `kappa = scale.kappa`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScaledPlan<P> {
    /// The scale: grid, level, rank error, quantiles, `kappa`, eps and beta shares.
    pub scale: ScalePlan,
    /// The learner's plan on the rescaled records (eps `eps - eps_s`).
    pub learner: P,
}

impl<P: Plan> Plan for ScaledPlan<P> {
    fn steps(&self) -> usize {
        self.learner.steps()
    }
}

impl<L: Rescalable> Scaled<L> {
    /// `learner` (whose shared settings are the fit's, and whose prior `kappa` is replaced by
    /// the scale's) after the scale, with the condition number bound `condition` and the default
    /// [`ScaleSettings`].
    pub fn around(learner: L, condition: f64) -> Self {
        Scaled {
            privacy: learner.privacy(),
            condition,
            scale: ScaleSettings::default(),
            learner,
        }
    }

    /// The scale's settings (default [`ScaleSettings::default`]).
    pub fn scale_settings(mut self, settings: ScaleSettings) -> Self {
        self.scale = settings;
        self
    }

    /// The same, with the learner after the scale changed by `f` (its settings).
    pub fn map_learner(mut self, f: impl FnOnce(L) -> L) -> Self {
        self.learner = f(self.learner);
        self
    }

    /// The learner after the scale, with the prior `kappa` on the rescaled records
    /// ([`ScaleSettings::rest_privacy`]).
    fn after_scale(&self, kappa: f64) -> L {
        self.learner
            .clone()
            .with_privacy(self.scale.rest_privacy(&self.privacy))
            .with_kappa(kappa)
    }

    /// The plan for validated settings: the scale's, then the learner's with its `kappa`
    /// (refused, before the data, when that `kappa` is out of the learner's range or needs more
    /// records).
    fn scaled_plan(&self, n: usize, d: usize) -> Result<ScaledPlan<L::Plan>, LearnError> {
        let scale = self.scale.plan(&self.privacy, n, d, self.condition)?;
        let learner = self.after_scale(scale.kappa).plan(n, d).map_err(|e| {
            let context = format!(
                "the scale's bracket (K = {:.0}, about {:.1} times the condition bound C = {}: a smaller C, or --kappa in the data's units, lowers it)",
                scale.kappa,
                scale.kappa / self.condition,
                self.condition
            );
            match e {
                LearnError::InvalidSetting(reason) => LearnError::InvalidSetting(format!(
                    "{context} is too wide for the learner: {reason}"
                )),
                LearnError::TooFewSamples(reason) => {
                    LearnError::TooFewSamples(format!("{context}: {reason}"))
                }
                e => e,
            }
        })?;
        Ok(ScaledPlan { scale, learner })
    }
}

impl<L: Rescalable> Learner for Scaled<L> {
    type Estimate = L::Estimate;
    type Plan = ScaledPlan<L::Plan>;

    fn privacy(&self) -> Privacy {
        self.privacy
    }

    fn with_privacy(self, privacy: Privacy) -> Self {
        Scaled { privacy, ..self }
    }

    fn validate(&self) -> Result<(), LearnError> {
        self.privacy.validate()?;
        self.scale.validate()?;
        check_condition(self.condition)?;
        // The learner's own checks (delta, shares), with a placeholder kappa: the plan checks
        // the scale's.
        self.after_scale(1.0).validate()
    }

    fn plan(&self, n: usize, d: usize) -> Result<Self::Plan, LearnError> {
        self.validate()?;
        check_size(n, d)?;
        self.scaled_plan(n, d)
    }

    /// Progress steps: the learner's (the scale is one pass over the data).
    fn fit_with_progress(
        &self,
        data: &DMatrix<f64>,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<Fit<Self::Estimate, Self::Plan>, LearnError> {
        let (n, d) = data.shape();
        self.validate()?;
        check_data(data)?;
        let plan = self.scaled_plan(n, d)?;
        let mut rng = seeded_rng(self.privacy.seed)?;
        let unit = locate_scale(data, &plan.scale, &mut rng);
        let fit = self
            .after_scale(plan.scale.kappa)
            .fit_with_progress(&rescale_rows(data, unit), progress)?;
        let inner = fit.release;
        let mut stage_releases = vec![StageRelease {
            step: "scale unit u (records divided by sqrt(u) after it)".into(),
            release: vec![unit],
        }];
        stage_releases.extend(inner.stage_releases);
        let accuracy = inner
            .accuracy
            .into_iter()
            .map(|bound| plan.scale.qualify(bound, &self.privacy))
            .collect();
        let release = Release {
            estimate: L::unscale(inner.estimate, unit),
            epsilon: self.privacy.epsilon,
            delta: self.privacy.delta,
            guarantee: scaled_guarantee(
                self.privacy.epsilon,
                self.privacy.delta,
                plan.scale.epsilon,
                &inner.guarantee,
            ),
            plan,
            stage_releases,
            accuracy,
            refusal: inner.refusal,
        };
        Ok(Fit {
            release,
            diagnostics: fit.diagnostics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log of half the squared distance agrees with the direct formula, and extreme or
    /// identical records give finite values or `-inf`, never NaN or `+inf`.
    #[test]
    fn half_square_distances_are_exact_and_never_overflow() {
        let (a, b) = ([3.0, -1.0, 2.0], [1.0, 1.0, 0.5]);
        let direct = ((4.0 + 4.0 + 2.25) / 2.0_f64).log2();
        assert!((log2_half_square_distance(&a, &b) - direct).abs() < 1e-14);
        let v = log2_half_square_distance(&[f64::MAX, -f64::MAX], &[-f64::MAX, f64::MAX]);
        assert!(v.is_finite() && v > 2048.0, "{v}");
        assert_eq!(log2_half_square_distance(&a, &a), f64::NEG_INFINITY);
        let tiny = log2_half_square_distance(&[f64::MIN_POSITIVE * 1e-10], &[0.0]);
        assert!(tiny.is_finite() && tiny < -1000.0, "{tiny}");
    }

    /// The plan's numbers: `kappa = 2^w C q_d / q_1` at the chosen level, which beats the
    /// median's ratio (d = 5 and 10, n = 100000), with the quantiles `tau -+ spread`; refusal
    /// when there are too few pairs or `C < 1`.
    #[test]
    fn the_plan_chooses_the_level_with_the_tightest_bracket() {
        for d in [5, 10] {
            let plan = ScalePlan::new(100_000, d, 0.1, 0.0, 0.0125, 50.0, 0.25).unwrap();
            assert_eq!(plan.bins(), 7202);
            let spread = plan.level - plan.quantiles[0];
            assert!((plan.quantiles[1] - plan.level - spread).abs() < 1e-12);
            assert!(spread > 0.0 && spread < 0.03, "{plan:?}");
            let kappa = 0.25f64.exp2() * 50.0 * plan.upper_chi_square / plan.lower_chi_square;
            assert!((plan.kappa - kappa).abs() < 1e-9 * kappa);
            let median = chi_square_quantile(d as f64, 0.5 + spread)
                / chi_square_quantile(1.0, 0.5 - spread);
            let ratio = plan.upper_chi_square / plan.lower_chi_square;
            println!(
                "d {d}: level {} ratio {ratio:.2}, median's {median:.2}, kappa {:.0}",
                plan.level, plan.kappa
            );
            assert!(plan.level > 0.5 && ratio < 0.5 * median, "{plan:?}");
        }
        assert!(ScalePlan::new(200, 5, 0.1, 0.0, 0.0125, 50.0, 0.25).is_err());
        assert!(ScalePlan::new(100_000, 5, 0.1, 0.0, 0.0125, 0.5, 0.25).is_err());
    }
}
