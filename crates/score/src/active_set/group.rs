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
use crate::ipm::{LinearRow, LmiBlock, Problem, Solution};
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

    #[test]
    fn runs_grow_away_from_the_crossing() {
        // 10 negative margins, 40 positive, shuffled order.
        let margins: Vec<f64> = (0..50)
            .map(|k| ((k * 17) % 50) as f64 - 9.5)
            .collect();
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
