//! One certified evaluation of a score: its value and a bracket `[lower, upper]` that
//! contains the exact score whatever the backend's state (MATH.md 3.2).

/// One evaluation of a score at a parameter `theta`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreEval {
    /// The solver's value, clamped into `[lower, upper]`.
    pub score: f64,
    /// Certified lower bound, from a dual feasible point.
    pub lower: f64,
    /// Certified upper bound, from a primal feasible point.
    pub upper: f64,
    /// False when `theta` lies outside the score's domain, where the score is "infinite"
    /// and reported as its maximum `n` (MATH.md 2.1).
    pub in_domain: bool,
}

impl ScoreEval {
    /// The value outside the domain: `n`, exactly.
    pub fn outside(n: f64) -> Self {
        ScoreEval {
            score: n,
            lower: n,
            upper: n,
            in_domain: false,
        }
    }

    /// The always-valid bracket `[0, n]` (`n` the score's maximum,
    /// [`ScoreOracle::max_score`](crate::ScoreOracle::max_score)): every score of the trait
    /// takes its values there, so it certifies any point without a solve. It is what an
    /// evaluation that failed is worth (MATH.md 4.7); its value is its upper end.
    pub fn unknown(n: f64) -> Self {
        ScoreEval::bracketed(n, 0.0, n)
    }

    /// Build from a solver value and certified bounds; the value is clamped into the bracket.
    pub fn bracketed(value: f64, lower: f64, upper: f64) -> Self {
        let value = if value.is_finite() {
            value.clamp(lower, upper)
        } else {
            upper
        };
        ScoreEval {
            score: value,
            lower,
            upper,
            in_domain: true,
        }
    }

    /// Width of the certified bracket.
    pub fn width(&self) -> f64 {
        self.upper - self.lower
    }
}
