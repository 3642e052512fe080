//! Volume by telescoping nested bodies (MATH.md 4.4).
//!
//! For a convex body `K` with `B(c, r) ⊆ K ⊆ B(c, R)`, let `K_j = K ∩ B(c, r 2^{j/d})`,
//! `j = 0..J`, `J = ceil(d log2(R / r))`, so `K_0 = B(c, r)` and `K_J = K`. Each ratio
//! `vol(K_{j-1}) / vol(K_j) >= 1/2` (the ball's volume doubles and `K_j ⊆ 2^{1/d}`-scaled
//! `K_{j-1}` about `c` by convexity), so it is estimated well by the fraction of uniform
//! samples of `K_j` (hit-and-run) that fall in `B(c, r_{j-1})`, and
//! `log vol K = log vol B(c, r) - sum_j log ratio_j`.
//!
//! The level bodies of the layer-cake path use the same telescoping with a ladder of levels
//! instead of radii ([`crate::layer_cake`]).
use crate::body::{Ball, ConvexBody, log_unit_ball_volume};
use crate::error::SamplerError;
use crate::hit_and_run::{ChainSettings, Directions, uniform_samples};
use rand::Rng;

/// Settings of [`log_volume`].
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeSettings {
    /// Uniform samples per ratio.
    pub samples: usize,
    /// Burn-in and thinning of the chains.
    pub chain: ChainSettings,
    /// How hit-and-run draws directions.
    pub directions: Directions,
}

/// The estimate and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct VolumeEstimate {
    /// The estimate of `log vol(K)`.
    pub log_volume: f64,
    /// The estimated ratios `vol(K_{j-1}) / vol(K_j)`.
    pub ratios: Vec<f64>,
}

/// `K ∩ B(c, radius)`.
struct Cut<'a, B: ?Sized> {
    body: &'a B,
    ball: Ball,
}

impl<B: ConvexBody + ?Sized> ConvexBody for Cut<'_, B> {
    fn dim(&self) -> usize {
        self.body.dim()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        Ok(self.ball.contains(x)? && self.body.contains(x)?)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        let (a, b) = self.body.chord(x, u)?;
        let (c, d) = self.ball.chord(x, u)?;
        Ok((a.max(c), b.min(d)))
    }
}

/// Estimate `log vol(K)` for `B(centre, inner) ⊆ K ⊆ B(centre, outer)`.
pub fn log_volume<B: ConvexBody + ?Sized, R: Rng + ?Sized>(
    body: &B,
    centre: &[f64],
    inner: f64,
    outer: f64,
    settings: &VolumeSettings,
    rng: &mut R,
) -> Result<VolumeEstimate, SamplerError> {
    let d = body.dim();
    if !(inner > 0.0 && outer >= inner && outer.is_finite()) {
        return Err(SamplerError::InvalidSetting(format!(
            "volume needs 0 < inner <= outer, got {inner}, {outer}"
        )));
    }
    if settings.samples == 0 {
        return Err(SamplerError::InvalidSetting(
            "volume needs at least one sample per ratio".into(),
        ));
    }
    let phases = (d as f64 * (outer / inner).log2()).ceil().max(0.0) as i32;
    let radius = |j: i32| inner * 2f64.powf(j as f64 / d as f64);
    let mut x = centre.to_vec();
    let mut ratios = Vec::with_capacity(phases as usize);
    let mut log_volume = log_unit_ball_volume(d) + d as f64 * inner.ln();
    for j in 1..=phases {
        let cut = Cut {
            body,
            ball: Ball::new(centre.to_vec(), radius(j))?,
        };
        let samples = uniform_samples(
            &cut,
            &settings.directions,
            &x,
            settings.samples,
            &settings.chain,
            rng,
        )?;
        let r_prev = radius(j - 1);
        let inside = samples
            .iter()
            .filter(|s| {
                s.iter()
                    .zip(centre)
                    .map(|(a, c)| (a - c).powi(2))
                    .sum::<f64>()
                    <= r_prev * r_prev
            })
            .count();
        // Add-one smoothing keeps the estimate finite; the bias is O(1 / samples).
        let ratio = (inside as f64 + 1.0) / (samples.len() as f64 + 1.0);
        ratios.push(ratio);
        log_volume -= ratio.ln();
        x = samples.last().cloned().unwrap_or(x);
    }
    Ok(VolumeEstimate { log_volume, ratios })
}
