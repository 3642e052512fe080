//! Level bodies `K = {theta in Theta : s(theta) <= level}` of a score (MATH.md 4.1, 4.3),
//! seen through the oracle's weak membership and chords.
//!
//! A chord of `K` through `x` along `u` is found in three steps:
//! 1. the domain's exact chord `[dlo, dhi]` bounds the search;
//! 2. stepping out (Neal 2003): from a length scale `w` learned from the previous chords,
//!    query `x + w u`, `x + 2w u`, ... until a point is outside `K` or the domain's end is
//!    reached; the last probe brackets the end;
//! 3. the oracle's [`ScoreOracle::chord`] locates the end within that bracket to a tolerance
//!    `chord_tol` times the bracket's length.
//!
//! With the oracle's slack `zeta` in the score, the returned ends lie between the chords of
//! `{s <= level - zeta}` and `{s <= level + zeta}`, up to the step tolerance.
use crate::body::{ConvexBody, Domain};
use crate::SamplerError;
use sosdp_score::ScoreOracle;
use std::cell::Cell;

/// `Theta ∩ {s <= level}` for a score oracle and a domain.
pub struct LevelBody<'a, O: ?Sized, D: ?Sized> {
    oracle: &'a O,
    domain: &'a D,
    level: f64,
    chord_tol: f64,
    /// Running length scale of the chords' half-lengths (geometric mean), for stepping out.
    scale: Cell<f64>,
}

impl<'a, O: ScoreOracle + ?Sized, D: Domain + ?Sized> LevelBody<'a, O, D> {
    /// The body at `level`; `scale` is the initial stepping-out length, `chord_tol` the
    /// relative tolerance of chord ends.
    pub fn new(oracle: &'a O, domain: &'a D, level: f64, scale: f64, chord_tol: f64) -> Self {
        LevelBody { oracle, domain, level, chord_tol, scale: Cell::new(scale) }
    }

    pub fn level(&self) -> f64 {
        self.level
    }

    /// The current stepping-out length scale (to carry over to the next body).
    pub fn scale(&self) -> f64 {
        self.scale.get()
    }

    fn inside(&self, x: &[f64], u: &[f64], s: f64) -> Result<bool, SamplerError> {
        let p: Vec<f64> = x.iter().zip(u).map(|(a, b)| a + s * b).collect();
        Ok(self.oracle.member(&p, self.level)?)
    }

    /// A step `s` in direction `sign` from `x` (sign * s in (0, limit]) with `x + s u` outside
    /// `K`, or `limit` when the whole segment to the domain's end is inside.
    fn step_out(&self, x: &[f64], u: &[f64], limit: f64) -> Result<f64, SamplerError> {
        let sign = limit.signum();
        let mut w = self.scale.get().min(limit.abs());
        loop {
            if !self.inside(x, u, sign * w)? {
                return Ok(sign * w);
            }
            if w >= limit.abs() {
                return Ok(limit);
            }
            w = (2.0 * w).min(limit.abs());
        }
    }
}

impl<O: ScoreOracle + ?Sized, D: Domain + ?Sized> ConvexBody for LevelBody<'_, O, D> {
    fn dim(&self) -> usize {
        self.domain.dim()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        Ok(self.domain.contains(x)? && self.oracle.member(x, self.level)?)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        let (dlo, dhi) = self.domain.chord(x, u)?;
        let (out_lo, out_hi) = (self.step_out(x, u, dlo)?, self.step_out(x, u, dhi)?);
        let tol = self.chord_tol * (out_hi - out_lo).max(f64::MIN_POSITIVE);
        let chord = self.oracle.chord(x, u, self.level, (out_lo, out_hi), tol)?;
        let half = 0.5 * (chord.hi - chord.lo);
        if half > 0.0 {
            // Geometric running mean: robust to the spread of chord lengths.
            self.scale.set((0.8 * self.scale.get().ln() + 0.2 * half.ln()).exp());
        }
        Ok((chord.lo, chord.hi))
    }
}
