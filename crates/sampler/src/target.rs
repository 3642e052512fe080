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
//!
//! **Exact decisions** (MATH.md 4.5b). Every membership answer and level index the paths use
//! is decided by certified brackets, refined while they contain the level
//! ([`sosdp_oracle::decide`]); the solver's value inside a bracket, which depends
//! on the oracle's warm-start state, never decides. So the slice path's level draw and its
//! shrinkage hit-and-run steps are fixed Markov kernels, functions of the current point and
//! the random draws only, whatever state the oracle is in, except when a queried score lies
//! in the tie band `(l, l + f]` just above a level `l`, where the tie rule answers YES if the
//! bracket is still undecided: `f = 1e-10 n` points by default
//! ([`sosdp_oracle::Refinement`]; `5e-6` points at n = 50000), an event of probability about
//! `f` per query under the random level offset, counted in the release record
//! ([`crate::counted::OracleCalls::ties`]). Exempt: chord steps ([`LineMove::Chord`]), whose
//! ends come from solves to a tolerance along the line, and the layer-cake path's volume
//! ladder, which classifies samples by their scores' values ([`Target::score`]).
use crate::body::{ConvexBody, Domain};
use crate::error::SamplerError;
use crate::hit_and_run::{Directions, step};
use crate::level_body::{LevelBody, LineMove};
use crate::levels::Levels;
use rand::Rng;
use sosdp_oracle::ScoreOracle;
use std::cell::Cell;
use std::time::Instant;

/// The target law and the means to walk in its level bodies.
pub struct Target<'a, O: ?Sized, D> {
    /// The score oracle.
    pub oracle: &'a O,
    /// The data-independent domain `Theta`.
    pub domain: &'a D,
    /// The level grid.
    pub levels: Levels,
    /// `eps' = eps / 2`, the sampling parameter.
    pub eps: f64,
    /// The index `I` with `K_I = Theta`: the first level at or above the score's maximum.
    pub top: i64,
    /// How hit-and-run draws directions.
    pub directions: Directions,
    /// How steps find their point on the line.
    pub line: LineMove,
    /// Width up to which the bracket of a level index by evaluation may stay
    /// ([`Self::index_by_evaluation`]; the levels inside it are decided exactly, so the index
    /// does not depend on it). Default 0: the oracle's own accuracy.
    pub index_accuracy: f64,
    /// Length scale of chords carried from body to body.
    scale: Cell<f64>,
    /// Running costs of the two ways to find a level index.
    costs: Cell<IndexCosts>,
    /// Level indices by evaluation whose bracket contained a grid level.
    straddled: Cell<usize>,
}

/// Running means (factor 0.9) of the seconds one index takes by each way. The rule: descend
/// when a descent has been cheaper than an evaluation, evaluate while the descent's cost is
/// unknown; every 25th call (from the 4th) takes the other way, so both costs stay measured
/// as the chain moves.
#[derive(Clone, Copy, Debug, Default)]
struct IndexCosts {
    evaluate: f64,
    descent: f64,
    calls: usize,
}

impl IndexCosts {
    fn mean(old: f64, new: f64) -> f64 {
        if old == 0.0 {
            new
        } else {
            0.9 * old + 0.1 * new
        }
    }

    fn descend(&self) -> bool {
        let rule = self.descent > 0.0 && self.descent < self.evaluate;
        if self.calls % 25 == 3 { !rule } else { rule }
    }

    fn observe(self, descent: bool, seconds: f64) -> Self {
        let (evaluate, descended) = if descent {
            (self.evaluate, Self::mean(self.descent, seconds))
        } else {
            (Self::mean(self.evaluate, seconds), self.descent)
        };
        IndexCosts {
            evaluate,
            descent: descended,
            calls: self.calls + 1,
        }
    }
}

impl<'a, O: ScoreOracle + Sync + ?Sized, D: Domain> Target<'a, O, D> {
    /// The target of `oracle` on `domain` with level grid `levels` and sampling parameter
    /// `eps` (already halved); `top` is the index of the score's maximum.
    pub fn new(
        oracle: &'a O,
        domain: &'a D,
        levels: Levels,
        eps: f64,
        directions: Directions,
        line: LineMove,
    ) -> Self {
        let top = levels.index(oracle.max_score());
        let scale = Cell::new(0.1 * domain.radius());
        let costs = Cell::new(IndexCosts::default());
        Target {
            oracle,
            domain,
            levels,
            eps,
            top,
            directions,
            line,
            index_accuracy: 0.0,
            scale,
            costs,
            straddled: Cell::new(0),
        }
    }

    /// How many level indices by evaluation so far had a bracket containing a grid level, so
    /// that membership decisions settled them ([`Self::index_by_evaluation`]).
    pub fn straddled_indices(&self) -> usize {
        self.straddled.get()
    }

    /// The level index of `theta` known to lie in `K_upper`: the smallest `j <= upper` with
    /// `theta` in `K_j`, membership decided exactly ([`ScoreOracle::decide`]: by certified
    /// brackets, refined while they contain the level, so that the index is a function of
    /// `theta` alone except when the score lies in the tie band just above a level, see
    /// [`sosdp_oracle::membership`]). Two ways give the same index, and the cheaper one by the
    /// running costs measured so far is used (the choice depends on timings, the index does
    /// not):
    /// - one evaluation: its certified bracket `[lower, upper]` answers every level outside
    ///   it (YES at and above `upper`, NO below `lower`), and the levels inside it (at most
    ///   one for a bracket narrower than the level spacing) are decided exactly
    ///   ([`Self::index_by_evaluation`]);
    /// - a descent of membership decisions at `upper - 1, upper - 2, ...` until a NO, each
    ///   stopping as soon as its bracket decides (cheap when the score is far from the level);
    ///   a YES whose certified upper end `u` lies below the queried level also places `theta`
    ///   in every body at or above `u`, so the descent continues below the first grid level
    ///   at or above `u` (the same answer, fewer queries).
    pub fn index_below(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        let costs = self.costs.get();
        let descent = costs.descend();
        let clock = Instant::now();
        let j = if descent {
            self.index_by_descent(theta, upper)?
        } else {
            self.index_by_evaluation(theta, upper)?
        };
        self.costs
            .set(costs.observe(descent, clock.elapsed().as_secs_f64()));
        Ok(j)
    }

    /// [`Self::index_below`] by one evaluation: with its bracket `[lower, upper]` (at most
    /// [`Self::index_accuracy`] wide), every level `l_j >= upper` holds `theta` and no level
    /// `l_j < lower` does, so the index lies in `[i(lower), i(upper)]`; the levels from
    /// `i(lower)` up are decided exactly until the first YES (none when `i(lower) = i(upper)`,
    /// the usual case: with the random level offset a bracket of width `w` contains a level with
    /// probability about `w`).
    pub fn index_by_evaluation(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        let eval = self.oracle.evaluate_within(theta, self.index_accuracy)?;
        let last = self.levels.index(eval.upper).min(upper.min(self.top));
        let first = self.levels.index(eval.lower).min(last);
        if first < last {
            self.straddled.set(self.straddled.get() + 1);
        }
        for j in first..last {
            if self.oracle.decide(theta, self.levels.level(j))?.member {
                return Ok(j);
            }
        }
        Ok(last)
    }

    /// [`Self::index_below`] by the membership descent, skipping the levels a YES answer's
    /// certified upper end already decides.
    pub fn index_by_descent(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        let mut j = upper.min(self.top);
        loop {
            let decision = self.oracle.decide(theta, self.levels.level(j - 1))?;
            if !decision.member {
                return Ok(j);
            }
            j -= 1;
            if decision.eval.upper.is_finite() {
                j = j.min(self.levels.index(decision.eval.upper));
            }
        }
    }

    /// The score at `theta` (one evaluation): the solver's value, within the oracle's
    /// accuracy of the true score (it may depend on the oracle's state).
    pub fn score(&self, theta: &[f64]) -> Result<f64, SamplerError> {
        Ok(self.oracle.evaluate(theta)?.score)
    }

    /// `steps` hit-and-run steps from `x` in the body `Theta ∩ {s <= level}`, or in `Theta`
    /// itself when `level` is at or above the top level.
    pub fn walk<R: Rng + ?Sized>(
        &self,
        level: f64,
        x: &mut [f64],
        steps: usize,
        rng: &mut R,
    ) -> Result<(), SamplerError> {
        self.with_body(level, |body| {
            for _ in 0..steps {
                step(body, &self.directions, x, rng)?;
            }
            Ok(())
        })
    }

    /// Run `f` on the body at `level` (the domain at or above the top level).
    pub fn with_body<T>(
        &self,
        level: f64,
        f: impl FnOnce(&dyn ConvexBody) -> Result<T, SamplerError>,
    ) -> Result<T, SamplerError> {
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
        if index >= top {
            -self.eps * l
        } else {
            -self.eps * l + (-(-self.eps).exp_m1()).ln()
        }
    }
}
