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
    /// ([`Self::index_by_evaluation`], the MALA path's index of a proposal; the levels inside
    /// it are decided exactly, so the index does not depend on it). Default 0: the oracle's
    /// own accuracy.
    pub index_accuracy: f64,
    /// Most membership decisions a level index tries by descent before the search finishes
    /// it ([`Self::index_below`]). Default 0: by the search only.
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
    /// a search from the level it reached ([`Self::index_by_search`]). Both give the same
    /// index; the rule reads no clock, so which oracle calls a seeded chain makes (and hence
    /// the oracle's warm-start state, which can matter only in the tie band) does not depend
    /// on timings or machine load.
    ///
    /// Why both: in the slice chain the index is usually a few levels below `upper` (the level
    /// drawn is a geometric number of levels above the last index), where the descent asks
    /// about one decision a level and each stops as soon as its bracket decides; a chain that
    /// still climbs from its public start (MATH.md 4.7b) drops tens of levels in one
    /// iteration, where the search asks about `2 log2` of the drop. It replaced one evaluation
    /// (to a bracket [`Self::index_accuracy`] wide, [`Self::index_by_evaluation`]), which pays
    /// for a narrow bracket wherever the point is: on the d = 50, n = 50000 last-stage replay
    /// (5% cluster, `Gamma = 1.25 I`, 60 iterations from the public centre) its 3 evaluations
    /// took 39.5 s of 236 s, the 6 decisions of the search that replaced them about 11 s
    /// (docs/performance.md section 5).
    pub fn index_below(&self, theta: &[f64], upper: i64) -> Result<i64, SamplerError> {
        let (j, done) = self.descend(theta, upper.min(self.top), i64::MIN, self.descent_budget)?;
        if done {
            Ok(j)
        } else {
            self.index_by_search(theta, j)
        }
    }

    /// The level index of `theta` known to lie in `K_last`, by a galloping search of exact
    /// membership decisions: at `l_{hi-2}, l_{hi-4}, l_{hi-8}, ...` below the lowest level `hi`
    /// known to hold `theta` (the step doubling after each YES) until a NO at some `lo`, then
    /// by bisection of `(lo, hi]`. Membership is monotone in the level, so the smallest `j` in
    /// `K_j` is the descent's index; a YES's certified upper end `u` also puts `theta` in
    /// every `K_j` with `l_j >= u`, and a NO's certified lower end `v` in no `K_j` with
    /// `l_j < v`, which narrow `(lo, hi]` further. No level below 0 holds a point (scores are
    /// non-negative), so none is asked. An index `g` levels below `last` costs about
    /// `2 log2 g` decisions.
    ///
    /// A decision that fell to the tie rule (a score in the tie band just above the level, or
    /// a failed solve, answered YES on the always-valid bracket) is trusted only where the
    /// descent would ask it: the search then ends by the descent from `hi` ([`Self::descend`]),
    /// so that it gives the descent's index in those cases too (a failure far below the index
    /// would otherwise pull it down to that level).
    pub fn index_by_search(&self, theta: &[f64], last: i64) -> Result<i64, SamplerError> {
        // Every level below `l_floor` is negative: no point lies in it.
        let floor = self.levels.index(0.0) - 1;
        // `theta` lies in `K_hi` and not in `K_lo`.
        let (mut lo, mut hi) = (floor, last.min(self.top));
        let (mut step, mut galloping) = (2i64, true);
        while hi - lo > 1 {
            galloping &= hi.saturating_sub(step) > lo;
            let j = if galloping {
                hi - step
            } else {
                lo + (hi - lo) / 2
            };
            let decision = self.oracle.decide(theta, self.levels.level(j))?;
            if decision.tie {
                return Ok(self.descend(theta, hi, lo, usize::MAX)?.0);
            }
            if decision.member {
                hi = self
                    .level_above(decision.eval.upper)
                    .map_or(j, |k| j.min(k));
                step = step.saturating_mul(2);
            } else {
                lo = self
                    .level_above(decision.eval.lower)
                    .map_or(j, |k| j.max(k.saturating_sub(1)));
                galloping = false;
            }
            lo = lo.min(hi - 1);
        }
        Ok(hi)
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
            if let Some(k) = self.level_above(decision.eval.upper) {
                j = j.min(k);
            }
        }
        Ok((j.max(first), true))
    }

    /// The grid level at or above a certified end of a bracket (none for a non-finite one):
    /// a YES's upper end `u` puts `theta` in `K_j` for every `j >= level_above(u)`, a NO's
    /// lower end `v` in no `K_j` with `j < level_above(v)`.
    fn level_above(&self, end: f64) -> Option<i64> {
        end.is_finite().then(|| self.levels.index(end))
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
