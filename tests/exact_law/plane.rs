//! Exact laws of a two-dimensional CM release by quadrature on a square grid of cells over the
//! disc `B(0, radius)` (tests/privacy.rs, the whole mean learner at d = 2): every cell carries
//! the fraction of its area inside the disc and the score at its midpoint; the law per cell is
//! that of [`super::weighted_cell_law`] with those area weights. Cells are binned into a coarse
//! square grid for the chi-square tests. Also the whole learner's releases over a range of
//! seeds ([`learner_releases`]), which tests/privacy_learners.rs draws too.
use super::{ChiSquare, chi_square, noncentral_chi2_sf, noncentrality};
use nalgebra::DMatrix;
use sosdp::learn::special::{chi_square_quantile, chi_square_upper};
use sosdp::learn::{Learner, Release};

/// A `side x side` grid of square cells over `[-radius, radius]^2`, of which the cells meeting
/// the disc `B(0, radius)` are kept, with the fraction of their area inside it (16 x 16
/// sub-points per cell).
pub struct DiscGrid {
    pub radius: f64,
    pub side: usize,
    /// `(row, column)` of each kept cell (`x` = column, `y` = row).
    pub cells: Vec<(usize, usize)>,
    pub midpoints: Vec<[f64; 2]>,
    pub weights: Vec<f64>,
}

impl DiscGrid {
    pub fn new(radius: f64, side: usize) -> Self {
        let h = 2.0 * radius / side as f64;
        let (mut cells, mut midpoints, mut weights) = (vec![], vec![], vec![]);
        let sub = 16;
        for r in 0..side {
            for c in 0..side {
                let inside = (0..sub * sub)
                    .filter(|k| {
                        let x = -radius
                            + h * (c as f64 + (k % sub) as f64 / sub as f64 + 0.5 / sub as f64);
                        let y = -radius
                            + h * (r as f64 + (k / sub) as f64 / sub as f64 + 0.5 / sub as f64);
                        x * x + y * y <= radius * radius
                    })
                    .count();
                if inside > 0 {
                    cells.push((r, c));
                    midpoints.push([
                        -radius + h * (c as f64 + 0.5),
                        -radius + h * (r as f64 + 0.5),
                    ]);
                    weights.push(inside as f64 / (sub * sub) as f64);
                }
            }
        }
        DiscGrid {
            radius,
            side,
            cells,
            midpoints,
            weights,
        }
    }

    /// The bin (of `bins x bins` equal squares of `[-radius, radius]^2`) of a point.
    pub fn bin_of(&self, p: &[f64], bins: usize) -> usize {
        let idx = |v: f64| {
            (((v + self.radius) / (2.0 * self.radius) * bins as f64)
                .floor()
                .max(0.0) as usize)
                .min(bins - 1)
        };
        idx(p[1]) * bins + idx(p[0])
    }

    /// The cell law summed into `bins x bins` bins (`side` a multiple of `bins`).
    pub fn binned(&self, law: &[f64], bins: usize) -> Vec<f64> {
        let mut out = vec![0.0; bins * bins];
        for ((r, c), m) in self.cells.iter().zip(law) {
            out[(r * bins / self.side) * bins + c * bins / self.side] += m;
        }
        out
    }

    /// The marginal CDF of the first coordinate (each cell's mass spread uniformly over its
    /// `x` extent).
    pub fn x_cdf<'a>(&'a self, law: &'a [f64]) -> impl Fn(f64) -> f64 + 'a {
        let h = 2.0 * self.radius / self.side as f64;
        move |x: f64| {
            self.cells
                .iter()
                .zip(law)
                .map(|((_, c), m)| {
                    let lo = -self.radius + h * *c as f64;
                    m * ((x - lo) / h).clamp(0.0, 1.0)
                })
                .sum()
        }
    }
}

/// Counts of points in the bins of [`DiscGrid::bin_of`].
pub fn histogram(grid: &DiscGrid, points: &[Vec<f64>], bins: usize) -> Vec<f64> {
    let mut h = vec![0.0; bins * bins];
    points.iter().for_each(|p| h[grid.bin_of(p, bins)] += 1.0);
    h
}

/// Chi-square of binned counts against `p`: `(statistic, df, p-value, groups)`.
pub fn chi_square_test(counts: &[f64], p: &[f64]) -> (f64, f64, f64, Vec<Vec<usize>>) {
    let ChiSquare {
        groups,
        statistic,
        df,
    } = chi_square(counts, p);
    (statistic, df, chi_square_upper(df, statistic), groups)
}

/// The power at level `alpha` of the chi-square test with `df` degrees of freedom against an
/// effect size `w` with `n` draws (non-centrality `n w^2`).
pub fn power_at_effect(df: f64, alpha: f64, n: f64, w: f64) -> f64 {
    noncentral_chi2_sf(chi_square_quantile(df, 1.0 - alpha), df, n * w * w)
}

/// The power at level `alpha` of the chi-square test against `p` (merged into `groups`) when
/// the draws follow `q`.
pub fn power_against(
    groups: &[Vec<usize>],
    p: &[f64],
    q: &[f64],
    n: f64,
    alpha: f64,
) -> (f64, f64) {
    let df = (groups.len() - 1) as f64;
    let lambda = noncentrality(groups, p, q, n);
    (
        noncentral_chi2_sf(chi_square_quantile(df, 1.0 - alpha), df, lambda),
        lambda,
    )
}

/// `learner` with its seed set to `seed` (its other privacy settings kept).
pub fn seeded<L: Learner + Clone>(learner: &L, seed: u64) -> L {
    learner.clone().with_privacy(learner.privacy().seed(seed))
}

/// `pick` of the releases of `count` fits of `learner` on `data`, one per seed
/// `seed..seed + count` (in that order), on two threads.
pub fn learner_releases<L, T>(
    learner: &L,
    data: &DMatrix<f64>,
    count: usize,
    seed: u64,
    pick: impl Fn(Release<L::Estimate, L::Plan>) -> T + Sync,
) -> Vec<T>
where
    L: Learner + Clone + Sync,
    T: Send,
{
    let half = count / 2;
    let pick = &pick;
    std::thread::scope(|scope| {
        let parts: Vec<_> = [(0, half), (half, count)]
            .into_iter()
            .map(|(a, b)| {
                scope.spawn(move || {
                    (a..b)
                        .map(|k| pick(seeded(learner, seed + k as u64).fit(data).unwrap().release))
                        .collect::<Vec<T>>()
                })
            })
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}
