//! The slice-sampling fast path (MATH.md 4.5): a Gibbs sampler on pairs `(i, theta)` with
//! weight `(e^{-eps' l_i} - e^{-eps' l_{i+1}}) 1[theta in K_i]` (and `e^{-eps' l_I}` on the top
//! level), whose `theta`-marginal is the target of [`crate::target`]. It alternates
//! 1. given `theta`, `i = i(theta) + G` with `G` geometric, capped at the top
//!    ([`crate::levels::draw_level_above`]); `i(theta)` is found by exact membership
//!    decisions at the levels below the previous body's ([`Target::index_below`]);
//! 2. given `i`, `steps_per_iteration` hit-and-run steps in `K_i` from `theta`.
//!
//! Both steps leave the pair law invariant, so the chain converges to it from any start in
//! `Theta`; no volumes are needed.
use crate::body::Domain;
use crate::error::SamplerError;
use crate::levels::draw_level_above;
use crate::progress::{Progress, report};
use crate::target::Target;
use rand::Rng;
use serde::Serialize;
use sosdp_oracle::ScoreOracle;
use std::ops::ControlFlow;

/// Chain length of the slice path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SliceSettings {
    /// Gibbs iterations (level draw + walk).
    pub iterations: usize,
    /// Hit-and-run steps in the level body per iteration.
    pub steps_per_iteration: usize,
}

/// What the slice path did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SliceRecord {
    /// Gibbs iterations run.
    pub iterations: usize,
    /// The level index of each iteration's body (relative to nothing: raw indices).
    pub level_trace: Vec<i64>,
    /// The level index of the released point.
    pub final_index: i64,
}

/// Run the chain from `start` (inside `Theta`, in the level body of index `start_index`),
/// reporting to `progress` after every iteration; its `Break` stops the chain before the next
/// membership question with [`SamplerError::Cancelled`] ([`crate::progress`]).
pub fn sample<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    target: &Target<O, D>,
    start: &[f64],
    start_index: i64,
    settings: &SliceSettings,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<(Vec<f64>, SliceRecord), SamplerError> {
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

/// [`sample`], handing the state after each iteration to `observe` (a pilot chain's samples,
/// [`crate::mechanism`]'s rounding).
pub fn sample_observed<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    target: &Target<O, D>,
    start: &[f64],
    start_index: i64,
    settings: &SliceSettings,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
    observe: &mut dyn FnMut(&[f64]),
) -> Result<(Vec<f64>, SliceRecord), SamplerError> {
    let mut theta = start.to_vec();
    let mut trace = Vec::with_capacity(settings.iterations);
    // theta lies in K_i for the body i of the previous iteration.
    let mut i = start_index;
    for it in 0..settings.iterations {
        let j = target.index_below(&theta, i)?;
        i = draw_level_above(j, target.top, target.eps, rng);
        trace.push(i);
        target.walk(
            target.levels.level(i),
            &mut theta,
            settings.steps_per_iteration,
            rng,
        )?;
        observe(&theta);
        report(
            progress,
            Progress {
                phase: "slice",
                done: it + 1,
                total: settings.iterations,
            },
        )?;
    }
    let final_index = target.index_below(&theta, i)?;
    Ok((
        theta,
        SliceRecord {
            iterations: settings.iterations,
            level_trace: trace,
            final_index,
        },
    ))
}
