//! One stage of a staged CM learner (MATH.md 5.1 and 5.3): the CM mechanism over the ball
//! `B(c, r)` intersected with the CM domain ellipsoid `{theta : (theta - c)^T Gamma^{-1}
//! (theta - c) <= 1}` (and, optionally, a further data-independent domain), started at the
//! public centre `c` (MATH.md 4.7b: no chain starts at a point computed from the data; the
//! score's minimiser is not computed). The private mean runs it on the records, the Frobenius
//! refinement on lifted points.
use crate::LearnError;
use nalgebra::DMatrix;
use rand::Rng;
use sosdp_sampler::{
    Ball, Domain, Ellipsoid, Intersection, MechanismSettings, Progress, Release, SamplerKind,
    Start, release,
};
use sosdp_score::{CertifiedMean, FastCm, FastSettings};
use std::ops::ControlFlow;

/// The public parameters of a CM stage.
pub struct CmStage<'a> {
    /// The centre `c` of the stage's ball and of the score.
    pub centre: &'a [f64],
    /// The radius `r` of the ball `B(c, r)`.
    pub radius: f64,
    /// `Gamma = gamma I`.
    pub gamma: f64,
    /// The stage's share of eps.
    pub epsilon: f64,
    /// The sampling path.
    pub sampler: SamplerKind,
    /// The settings of the stage's fast CM score.
    pub score: FastSettings,
}

/// Run the stage on `points` (one per row), within `extra` when given (whose constraint must
/// hold at the centre), from the public start `c`. The points are dropped once the score oracle
/// holds its own copy, so a stage's peak memory has one copy of the (lifted) points, not two.
/// A `Break` from `progress` stops the stage with [`LearnError::Cancelled`] (no release).
pub fn run_cm_stage<R: Rng + ?Sized>(
    points: DMatrix<f64>,
    stage: &CmStage,
    extra: Option<Box<dyn Domain + Send + Sync>>,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Release, LearnError> {
    let dim = stage.centre.len();
    let gamma = DMatrix::identity(dim, dim) * stage.gamma;
    let oracle = FastCm::new(CertifiedMean::new(&points, stage.centre, &gamma)?)
        .with_settings(stage.score.clone());
    drop(points);
    let mut parts: Vec<Box<dyn Domain + Send + Sync>> = vec![
        Box::new(Ball::new(stage.centre.to_vec(), stage.radius)?),
        Box::new(Ellipsoid::new(stage.centre.to_vec(), &gamma)?),
    ];
    parts.extend(extra);
    let domain = Intersection::new(parts)?;
    // The public start: the centre, with the score's maximum as its (always valid) upper
    // bound; the chain's first level index is decided exactly there.
    let start = Start {
        theta: stage.centre.to_vec(),
        score_upper: sosdp_score::ScoreOracle::max_score(&oracle),
    };
    let mut settings = MechanismSettings::new(stage.epsilon, dim)?;
    settings.sampler = stage.sampler;
    Ok(release(&oracle, &domain, &start, &settings, rng, progress)?)
}
