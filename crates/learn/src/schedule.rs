//! The data-independent stage schedule of the private mean (MATH.md 5.1).
//!
//! Every quantity here depends only on `(n, d, eps, R, eta0, beta)`, never on the data, so the
//! privacy split and the stage radii are public. With `J` stages, stage `j` gets
//! `eps_j = eps q^j / sum_k q^k` for the split ratio `q` among [`Constants::split_ratios`] that
//! gives the smallest final radius (`q = 1`, the even split, on ties). Stage
//! `j` has radius `r_j` (`r_0 = R`); its release has score at most
//! `k*_j = (2 / eps_j) (d log(r_j / rho) + log(J / beta))` with probability `1 - beta / J`
//! (Lemma 2.1, `rho` = the statistical radius of the low-score set), hence effective
//! corruption `eta'_j = eta0 + k*_j / n`, and by MATH.md 2.1 (property 3) accuracy
//!
//! ```text
//! r_{j+1} = safety * (sqrt(eta' B) + eta' sqrt(B) + eta' sqrt(log(1/eta'))) + floor,
//! B = delta_n + r_j^2 + eta' (1 + log(1/eta')),
//! ```
//!
//! with `delta_n` the sampling slack of `Gamma_j = (1 + delta_n + r_j^2) I`.
//!
//! **Additive stages** (MATH.md 5.1). A stage may instead release the mean of the records
//! projected onto `B(c_j, r_j + rho_n)` plus norm noise of scale `Delta / eps_j`,
//! `Delta = 2 (r_j + rho_n) / n` ([`crate::norm_noise`]): pure `eps_j`-DP, with accuracy
//! `t_j + 2 eta0 (r_j + rho_n) + sqrt(d / n) + sqrt(2 log(2 / beta_j) / n)` (the noise radius
//! exceeded with probability `beta_j / 2`, the bias of `eta0 n` replaced records, the clean
//! mean's deviation with probability `beta_j / 2`; `beta_j = beta / J`). No constant is
//! calibrated here: the bound is the mechanism's own. Each stage uses the mechanism with the
//! smaller accuracy, chosen before the data are read; the additive one wins while `r_j` is
//! large (its error grows like `r_j d / (eps_j n)`, CM's like `sqrt(eta') r_j`), CM once the
//! corruption bias or the noise dominates.
//!
//! Among schedules
//! in which every stage at least halves the radius, the number of stages `J <= max_stages` is
//! the smallest whose final radius is within a factor `1 + stage_tolerance` of the best one
//! (each stage costs a full mechanism run, and fewer stages leave more eps per stage). The
//! constants are [`Constants`], calibrated in docs/calibration.md; privacy never depends on
//! them, only accuracy and running time do.
use crate::norm_noise::radius_quantile;
use crate::projection::clean_radius;
use crate::snap;
use serde::Serialize;
use sosdp_sampler::{ChainRule, MechanismSettings};

/// The constants of the schedule (see docs/calibration.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Constants {
    /// Multiplier of the accuracy bound.
    pub safety: f64,
    /// `delta_n = slack * (sqrt(d/n) + sqrt(2 log(2/beta) / n)) + corruption_slack * 2 eta0 log(e / eta0)`.
    pub slack: f64,
    /// Multiplier of the corruption term of `delta_n` (see `slack`).
    pub corruption_slack: f64,
    /// `rho = rho_scale * sqrt(d / n)`, the radius of the low-score set.
    pub rho_scale: f64,
    /// The radius floor: `floor_scale * sqrt(d / n)`.
    pub floor_scale: f64,
    /// The largest number of stages `J` a schedule may have.
    pub max_stages: usize,
    /// The largest prior radius `R` the stages accept, in units of the records' standard
    /// deviation (default 3000): the first stage's `Gamma = (1 + delta_n + R^2) I` must stay in
    /// the range where the solves resolve unit-variance data in double precision. A larger prior
    /// must be reduced first (centre the data at a public guess of the mean).
    pub max_radius: f64,
    /// The largest covariance prior `K` (`I ⪯ Sigma ⪯ K I`) the covariance learner accepts
    /// (default `1e6`): the preconditioner's running time and its `kappa_J` grow with `K`, so
    /// keep `K` as small as the data allow.
    pub max_kappa: f64,
    /// Fewest stages whose final radius is within `1 + stage_tolerance` of the best.
    pub stage_tolerance: f64,
    /// The eps splits the plan chooses among: with ratio `q`, stage `j` of `J` gets
    /// `eps q^j / sum_k q^k` (`q = 1`: the even split; `q > 1`: later stages, which shrink a
    /// smaller ball, get more). Default `[1, 1.5, 2, 3, 4]`.
    pub split_ratios: Vec<f64>,
}

impl Default for Constants {
    fn default() -> Self {
        Constants {
            safety: 0.6,
            slack: 2.0,
            corruption_slack: 0.0,
            rho_scale: 1.0,
            floor_scale: 2.0,
            max_stages: 6,
            max_radius: 3000.0,
            max_kappa: 1e6,
            stage_tolerance: 0.1,
            split_ratios: vec![1.0, 1.5, 2.0, 3.0, 4.0],
        }
    }
}

/// How a planned stage releases its centre, with the terms of its accuracy bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum StageMechanism {
    /// The CM exponential mechanism (MATH.md 1, 2.1) over the stage's ball.
    Cm {
        /// `Gamma = gamma I`.
        gamma: f64,
        /// The score bound `k*` of the release (Lemma 2.1).
        score_bound: f64,
        /// The bound's deviation term before the safety factor (what calibration measures
        /// errors against): the stage's accuracy is `min(safety * deviation + floor, radius)`.
        deviation: f64,
        /// The chain's public start and length (MATH.md 4.7b).
        chain: ChainRule,
    },
    /// The mean of the projected records plus norm noise (MATH.md 5.1, additive stages),
    /// snapped to a public grid ([`crate::snap`]): pure eps_j-DP without halving (up to the
    /// snapping's relative excess `2^-49 B / Delta`, below 1e-6); accuracy
    /// `noise_bound + corruption_bias + sampling + rounding`.
    Additive {
        /// The noise's scale `Delta / eps_j`, `Delta = 2 projection_radius / n` the l2
        /// sensitivity of the projected mean ([`crate::norm_noise`]).
        noise_scale: f64,
        /// The release's grid: the smallest power of two `>= noise_scale`; every released
        /// coordinate is a multiple of it, clamped into the box `centre +- radius` (widened to
        /// grid points).
        grid: f64,
        /// `grid sqrt(d) / 2`: how far snapping can move the release.
        rounding: f64,
        /// The noise radius exceeded with probability `beta_j / 2`.
        noise_bound: f64,
        /// `2 eta0 projection_radius`: how far `eta0 n` replaced records can move the
        /// projected mean.
        corruption_bias: f64,
        /// The clean records' mean's distance to `mu`, exceeded with probability `beta_j / 2`:
        /// `sqrt(1 + excess) (sqrt(d / n) + sqrt(2 log(2 / beta_j) / n))`.
        sampling: f64,
    },
}

/// One planned stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlannedStage {
    /// The stage's share of eps (`eps q^j / sum_k q^k`, the plan's split ratio `q`).
    pub epsilon: f64,
    /// Radius of the stage's domain ball (the release is in `B(centre, radius)`).
    pub radius: f64,
    /// The stage's mechanism and the terms of its bound: chosen by the plan as the one with the
    /// smaller accuracy (additive stages win while the radius is large).
    pub mechanism: StageMechanism,
    /// The accuracy bound of the release (the next stage's radius), at most `radius`.
    pub accuracy: f64,
    /// Every record is projected onto `B(centre, projection_radius)` before the stage sees it
    /// ([`crate::projection`]): `radius + sqrt(1 + excess) rho_n`, with
    /// `rho_n = sqrt(d) + sqrt(2 log(4 n / beta))`, holds the clean records with probability
    /// `1 - beta / 4` when the centre is within `radius` of the mean.
    pub projection_radius: f64,
}

/// The whole plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Schedule {
    /// The sampling slack `delta_n` of every stage's `Gamma`.
    pub delta_n: f64,
    /// The stages, in order.
    pub stages: Vec<PlannedStage>,
}

impl Schedule {
    /// The accuracy bound of the final release.
    pub fn accuracy(&self) -> f64 {
        self.stages.last().map_or(f64::INFINITY, |s| s.accuracy)
    }
}

#[allow(clippy::too_many_arguments)]
fn plan(
    n: f64,
    d: f64,
    epsilon: f64,
    radius: f64,
    eta0: f64,
    beta: f64,
    stages: usize,
    ratio: f64,
    c: &Constants,
    delta_n: f64,
    spread: f64,
    excess: f64,
    additive: bool,
) -> Option<Schedule> {
    let rho = c.rho_scale * (d / n).sqrt();
    let floor = c.floor_scale * (d / n).sqrt();
    let total: f64 = (0..stages).map(|j| ratio.powi(j as i32)).sum();
    let beta_j = beta / stages as f64;
    let mut r = radius;
    let mut out = Vec::with_capacity(stages);
    for j in 0..stages {
        let eps_j = epsilon * ratio.powi(j as i32) / total;
        let k_star = 2.0 / eps_j * (d * (r / rho).max(1.0).ln() + (stages as f64 / beta).ln());
        let eta = eta0 + k_star / n;
        let cm = (eta < 0.5).then(|| -> Option<(f64, StageMechanism)> {
            let log_inv = (1.0 / eta).ln();
            let b = delta_n + r * r + eta * (1.0 + log_inv);
            let deviation = (eta * b).sqrt() + eta * b.sqrt() + eta * log_inv.sqrt();
            let chain = MechanismSettings::new(eps_j, d as usize).ok()?.chain_rule();
            let mechanism = StageMechanism::Cm {
                gamma: 1.0 + delta_n + r * r,
                score_bound: k_star,
                deviation,
                chain,
            };
            Some(((c.safety * deviation + floor).min(r), mechanism))
        });
        let projection_radius = r + spread;
        let noise_scale = 2.0 * projection_radius / (n * eps_j);
        let snappable = snap::in_validity_range(noise_scale, r)
            && snap::epsilon_excess(r, 2.0 * projection_radius / n) < snap::MAX_EPSILON_EXCESS;
        let additive = (additive && snappable).then(|| {
            let noise_bound = radius_quantile(d as usize, noise_scale, 0.5 * beta_j);
            let corruption_bias = 2.0 * eta0 * projection_radius;
            let sampling =
                (1.0 + excess).sqrt() * ((d / n).sqrt() + (2.0 * (2.0 / beta_j).ln() / n).sqrt());
            let grid = snap::grid(noise_scale);
            let rounding = snap::rounding_bound(grid, d as usize);
            let mechanism = StageMechanism::Additive {
                noise_scale,
                grid,
                rounding,
                noise_bound,
                corruption_bias,
                sampling,
            };
            (
                (noise_bound + corruption_bias + sampling + rounding).min(r),
                mechanism,
            )
        });
        let cm = cm.flatten();
        let (next, mechanism) = match (cm, additive) {
            (Some(a), Some(b)) => {
                if b.0 < a.0 {
                    b
                } else {
                    a
                }
            }
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return None,
        };
        out.push(PlannedStage {
            epsilon: eps_j,
            radius: r,
            mechanism,
            accuracy: next,
            projection_radius,
        });
        if out.len() < stages && next > 0.5 * r {
            return None;
        }
        r = next;
    }
    Some(Schedule {
        delta_n,
        stages: out,
    })
}

/// The best schedule for `(n, d, eps, R, eta0, beta)`, or `None` when no number of stages
/// yields a release more accurate than the prior radius (too few samples).
/// `excess` widens `Gamma` (and `delta_n`): a bound on `|Cov - I|_op` of the clean records
/// beyond sampling (0 for identity covariance).
///
/// The failure probability `beta` is split: `beta / 4` for the per-record projection (the
/// clean records lie in the projection balls), `3 beta / 4` for the stages' accuracy bounds.
#[allow(clippy::too_many_arguments)]
pub fn schedule(
    n: usize,
    d: usize,
    epsilon: f64,
    radius: f64,
    eta0: f64,
    beta: f64,
    excess: f64,
    c: &Constants,
    additive: bool,
) -> Option<Schedule> {
    let (nf, df) = (n as f64, d as f64);
    let spread = (1.0 + excess).sqrt() * clean_radius(n, d, 0.25 * beta);
    let beta = 0.75 * beta;
    let delta_n = excess
        + c.slack * ((df / nf).sqrt() + (2.0 * (2.0 / beta).ln() / nf).sqrt())
        + if eta0 > 0.0 {
            c.corruption_slack * 2.0 * eta0 * (std::f64::consts::E / eta0).ln()
        } else {
            0.0
        };
    // For each number of stages, the split with the smallest final radius (the even split
    // first, so that it is kept on ties).
    let plans: Vec<Schedule> = (1..=c.max_stages.max(1))
        .filter_map(|j| {
            std::iter::once(1.0)
                .chain(
                    c.split_ratios
                        .iter()
                        .copied()
                        .filter(|q| *q > 0.0 && *q != 1.0),
                )
                .filter_map(|q| {
                    plan(
                        nf, df, epsilon, radius, eta0, beta, j, q, c, delta_n, spread, excess,
                        additive,
                    )
                })
                .filter(|s| s.accuracy() < radius)
                .min_by(|a, b| a.accuracy().total_cmp(&b.accuracy()))
        })
        .collect();
    let best = plans
        .iter()
        .map(Schedule::accuracy)
        .fold(f64::INFINITY, f64::min);
    plans
        .into_iter()
        .find(|s| s.accuracy() <= (1.0 + c.stage_tolerance.max(0.0)) * best)
}

#[cfg(test)]
mod tests {
    use super::{Constants, schedule};

    /// The chosen split spends exactly eps, never plans worse than the even split, and is
    /// strictly better somewhere (else the search would be vacuous); with only `q = 1` allowed
    /// the plan is the even split.
    #[test]
    fn the_split_spends_eps_and_beats_the_even_split() {
        let even = Constants {
            split_ratios: vec![1.0],
            ..Constants::default()
        };
        let mut better = 0;
        for (n, d, eta) in [
            (2000, 2, 0.0),
            (2000, 5, 0.05),
            (20000, 10, 0.0),
            (20000, 10, 0.05),
            (50000, 50, 0.05),
        ] {
            let chosen = schedule(n, d, 1.0, 10.0, eta, 0.05, 0.0, &Constants::default(), true)
                .expect("a plan");
            let spent: f64 = chosen.stages.iter().map(|s| s.epsilon).sum();
            assert!((spent - 1.0).abs() < 1e-12, "spent {spent}");
            let plain = schedule(n, d, 1.0, 10.0, eta, 0.05, 0.0, &even, true).expect("a plan");
            let j = plain.stages.len() as f64;
            assert!(
                plain
                    .stages
                    .iter()
                    .all(|s| (s.epsilon - 1.0 / j).abs() < 1e-12)
            );
            // The fewest stages within 10% of the best: at most 10% worse than any even plan.
            assert!(chosen.accuracy() <= 1.1 * plain.accuracy(), "{n} {d} {eta}");
            if chosen.accuracy() < 0.97 * plain.accuracy() {
                better += 1;
            }
        }
        assert!(better >= 2, "the split search improved only {better} plans");
    }
}
