//! Hit-and-run (MATH.md 4.3): from `x` in a convex body, draw a direction `u`, find the chord
//! `[lo, hi]` of the body through `x` along `u`, and move to `x + s u` with `s` uniform on the
//! chord.
//!
//! Stationarity: for any direction law that is symmetric (`u` and `-u` equally likely), the
//! transition density from `x` to `y` depends on the line through them, the chord's length and
//! `|y - x|` only, so it is symmetric in `(x, y)` and the uniform law on the body is
//! stationary. That holds for the three direction laws here: isotropic, rounded
//! (`u = T g / |T g|`, `g` standard normal, `T` a rounding matrix learned from pilot samples)
//! and coordinate directions (`±e_k`).
use crate::body::ConvexBody;
use crate::error::SamplerError;
use nalgebra::{DMatrix, DVector};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

/// How hit-and-run draws its directions.
#[derive(Clone, Debug, PartialEq)]
pub enum Directions {
    /// Uniform on the sphere.
    Isotropic,
    /// With probability 1/2 `u = T g / |T g|` for a rounding matrix `T` (e.g. a Cholesky
    /// factor of the body's covariance, see [`rounding_matrix`]), otherwise uniform on the
    /// sphere: both laws are symmetric (`u` and `-u` equally likely), so each step keeps the
    /// uniform law of the body invariant whatever `T` is, and a poor `T` (from too few or too
    /// correlated pilot samples) can slow the chain by at most a factor of two.
    Rounded(DMatrix<f64>),
    /// A uniformly chosen coordinate axis.
    Coordinate,
}

impl Directions {
    /// One direction in `R^dim` (unit length for the isotropic and coordinate laws).
    pub fn draw<R: Rng + ?Sized>(&self, dim: usize, rng: &mut R) -> Vec<f64> {
        match self {
            Directions::Coordinate => {
                let mut u = vec![0.0; dim];
                u[rng.random_range(0..dim)] = 1.0;
                u
            }
            Directions::Isotropic => normalised(gaussian(dim, rng)),
            Directions::Rounded(_) if rng.random::<bool>() => normalised(gaussian(dim, rng)),
            Directions::Rounded(t) => normalised(
                (t * DVector::from_vec(gaussian(dim, rng)))
                    .as_slice()
                    .to_vec(),
            ),
        }
    }
}

fn gaussian<R: Rng + ?Sized>(dim: usize, rng: &mut R) -> Vec<f64> {
    (0..dim).map(|_| StandardNormal.sample(rng)).collect()
}

fn normalised(mut v: Vec<f64>) -> Vec<f64> {
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

/// One hit-and-run step from `x` (in place): a direction, then a step uniform on the chord
/// ([`ConvexBody::line_step`]).
pub fn step<B: ConvexBody + ?Sized, R: Rng + ?Sized>(
    body: &B,
    directions: &Directions,
    x: &mut [f64],
    rng: &mut R,
) -> Result<(), SamplerError> {
    let u = directions.draw(x.len(), rng);
    let s = body.line_step(x, &u, &mut || rng.random::<f64>())?;
    for (xi, ui) in x.iter_mut().zip(&u) {
        *xi += s * ui;
    }
    Ok(())
}

/// Chain settings: `burn_in` steps before the first sample, then one sample every `thin`
/// steps.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ChainSettings {
    /// Steps before the first sample.
    pub burn_in: usize,
    /// Steps between samples.
    pub thin: usize,
}

/// `count` approximately uniform samples of `body` from a chain started at `start` (which
/// must be inside). The chain's final state is the last sample.
pub fn uniform_samples<B: ConvexBody + ?Sized, R: Rng + ?Sized>(
    body: &B,
    directions: &Directions,
    start: &[f64],
    count: usize,
    chain: &ChainSettings,
    rng: &mut R,
) -> Result<Vec<Vec<f64>>, SamplerError> {
    if chain.thin == 0 {
        return Err(SamplerError::InvalidSetting("thinning must be >= 1".into()));
    }
    let mut x = start.to_vec();
    for _ in 0..chain.burn_in {
        step(body, directions, &mut x, rng)?;
    }
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        for _ in 0..chain.thin {
            step(body, directions, &mut x, rng)?;
        }
        out.push(x.clone());
    }
    Ok(out)
}

/// A rounding matrix from pilot samples: the Cholesky factor of their covariance (with a
/// small ridge), or `None` with fewer samples than `dim + 1` or a singular covariance.
pub fn rounding_matrix(samples: &[Vec<f64>]) -> Option<DMatrix<f64>> {
    let dim = samples.first()?.len();
    if samples.len() <= dim {
        return None;
    }
    let n = samples.len() as f64;
    let mean: Vec<f64> = (0..dim)
        .map(|k| samples.iter().map(|s| s[k]).sum::<f64>() / n)
        .collect();
    let mut cov = DMatrix::zeros(dim, dim);
    for s in samples {
        let c = DVector::from_iterator(dim, s.iter().zip(&mean).map(|(a, m)| a - m));
        cov += &c * c.transpose();
    }
    cov /= n - 1.0;
    let ridge = 1e-9 * cov.trace().max(f64::MIN_POSITIVE) / dim as f64;
    cov += DMatrix::identity(dim, dim) * ridge;
    nalgebra::Cholesky::new(cov).map(|c| c.l())
}
