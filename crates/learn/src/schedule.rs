//! The data-independent stage schedule of the private mean (MATH.md 5.1).
//!
//! Every quantity here depends only on `(n, d, eps, R, eta0, beta)`, never on the data, so the
//! privacy split and the stage radii are public. With `J` stages, each gets `eps / J`. Stage
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
//! with `delta_n` the sampling slack of `Gamma_j = (1 + delta_n + r_j^2) I`. Among schedules
//! in which every stage at least halves the radius, the number of stages `J <= max_stages` is
//! the smallest whose final radius is within a factor `1 + stage_tolerance` of the best one
//! (each stage costs a full mechanism run, and fewer stages leave more eps per stage). The
//! constants are [`Constants`], calibrated in docs/calibration.md; privacy never depends on
//! them, only accuracy and running time do.
use crate::projection::clean_radius;
use serde::Serialize;

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
        }
    }
}

/// One planned stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlannedStage {
    /// The stage's share `eps / J` of eps.
    pub epsilon: f64,
    /// Radius of the stage's domain ball.
    pub radius: f64,
    /// `Gamma = gamma I`.
    pub gamma: f64,
    /// The score bound `k*` of the release (Lemma 2.1).
    pub score_bound: f64,
    /// The accuracy bound of the release (the next stage's radius):
    /// `min(safety * deviation + floor, radius)`.
    pub accuracy: f64,
    /// The bound's deviation term before the safety factor (what calibration measures
    /// errors against).
    pub deviation: f64,
    /// Every record is projected onto `B(centre, projection_radius)` before the stage's score
    /// sees it ([`crate::projection`]): `radius + sqrt(1 + excess) rho_n`, with
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
    c: &Constants,
    delta_n: f64,
    spread: f64,
) -> Option<Schedule> {
    let rho = c.rho_scale * (d / n).sqrt();
    let floor = c.floor_scale * (d / n).sqrt();
    let eps_j = epsilon / stages as f64;
    let mut r = radius;
    let mut out = Vec::with_capacity(stages);
    for _ in 0..stages {
        let k_star = 2.0 / eps_j * (d * (r / rho).max(1.0).ln() + (stages as f64 / beta).ln());
        let eta = eta0 + k_star / n;
        if eta >= 0.5 {
            return None;
        }
        let log_inv = (1.0 / eta).ln();
        let b = delta_n + r * r + eta * (1.0 + log_inv);
        let deviation = (eta * b).sqrt() + eta * b.sqrt() + eta * log_inv.sqrt();
        let next = (c.safety * deviation + floor).min(r);
        out.push(PlannedStage {
            epsilon: eps_j,
            radius: r,
            gamma: 1.0 + delta_n + r * r,
            score_bound: k_star,
            accuracy: next,
            deviation,
            projection_radius: r + spread,
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
    let plans: Vec<Schedule> = (1..=c.max_stages.max(1))
        .filter_map(|j| plan(nf, df, epsilon, radius, eta0, beta, j, c, delta_n, spread))
        .filter(|s| s.accuracy() < radius)
        .collect();
    let best = plans
        .iter()
        .map(Schedule::accuracy)
        .fold(f64::INFINITY, f64::min);
    plans
        .into_iter()
        .find(|s| s.accuracy() <= (1.0 + c.stage_tolerance.max(0.0)) * best)
}
