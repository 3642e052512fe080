//! The law both sampling paths target (MATH.md 4.1, 4.4, 4.5):
//!
//! ```text
//! pi(theta) ∝ exp(-eps' l_{i(theta)}) 1[theta in Theta],   eps' = eps / 2,
//! ```
//!
//! with the level grid of [`crate::levels`]. Its layer-cake form: with `K_i = Theta ∩ {s <= l_i}`
//! and `V_i = vol(K_i)`, `pi = sum_i w_i Unif(K_i)`,
//! `w_i ∝ V_i (e^{-eps' l_i} - e^{-eps' l_{i+1}})` below the top level `I` (where
//! `K_I = Theta`) and `w_I ∝ V_I e^{-eps' l_I}`: the density at a point of level `j` is
//! `sum_{i >= j} w_i / V_i = e^{-eps' l_j}` by telescoping.
use crate::body::{ConvexBody, Domain};
use crate::hit_and_run::{step, Directions};
use crate::level_body::LevelBody;
use crate::levels::Levels;
use crate::mechanism::LineMove;
use crate::SamplerError;
use rand::Rng;
use sosdp_score::ScoreOracle;
use std::cell::Cell;

/// The target law and the means to walk in its level bodies.
pub struct Target<'a, O: ?Sized, D> {
    pub oracle: &'a O,
    pub domain: &'a D,
    pub levels: Levels,
    /// `eps' = eps / 2`, the sampling parameter.
    pub eps: f64,
    /// The index `I` with `K_I = Theta`: the first level at or above the score's maximum.
    pub top: i64,
    pub directions: Directions,
    /// How steps find their point on the line.
    pub line: LineMove,
    /// Length scale of chords carried from body to body.
    scale: Cell<f64>,
}

impl<'a, O: ScoreOracle + Sync + ?Sized, D: Domain> Target<'a, O, D> {
    pub fn new(oracle: &'a O, domain: &'a D, levels: Levels, eps: f64, directions: Directions, line: LineMove) -> Self {
        let top = levels.index(oracle.max_score());
        let scale = Cell::new(0.1 * domain.radius());
        Target { oracle, domain, levels, eps, top, directions, line, scale }
    }

    /// The level index of `theta` known to lie in `K_upper`: the smallest `j <= upper` with
    /// `theta` in `K_j`, from one evaluation. Its certified bracket answers membership at every
    /// level at once ([`sosdp_score::membership::member_from_bracket`]: YES above `upper`, NO
    /// below `lower`, `score <= l_j` in between), and the smallest level with a YES answer is
    /// the first grid level at or above the returned score.
    pub fn index_below(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        let eval = self.oracle.evaluate(theta)?;
        Ok(self.levels.index(eval.score).min(upper.min(self.top)))
    }

    /// The score at `theta` (one evaluation).
    pub fn score(&self, theta: &[f64]) -> Result<f64, SamplerError> {
        Ok(self.oracle.evaluate(theta)?.score)
    }

    /// `steps` hit-and-run steps from `x` in the body `Theta ∩ {s <= level}`, or in `Theta`
    /// itself when `level` is at or above the top level.
    pub fn walk<R: Rng + ?Sized>(&self, level: f64, x: &mut [f64], steps: usize, rng: &mut R) -> Result<(), SamplerError> {
        self.with_body(level, |body| {
            for _ in 0..steps {
                step(body, &self.directions, x, rng)?;
            }
            Ok(())
        })
    }

    /// Run `f` on the body at `level` (the domain at or above the top level).
    pub fn with_body<T>(&self, level: f64, f: impl FnOnce(&dyn ConvexBody) -> Result<T, SamplerError>) -> Result<T, SamplerError> {
        if level >= self.levels.level(self.top) {
            return f(self.domain);
        }
        let body = LevelBody::new(self.oracle, self.domain, level, self.scale.get(), self.line);
        let out = f(&body);
        self.scale.set(body.scale());
        out
    }

    /// The relative weight `log(e^{-eps' l_i} - e^{-eps' l_{i+1}})` of level `i` below the
    /// highest level `top` in use, or `-eps' l_top` for `top` itself (the factor multiplying
    /// `V_i`).
    pub fn log_layer_weight(&self, index: i64, top: i64) -> f64 {
        let l = self.levels.level(index);
        if index >= top { -self.eps * l } else { -self.eps * l + (-(-self.eps).exp_m1()).ln() }
    }
}
