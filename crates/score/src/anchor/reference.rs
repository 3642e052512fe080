//! The anchor on clarabel: CM minimised over `theta` as one SDP, with `w = theta - c` free
//! variables in the PSD block of [`crate::cm::reference`] (plus the second-order cone of a
//! ball domain), and the certified ball of [`super`] around the minimiser.
use super::{Anchor, BallDomain, anchor_at, check_ball};
use crate::ScoreError;
use crate::cm::reference::{ClarabelCm, weights_program};
use crate::reference::block_matrix;
use sosdp_oracle::ScoreOracle;
use sosdp_sdp::{Cone, SolveSettings};

/// Minimise the CM score over `theta` (inside `ball`, when given), on clarabel.
pub fn minimise_cm(oracle: &ClarabelCm, ball: Option<&BallDomain>) -> Result<Anchor, ScoreError> {
    let cm = oracle.problem();
    let (n, dim) = (cm.n(), cm.dim());
    check_ball(cm, ball)?;
    let (mut p, psd) = weights_program(cm, dim);
    for k in 0..dim {
        p.add_psd_term(psd, k, dim, n + k, 1.0);
    }
    if let Some(ball) = ball {
        let soc = p.add_block(Cone::SecondOrder(dim + 1));
        p.add_constant(soc.start, ball.radius);
        for k in 0..dim {
            p.add_constant(soc.start + 1 + k, cm.centre()[k] - ball.centre[k]);
            p.add_term(soc.start + 1 + k, n + k, 1.0);
        }
    }
    let settings = oracle.settings();
    let mut last = String::new();
    for tolerance in [settings.tolerance, settings.relaxed_tolerance] {
        let sol = p.solve(&SolveSettings {
            tolerance,
            max_iter: settings.anchor_max_iter,
            verbose: false,
        });
        if !sol.status.is_solved() {
            last = format!("{:?}", sol.status);
            continue;
        }
        let theta: Vec<f64> = (0..dim).map(|k| cm.centre()[k] + sol.x[n + k]).collect();
        match anchor_at(
            cm,
            theta,
            &sol.x[..n],
            &block_matrix(&psd, &sol.z),
            ball,
            settings.accuracy,
            |t| oracle.evaluate(t),
        ) {
            Ok(anchor) => return Ok(anchor),
            Err(e) => last = e.to_string(),
        }
    }
    Err(ScoreError::Solver(last))
}
