//! NO answers far outside a level body: the CM program compressed onto a small subspace.
//!
//! For any `(D+1) x k` matrix `W` with orthonormal columns, `L(theta, a) ⪰ 0` implies
//! `W^T L(theta, a) W ⪰ 0`: the program with the LMI `W^T B(theta) W - sum_i (a_i / n)
//! (W^T zh_i)(W^T zh_i)^T ⪰ 0` is a relaxation of CM, and the dual `Z` (`k x k`) of its
//! solve gives the dual `Y = n W Z W^T` of the full program, whose cut ([`super::Cut`], weak
//! duality at the best multiple) bounds `CM(theta)` from below. The compression only chooses
//! the dual: the bound is certified on the full program, like every other lower bound.
//!
//! Where it pays: a membership question far outside the level body (a shrinkage proposal of
//! the slice sampler, a hundred points or more above the level) where the nearest kept cut is
//! affine and too weak, and the warm guess from that cut folds weights that cannot all be kept
//! (the fold is infeasible), so that the full program would have to unfold it. The subspace holds
//! what moved: the leading eigenvectors of the kept cut's dual (the directions the nearby
//! optimum spent its budget on, such as a cluster's), the displacements of `theta` from where
//! that cut was made and from the centre, and the constant coordinate. On a fit at `D = 50`
//! (docs/performance.md) the compressed solve, its weights folded by the kept cut's margins,
//! takes tens of milliseconds and certifies the NO answers that a cold start answered in
//! 0.2 to 4 seconds.
use super::{CertifiedMean, Cut};
use crate::active_set::FastSettings;
use crate::active_set::fold::{ActiveSet, Status, classify, contradicts, margins as fold_margins};
use crate::active_set::group::Grouping;
use crate::active_set::{
    fold_feasible, keep_most_contradicted, repair_budget, unfold_until_feasible,
};
use crate::dense::{mul, psd_projection, quad_forms};
use crate::ipm::{self, Problem};
use nalgebra::DMatrix;
use std::borrow::Cow;

/// The solve of a compressed program: its cut (certified on the full program) and its primal
/// weights (feasible for the compressed LMI, not necessarily for the full one).
pub(crate) struct Compressed {
    /// The cut of the compressed dual `Y = n W Z W^T`.
    pub cut: Cut,
    /// The compressed program's weights, one per point.
    pub weights: Vec<f64>,
    /// Solves of it whose free weights were aggregated ([`compressed_grouping`]).
    pub grouped_solves: usize,
}

/// An orthonormal basis (as columns) of the span of `vectors`, in order, each vector
/// dropped when less than `1e-8` of it (relative) lies outside the span of the earlier ones.
pub(crate) fn orthonormal_basis(vectors: &[Vec<f64>]) -> DMatrix<f64> {
    let mut basis: Vec<Vec<f64>> = Vec::new();
    for v in vectors {
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if !(norm > 0.0 && norm.is_finite()) {
            continue;
        }
        let mut w: Vec<f64> = v.iter().map(|x| x / norm).collect();
        // Gram-Schmidt twice ("twice is enough" for orthogonality to rounding).
        for _ in 0..2 {
            for b in &basis {
                let dot: f64 = b.iter().zip(&w).map(|(x, y)| x * y).sum();
                w.iter_mut().zip(b).for_each(|(wi, bi)| *wi -= dot * bi);
            }
        }
        let rest = w.iter().map(|x| x * x).sum::<f64>().sqrt();
        if rest > 1e-8 {
            basis.push(w.iter().map(|x| x / rest).collect());
        }
    }
    let p = vectors.first().map_or(0, Vec::len);
    DMatrix::from_fn(p, basis.len(), |r, c| basis[c][r])
}

/// `basis` (orthonormal columns) with the part of `direction` outside its span as one more
/// column ([`orthonormal_basis`]).
pub(crate) fn with_direction(basis: &DMatrix<f64>, direction: &[f64]) -> DMatrix<f64> {
    let mut vectors: Vec<Vec<f64>> = basis
        .column_iter()
        .map(|c| c.iter().copied().collect())
        .collect();
    vectors.push(direction.to_vec());
    orthonormal_basis(&vectors)
}

impl CertifiedMean {
    /// The subspace of the module doc for a query at `theta` near the kept cut `cut`: the
    /// `rank` leading eigenvectors of the cut's dual, `theta` minus the point where the cut
    /// was made and minus the centre (lifted with a 0), and the constant coordinate.
    pub(crate) fn compression_basis(&self, theta: &[f64], cut: &Cut, rank: usize) -> DMatrix<f64> {
        let dim = self.dim();
        let eig = cut.dual.as_ref().clone().symmetric_eigen();
        let mut order: Vec<usize> = (0..=dim).collect();
        order.sort_unstable_by(|&i, &j| eig.eigenvalues[j].total_cmp(&eig.eigenvalues[i]));
        let mut vectors: Vec<Vec<f64>> = order
            .iter()
            .take(rank)
            .filter(|&&i| eig.eigenvalues[i] > 0.0)
            .map(|&i| eig.eigenvectors.column(i).iter().copied().collect())
            .collect();
        let lifted = |from: &[f64]| -> Vec<f64> {
            theta
                .iter()
                .zip(from)
                .map(|(t, f)| t - f)
                .chain(std::iter::once(0.0))
                .collect()
        };
        vectors.push(lifted(&cut.at));
        vectors.push(lifted(self.centre().as_slice()));
        let mut constant = vec![0.0; dim + 1];
        constant[dim] = 1.0;
        vectors.push(constant);
        orthonormal_basis(&vectors)
    }

    /// The cut and the weights of the program compressed onto the columns of `basis` (orthonormal,
    /// `(D+1) x k`) at `theta` (module doc). `scaled_points` are `zh_i / sqrt(n)` as columns. The
    /// weights whose margin `margins_i` (of a nearby dual) exceeds
    /// [`crate::CompressSettings::compress_margin`] in absolute value start folded at their bound;
    /// a fold that overfills the compressed LMI is unfolded, and the statuses each solve's dual
    /// contradicts are freed and the program solved again, at most
    /// [`crate::CompressSettings::compress_repairs`] times (the active set of the full program, in
    /// `k` dimensions). `None` when nothing is left to unfold. The solve stops once its dual
    /// objective is [`crate::CompressSettings::compress_stop`] points above `level` or its primal
    /// objective that far below (then the compressed program cannot certify "above `level`").
    /// With `aggregate`, many free weights are solved in groups ([`compressed_grouping`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn compressed_cut(
        &self,
        theta: &[f64],
        basis: &DMatrix<f64>,
        scaled_points: &DMatrix<f64>,
        margins: &[f64],
        level: Option<f64>,
        aggregate: bool,
        settings: &FastSettings,
    ) -> Option<Compressed> {
        let n = self.n() as f64;
        let compressed = mul(true, false, basis, scaled_points);
        let problem = Problem::packing(
            basis.transpose() * self.b_matrix(theta) * basis,
            Cow::Borrowed(&compressed),
        );
        let mut set = ActiveSet::with_status(
            &problem,
            classify(margins, settings.compress.compress_margin),
        );
        set.set_margins(margins.to_vec());
        let (mut repairs, mut grouped_solves) = (0, 0);
        let (sol, weights) = loop {
            // A fold the nearby dual overfills is unfolded (along its violated direction): in
            // `k` dimensions each test is a `k x k` eigenvalue problem.
            if !unfold_until_feasible(&problem, &mut set, fold_feasible) {
                return None;
            }
            let reduced = set.reduce(&problem);
            let fold_cost = problem.cost_a * set.folded_mass();
            let score = |objective: f64| n + n * (objective + fold_cost);
            let a0: Vec<f64> = reduced.upper.iter().map(|u| 0.5 * u).collect();
            let stop = |p: &ipm::IterationReport| {
                level.is_some_and(|level| {
                    p.primal_residual < settings.stop_residual
                        && p.dual_residual < settings.stop_residual
                        && (score(p.dual_objective) > level + settings.compress.compress_stop
                            || score(p.primal_objective) < level - settings.compress.compress_stop)
                })
            };
            let round = &settings.compress.compress_round;
            let sol = match compressed_grouping(&set, reduced.upper.len(), aggregate, settings) {
                Some(g) => {
                    // Only the primal end may stop; the cut below is certified either way.
                    grouped_solves += 1;
                    g.solve(&reduced, &a0, &[], round, stop)
                }
                None => ipm::solve(&reduced, &a0, &[], round, stop),
            };
            // The statuses this dual contradicts (`k^2` flops a point) are freed, the most
            // contradicted first, and the program solved again.
            let m = fold_margins(&problem, &sol.block_duals, &sol.row_duals);
            let mut contradicted: Vec<usize> = (0..m.len())
                .filter(|&i| contradicts(set.status()[i], m[i]))
                .collect();
            if contradicted.is_empty() || repairs == settings.compress.compress_repairs {
                let weights = set.expand(&problem, &sol.a);
                break (sol, weights);
            }
            keep_most_contradicted(
                &mut contradicted,
                &m,
                repair_budget(settings, reduced.upper.len()),
            );
            let mut status = set.status().to_vec();
            for &i in &contradicted {
                status[i] = Status::Free;
            }
            set.update(&problem, status);
            set.set_margins(m);
            repairs += 1;
        };
        // Y = n W Z W^T with Z in the PSD cone; its quadratic forms from the compressed
        // points p_i = W^T zh_i / sqrt(n): zh_i^T Y zh_i = n^2 p_i^T Z p_i (k^2 flops a point
        // instead of (D+1)^2).
        let z = psd_projection(&sol.block_duals[0]);
        let q: Vec<f64> = quad_forms(&compressed, &z)
            .iter()
            .map(|q| n * n * q)
            .collect();
        let y = basis * &z * basis.transpose() * n;
        Some(Compressed {
            cut: self.cut_from_forms(y, q, theta),
            weights,
            grouped_solves,
        })
    }
}

/// The aggregation of the compressed program's free weights ([`Grouping::by_margins`] on the
/// margins `set` carries, as the full program's rounds group theirs): with
/// [`crate::AggregateSettings::group_core`] single weights when `aggregate` and more than
/// [`crate::AggregateSettings::aggregate_free`] of them are free; otherwise with
/// [`crate::CompressSettings::wide_core`] single weights when that is positive and more than
/// [`crate::CompressSettings::wide_free`] are free. Where the kept cut's margins leave about
/// half the weights free (the d = 10 Gaussian's lifted refinement, `D = 55`), a compressed
/// solve of the single weights took 0.07-1.2 s, more than the full program's grouped rounds
/// (about 26 ms); grouped, 10-40 ms. The wide core's measurement is beside the refinement's
/// settings (`sosdp_learn::CovarianceSettings::refinement_score`).
fn compressed_grouping(
    set: &ActiveSet,
    free: usize,
    aggregate: bool,
    settings: &FastSettings,
) -> Option<Grouping> {
    let core = if aggregate && free > settings.aggregate.aggregate_free {
        settings.aggregate.group_core
    } else if !aggregate && settings.compress.wide_core > 0 && free > settings.compress.wide_free {
        settings.compress.wide_core
    } else {
        return None;
    };
    let m: Vec<f64> = set.free().iter().map(|&i| set.margins()[i]).collect();
    Grouping::by_margins(&m, core)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_basis_is_orthonormal_and_drops_dependent_vectors() {
        let vectors = vec![
            vec![1.0, 1.0, 0.0],
            vec![2.0, 2.0, 0.0],
            vec![0.0, 1.0, 1.0],
            vec![0.0, 0.0, 0.0],
        ];
        let w = orthonormal_basis(&vectors);
        assert_eq!(w.ncols(), 2);
        let gram = w.transpose() * &w;
        assert!((gram - DMatrix::identity(2, 2)).amax() < 1e-14);
        // Span: the third vector is in it.
        let v = nalgebra::DVector::from_vec(vec![0.0, 1.0, 1.0]);
        let rest = &v - &w * (w.transpose() * &v);
        assert!(rest.norm() < 1e-14);
    }
}
