//! The anchor (MATH.md 4.2) on the fast backend: CM minimised over `theta` by the
//! interior-point method of [`crate::ipm`], with `w = theta - c` as `D` free variables:
//!
//! ```text
//! maximise sum_i a_i / n  s.t.  B(c) + sum_k w_k (e_k e_D^T + e_D e_k^T) - sum_i (a_i / n) zh_i zh_i^T ⪰ 0,
//!                               0 <= a_i <= 1,
//!                               [[R I, c + w - b], [(c + w - b)^T, R]] ⪰ 0   (ball domain B(b, R)),
//! ```
//!
//! the ball written as an LMI block without weights (its Schur complement is
//! `R - ||c + w - b||^2 / R >= 0`). Solved on the active set with the certified rounds of the
//! score, then certified exactly like [`crate::anchor::minimise_cm`] (same bracket, same
//! radius), so both backends return the same kind of [`Anchor`].
use crate::ScoreError;
use crate::active_set::{Answer, cold_set, solve_certified};
use crate::anchor::{Anchor, BallDomain, anchor_at, check_ball};
use crate::cm::fast::FastCm;
use crate::cm::fast::cm_map;
use crate::ipm::{LmiBlock, Problem};
use nalgebra::DMatrix;
use sosdp_oracle::ScoreOracle;
use std::borrow::Cow;
use std::cell::RefCell;

impl FastCm {
    /// Minimise the CM score over `theta` (inside `ball`, when given). Falls back to the
    /// clarabel anchor if the certified rounds fail.
    pub fn minimise(&self, ball: Option<&BallDomain>) -> Result<Anchor, ScoreError> {
        let cm = self.problem();
        check_ball(cm, ball)?;
        let n = cm.n() as f64;
        let full = self.anchor_problem(ball);
        let t0 = vec![0.0; cm.dim()];
        let mut settings = self.settings.clone();
        settings.cold.cold_margin = settings.cold.anchor_cold_margin;
        let start = cold_set(&full, &settings, &|_: &Problem| true, &t0, false);
        let theta_of = |w: &[f64]| -> Vec<f64> {
            w.iter()
                .zip(cm.centre().iter())
                .map(|(w, c)| c + w)
                .collect()
        };
        let found = RefCell::new(None);
        // The bracket at the solver's theta (the IPM's dual has weight cost 1/n: the
        // certificate's Y is n Z); the anchor itself is built once, from the accepted round.
        let certify = |a: &[f64], w: &[f64], duals: &[DMatrix<f64>]| {
            let theta = theta_of(w);
            *found.borrow_mut() = Some((theta.clone(), a.to_vec(), &duals[0] * n));
            cm.certify(&theta, a, &(&duals[0] * n))
        };
        let certified = solve_certified(
            &full,
            start,
            &settings,
            &cm_map(n),
            None,
            None,
            |_| true,
            &t0,
            certify,
        );
        let Some(c) = certified else {
            self.count(Answer::Fallback);
            return super::reference::minimise_cm(&self.reference, ball);
        };
        let (theta, weights, y) = found.into_inner().expect("an accepted round was certified");
        self.keep_next_warm(&full, c.set, &c.block_duals, &c.row_duals);
        anchor_at(cm, theta, &weights, &y, ball, self.settings.accuracy, |t| {
            self.evaluate(t)
        })
    }

    /// The program of the module doc.
    fn anchor_problem(&self, ball: Option<&BallDomain>) -> Problem<'_> {
        let cm = self.problem();
        let dim = cm.dim();
        // The coefficient of w_k enters as `- w_k T_k`, so T_k = -(e_k e_D^T + e_D e_k^T), in
        // the CM block and in the ball block alike.
        let t: Vec<DMatrix<f64>> = (0..dim)
            .map(|k| {
                let mut m = DMatrix::zeros(dim + 1, dim + 1);
                m[(k, dim)] = -1.0;
                m[(dim, k)] = -1.0;
                m
            })
            .collect();
        let mut blocks = vec![LmiBlock {
            constant: cm.b_matrix(cm.centre().as_slice()),
            sign: 1.0,
            points: Cow::Borrowed(&self.points),
            extra: t.clone(),
        }];
        if let Some(ball) = ball {
            let mut constant = DMatrix::identity(dim + 1, dim + 1) * ball.radius;
            for k in 0..dim {
                let v = cm.centre()[k] - ball.centre[k];
                constant[(k, dim)] = v;
                constant[(dim, k)] = v;
            }
            blocks.push(LmiBlock {
                constant,
                sign: 1.0,
                points: Cow::Owned(DMatrix::zeros(dim + 1, 0)),
                extra: t,
            });
        }
        let n = cm.n();
        Problem {
            upper: Cow::Owned(vec![1.0; n]),
            cost_a: -1.0 / n as f64,
            cost_extra: vec![0.0; dim],
            blocks,
            rows: vec![],
        }
    }
}
