//! Calibration of the private mean's constants (MATH.md 5.1, docs/calibration.md).
//!
//! The schedule's stage radii are `r_{j+1} = min(safety * deviation_j + floor_scale *
//! sqrt(d/n), r_j)` with `deviation_j` the accuracy bound of MATH.md 2.1 (property 3) before
//! constants. A stage is *covered* when its release lies within `r_{j+1}` of the true mean:
//! then the next stage's ball contains the truth. Calibration runs the learner on synthetic
//! corrupted Gaussians with known mean, records every stage's error against its deviation
//! term, and recommends the smallest `safety` that would have covered every measured stage,
//! times a margin. The constants are public and data-independent, so privacy never depends
//! on them.
use crate::metrics::l2_error;
use crate::{Adversary, CorruptedSample};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Serialize;
use sosdp_learn::{
    Constants, LearnError, Learner, MeanSettings, Privacy, PrivateMean, StageMechanism,
};
use std::time::Instant;

/// One synthetic configuration: `N(mu, I)` in `R^d` with `|mu| = mean_norm` (equal
/// coordinates), `n` records, a fraction `corruption` replaced by `adversary`.
#[derive(Clone, Debug)]
pub struct Case {
    /// A name for tables.
    pub label: String,
    /// The number of records.
    pub n: usize,
    /// The dimension.
    pub d: usize,
    /// The learner's eps.
    pub epsilon: f64,
    /// The learner's prior radius `R`.
    pub radius: f64,
    /// `|mu|`.
    pub mean_norm: f64,
    /// The fraction of records the adversary replaces (also the learner's bound).
    pub corruption: f64,
    /// The adversary.
    pub adversary: Adversary,
}

impl Case {
    /// The true mean.
    pub fn mean(&self) -> Vec<f64> {
        vec![self.mean_norm / (self.d as f64).sqrt(); self.d]
    }

    /// The dataset of `seed`.
    pub fn sample(&self, seed: u64) -> CorruptedSample {
        let mut rng = StdRng::seed_from_u64(seed);
        CorruptedSample::identity_covariance(
            &mut rng,
            self.n,
            &self.mean(),
            self.corruption,
            &self.adversary,
        )
    }
}

/// One stage of one calibration fit.
#[derive(Clone, Debug, Serialize)]
pub struct StageMeasure {
    /// The case's label.
    pub case: String,
    /// The fit's seed.
    pub seed: u64,
    /// The stage (0-based).
    pub stage: usize,
    /// The number of stages of the fit.
    pub stages: usize,
    /// The stage's planned radius.
    pub radius: f64,
    /// The stage's accuracy bound (the next radius).
    pub bound: f64,
    /// The bound's deviation term (before constants) of a CM stage; `None` for an additive
    /// stage, whose bound is the mechanism's own (no constant to calibrate).
    pub deviation: Option<f64>,
    /// `sqrt(d / n)`.
    pub sqrt_d_over_n: f64,
    /// Distance of the stage's release to the true mean.
    pub error: f64,
    /// Seconds of the whole fit (on the last stage; 0 on the others).
    pub seconds: f64,
}

/// Run `case` with `seed` under `constants` and measure every stage.
pub fn measure(
    case: &Case,
    seed: u64,
    constants: &Constants,
) -> Result<Vec<StageMeasure>, LearnError> {
    let sample = case.sample(seed);
    let truth = case.mean();
    let clock = Instant::now();
    let privacy = Privacy::new(case.epsilon)
        .corruption(case.corruption)
        .seed(seed);
    let fit = PrivateMean::new(privacy, case.radius)
        .settings(MeanSettings {
            constants: constants.clone(),
            ..MeanSettings::default()
        })
        .fit(&sample.data)?;
    let seconds = clock.elapsed().as_secs_f64();
    let stages = fit.release.plan.stages.len();
    let root = (case.d as f64 / case.n as f64).sqrt();
    Ok(fit
        .release
        .plan
        .stages
        .iter()
        .zip(&fit.release.stage_releases)
        .enumerate()
        .map(|(j, (s, r))| StageMeasure {
            case: case.label.clone(),
            seed,
            stage: j,
            stages,
            radius: s.radius,
            bound: s.accuracy,
            deviation: match s.mechanism {
                StageMechanism::Cm { deviation, .. } => Some(deviation),
                StageMechanism::Additive { .. } => None,
            },
            sqrt_d_over_n: root,
            error: l2_error(&r.release, &truth),
            seconds: if j + 1 == stages { seconds } else { 0.0 },
        })
        .collect())
}

/// The recommended constants and the evidence behind them.
#[derive(Clone, Debug, Serialize)]
pub struct Recommendation {
    /// Largest `(error - floor_scale sqrt(d/n)) / deviation` over the measured stages.
    pub worst_ratio: f64,
    /// The factor applied to the worst ratio.
    pub margin: f64,
    /// `margin * worst_ratio`.
    pub safety: f64,
    /// The radius floor's scale `floor_scale` the ratios were measured with.
    pub floor_scale: f64,
    /// Measured stages whose release was outside their planned bound.
    pub uncovered: usize,
    /// The number of measured stages.
    pub measured: usize,
}

/// The smallest safety factor covering every measured CM stage with the floor
/// `floor_scale * sqrt(d/n)`, times `margin`; and how many stages the constants in use missed.
pub fn recommend(measures: &[StageMeasure], floor_scale: f64, margin: f64) -> Recommendation {
    let worst_ratio = measures
        .iter()
        .filter_map(|m| {
            m.deviation
                .map(|dev| ((m.error - floor_scale * m.sqrt_d_over_n) / dev).max(0.0))
        })
        .fold(0.0, f64::max);
    Recommendation {
        worst_ratio,
        margin,
        safety: margin * worst_ratio,
        floor_scale,
        uncovered: measures.iter().filter(|m| m.error > m.bound).count(),
        measured: measures.len(),
    }
}
