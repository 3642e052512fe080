//! Level bodies `K = {theta in Theta : s(theta) <= level}` of a score (MATH.md 4.1, 4.3),
//! seen through the oracle's weak membership and chords.
//!
//! A chord of `K` through `x` along `u` is the oracle's [`ScoreOracle::chord`] within the
//! domain's exact chord `[dlo, dhi]`, each end to the tolerance `chord_tol` times the running
//! length scale of the body's chords (a geometric mean of the half-lengths seen so far), so
//! that the tolerance is relative to the body and not to the much larger domain.
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
    /// Running length scale of the chords' half-lengths (geometric mean).
    scale: Cell<f64>,
}

impl<'a, O: ScoreOracle + ?Sized, D: Domain + ?Sized> LevelBody<'a, O, D> {
    /// The body at `level`; `scale` is the initial length scale of its chords, `chord_tol`
    /// the relative tolerance of chord ends.
    pub fn new(oracle: &'a O, domain: &'a D, level: f64, scale: f64, chord_tol: f64) -> Self {
        LevelBody { oracle, domain, level, chord_tol, scale: Cell::new(scale) }
    }

    /// The current length scale (to carry over to the next body).
    pub fn scale(&self) -> f64 {
        self.scale.get()
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
        let range = self.domain.chord(x, u)?;
        let tol = (self.chord_tol * 2.0 * self.scale.get()).min(self.chord_tol * (range.1 - range.0)).max(f64::MIN_POSITIVE);
        let chord = self.oracle.chord(x, u, self.level, range, tol)?;
        let half = 0.5 * (chord.hi - chord.lo);
        if half > 0.0 {
            // Geometric running mean: robust to the spread of chord lengths.
            self.scale.set((0.8 * self.scale.get().ln() + 0.2 * half.ln()).exp());
        }
        Ok((chord.lo, chord.hi))
    }
}
