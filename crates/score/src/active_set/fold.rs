//! The active set of MATH.md 3.2 (ii): weights whose optimal value is clearly at a bound are
//! taken out of the interior-point method. Weights at their cap `u_i` are folded into the
//! constants (`C_b - sign_b u_i w_i w_i^T`, `h_j - g_j u_i`); weights at 0 are dropped. The
//! fold is maintained incrementally as statuses change, so for fixed points (CM: fixed
//! centre and Gamma) it is computed once and reused across `theta`.
//!
//! Statuses come from the dual: the reduced cost of weight `i` is
//! `r_i = cost_a + sum_j g_j z_j + sum_b sign_b w_bi^T Z_b w_bi`; optimality puts `a_i` at its
//! cap when `r_i < 0` and at 0 when `r_i > 0`. Nothing depends on the statuses being right:
//! the caller certifies the expanded solution on the full problem and frees the weights whose
//! status the final dual contradicts.
use crate::dense::quad_forms;
use crate::ipm::{LmiBlock, Problem};
use nalgebra::DMatrix;
use std::borrow::Cow;

/// Where a weight sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Dropped: `a_i = 0`.
    Lower,
    /// Folded: `a_i = u_i`.
    Upper,
    /// In the interior-point method.
    Free,
}

/// Statuses of all weights and the folded constants.
#[derive(Clone, Debug)]
pub struct ActiveSet {
    status: Vec<Status>,
    /// `sum_{i folded} u_i w_bi w_bi^T` per block.
    folded: Vec<DMatrix<f64>>,
    /// `sum_{i folded} u_i`.
    folded_mass: f64,
    /// The margins the statuses were derived from (0 when unknown).
    margins: Vec<f64>,
    /// Where the statuses come from, as far as the first round's treatment depends on it.
    origin: Origin,
}

/// Where an active set's statuses come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Origin {
    /// A solve (or given): repaired round by round.
    Solved,
    /// A cold start's estimate from a subsample's dual (see [`super::cold_set`]),
    /// with the weight the subsample's optimum removes, scaled to all weights.
    Estimate(f64),
    /// A warm start's guess from the dual of a solve at another `theta`: when its fold is
    /// infeasible or the dual of its first round contradicts more statuses than one repair
    /// frees, the guess is abandoned for a cold start (see [`super::solve_certified`]).
    Guess,
}

impl ActiveSet {
    /// Every weight free: the reduced problem is the full one.
    pub fn all_free(full: &Problem) -> Self {
        Self::with_status(full, vec![Status::Free; full.upper.len()])
    }

    /// Statuses given; the fold is computed from scratch.
    pub fn with_status(full: &Problem, status: Vec<Status>) -> Self {
        let folded_weights: Vec<f64> = status
            .iter()
            .zip(full.upper.iter())
            .map(|(s, u)| if *s == Status::Upper { *u } else { 0.0 })
            .collect();
        let folded = full
            .blocks
            .iter()
            .map(|b| crate::dense::weighted_scatter(&b.points, &folded_weights))
            .collect();
        let margins = vec![0.0; status.len()];
        ActiveSet {
            status,
            folded,
            folded_mass: folded_weights.iter().sum(),
            margins,
            origin: Origin::Solved,
        }
    }

    /// Mark where the statuses come from.
    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }

    /// Where the statuses came from.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The removed weight of a cold start's estimate (`None` for other statuses).
    pub fn estimate(&self) -> Option<f64> {
        match self.origin {
            Origin::Estimate(removed) => Some(removed),
            _ => None,
        }
    }

    /// The status of each weight.
    pub fn status(&self) -> &[Status] {
        &self.status
    }

    /// `sum_{i folded} u_i`.
    pub fn folded_mass(&self) -> f64 {
        self.folded_mass
    }

    /// The margins the statuses were derived from (empty when none were kept).
    pub fn margins(&self) -> &[f64] {
        &self.margins
    }

    /// Keep the margins the statuses were derived from.
    pub fn set_margins(&mut self, margins: Vec<f64>) {
        self.margins = margins;
    }

    /// Number of weights with status `which`.
    pub fn count(&self, which: Status) -> usize {
        self.status.iter().filter(|s| **s == which).count()
    }

    /// Change statuses, updating the fold by the weights that entered or left it. After many
    /// changes the fold is recomputed to keep rounding from accumulating. The statuses count as
    /// solved afterwards.
    pub fn update(&mut self, full: &Problem, status: Vec<Status>) {
        let changed: Vec<usize> = (0..status.len())
            .filter(|&i| (status[i] == Status::Upper) != (self.status[i] == Status::Upper))
            .collect();
        if 4 * changed.len() > status.len() {
            let margins = std::mem::take(&mut self.margins);
            *self = Self::with_status(full, status);
            self.margins = margins;
            return;
        }
        let coeffs: Vec<f64> = changed
            .iter()
            .map(|&i| {
                if status[i] == Status::Upper {
                    full.upper[i]
                } else {
                    -full.upper[i]
                }
            })
            .collect();
        for (fold, block) in self.folded.iter_mut().zip(&full.blocks) {
            let cols = block.select(&changed);
            *fold += crate::dense::weighted_scatter(&cols, &coeffs);
        }
        self.folded_mass += coeffs.iter().sum::<f64>();
        self.status = status;
        self.origin = Origin::Solved;
    }

    /// Indices of the free weights.
    pub fn free(&self) -> Vec<usize> {
        (0..self.status.len())
            .filter(|&i| self.status[i] == Status::Free)
            .collect()
    }

    /// The reduced problem over the free weights (same costs; folded constants).
    pub fn reduce(&self, full: &Problem) -> Problem<'static> {
        let free = self.free();
        Problem {
            upper: Cow::Owned(free.iter().map(|&i| full.upper[i]).collect()),
            cost_a: full.cost_a,
            cost_extra: full.cost_extra.clone(),
            blocks: full
                .blocks
                .iter()
                .zip(&self.folded)
                .map(|(b, fold)| LmiBlock {
                    constant: &b.constant - fold * b.sign,
                    sign: b.sign,
                    points: Cow::Owned(b.select(&free)),
                    extra: b.extra.clone(),
                })
                .collect(),
            rows: full
                .rows
                .iter()
                .map(|r| {
                    let mut r = r.clone();
                    r.h -= r.a_coeff * self.folded_mass;
                    r
                })
                .collect(),
        }
    }

    /// Weights of the full problem from those of the free ones.
    pub fn expand(&self, full: &Problem, a_free: &[f64]) -> Vec<f64> {
        let mut next = a_free.iter();
        self.status
            .iter()
            .zip(full.upper.iter())
            .map(|(s, u)| match s {
                Status::Lower => 0.0,
                Status::Upper => *u,
                Status::Free => *next.next().expect("one free weight per free status"),
            })
            .collect()
    }
}

/// Normalised margins `-r_i / scale` of every weight of the full problem for given duals:
/// positive means "at its cap", negative "at 0"; `scale = |cost_a + sum_j g_j z_j|` (for CM,
/// the margin is `zh_i^T Y zh_i - 1` in the units of the certified dual).
pub fn margins(full: &Problem, block_duals: &[DMatrix<f64>], row_duals: &[f64]) -> Vec<f64> {
    let base = full.cost_a
        + full
            .rows
            .iter()
            .zip(row_duals)
            .map(|(r, z)| r.a_coeff * z)
            .sum::<f64>();
    let mut pull = vec![0.0; full.upper.len()];
    for (b, z) in full.blocks.iter().zip(block_duals) {
        for (p, q) in pull.iter_mut().zip(quad_forms(&b.points, z)) {
            *p += b.sign * q;
        }
    }
    let mean_pull = pull.iter().map(|p| p.abs()).sum::<f64>() / pull.len().max(1) as f64;
    let scale = base.abs().max(1e-9 * mean_pull).max(f64::MIN_POSITIVE);
    pull.iter().map(|p| -(base + p) / scale).collect()
}

/// True when a margin contradicts a status: folded with a negative margin, dropped with a
/// positive one.
pub fn contradicts(status: Status, margin: f64) -> bool {
    (status == Status::Upper && margin < 0.0) || (status == Status::Lower && margin > 0.0)
}

/// Statuses from margins: folded above `delta`, dropped below `-delta`, free in between.
pub fn classify(margins: &[f64], delta: f64) -> Vec<Status> {
    margins
        .iter()
        .map(|&m| {
            if m > delta {
                Status::Upper
            } else if m < -delta {
                Status::Lower
            } else {
                Status::Free
            }
        })
        .collect()
}

/// Statuses from margins as [`classify`], with at most `keep` weights not folded: when more
/// are free or dropped, the free ones above the `keep`-th smallest margin are folded. In the
/// CM program the weights below their cap number about the score, and where the score is a
/// small fraction of `n` the optimal dual is nearly `y e e^T` (`e` the lifted constant
/// coordinate) so that every margin is near 0 and a fixed `delta` leaves most weights free
/// (8000 of 20000 in the first stage of a fit); the order of the margins still tells which
/// weights the optimum removes. Wrong folds are contradicted by the reduced problem's dual
/// and freed by the repair rounds.
pub fn classify_keeping(margins: &[f64], delta: f64, keep: usize) -> Vec<Status> {
    let mut status = classify(margins, delta);
    let unfolded = status.iter().filter(|s| **s != Status::Upper).count();
    if unfolded > keep && keep > 0 {
        let mut sorted = margins.to_vec();
        let (_, threshold, _) = sorted.select_nth_unstable_by(keep - 1, f64::total_cmp);
        let threshold = *threshold;
        for (s, &m) in status.iter_mut().zip(margins) {
            if *s == Status::Free && m > threshold {
                *s = Status::Upper;
            }
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Near-degenerate margins (all within the band): only the `keep` smallest stay unfolded,
    /// and the dropped ones count towards `keep`.
    #[test]
    fn keeping_folds_all_but_the_smallest_margins() {
        let margins: Vec<f64> = (0..100)
            .map(|i| -0.5 + 0.001 * i as f64)
            .chain((0..1000).map(|i| 0.01 - 1e-5 * i as f64))
            .collect();
        let plain = classify(&margins, 0.02);
        assert_eq!(plain.iter().filter(|s| **s == Status::Free).count(), 1000);
        let kept = classify_keeping(&margins, 0.02, 150);
        assert_eq!(kept.iter().filter(|s| **s != Status::Upper).count(), 150);
        // The 100 dropped stay dropped; the 50 free are the smallest margins above them.
        assert!(kept[..100].iter().all(|s| *s == Status::Lower));
        let mut free: Vec<f64> = kept
            .iter()
            .zip(&margins)
            .filter(|(s, _)| **s == Status::Free)
            .map(|(_, m)| *m)
            .collect();
        free.sort_by(f64::total_cmp);
        let largest_folded = kept
            .iter()
            .zip(&margins)
            .filter(|(s, _)| **s == Status::Upper)
            .map(|(_, m)| *m)
            .fold(f64::INFINITY, f64::min);
        assert!(free.last().unwrap() < &largest_folded);
        // Without an estimate, or with room to spare, nothing changes.
        assert_eq!(classify_keeping(&margins, 0.02, 0), plain);
        assert_eq!(classify_keeping(&margins, 0.02, 2000), plain);
    }
}
