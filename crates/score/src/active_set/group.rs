//! Aggregation of the free weights (MATH.md 4.10): weights constrained to be equal within
//! groups, so that thousands of free weights of a tight cluster enter the interior-point
//! method as tens of group variables.
//!
//! A group `g` of free weights (caps `u_i`) becomes one free variable `t_g` in `[0, 1]` with
//! `a_i = t_g u_i` for its members: in each LMI block it enters with the matrix
//! `T_bg = sign_b sum_{i in g} u_i w_bi w_bi^T` (the group's scatter `M_g`, not rank one), in
//! each linear row with `a_coeff sum_{i in g} u_i`, in the objective with
//! `cost_a sum_{i in g} u_i`, and two rows keep it in `[0, 1]`. The grouped program is a
//! restriction of the reduced one, so its optimum, expanded to every member, is feasible: an
//! upper bound on the score. Its dual, evaluated on every point by the caller's certificate
//! (weak duality with the hinge per point), is a lower bound. The gap between them is the
//! Jensen gap of the hinge within the groups whose members' margins straddle 0.
//!
//! Groups are runs of the free weights sorted by their current margins: the `core` weights on
//! each side of the margins' zero crossing stay single (they are the ones whose status is in
//! doubt), and the runs grow geometrically away from it (`core`, `2 core`, `4 core`, ...),
//! where the margins say the weights sit at one bound. When a grouped round does not decide,
//! the next round regroups by the margins of its dual, whose crossing is more accurate.
use crate::ipm::{self, IpmSettings, IterationReport, LinearRow, LmiBlock, Problem, Solution};
use std::borrow::Cow;

/// A partition of the reduced problem's weights into single weights and groups.
#[derive(Clone, Debug, PartialEq)]
pub struct Grouping {
    /// Reduced-problem indices of the weights that stay single.
    single: Vec<usize>,
    /// Reduced-problem indices of each group's members.
    groups: Vec<Vec<usize>>,
}

impl Grouping {
    /// Groups of the reduced problem's `margins.len()` weights (their margins in the same
    /// order): sorted by margin, `core` single weights on each side of the zero crossing, then
    /// runs of `core`, `2 core`, `4 core`, ... weights away from it on both sides (a run
    /// of one weight stays single). `None` when fewer than 2 groups would form.
    pub fn by_margins(margins: &[f64], core: usize) -> Option<Grouping> {
        let core = core.max(1);
        let mut order: Vec<usize> = (0..margins.len()).collect();
        order.sort_unstable_by(|&i, &j| margins[i].total_cmp(&margins[j]));
        let crossing = order.partition_point(|&i| margins[i] < 0.0);
        let mut single = Vec::new();
        let mut groups = Vec::new();
        let mut place = |run: &[usize]| {
            if run.len() == 1 {
                single.push(run[0]);
            } else {
                groups.push(run.to_vec());
            }
        };
        // Above the crossing: singles, then growing runs.
        let above = &order[crossing..];
        let (near, mut rest) = above.split_at(core.min(above.len()));
        near.iter().for_each(|&i| place(&[i]));
        let mut size = core;
        while !rest.is_empty() {
            let (run, tail) = rest.split_at(size.min(rest.len()));
            place(run);
            rest = tail;
            size *= 2;
        }
        // Below the crossing, walking down from it.
        let below = &order[..crossing];
        let (mut rest, near) = below.split_at(below.len() - core.min(below.len()));
        near.iter().for_each(|&i| place(&[i]));
        let mut size = core;
        while !rest.is_empty() {
            let (tail, run) = rest.split_at(rest.len() - size.min(rest.len()));
            place(run);
            rest = tail;
            size *= 2;
        }
        (groups.len() >= 2).then_some(Grouping { single, groups })
    }

    /// Number of group variables.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Number of weights that stay single.
    #[cfg(test)]
    pub fn singles(&self) -> usize {
        self.single.len()
    }

    /// The grouped program of `reduced` (see the module doc): the single weights, then the
    /// original free variables followed by one variable per group, the original rows followed
    /// by the groups' bounds `t_g <= 1` and `t_g >= 0`.
    pub fn apply(&self, reduced: &Problem) -> Problem<'static> {
        let k0 = reduced.cost_extra.len();
        let ng = self.groups.len();
        let mass: Vec<f64> = self
            .groups
            .iter()
            .map(|g| g.iter().map(|&i| reduced.upper[i]).sum())
            .collect();
        let blocks = reduced
            .blocks
            .iter()
            .map(|b| {
                let p = b.constant.nrows();
                let mut extra = b.extra.clone();
                for g in &self.groups {
                    extra.push(if b.has_weights() {
                        let caps: Vec<f64> = g.iter().map(|&i| reduced.upper[i]).collect();
                        crate::dense::weighted_scatter(&b.select(g), &caps) * b.sign
                    } else {
                        nalgebra::DMatrix::zeros(p, p)
                    });
                }
                LmiBlock {
                    constant: b.constant.clone(),
                    sign: b.sign,
                    points: Cow::Owned(b.select(&self.single)),
                    extra,
                }
            })
            .collect();
        let mut rows: Vec<LinearRow> = reduced
            .rows
            .iter()
            .map(|r| {
                let mut extra = r.extra.clone();
                extra.extend(mass.iter().map(|m| r.a_coeff * m));
                LinearRow { extra, ..r.clone() }
            })
            .collect();
        for g in 0..ng {
            for (h, sign) in [(1.0, 1.0), (0.0, -1.0)] {
                let mut extra = vec![0.0; k0 + ng];
                extra[k0 + g] = sign;
                rows.push(LinearRow {
                    h,
                    a_coeff: 0.0,
                    extra,
                });
            }
        }
        let mut cost_extra = reduced.cost_extra.clone();
        cost_extra.extend(mass.iter().map(|m| reduced.cost_a * m));
        Problem {
            upper: Cow::Owned(self.single.iter().map(|&i| reduced.upper[i]).collect()),
            cost_a: reduced.cost_a,
            cost_extra,
            blocks,
            rows,
        }
    }

    /// The starting point of the grouped program: `a0` of the single weights and `t0` of the
    /// original free variables, each group at 1/2.
    pub fn start(&self, a0: &[f64], t0: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let a = self.single.iter().map(|&i| a0[i]).collect();
        let mut t = t0.to_vec();
        t.extend(std::iter::repeat_n(0.5, self.groups.len()));
        (a, t)
    }

    /// Solve the grouped program of `reduced` from `a0` (reduced weights) and `t0` (its free
    /// variables), expanded back ([`Self::expand`]). The grouped program is a restriction: its
    /// primal bounds the score from above, its dual objective bounds nothing, so `stop` sees
    /// each iterate with the dual objective at minus infinity (only the upper end may stop).
    pub fn solve(
        &self,
        reduced: &Problem,
        a0: &[f64],
        t0: &[f64],
        settings: &IpmSettings,
        stop: impl Fn(&IterationReport) -> bool,
    ) -> Solution {
        let (a0, t0) = self.start(a0, t0);
        let sol = ipm::solve(&self.apply(reduced), &a0, &t0, settings, |p| {
            stop(&IterationReport {
                dual_objective: f64::NEG_INFINITY,
                ..*p
            })
        });
        self.expand(reduced, sol)
    }

    /// The solution of the reduced program from one of the grouped program: every member of a
    /// group gets `t_g u_i`; the group variables and the bound rows' duals are dropped.
    pub fn expand(&self, reduced: &Problem, mut sol: Solution) -> Solution {
        let k0 = reduced.cost_extra.len();
        let mut a = vec![0.0; reduced.upper.len()];
        for (&i, &v) in self.single.iter().zip(&sol.a) {
            a[i] = v;
        }
        for (g, members) in self.groups.iter().enumerate() {
            let t = sol.extra[k0 + g].clamp(0.0, 1.0);
            for &i in members {
                a[i] = t * reduced.upper[i];
            }
        }
        sol.a = a;
        sol.extra.truncate(k0);
        sol.row_duals.truncate(reduced.rows.len());
        sol
    }
}

#[cfg(test)]
mod tests {
    use super::Grouping;
    use crate::dense::weighted_scatter;
    use crate::ipm::{LmiBlock, Problem, Solution, Termination};
    use nalgebra::DMatrix;
    use std::borrow::Cow;

    /// A reduced problem of one packing block (`p = 3`) with `n` weights of varied caps.
    fn reduced(n: usize) -> Problem<'static> {
        let points = DMatrix::from_fn(3, n, |r, c| ((r * 7 + c * 13) % 11) as f64 / 5.0 - 1.0);
        Problem {
            upper: Cow::Owned((0..n).map(|i| 0.5 + (i % 3) as f64 * 0.25).collect()),
            cost_a: -1.0,
            cost_extra: vec![],
            blocks: vec![LmiBlock {
                constant: DMatrix::identity(3, 3) * 40.0,
                sign: 1.0,
                points: Cow::Owned(points),
                extra: vec![],
            }],
            rows: vec![],
        }
    }

    /// The block slack `C - sign sum a_i w_i w_i^T - sum_k t_k T_k` of a problem.
    fn slack(p: &Problem, a: &[f64], t: &[f64]) -> DMatrix<f64> {
        let b = &p.blocks[0];
        let mut s = &b.constant - weighted_scatter(&b.points, a) * b.sign;
        for (tk, v) in b.extra.iter().zip(t) {
            s -= tk * *v;
        }
        s
    }

    /// The grouped program's LMI at any `(a_single, t)` is the reduced program's LMI at the
    /// expanded weights, and its objective the same: the grouped optimum is feasible for the
    /// reduced program. A variant with each group's centroid in place of its scatter is not.
    #[test]
    fn grouped_program_is_the_reduced_one_at_expanded_weights() {
        let n = 40;
        let full = reduced(n);
        let margins: Vec<f64> = (0..n).map(|i| ((i * 7) % n) as f64 - 12.5).collect();
        let g = Grouping::by_margins(&margins, 2).unwrap();
        let grouped = g.apply(&full);
        assert_eq!(grouped.cost_extra.len(), g.groups());
        assert_eq!(grouped.rows.len(), 2 * g.groups());
        let a: Vec<f64> = (0..g.singles()).map(|k| 0.1 * (k % 5) as f64).collect();
        let t: Vec<f64> = (0..g.groups()).map(|k| 0.15 + 0.1 * k as f64).collect();
        let sol = g.expand(
            &full,
            Solution {
                a: a.clone(),
                extra: t.clone(),
                block_duals: vec![],
                row_duals: vec![0.0; 2 * g.groups()],
                primal_objective: 0.0,
                dual_objective: 0.0,
                iterations: 0,
                termination: Termination::Converged,
            },
        );
        assert!(sol.extra.is_empty() && sol.row_duals.is_empty());
        let diff = (slack(&grouped, &a, &t) - slack(&full, &sol.a, &[])).amax();
        assert!(diff < 1e-12, "LMIs differ by {diff}");
        let objective = |p: &Problem, a: &[f64], t: &[f64]| {
            p.cost_a * a.iter().sum::<f64>()
                + p.cost_extra.iter().zip(t).map(|(c, v)| c * v).sum::<f64>()
        };
        assert!((objective(&grouped, &a, &t) - objective(&full, &sol.a, &[])).abs() < 1e-12);
        // Broken variant: rank-one centroid terms `U_g wbar wbar^T` miss the within-group
        // scatter, so the same (a, t) is not the reduced program's LMI.
        let mut broken = grouped.clone();
        let b = &full.blocks[0];
        for (tk, members) in broken.blocks[0].extra.iter_mut().zip(&g.groups) {
            let caps: Vec<f64> = members.iter().map(|&i| full.upper[i]).collect();
            let mass: f64 = caps.iter().sum();
            let pts = b.select(members);
            let centroid = pts
                .column_iter()
                .zip(&caps)
                .fold(nalgebra::DVector::zeros(3), |acc, (c, u)| acc + c * *u)
                / mass;
            *tk = &centroid * centroid.transpose() * mass;
        }
        let broken_diff = (slack(&broken, &a, &t) - slack(&full, &sol.a, &[])).amax();
        assert!(
            broken_diff > 1e-2,
            "the centroid variant went unnoticed: {broken_diff}"
        );
    }

    #[test]
    fn runs_grow_away_from_the_crossing() {
        // 10 negative margins, 40 positive, shuffled order.
        let margins: Vec<f64> = (0..50).map(|k| ((k * 17) % 50) as f64 - 9.5).collect();
        let g = Grouping::by_margins(&margins, 2).unwrap();
        let mut sizes: Vec<usize> = g.groups.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        // Above: 2 single, runs 2, 4, 8, 16, 8 (rest); below: 2 single, runs 2, 4, 2 (rest).
        assert_eq!(g.singles(), 4);
        assert_eq!(sizes, vec![2, 2, 2, 4, 4, 8, 8, 16]);
        // Every weight exactly once; no group straddles the crossing.
        let mut all: Vec<usize> = g.single.clone();
        g.groups.iter().for_each(|m| all.extend(m));
        all.sort_unstable();
        assert_eq!(all, (0..50).collect::<Vec<_>>());
        for m in &g.groups {
            let signs: Vec<bool> = m.iter().map(|&i| margins[i] > 0.0).collect();
            assert!(signs.iter().all(|&s| s == signs[0]), "{m:?}");
        }
        // The singles are the weights nearest the crossing.
        let mut near: Vec<f64> = g.single.iter().map(|&i| margins[i]).collect();
        near.sort_by(f64::total_cmp);
        assert_eq!(near, vec![-1.5, -0.5, 0.5, 1.5]);
        // Too few weights for two groups.
        assert!(Grouping::by_margins(&[0.1, -0.1, 0.3], 2).is_none());
    }
}
