//! Level bodies `K = {theta in Theta : s(theta) <= level}` of a score (MATH.md 4.1, 4.3),
//! seen through the oracle's weak membership and chords.
//!
//! The hit-and-run move ([`ConvexBody::line_step`]) has two forms ([`LineMove`]):
//!
//! * **Shrinkage** (default; Neal 2003, stepping out and shrinkage on membership answers). A
//!   window of width `w` (twice the running chord scale) is placed uniformly around 0 and
//!   stepped out by `w` until both ends are outside the body or at the domain's chord ends;
//!   the bracket then contains the whole chord, because the chord is an interval containing 0.
//!   Shrinkage draws `s` uniformly in the bracket, returns it if `x + s u` is a member, and
//!   otherwise moves the bracket's end on `s`'s side to `s` (a point outside the chord, so the
//!   bracket still contains it). Every draw is uniform on a superset of the chord, so the
//!   accepted one is uniform on the chord, exactly, whatever `w` is: this is the hit-and-run
//!   kernel. It costs a few membership queries (each decided as soon as its certified bracket
//!   allows) instead of two located ends.
//! * **Chord**: the oracle's [`ScoreOracle::chord`] within the domain's exact chord
//!   `[dlo, dhi]`, each end to `tol` times the running chord half-length (a geometric mean of
//!   the half-lengths seen so far, so the tolerance is relative to the body and not to the
//!   much larger domain), then a uniform draw between the ends. [`ConvexBody::chord`] always
//!   works this way (with `tol` = [`CHORD_TOL`] under shrinkage).
//!
//! With the oracle's slack `zeta` in the score, both see a body between `{s <= level - zeta}`
//! and `{s <= level + zeta}` (up to the chord tolerance).
use crate::body::{step_on_chord, ConvexBody, Domain};
use crate::mechanism::LineMove;
use crate::SamplerError;
use sosdp_score::{on_line, ScoreOracle};
use std::cell::Cell;

/// Relative tolerance of explicit chord ends when steps use shrinkage.
pub const CHORD_TOL: f64 = 2e-3;

/// `Theta ∩ {s <= level}` for a score oracle and a domain.
pub struct LevelBody<'a, O: ?Sized, D: ?Sized> {
    oracle: &'a O,
    domain: &'a D,
    level: f64,
    line: LineMove,
    /// Running length scale of the chords' half-lengths (geometric mean).
    scale: Cell<f64>,
}

impl<'a, O: ScoreOracle + ?Sized, D: Domain + ?Sized> LevelBody<'a, O, D> {
    /// The body at `level`; `scale` is the initial length scale of its chords, `line` how
    /// steps find their point on the line.
    pub fn new(oracle: &'a O, domain: &'a D, level: f64, scale: f64, line: LineMove) -> Self {
        LevelBody { oracle, domain, level, line, scale: Cell::new(scale) }
    }

    /// Fold a half-length into the running scale (geometric mean: robust to the spread of
    /// chord lengths).
    fn observe(&self, half: f64) {
        if half > 0.0 {
            self.scale.set((0.8 * self.scale.get().ln() + 0.2 * half.ln()).exp());
        }
    }

    /// The shrinkage move (module doc).
    fn shrinkage_step(&self, x: &[f64], u: &[f64], uniform: &mut dyn FnMut() -> f64) -> Result<f64, SamplerError> {
        let (dlo, dhi) = self.domain.chord(x, u)?;
        let inside = |s: f64| -> Result<bool, SamplerError> { Ok(self.oracle.member(&on_line(x, u, s), self.level)?) };
        let w = (2.0 * self.scale.get()).min(dhi - dlo);
        let mut lo = (-w * uniform()).max(dlo);
        let mut hi = (lo + w).min(dhi);
        while lo > dlo && inside(lo)? {
            lo = (lo - w).max(dlo);
        }
        while hi < dhi && inside(hi)? {
            hi = (hi + w).min(dhi);
        }
        // Under weak membership `x` itself may be answered "outside" (its score is within the
        // slack of the level); the bracket then closes on 0 and the chain stays put.
        let floor = 1e-12 * (dhi - dlo);
        while hi - lo > floor {
            let s = lo + (hi - lo) * uniform();
            if inside(s)? {
                self.observe(0.5 * (hi - lo));
                return Ok(s);
            }
            if s < 0.0 {
                lo = s;
            } else {
                hi = s;
            }
        }
        Ok(0.0)
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
        let rel = match self.line {
            LineMove::Chord { tol } => tol,
            LineMove::Shrinkage => CHORD_TOL,
        };
        let range = self.domain.chord(x, u)?;
        let tol = (rel * 2.0 * self.scale.get()).min(rel * (range.1 - range.0)).max(f64::MIN_POSITIVE);
        let chord = self.oracle.chord(x, u, self.level, range, tol)?;
        self.observe(0.5 * (chord.hi - chord.lo));
        Ok((chord.lo, chord.hi))
    }

    fn line_step(&self, x: &[f64], u: &[f64], uniform: &mut dyn FnMut() -> f64) -> Result<f64, SamplerError> {
        match self.line {
            LineMove::Shrinkage => self.shrinkage_step(x, u, uniform),
            LineMove::Chord { .. } => step_on_chord(self, x, u, uniform),
        }
    }
}
