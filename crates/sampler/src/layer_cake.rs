//! Layer-cake selection (MATH.md 4.4, HKMN23 Theorem 4.1): estimate the level volumes, draw a
//! level `i` with probability `∝ V_i (e^{-eps' l_i} - e^{-eps' l_{i+1}})`, then a uniform
//! point of `K_i` (see [`crate::target`] for why this is the target law).
//!
//! **Volumes.** A ladder of bodies `K(L_0) ⊃ K(L_1) ⊃ ...` from the truncation level `L_0`
//! down to the first level `l_b` at or above the anchor's score. Each body is sampled
//! uniformly by hit-and-run and every sample's score is evaluated; the empirical law of
//! those scores gives `V(l) / V(L_k)` for every `l <= L_k` at once (one sample informs every
//! lower level). The next rung `L_{k+1}` is the `quantile`-quantile of the scores, so every
//! ratio is about `quantile` and never tiny: intermediate (off-grid) bodies are inserted
//! automatically where the volume falls fast. Samples of `K(L_k)` that fall in `K(L_{k+1})`
//! are uniform there and start the next chain. `V_i` for a grid level comes from the deepest
//! rung containing it; levels below every sample get volume 0 (their mass is below the
//! resolution of the estimate).
//!
//! **Truncation.** For a convex score (all scores here, see
//! [`sosdp_oracle::ScoreOracle::convex`]) with `s(theta_0) <= s0`,
//! `K(l) ⊇ theta_0 + ((l - s0) / (U - s0)) (Theta - theta_0)` for `s0 < l <= U` (`U` the score's
//! maximum), so `V(l) >= ((l - s0) / (U - s0))^d vol(Theta)`. The target mass above level
//! `l_m` is at most `vol(Theta) e^{-eps' l_{m+1}}` and the total mass is at least
//! `V(l_j) e^{-eps' l_j}` for every `j`, so the mass above `l_m` is at most
//! `exp(-eps' (l_{m+1} - l_j)) ((U - s0) / (l_j - s0))^d`, minimised at `l_j - s0 ≈ d / eps'`.
//! The smallest `m` bringing this below `tail` is the truncation level: the release follows
//! the target conditioned on `K(l_m)`, within total variation `tail` of the target. For a
//! score not known to be convex there is no truncation (`m = I`, `K_I = Theta`).
use crate::body::Domain;
use crate::error::SamplerError;
use crate::hit_and_run::{ChainSettings, uniform_samples};
use crate::progress::{Progress, report};
use crate::target::Target;
use rand::{Rng, RngExt};
use serde::Serialize;
use sosdp_oracle::ScoreOracle;
use std::ops::ControlFlow;

/// Settings of the layer-cake path.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerCakeSettings {
    /// Uniform samples per rung of the volume ladder.
    pub samples: usize,
    /// Chain per rung (burn-in from the previous rung's sample, thinning).
    pub chain: ChainSettings,
    /// Target ratio between consecutive rungs (the quantile of scores the next rung sits at).
    pub quantile: f64,
    /// Largest number of rungs before giving up.
    pub max_rungs: usize,
    /// Hit-and-run steps in the chosen level body before the release.
    pub final_steps: usize,
    /// Total-variation budget of the truncation.
    pub tail: f64,
}

impl Default for LayerCakeSettings {
    fn default() -> Self {
        LayerCakeSettings {
            samples: 100,
            chain: ChainSettings {
                burn_in: 20,
                thin: 2,
            },
            quantile: 0.3,
            max_rungs: 200,
            final_steps: 20,
            tail: 1e-9,
        }
    }
}

/// One rung of the volume ladder.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rung {
    /// The rung's level `l`: its body is `Theta ∩ {s <= l}`.
    pub level: f64,
    /// `log V(level)` relative to the truncation body.
    pub log_volume: f64,
    /// Uniform samples drawn in the rung's body.
    pub samples: usize,
}

/// What the layer-cake path did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerCakeRecord {
    /// The volume ladder, from the top body down.
    pub rungs: Vec<Rung>,
    /// The truncation index `m` (equal to the top index when not truncated).
    pub truncation_index: i64,
    /// Bound on the target mass above the truncation level (0 when not truncated).
    pub tail_bound: f64,
    /// `(i, log V_i)` relative to the truncation body, for every level with positive
    /// estimated volume.
    pub level_log_volumes: Vec<(i64, f64)>,
    /// The level drawn.
    pub chosen_index: i64,
}

/// `log` of the bound on the mass above level `m` (module doc), or `None` when no level
/// between the anchor's score and `l_m` is usable.
fn log_tail_bound(
    m: i64,
    s0: f64,
    max_score: f64,
    dim: usize,
    target_eps: f64,
    level: impl Fn(i64) -> f64,
    index: impl Fn(f64) -> i64,
) -> Option<f64> {
    let best = index(s0 + dim as f64 / target_eps);
    [best - 1, best, best + 1]
        .into_iter()
        .filter(|&j| j <= m && level(j) > s0)
        .map(|j| {
            -target_eps * (level(m + 1) - level(j))
                + dim as f64 * ((max_score - s0) / (level(j) - s0)).ln()
        })
        .min_by(f64::total_cmp)
}

/// The truncation index and its tail bound.
fn truncation<O: ScoreOracle + Sync + ?Sized, D: Domain>(
    target: &Target<O, D>,
    s0: f64,
    tail: f64,
) -> (i64, f64) {
    if !target.oracle.convex() {
        return (target.top, 0.0);
    }
    let (levels, eps) = (target.levels, target.eps);
    let bound = |m: i64| {
        log_tail_bound(
            m,
            s0,
            target.oracle.max_score(),
            target.oracle.dim(),
            eps,
            |i| levels.level(i),
            |s| levels.index(s),
        )
    };
    let ok = |m: i64| bound(m).is_some_and(|b| b <= tail.ln());
    // The bound decreases in m: binary search on [index(s0), top].
    let (mut lo, mut hi) = (levels.index(s0), target.top);
    if !ok(hi) {
        return (target.top, 0.0);
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) { hi = mid } else { lo = mid + 1 }
    }
    if hi >= target.top {
        (target.top, 0.0)
    } else {
        (hi, bound(hi).map_or(0.0, f64::exp))
    }
}

/// A rung of the ladder: its level and its samples with their scores, sorted by score.
type Scored = (f64, Vec<(f64, Vec<f64>)>);

/// The deepest rung whose level is at or above `level` (the rung whose samples give `V(level)`).
fn deepest_rung(rungs: &[Scored], level: f64) -> usize {
    rungs.iter().rposition(|r| r.0 >= level).unwrap_or(0)
}

/// The last sample of a rung with score at most `level`: uniform in `K(level)`.
fn sample_within(scored: &[(f64, Vec<f64>)], level: f64) -> Option<Vec<f64>> {
    scored
        .iter()
        .rev()
        .find(|(s, _)| *s <= level)
        .map(|(_, x)| x.clone())
}

/// The fraction of a rung's samples with score at most `level`: `V(level) / V(rung)`.
fn fraction_within(scored: &[(f64, Vec<f64>)], level: f64) -> f64 {
    scored.partition_point(|(s, _)| *s <= level) as f64 / scored.len() as f64
}

/// Draw one release: `anchor` is a point of `Theta` with score at most `s0`. `progress`
/// hears of every rung; its `Break` stops the ladder with [`SamplerError::Cancelled`]
/// ([`crate::progress`]).
pub fn sample<O: ScoreOracle + Sync + ?Sized, D: Domain, R: Rng + ?Sized>(
    target: &Target<O, D>,
    anchor: &[f64],
    s0: f64,
    settings: &LayerCakeSettings,
    rng: &mut R,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<(Vec<f64>, LayerCakeRecord), SamplerError> {
    if settings.samples < 2 || !(settings.quantile > 0.0 && settings.quantile < 1.0) {
        return Err(SamplerError::InvalidSetting(
            "layer-cake needs >= 2 samples per rung and a quantile in (0, 1)".into(),
        ));
    }
    let levels = target.levels;
    let bottom = levels.level(levels.index(s0));
    let (m, tail_bound) = truncation(target, s0, settings.tail);
    // The ladder: rungs with their sorted sample scores and samples.
    let mut rungs: Vec<Scored> = Vec::new();
    let mut level = levels.level(m);
    let mut start = anchor.to_vec();
    loop {
        if rungs.len() == settings.max_rungs {
            return Err(SamplerError::LadderTooLong(settings.max_rungs));
        }
        let samples = target.with_body(level, None, |body| {
            uniform_samples(
                body,
                &target.directions,
                &start,
                settings.samples,
                &settings.chain,
                rng,
            )
        })?;
        let mut scored = Vec::with_capacity(samples.len());
        for s in samples {
            scored.push((target.score(&s)?, s));
        }
        scored.sort_by(|a, b| a.0.total_cmp(&b.0));
        report(
            progress,
            Progress {
                phase: "layer-cake volumes",
                done: rungs.len() + 1,
                total: 0,
            },
        )?;
        let q =
            ((settings.quantile * scored.len() as f64).ceil() as usize).clamp(1, scored.len()) - 1;
        let next = scored[q].0.max(bottom);
        let done = level <= bottom || next >= level;
        rungs.push((level, scored));
        if done {
            break;
        }
        // A sample of this rung inside the next one starts its chain.
        start = sample_within(&rungs.last().expect("just pushed").1, next)
            .unwrap_or_else(|| anchor.to_vec());
        level = next;
    }
    // log V of each rung, telescoped down from the first.
    let mut log_v = vec![0.0];
    for k in 1..rungs.len() {
        log_v.push(log_v[k - 1] + fraction_within(&rungs[k - 1].1, rungs[k].0).ln());
    }
    // V_i from the deepest rung containing level i.
    let lowest = rungs
        .iter()
        .flat_map(|r| r.1.first())
        .map(|(s, _)| *s)
        .fold(f64::INFINITY, f64::min);
    let mut level_log_volumes = Vec::new();
    for i in levels.index(lowest)..=m {
        let l = levels.level(i);
        let k = deepest_rung(&rungs, l);
        let f = fraction_within(&rungs[k].1, l);
        if f > 0.0 {
            level_log_volumes.push((i, log_v[k] + f.ln()));
        }
    }
    // Draw the level: log weights log V_i + log(layer weight); the truncation level is the top.
    let log_w: Vec<f64> = level_log_volumes
        .iter()
        .map(|&(i, lv)| lv + target.log_layer_weight(i, m))
        .collect();
    let max = log_w.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = log_w.iter().map(|w| (w - max).exp()).collect();
    let mut u = rng.random::<f64>() * weights.iter().sum::<f64>();
    let mut chosen = level_log_volumes.len() - 1;
    for (k, w) in weights.iter().enumerate() {
        if u < *w {
            chosen = k;
            break;
        }
        u -= w;
    }
    let chosen_index = level_log_volumes[chosen].0;
    let chosen_level = levels.level(chosen_index);
    // A uniform point of K_i: a ladder sample inside it (uniform there), refreshed by a walk.
    let mut theta = sample_within(&rungs[deepest_rung(&rungs, chosen_level)].1, chosen_level)
        .unwrap_or_else(|| anchor.to_vec());
    target.walk(chosen_level, &mut theta, settings.final_steps, rng)?;
    let rungs = rungs
        .iter()
        .zip(&log_v)
        .map(|(r, &lv)| Rung {
            level: r.0,
            log_volume: lv,
            samples: r.1.len(),
        })
        .collect();
    Ok((
        theta,
        LayerCakeRecord {
            rungs,
            truncation_index: m,
            tail_bound,
            level_log_volumes,
            chosen_index,
        },
    ))
}
