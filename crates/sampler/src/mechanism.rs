//! The exponential mechanism's entry point (MATH.md 1 and 4): given a score oracle, a
//! data-independent domain `Theta`, eps and sampler settings, draw one release from
//! `pi(theta) ∝ exp(-(eps/2) s~(theta)) 1[theta in Theta]` (levels of [`crate::levels`]) and
//! record what ran.
//!
//! The start ([`Start`]) is given by the caller: for a private release a public point of
//! `Theta` (the stage's centre, MATH.md 4.7b) with the score's maximum as its bound, so no
//! chain starts at a point computed from the data; the slice and MALA paths decide its level
//! index exactly. The layer-cake path (experiments only, `sosdp mechanism`) also uses the
//! bound to end its volume ladder, and is given an anchor (MATH.md 4.2). The start never
//! replaces the release.
use crate::body::Domain;
use crate::counted::{Counted, OracleCalls};
use crate::error::SamplerError;
use crate::harden::harden;
use crate::hit_and_run::{ChainSettings, Directions, rounding_matrix};
use crate::layer_cake::{self, LayerCakeRecord, LayerCakeSettings};
use crate::level_body::LineMove;
use crate::levels::Levels;
use crate::mala::{self, MalaRecord, MalaSettings};
use crate::progress::Progress;
use crate::slice::{self, SliceRecord, SliceSettings};
use crate::target::Target;
use rand::Rng;
use serde::Serialize;
use sosdp_oracle::ScoreOracle;
use std::ops::ControlFlow;
use std::time::Instant;

/// Which sampling path draws the release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SamplerKind {
    /// Volumes and level selection (MATH.md 4.4): the pure-DP construction of HKMN23.
    LayerCake,
    /// Gibbs sampling on (level, theta) (MATH.md 4.5): no volumes, faster.
    Slice,
    /// Metropolis-adjusted Langevin steps with a frozen Gaussian surrogate, interleaved with
    /// slice iterations (MATH.md 4.8, [`crate::mala`]): fewer oracle calls per effective
    /// sample at larger d.
    Mala,
}

/// How hit-and-run draws directions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DirectionSetting {
    /// Uniform on the unit sphere.
    Isotropic,
    /// A uniformly chosen coordinate axis.
    Coordinate,
    /// A pilot of this many slice iterations with isotropic directions from the start (its
    /// burn-in), then the rounding matrix of its second half's states
    /// ([`crate::hit_and_run::rounding_matrix`]) for the counted chain, which continues from
    /// the pilot's last state ([`Directions::Rounded`]: half the steps still isotropic).
    /// Adaptation stops before the counted iterations, so they are a fixed kernel.
    Rounded {
        /// Pilot iterations (the slice path's, whatever the path of the counted chain).
        pilot: usize,
    },
}

/// Everything that shapes a release.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MechanismSettings {
    /// The privacy parameter the user asked for (the sampler uses `eps / 2`, MATH.md 1).
    pub epsilon: f64,
    /// Which path draws the release (default slice).
    pub sampler: SamplerKind,
    /// Chain length of the slice path.
    pub slice: SliceSettings,
    /// Settings of the layer-cake path.
    pub layer_cake: LayerCakeSettings,
    /// Chain lengths and tuning of the MALA path.
    pub mala: MalaSettings,
    /// How hit-and-run draws directions.
    pub directions: DirectionSetting,
    /// How a step finds its point on the line.
    pub line: LineMove,
    /// Grid step of the level offset `kappa` (MATH.md 4.1's `zeta_k`).
    pub level_grid: f64,
    /// Hardening grid as a fraction of the domain's radius (MATH.md 4.6).
    pub hardening: f64,
    /// Width, in points of score, up to which the bracket of a level index by evaluation may
    /// stay ([`Target::index_accuracy`]; the MALA path finds the index of each proposal by
    /// evaluation): the levels it contains are then decided exactly, so the chain does not
    /// depend on it (except through the tie band of MATH.md 4.5b, as every exact decision).
    /// Default 0.1 (levels are 1 apart, so about one evaluation in ten straddles a level and
    /// needs one membership decision), against the backend's own `1e-3`: at d = 50 the
    /// rounds that tighten a bracket to `1e-3` were the slow tail of the CM stages when the
    /// slice path still found indices by evaluation.
    pub index_accuracy: f64,
    /// Most membership decisions a level index tries by descent before a galloping search
    /// finishes it ([`Target::index_below`]; the index is the same either way). Default 8:
    /// the slice chain's index is usually a few levels below the body's, where the descent
    /// asks about one decision a level.
    pub descent_budget: usize,
}

impl MechanismSettings {
    /// Defaults for `epsilon` (validated) and a parameter of dimension `dim`. The chain length
    /// rule (MATH.md 4.7b; docs/sampler.md, "Public starts and chain lengths"): from the
    /// public start, a pilot of `20 d` slice iterations with isotropic directions (the burn-in:
    /// it climbs from the start to the bulk) whose second half's covariance fixes rounded
    /// directions ([`DirectionSetting::Rounded`], mixed half and half with isotropic ones),
    /// then `40 d` counted slice iterations. Measured on the reference quadratic target
    /// (`chain_length` example): from a start 5 typical radii out, the score's law and the
    /// spread along the longest axis are right after 5-10 d counted iterations on bodies up to
    /// 8:1 long or flat at d = 10 and 50; from a start at the mode an 8:1 body needs 20-40 d
    /// counted iterations, where isotropic directions need more than `80 d`. Neither reaches a
    /// 32:1 body's law within `100 d` (docs/sampler.md).
    pub fn new(epsilon: f64, dim: usize) -> Result<Self, SamplerError> {
        let d = dim.max(1);
        let settings = MechanismSettings {
            epsilon,
            sampler: SamplerKind::Slice,
            slice: SliceSettings {
                iterations: 40 * d,
                steps_per_iteration: 1,
            },
            layer_cake: LayerCakeSettings {
                chain: ChainSettings {
                    burn_in: 5 * d,
                    thin: d.div_ceil(2),
                },
                final_steps: 5 * d,
                ..LayerCakeSettings::default()
            },
            mala: MalaSettings::for_dim(d),
            directions: DirectionSetting::Rounded { pilot: 20 * d },
            line: LineMove::Shrinkage,
            level_grid: 1e-6,
            hardening: 1e-6,
            index_accuracy: 0.1,
            descent_budget: 8,
        };
        settings.validate()?;
        Ok(settings)
    }

    /// The chain-length rule these settings follow, for the public plan.
    pub fn chain_rule(&self) -> ChainRule {
        ChainRule {
            start: "the stage's centre",
            pilot_iterations: match self.directions {
                DirectionSetting::Rounded { pilot } => pilot,
                DirectionSetting::Isotropic | DirectionSetting::Coordinate => 0,
            },
            iterations: self.slice.iterations,
        }
    }

    fn validate(&self) -> Result<(), SamplerError> {
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(SamplerError::EpsilonNotPositive(self.epsilon));
        }
        let unit = |x: f64| x > 0.0 && x < 1.0;
        if !(self.index_accuracy.is_finite() && self.index_accuracy >= 0.0) {
            return Err(SamplerError::InvalidSetting(format!(
                "index_accuracy must be finite and non-negative, got {}",
                self.index_accuracy
            )));
        }
        if !unit(self.level_grid) || !unit(self.hardening) {
            return Err(SamplerError::InvalidSetting(
                "level_grid and hardening must lie in (0, 1)".into(),
            ));
        }
        if let LineMove::Chord { tol } = self.line
            && !unit(tol)
        {
            return Err(SamplerError::InvalidSetting(format!(
                "the chord tolerance must lie in (0, 1), got {tol}"
            )));
        }
        if self.slice.iterations == 0 || self.slice.steps_per_iteration == 0 {
            return Err(SamplerError::InvalidSetting(
                "the slice path needs >= 1 iteration and >= 1 step per iteration".into(),
            ));
        }
        if self.sampler == SamplerKind::Mala {
            self.mala.validate()?;
        }
        if let DirectionSetting::Rounded { pilot } = self.directions
            && pilot == 0
        {
            return Err(SamplerError::InvalidSetting(
                "rounding needs >= 1 pilot sample".into(),
            ));
        }
        Ok(())
    }
}

/// The public chain-length rule of a release (MATH.md 4.7b): part of a learner's plan, a
/// function of the dimension only ([`MechanismSettings::chain_rule`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ChainRule {
    /// The chain starts at the stage's centre, a public point.
    pub start: &'static str,
    /// Pilot slice iterations from the start with isotropic directions (the burn-in); their
    /// second half fixes the rounded directions (0: no rounding).
    pub pilot_iterations: usize,
    /// Counted slice iterations after the pilot (the slice path; the MALA path runs its own
    /// steps, [`MalaSettings`]).
    pub iterations: usize,
}

/// The starting point: a point of `Theta` and an upper bound on its score.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    /// The point, in `Theta`: public for a private release (MATH.md 4.7b).
    pub theta: Vec<f64>,
    /// An upper bound on the score at `theta`: the score's maximum
    /// ([`ScoreOracle::max_score`], public) for a public start, or a certified bracket's upper
    /// end.
    pub score_upper: f64,
}

/// What ran to produce a release.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReleaseRecord {
    /// The privacy parameter asked for.
    pub epsilon: f64,
    /// `eps / 2`, the parameter of the sampled density.
    pub epsilon_sampling: f64,
    /// The oracle's backend ([`ScoreOracle::backend`]).
    pub backend: &'static str,
    /// The level grid's offset `kappa` ([`Levels::offset`]).
    pub level_offset: f64,
    /// The start's score bound ([`Start::score_upper`]): the score's maximum for a public
    /// start, an anchor's certified bound otherwise.
    pub start_score_upper: f64,
    /// Index of the top level (`K_top = Theta`).
    pub top_index: i64,
    /// What the slice path did, when it ran.
    pub slice: Option<SliceRecord>,
    /// What the layer-cake path did, when it ran.
    pub layer_cake: Option<LayerCakeRecord>,
    /// What the MALA path did, when it ran.
    pub mala: Option<MalaRecord>,
    /// Pilot samples used for the rounding matrix (0 when not rounded).
    pub rounding_pilot: usize,
    /// Oracle calls by kind, with their times.
    pub oracle_calls: OracleCalls,
    /// Step of the hardening grid.
    pub hardening_grid: f64,
    /// Wall-clock seconds of the release.
    pub elapsed_s: f64,
    /// The settings that shaped it.
    pub settings: MechanismSettings,
}

/// A release and its record.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Release {
    /// The released point, hardened onto the grid of `Theta`.
    pub theta: Vec<f64>,
    /// What ran.
    pub record: ReleaseRecord,
}

/// Draw one release of the mechanism, reporting progress to `progress` after every
/// iteration of the chain (pilot included).
///
/// When `progress` returns `ControlFlow::Break(())` the run stops at once, before its next
/// membership question or iteration, and returns [`SamplerError::Cancelled`]: nothing is
/// released (no hardening, no point). Cancelling is the caller's decision, never the data's,
/// so it does not weaken MATH.md 7 (every data-dependent path ends in a release); the
/// oracle's fallbacks ([`Counted`]) answer failed oracle calls only, never a cancel.
pub fn release<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    oracle: &O,
    domain: &D,
    start: &Start,
    settings: &MechanismSettings,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Release, SamplerError> {
    settings.validate()?;
    let clock = Instant::now();
    let dim = domain.dim();
    if oracle.dim() != dim {
        return Err(SamplerError::DimensionMismatch {
            what: "the score's parameter",
            expected: dim,
            got: oracle.dim(),
        });
    }
    if start.theta.len() != dim {
        return Err(SamplerError::DimensionMismatch {
            what: "the anchor",
            expected: dim,
            got: start.theta.len(),
        });
    }
    if !domain.contains(&start.theta)? {
        return Err(SamplerError::StartOutside(
            "the anchor is outside the domain",
        ));
    }
    if !start.score_upper.is_finite() {
        return Err(SamplerError::NonFinite("the anchor's score"));
    }
    let counted = Counted::new(oracle);
    let levels = Levels::draw(settings.level_grid, rng);
    let eps = 0.5 * settings.epsilon;
    let mut target = Target::new(
        &counted,
        domain,
        levels,
        eps,
        Directions::Isotropic,
        settings.line,
    );
    target.index_accuracy = settings.index_accuracy;
    target.descent_budget = settings.descent_budget;
    // Rounded directions (MATH.md 4.7b a): a pilot slice chain from the start with isotropic
    // directions; the covariance of its second half's states gives the rounding matrix, fixed
    // before the counted chain, which continues from the pilot's last state.
    let mut theta0 = start.theta.clone();
    let mut index0 = levels.index(start.score_upper);
    let mut rounding_pilot = 0;
    match settings.directions {
        DirectionSetting::Isotropic => {}
        DirectionSetting::Coordinate => target.directions = Directions::Coordinate,
        DirectionSetting::Rounded { pilot } => {
            let mut states = Vec::with_capacity(pilot - pilot / 2);
            let mut seen = 0;
            let (end, record) = slice::sample_observed(
                &target,
                &start.theta,
                index0,
                &SliceSettings {
                    iterations: pilot,
                    steps_per_iteration: 1,
                },
                rng,
                &mut |p| {
                    progress(Progress {
                        phase: "rounding pilot",
                        ..p
                    })
                },
                &mut |theta| {
                    seen += 1;
                    if seen > pilot / 2 {
                        states.push(theta.to_vec());
                    }
                },
            )?;
            (theta0, index0) = (end, record.final_index);
            if let Some(t) = rounding_matrix(&states) {
                target.directions = Directions::Rounded(t);
                rounding_pilot = pilot;
            }
        }
    }
    let (mut theta, slice, layer_cake, mala) = match settings.sampler {
        SamplerKind::Slice => {
            let (theta, record) =
                slice::sample(&target, &theta0, index0, &settings.slice, rng, progress)?;
            (theta, Some(record), None, None)
        }
        SamplerKind::LayerCake => {
            let (theta, record) = layer_cake::sample(
                &target,
                &start.theta,
                start.score_upper,
                &settings.layer_cake,
                rng,
                progress,
            )?;
            (theta, None, Some(record), None)
        }
        SamplerKind::Mala => {
            let (theta, record) =
                mala::sample(&target, &theta0, index0, &settings.mala, rng, progress)?;
            (theta, None, None, Some(record))
        }
    };
    let hardening_grid = settings.hardening * domain.radius();
    harden(&mut theta, domain, hardening_grid, rng)?;
    let record = ReleaseRecord {
        epsilon: settings.epsilon,
        epsilon_sampling: eps,
        backend: oracle.backend(),
        level_offset: levels.offset(),
        start_score_upper: start.score_upper,
        top_index: target.top,
        slice,
        layer_cake,
        mala,
        rounding_pilot,
        oracle_calls: OracleCalls {
            straddled_indices: target.straddled_indices(),
            ..counted.calls()
        },
        hardening_grid,
        elapsed_s: clock.elapsed().as_secs_f64(),
        settings: settings.clone(),
    };
    Ok(Release { theta, record })
}
