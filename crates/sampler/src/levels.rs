//! Level discretisation (MATH.md 4.1, HKMN23 Lemma 4.7).
//!
//! Levels are the data-independent grid `l_i = kappa + i` (`i` an integer), with the offset
//! `kappa` drawn uniformly from `{0, zeta_k, 2 zeta_k, ...} ∩ [0, 1)`. The rounded score
//! `s~(theta) = l_{i(theta)}`, `i(theta) = ceil(s(theta) - kappa)` (the first level at or
//! above the score), has sensitivity 1 exactly: a neighbour moves `s` by at most 1, hence
//! `i(theta)` by at most 1. So the mechanism with density `exp(-eps' s~)` is `2 eps'`-DP like
//! (M) itself, and it differs from (M) pointwise by at most `e^{eps'}`. The random offset
//! makes "the score is within `w` of a level" an event of probability about `w`: a certified
//! bracket of width `w` rarely contains a level, so the refinements of exact decisions are
//! rare (MATH.md 4.5b), and the tie band above each level, where a decision may still depend
//! on the oracle's state, is met with probability about its width
//! ([`sosdp_oracle::membership`]; the argument of Lemma 4.7 for weak membership).
use rand::{Rng, RngExt};

/// The level grid.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Levels {
    offset: f64,
}

impl Levels {
    /// Draw the offset uniformly from the grid of step `grid_step` in `[0, 1)`.
    pub fn draw<R: Rng + ?Sized>(grid_step: f64, rng: &mut R) -> Self {
        let cells = (1.0 / grid_step).floor().max(1.0) as u64;
        Levels {
            offset: rng.random_range(0..cells) as f64 / cells as f64,
        }
    }

    /// A fixed offset in `[0, 1)` (tests and audits).
    pub fn with_offset(offset: f64) -> Self {
        Levels {
            offset: offset.rem_euclid(1.0),
        }
    }

    /// The offset `kappa` in `[0, 1)` of the grid.
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// `i(s) = ceil(s - kappa)`: the index of the first level `>= s`.
    pub fn index(&self, score: f64) -> i64 {
        (score - self.offset).ceil() as i64
    }

    /// `l_i = kappa + i`.
    pub fn level(&self, index: i64) -> f64 {
        self.offset + index as f64
    }
}

/// The level law of the slice sampler (MATH.md 4.5): given `theta` at level `j`, the level
/// `i >= j` has probability `e^{-eps'(i - j)} (1 - e^{-eps'})` for `i < top` and the rest,
/// `e^{-eps'(top - j)}`, for `top`. That is `j + G` with `G` geometric, capped at `top`.
pub fn draw_level_above<R: Rng + ?Sized>(j: i64, top: i64, eps: f64, rng: &mut R) -> i64 {
    if j >= top {
        return top;
    }
    // G = floor(ln U / (-eps)), U uniform on (0, 1]: P(G >= k) = e^{-eps k}.
    let u: f64 = 1.0 - rng.random::<f64>();
    let g = (u.ln() / -eps).floor();
    if g >= (top - j) as f64 {
        top
    } else {
        j + g as i64
    }
}
