//! The problem the interior-point method solves (see [`super`]): weights in boxes, a few free
//! variables, linear rows and LMI blocks whose weight coefficients are rank one; and the
//! primal and cone-space vectors of the method.
use crate::dense::quad_forms;
use nalgebra::DMatrix;
use std::borrow::Cow;

/// One LMI block `C - sign * sum_i a_i w_i w_i^T - sum_k t_k T_k ⪰ 0`.
#[derive(Clone, Debug)]
pub struct LmiBlock<'a> {
    /// The constant `C` (`p x p`, symmetric).
    pub constant: DMatrix<f64>,
    /// `+1` (packing: weights use up the block) or `-1` (covering).
    pub sign: f64,
    /// The vectors `w_i` as columns (`p x N`), borrowed for a full problem, owned for a
    /// reduced one; `p x 0` for a block without weights (e.g. a ball on the free variables).
    pub points: Cow<'a, DMatrix<f64>>,
    /// `T_k` for each free variable (`p x p` each).
    pub extra: Vec<DMatrix<f64>>,
}

/// A linear row `h - a_coeff * sum_i a_i - sum_k extra_k t_k >= 0`.
#[derive(Clone, Debug)]
pub struct LinearRow {
    /// The constant `h`.
    pub h: f64,
    /// The coefficient `a_coeff` of every weight.
    pub a_coeff: f64,
    /// The coefficient `extra_k` of each free variable.
    pub extra: Vec<f64>,
}

/// The problem of the module doc.
#[derive(Clone, Debug)]
pub struct Problem<'a> {
    /// Box caps `u_i > 0`, one per weight.
    pub upper: Cow<'a, [f64]>,
    /// Cost of each weight (the same for all).
    pub cost_a: f64,
    /// Cost of each free variable.
    pub cost_extra: Vec<f64>,
    /// The LMI blocks.
    pub blocks: Vec<LmiBlock<'a>>,
    /// The linear rows.
    pub rows: Vec<LinearRow>,
}

/// A point of the primal space: weights and free variables.
#[derive(Clone, Debug)]
pub(super) struct XVec {
    pub(super) a: Vec<f64>,
    pub(super) t: Vec<f64>,
}

/// A point of the cone space: lower box, upper box, rows, blocks.
#[derive(Clone, Debug)]
pub(super) struct ConeVec {
    pub(super) lo: Vec<f64>,
    pub(super) up: Vec<f64>,
    pub(super) row: Vec<f64>,
    pub(super) blk: Vec<DMatrix<f64>>,
}

impl ConeVec {
    pub(super) fn dot(&self, other: &ConeVec) -> f64 {
        dotv(&self.lo, &other.lo)
            + dotv(&self.up, &other.up)
            + dotv(&self.row, &other.row)
            + self
                .blk
                .iter()
                .zip(&other.blk)
                .map(|(a, b)| a.dot(b))
                .sum::<f64>()
    }

    pub(super) fn axpy(&mut self, alpha: f64, x: &ConeVec) {
        axpyv(&mut self.lo, alpha, &x.lo);
        axpyv(&mut self.up, alpha, &x.up);
        axpyv(&mut self.row, alpha, &x.row);
        for (a, b) in self.blk.iter_mut().zip(&x.blk) {
            *a += b * alpha;
        }
    }

    pub(super) fn max_abs(&self) -> f64 {
        let v = self
            .lo
            .iter()
            .chain(&self.up)
            .chain(&self.row)
            .fold(0.0f64, |m, x| m.max(x.abs()));
        self.blk.iter().fold(v, |m, b| m.max(b.amax()))
    }

    /// Apply one map to the scalar parts and another to the blocks, index-aware.
    pub(super) fn map(
        &self,
        nn: impl Fn(Part, usize, f64) -> f64,
        psd: impl Fn(usize, &DMatrix<f64>) -> DMatrix<f64>,
    ) -> ConeVec {
        ConeVec {
            lo: self
                .lo
                .iter()
                .enumerate()
                .map(|(i, &x)| nn(Part::Lo, i, x))
                .collect(),
            up: self
                .up
                .iter()
                .enumerate()
                .map(|(i, &x)| nn(Part::Up, i, x))
                .collect(),
            row: self
                .row
                .iter()
                .enumerate()
                .map(|(i, &x)| nn(Part::Row, i, x))
                .collect(),
            blk: self
                .blk
                .iter()
                .enumerate()
                .map(|(b, m)| psd(b, m))
                .collect(),
        }
    }

    pub(super) fn scalar(&self, part: Part, i: usize) -> f64 {
        match part {
            Part::Lo => self.lo[i],
            Part::Up => self.up[i],
            Part::Row => self.row[i],
        }
    }
}

#[derive(Clone, Copy)]
pub(super) enum Part {
    Lo,
    Up,
    Row,
}

pub(super) fn dotv(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub(super) fn axpyv(y: &mut [f64], alpha: f64, x: &[f64]) {
    for (a, b) in y.iter_mut().zip(x) {
        *a += alpha * b;
    }
}

pub(super) fn sym(m: DMatrix<f64>) -> DMatrix<f64> {
    (&m + m.transpose()) * 0.5
}

impl LmiBlock<'_> {
    /// True when the weights enter this block (its points have one column per weight).
    pub fn has_weights(&self) -> bool {
        self.points.ncols() > 0
    }

    /// The points of the weights `idx` (none for a block without weights).
    pub fn select(&self, idx: &[usize]) -> DMatrix<f64> {
        if self.has_weights() {
            self.points.select_columns(idx)
        } else {
            DMatrix::zeros(self.points.nrows(), 0)
        }
    }
}

impl<'a> Problem<'a> {
    /// The CM program (MATH.md 2.1) with every weight in `[0, 1]`:
    /// `minimise -(1/N) sum_i a_i` subject to `constant - sum_i a_i w_i w_i^T ⪰ 0`, one LMI
    /// block whose vectors `w_i` are the columns of `points`.
    pub fn packing(constant: DMatrix<f64>, points: Cow<'a, DMatrix<f64>>) -> Self {
        let n = points.ncols();
        Problem {
            upper: Cow::Owned(vec![1.0; n]),
            cost_a: -1.0 / n as f64,
            cost_extra: vec![],
            blocks: vec![LmiBlock {
                constant,
                sign: 1.0,
                points,
                extra: vec![],
            }],
            rows: vec![],
        }
    }

    pub(super) fn n(&self) -> usize {
        self.upper.len()
    }

    pub(super) fn k(&self) -> usize {
        self.cost_extra.len()
    }

    /// Barrier degree: number of scalar cones plus the block sizes.
    pub(super) fn degree(&self) -> f64 {
        (2 * self.n()
            + self.rows.len()
            + self
                .blocks
                .iter()
                .map(|b| b.constant.nrows())
                .sum::<usize>()) as f64
    }

    pub(super) fn h(&self) -> ConeVec {
        ConeVec {
            lo: vec![0.0; self.n()],
            up: self.upper.to_vec(),
            row: self.rows.iter().map(|r| r.h).collect(),
            blk: self.blocks.iter().map(|b| b.constant.clone()).collect(),
        }
    }

    pub(super) fn c(&self) -> XVec {
        XVec {
            a: vec![self.cost_a; self.n()],
            t: self.cost_extra.clone(),
        }
    }

    /// `G x`.
    pub(super) fn g(&self, x: &XVec) -> ConeVec {
        let sum_a: f64 = x.a.iter().sum();
        ConeVec {
            lo: x.a.iter().map(|v| -v).collect(),
            up: x.a.clone(),
            row: self
                .rows
                .iter()
                .map(|r| r.a_coeff * sum_a + dotv(&r.extra, &x.t))
                .collect(),
            blk: self
                .blocks
                .iter()
                .map(|b| {
                    let mut m = crate::dense::weighted_scatter(&b.points, &x.a) * b.sign;
                    for (tk, t) in b.extra.iter().zip(&x.t) {
                        m += tk * *t;
                    }
                    m
                })
                .collect(),
        }
    }

    /// `G^T z`.
    pub(super) fn gt(&self, z: &ConeVec) -> XVec {
        let row_sum: f64 = self
            .rows
            .iter()
            .zip(&z.row)
            .map(|(r, zj)| r.a_coeff * zj)
            .sum();
        let mut a: Vec<f64> =
            z.lo.iter()
                .zip(&z.up)
                .map(|(lo, up)| up - lo + row_sum)
                .collect();
        for (b, zb) in self.blocks.iter().zip(&z.blk) {
            for (ai, q) in a.iter_mut().zip(quad_forms(&b.points, zb)) {
                *ai += b.sign * q;
            }
        }
        let t = (0..self.k())
            .map(|k| {
                self.rows
                    .iter()
                    .zip(&z.row)
                    .map(|(r, zj)| r.extra[k] * zj)
                    .sum::<f64>()
                    + self
                        .blocks
                        .iter()
                        .zip(&z.blk)
                        .map(|(b, zb)| b.extra[k].dot(zb))
                        .sum::<f64>()
            })
            .collect();
        XVec { a, t }
    }
}
