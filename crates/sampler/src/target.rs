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
    /// Most membership decisions a level index tries by descent before one evaluation
    /// finishes it ([`Self::index_below`]). Default 0: by evaluation only.
    pub descent_budget: usize,
    /// Length scale of chords carried from body to body.
    scale: Cell<f64>,
    /// Level indices by evaluation whose bracket contained a grid level.
    straddled: Cell<usize>,
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
        Target {
            oracle,
            domain,
            levels,
            eps,
            top,
            directions,
            line,
            index_accuracy: 0.0,
            descent_budget: 0,
            scale,
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
    /// [`sosdp_oracle::membership`]). Found by a descent of at most
    /// [`Self::descent_budget`] membership decisions at `l_{upper-1}, l_{upper-2}, ...` (with
    /// the jumps of [`Self::index_by_descent`]), and, if the descent has not ended by then, by
    /// one evaluation from the level it reached ([`Self::index_by_evaluation`]). Both give the
    /// same index; the rule reads no clock, so which oracle calls a seeded chain makes (and
    /// hence the oracle's warm-start state, which can matter only in the tie band) does not
    /// depend on timings or machine load.
    ///
    /// Why both: in the slice chain the index is usually a few levels below `upper` (the level
    /// drawn is a geometric number of levels above the last index), where a decision stops as
    /// soon as its bracket decides; an evaluation pays for a narrow bracket wherever the point
    /// is. On the d = 50, n = 50000 last-stage replay (5% cluster, `Gamma = 1.25 I`, 60
    /// iterations from the public centre) evaluations took 11.5 s each against 0.27 s per
    /// decision. Evaluations only, on whole d = 10, n = 20000 private-mean fits (`sosdp mean
    /// --epsilon 1 --radius 10 --corruption 0.05 --seed 1`, three interleaved runs, medians, the
    /// same estimate every time): 48.0 s with a 5% cluster (descent only 47.5 s), 19.5 s clean
    /// (14.4 s; about 2.9 decisions per index).
    pub fn index_below(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        let (j, done) = self.descend(theta, upper.min(self.top), i64::MIN, self.descent_budget)?;
        if done {
            Ok(j)
        } else {
            self.index_by_evaluation(theta, j)
        }
    }

    /// [`Self::index_below`] by one evaluation: with its bracket `[lower, upper]` (at most
    /// [`Self::index_accuracy`] wide), every level `l_j >= upper` holds `theta` and no level
    /// `l_j < lower` does, so the index lies in `[i(lower), i(upper)]`; the levels inside
    /// the bracket are decided exactly by the descent from `i(upper)` down to `i(lower)`
    /// (none when `i(lower) = i(upper)`, the usual case: with the random level offset a
    /// bracket of width `w` contains a level with probability about `w`). A failed
    /// evaluation is the bracket `[0, n]` ([`crate::counted`]): the descent then runs from
    /// `upper`, as [`Self::index_by_descent`] does.
    pub fn index_by_evaluation(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        let eval = self.oracle.evaluate_within(theta, self.index_accuracy)?;
        let last = self.levels.index(eval.upper).min(upper.min(self.top));
        let first = self.levels.index(eval.lower).min(last);
        if first < last {
            self.straddled.set(self.straddled.get() + 1);
        }
        Ok(self.descend(theta, last, first, usize::MAX)?.0)
    }

    /// [`Self::index_below`] by the membership descent, skipping the levels a YES answer's
    /// certified upper end already decides.
    pub fn index_by_descent(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        Ok(self
            .descend(theta, upper.min(self.top), i64::MIN, usize::MAX)?
            .0)
    }

    /// The level index of `theta` known to lie in `K_last` and outside `K_j` for every
    /// `j < first`: decisions at `l_{last-1}, l_{last-2}, ...` down to `l_first` until a NO,
    /// the first one above which is the index (`first` when every one is YES). A YES whose
    /// certified upper end `u` lies below the queried level also answers YES at every level
    /// at or above `u`, so the descent continues below the first grid level at or above `u`.
    /// After `budget` decisions it stops: `(j, false)` with `theta` in `K_j`; `(index, true)`
    /// when it ended.
    fn descend(
        &self,
        theta: &[f64],
        last: i64,
        first: i64,
        budget: usize,
    ) -> Result<(i64, bool), SamplerError> {
        let mut j = last;
        let mut asked = 0;
        while j > first {
            if asked == budget {
                return Ok((j, false));
            }
            // A YES is followed by the question one level lower, unless that is below `first`.
            let decision = if j - 1 > first {
                let (level, next) = (self.levels.level(j - 1), self.levels.level(j - 2));
                self.oracle.decide_then(theta, level, next)?
            } else {
                self.oracle.decide(theta, self.levels.level(j - 1))?
            };
            asked += 1;
            if !decision.member {
                return Ok((j, true));
            }
            j -= 1;
            if decision.eval.upper.is_finite() {
                j = j.min(self.levels.index(decision.eval.upper));
            }
        }
        Ok((j.max(first), true))
    }

    /// The score at `theta` (one evaluation): the solver's value, within the oracle's
    /// accuracy of the true score (it may depend on the oracle's state).
    pub fn score(&self, theta: &[f64]) -> Result<f64, SamplerError> {
        Ok(self.oracle.evaluate(theta)?.score)
    }

    /// `steps` hit-and-run steps from `x` in the body `Theta ∩ {s <= level}`, or in `Theta`
    /// itself when `level` is at or above the top level. The point a step accepts is where
    /// the next level index descends from `level`: its membership questions say that a YES
    /// is followed by the question one grid level lower ([`LevelBody::asking_next`]).
    pub fn walk<R: Rng + ?Sized>(
        &self,
        level: f64,
        x: &mut [f64],
        steps: usize,
        rng: &mut R,
    ) -> Result<(), SamplerError> {
        self.with_body(level, Some(level - 1.0), |body| {
            for _ in 0..steps {
                step(body, &self.directions, x, rng)?;
            }
            Ok(())
        })
    }

    /// Run `f` on the body at `level` (the domain at or above the top level), whose
    /// membership questions say that a YES is followed by the question at `next`
    /// ([`LevelBody::asking_next`]).
    pub fn with_body<T>(
        &self,
        level: f64,
        next: Option<f64>,
        f: impl FnOnce(&dyn ConvexBody) -> Result<T, SamplerError>,
    ) -> Result<T, SamplerError> {
        if level >= self.levels.level(self.top) {
            return f(self.domain);
        }
        let body = LevelBody::new(self.oracle, self.domain, level, self.scale.get(), self.line)
            .asking_next(next);
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
