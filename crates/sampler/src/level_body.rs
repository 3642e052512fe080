//! Level bodies `K = {theta in Theta : s(theta) <= level}` of a score (MATH.md 4.1, 4.3),
//! seen through the oracle's exact membership decisions and chords.
//!
//! The hit-and-run move ([`ConvexBody::line_step`]) has two forms ([`LineMove`]):
//!
//! * **Shrinkage** (default; Neal 2003, stepping out and shrinkage on membership answers). A
//!   window of width `w` (twice the running chord scale) is placed uniformly around 0 and
//!   stepped out by `w` until both ends are outside the body or at the domain's chord ends;
//!   the bracket then contains the whole chord, because the chord is an interval containing 0.
//!   Queries beyond the outer ends the oracle already certifies ([`ScoreOracle::outer_ends`],
//!   the fast CM backend's kept cuts: the score there exceeds the level by more than the tie
//!   band) are answered NO without asking: the oracle's decision there is NO whatever its
//!   state, so the chain is the one every query asked would give.
//!   Shrinkage draws `s` uniformly in the bracket, returns it if `x + s u` is a member, and
//!   otherwise moves the bracket's end on `s`'s side to `s` (a point outside the chord, so the
//!   bracket still contains it). Every draw is uniform on a superset of the chord, so the
//!   accepted one is uniform on the chord, exactly, whatever `w` is: this is the hit-and-run
//!   kernel. It costs a few membership queries (each decided as soon as its certified bracket
//!   allows) instead of two located ends. The paired form ([`LineMove::PairedShrinkage`])
//!   asks its queries two at a time on two threads: both stepping-out ends at
//!   once, and two shrinkage proposals at once, the second used only if the first is rejected
//!   and it lies in the shrunk bracket (where it is uniform), so the law is the same.
//! * **Chord**: the oracle's [`ScoreOracle::chord`] within the domain's exact chord
//!   `[dlo, dhi]`, each end to `tol` times the running chord half-length (a geometric mean of
//!   the half-lengths seen so far, so the tolerance is relative to the body and not to the
//!   much larger domain), then a uniform draw between the ends. [`ConvexBody::chord`] always
//!   works this way (with `tol` = [`CHORD_TOL`] under shrinkage).
//!
//! Membership is decided exactly ([`sosdp_oracle::membership`]): every point with
//! `s <= level` is inside, every point with `s > level + f` outside (`f` the tie band,
//! `1e-10 n` points by default), and the answers are a function of the point alone outside
//! the band, so a shrinkage step is a fixed kernel, the same whatever state the oracle is in.
//! Chord steps see the body within their tolerance along the line, and their ends depend on
//! the solver's state within it.
use crate::body::{ConvexBody, Domain, step_on_chord};
use crate::error::SamplerError;
use serde::Serialize;
use sosdp_oracle::{ScoreOracle, on_line};
use std::cell::Cell;

/// Relative tolerance of explicit chord ends when steps use shrinkage.
pub const CHORD_TOL: f64 = 2e-3;

/// How a hit-and-run step in a level body finds its point on the line.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineMove {
    /// Stepping out and shrinkage on membership answers: exactly uniform on the chord, no
    /// chord ends needed (module doc). The default.
    Shrinkage,
    /// The same with queries two at a time on two threads; it pays only with spare cores,
    /// since two solves sharing a core contend for its resources (docs/sampler.md). The randomness used does not depend on the
    /// number of threads, and the decisions do not depend on which warm state a query finds
    /// (they are exact, see [`crate::target`]), so a seeded run repeats exactly unless a
    /// decision falls to the tie rule ([`crate::counted::OracleCalls::ties`]).
    PairedShrinkage,
    /// Locate both chord ends with the oracle's `chord`, each to `tol` times the running
    /// chord half-length, then draw uniformly between them.
    Chord {
        /// Tolerance of each end, relative to the running chord half-length.
        tol: f64,
    },
}

/// `Theta ∩ {s <= level}` for a score oracle and a domain.
pub struct LevelBody<'a, O: ?Sized, D: ?Sized> {
    oracle: &'a O,
    domain: &'a D,
    level: f64,
    /// The level of the question that follows a YES at the same point, if the caller asks one
    /// ([`Self::asking_next`]).
    next: Option<f64>,
    line: LineMove,
    /// Running length scale of the chords' half-lengths (geometric mean).
    scale: Cell<f64>,
}

impl<'a, O: ScoreOracle + Sync + ?Sized, D: Domain + ?Sized> LevelBody<'a, O, D> {
    /// The body at `level`; `scale` is the initial length scale of its chords, `line` how
    /// steps find their point on the line.
    pub fn new(oracle: &'a O, domain: &'a D, level: f64, scale: f64, line: LineMove) -> Self {
        LevelBody {
            oracle,
            domain,
            level,
            next: None,
            line,
            scale: Cell::new(scale),
        }
    }

    /// The same body, whose membership questions say that a YES is followed by the question
    /// at `next` at the same point ([`ScoreOracle::decide_then`]): the slice chain's level
    /// index descends from an accepted point one grid level below the body's. The answers
    /// are the same; a backend may decide both in one solve.
    pub fn asking_next(mut self, next: Option<f64>) -> Self {
        self.next = next;
        self
    }

    /// Fold a half-length into the running scale (geometric mean: robust to the spread of
    /// chord lengths).
    fn observe(&self, half: f64) {
        if half > 0.0 {
            self.scale
                .set((0.8 * self.scale.get().ln() + 0.2 * half.ln()).exp());
        }
    }

    /// The shrinkage move (module doc); with `paired`, queries go two at a time.
    fn shrinkage_step(
        &self,
        x: &[f64],
        u: &[f64],
        paired: bool,
        uniform: &mut dyn FnMut() -> f64,
    ) -> Result<f64, SamplerError> {
        let (dlo, dhi) = self.domain.chord(x, u)?;
        let (oracle, level, next) = (self.oracle, self.level, self.next);
        // Beyond the outer ends the oracle already certifies, its answer is NO whatever its
        // state: such a query is answered without asking, so the chain is the same as with
        // every query asked (and does not depend on which cuts the oracle happens to hold).
        let (cut_lo, cut_hi) = oracle.outer_ends(x, u, level);
        let certified_out = |s: f64| cut_lo.is_some_and(|c| s < c) || cut_hi.is_some_and(|c| s > c);
        // A shrinkage proposal answered YES is the accepted point, where the question at `next`
        // follows; a stepping-out end is not.
        let ask = |s: f64, next: Option<f64>| -> Result<bool, SamplerError> {
            if certified_out(s) {
                return Ok(false);
            }
            let point = on_line(x, u, s);
            Ok(match next {
                Some(next) => oracle.decide_then(&point, level, next)?.member,
                None => oracle.member(&point, level)?,
            })
        };
        let inside = |s: f64| ask(s, None);
        let proposal = |s: f64| ask(s, next);
        let both = |a: f64, b: f64| -> Result<(bool, bool), SamplerError> {
            if paired && !certified_out(a) && !certified_out(b) {
                let (p, q) = rayon::join(|| inside(a), || inside(b));
                Ok((p?, q?))
            } else {
                Ok((inside(a)?, inside(b)?))
            }
        };
        let w = (2.0 * self.scale.get()).min(dhi - dlo);
        let mut lo = (-w * uniform()).max(dlo);
        let mut hi = (lo + w).min(dhi);
        // Stepping out, both ends at once while both are open.
        let (mut lo_open, mut hi_open) = (lo > dlo, hi < dhi);
        while lo_open || hi_open {
            let (lo_in, hi_in) = match (lo_open, hi_open) {
                (true, true) => both(lo, hi)?,
                (true, false) => (inside(lo)?, false),
                _ => (false, inside(hi)?),
            };
            if lo_in {
                lo = (lo - w).max(dlo);
            }
            if hi_in {
                hi = (hi + w).min(dhi);
            }
            lo_open = lo_in && lo > dlo;
            hi_open = hi_in && hi < dhi;
        }
        // Shrinkage. Paired: two proposals uniform on the bracket; if the first is rejected
        // and the second lies in the shrunk bracket, it is uniform there and serves as the
        // next proposal (otherwise it is discarded). `x` itself was decided inside (its score
        // is at most the level, or in the tie band above it), so the bracket shrinks onto
        // members; the floor guards against rounding and against a point of the tie band
        // answered NO on a later query (the chain then stays put).
        let floor = 1e-12 * (dhi - dlo);
        while hi - lo > floor {
            let first = lo + (hi - lo) * uniform();
            let (second, answers) = if paired {
                let second = lo + (hi - lo) * uniform();
                // The second serves only in the bracket a NO at the first leaves; on one
                // thread it is asked only then, after the first's NO.
                let serves = if first < 0.0 {
                    second > first && second < hi
                } else {
                    second > lo && second < first
                };
                let answers = if serves && rayon::current_num_threads() > 1 {
                    both(first, second)?
                } else {
                    let first_in = proposal(first)?;
                    (first_in, !first_in && serves && proposal(second)?)
                };
                (Some(second), answers)
            } else {
                (None, (proposal(first)?, false))
            };
            for (k, s) in std::iter::once(first).chain(second).enumerate() {
                if !(s > lo && s < hi) {
                    break;
                }
                if if k == 0 { answers.0 } else { answers.1 } {
                    self.observe(0.5 * (hi - lo));
                    return Ok(s);
                }
                if s < 0.0 {
                    lo = s;
                } else {
                    hi = s;
                }
            }
        }
        Ok(0.0)
    }

    /// The current length scale (to carry over to the next body).
    pub fn scale(&self) -> f64 {
        self.scale.get()
    }
}

impl<O: ScoreOracle + Sync + ?Sized, D: Domain + ?Sized> ConvexBody for LevelBody<'_, O, D> {
    fn dim(&self) -> usize {
        self.domain.dim()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        Ok(self.domain.contains(x)? && self.oracle.member(x, self.level)?)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        let rel = match self.line {
            LineMove::Chord { tol } => tol,
            LineMove::Shrinkage | LineMove::PairedShrinkage => CHORD_TOL,
        };
        let range = self.domain.chord(x, u)?;
        let tol = (rel * 2.0 * self.scale.get())
            .min(rel * (range.1 - range.0))
            .max(f64::MIN_POSITIVE);
        let chord = self.oracle.chord(x, u, self.level, range, tol)?;
        self.observe(0.5 * (chord.hi - chord.lo));
        Ok((chord.lo, chord.hi))
    }

    fn line_step(
        &self,
        x: &[f64],
        u: &[f64],
        uniform: &mut dyn FnMut() -> f64,
    ) -> Result<f64, SamplerError> {
        match self.line {
            LineMove::Shrinkage => self.shrinkage_step(x, u, false, uniform),
            LineMove::PairedShrinkage => self.shrinkage_step(x, u, true, uniform),
            LineMove::Chord { .. } => step_on_chord(self, x, u, uniform),
        }
    }
}
