//! The anchor (MATH.md 4.2): minimise CM over `theta`, optionally inside a ball domain, and
//! a certified ball around the minimiser inside the next level.
//!
//! The LMI `B(theta) - sum (a_i / n) zh_i zh_i^T ⪰ 0` is affine in `(theta, a)` jointly, so
//! the minimisation is one SDP with `w = theta - c` free (plus the second-order cone
//! `||c + w - ball centre|| <= R` for a ball domain).
//!
//! Radius: let `a` be certified feasible weights at `theta0` with sum `S`, and
//! `beta = lambda_min(B(theta0)) > 0`. For `||delta|| <= r = t beta`, `t = min(1, 1/S)`,
//! the weights `(1 - t) a` are feasible at `theta0 + delta`:
//! `L(theta0 + delta, (1-t) a) = t B(theta0) + (1 - t) L(theta0, a) + [[0, delta], [delta^T, 0]]`
//! and the last term has eigenvalues `±||delta||`. So every point of `B(theta0, r)` has
//! `CM <= upper(theta0) + t S <= upper(theta0) + 1`. This radius is conservative (order
//! `1/n`); it enters the sampler's utility only through `log(1/r)`.
mod fast;
pub mod reference;

use crate::cm::CertifiedMean;
use crate::dense::min_eigenvalue;
use crate::{ScoreError, ScoreEval};
use nalgebra::{DMatrix, DVector};

/// A Euclidean ball `B(centre, radius)`: the data-independent domain of a mechanism stage.
#[derive(Clone, Debug, PartialEq)]
pub struct BallDomain {
    /// The centre, a point of the parameter space.
    pub centre: Vec<f64>,
    /// The radius (Euclidean), positive.
    pub radius: f64,
}

/// A low-scoring point with a certified ball around it.
#[derive(Clone, Debug)]
pub struct Anchor {
    /// The minimiser `theta0`.
    pub theta: Vec<f64>,
    /// Certified bracket of `CM(theta0)`.
    pub eval: ScoreEval,
    /// Every point within `radius` of `theta0` (and inside the ball domain, if any) has
    /// `CM <= eval.upper + 1`.
    pub radius: f64,
}

/// Validate a ball domain against the problem.
pub(crate) fn check_ball(cm: &CertifiedMean, ball: Option<&BallDomain>) -> Result<(), ScoreError> {
    if let Some(ball) = ball {
        if ball.centre.len() != cm.dim() {
            return Err(ScoreError::DimensionMismatch {
                what: "the ball centre",
                expected: cm.dim(),
                got: ball.centre.len(),
            });
        }
        crate::cm::check_finite("the ball centre", &ball.centre)?;
        if !(ball.radius.is_finite() && ball.radius > 0.0) {
            return Err(ScoreError::RadiusNotPositive(ball.radius));
        }
    }
    Ok(())
}

/// The anchor at a solver's minimiser `theta` with its weights and dual matrix (certificate
/// units): `theta` pulled into the ball, the certified bracket (re-evaluated by `evaluate`
/// when wider than `accuracy`) and the certified radius of the module doc.
pub(crate) fn anchor_at(
    cm: &CertifiedMean,
    mut theta: Vec<f64>,
    weights: &[f64],
    dual_y: &DMatrix<f64>,
    ball: Option<&BallDomain>,
    accuracy: f64,
    evaluate: impl Fn(&[f64]) -> Result<ScoreEval, ScoreError>,
) -> Result<Anchor, ScoreError> {
    if let Some(ball) = ball {
        pull_into_ball(&mut theta, ball);
    }
    if !cm.in_domain(&theta) {
        return Err(ScoreError::Solver("minimiser outside the CM domain".into()));
    }
    let mut eval = cm.certify(&theta, weights, dual_y);
    if eval.width() > accuracy {
        eval = evaluate(&theta)?;
    }
    let kept: f64 = cm.feasible_weights(&theta, weights).iter().sum();
    let beta = min_eigenvalue(&cm.b_matrix(&theta)).max(0.0);
    let mut radius = beta * (1.0 / kept.max(1.0));
    if let Some(ball) = ball {
        let dist =
            (DVector::from_column_slice(&theta) - DVector::from_column_slice(&ball.centre)).norm();
        radius = radius.min(ball.radius - dist);
    }
    Ok(Anchor {
        theta,
        eval,
        radius: radius.max(0.0),
    })
}

/// Project `theta` onto the ball (the solver may overshoot it by its tolerance).
fn pull_into_ball(theta: &mut [f64], ball: &BallDomain) {
    let dist = theta
        .iter()
        .zip(&ball.centre)
        .map(|(t, c)| (t - c).powi(2))
        .sum::<f64>()
        .sqrt();
    if dist > ball.radius {
        let f = ball.radius / dist;
        for (t, c) in theta.iter_mut().zip(&ball.centre) {
            *t = c + (*t - c) * f;
        }
    }
}
