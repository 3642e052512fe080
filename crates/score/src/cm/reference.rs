//! The CM program (MATH.md 2.1) as written, for the clarabel reference backend
//! ([`crate::reference`]): weights in boxes and the PSD block of `B(theta) - sum_i (a_i / n)
//! zh_i zh_i^T` without its `theta` column, which an evaluation fills with constants and the
//! anchor ([`crate::anchor`]) with variables.
use super::CertifiedMean;
use crate::ScoreError;
use crate::reference::{
    Clarabel, ClarabelSettings, ReferenceProgram, block_matrix, solve_certified,
};
use sosdp_oracle::ScoreEval;
use sosdp_sdp::{Block, Cone, ConicProblem};

/// The CM score on clarabel.
pub type ClarabelCm = Clarabel<CertifiedMean>;

/// Variables `a_0..a_{n-1}` then `extra` more; objective `-sum a`; box rows; and the PSD
/// block of `B - sum (a_i / n) zh_i zh_i^T` without the `theta` column, which the caller
/// fills in (constant for a fixed `theta`, variables for the anchor).
pub(crate) fn weights_program(cm: &CertifiedMean, extra: usize) -> (ConicProblem, Block) {
    let (n, dim) = (cm.n(), cm.dim());
    let mut p = ConicProblem::new(n + extra);
    let boxes = p.add_block(Cone::Nonnegative(2 * n));
    for i in 0..n {
        p.add_objective(i, -1.0);
        p.add_term(boxes.start + i, i, 1.0);
        p.add_constant(boxes.start + n + i, 1.0);
        p.add_term(boxes.start + n + i, i, -1.0);
    }
    let psd = p.add_block(Cone::PsdTriangle(dim + 1));
    for col in 0..dim {
        for row in 0..=col {
            p.add_psd_constant(psd, row, col, cm.gamma()[(row, col)]);
        }
    }
    p.add_psd_constant(psd, dim, dim, 1.0);
    let inv_n = 1.0 / n as f64;
    let zh = cm.lifted_points();
    for i in 0..n {
        let vi = zh.column(i);
        for col in 0..dim {
            for row in 0..=col {
                p.add_psd_term(psd, row, col, i, -inv_n * vi[row] * vi[col]);
            }
            p.add_psd_term(psd, col, dim, i, -inv_n * vi[col]);
        }
        p.add_psd_term(psd, dim, dim, i, -inv_n);
    }
    (p, psd)
}

impl ReferenceProgram for CertifiedMean {
    fn dim(&self) -> usize {
        CertifiedMean::dim(self)
    }

    fn max_score(&self) -> f64 {
        self.n() as f64
    }

    fn solve(&self, theta: &[f64], settings: &ClarabelSettings) -> Result<ScoreEval, ScoreError> {
        let cm = self;
        cm.check_theta(theta)?;
        if !cm.in_domain(theta) {
            return Ok(ScoreEval::outside(cm.n() as f64));
        }
        if let Some(eval) = cm.screen(theta, settings.accuracy, None) {
            return Ok(eval);
        }
        let (n, dim) = (cm.n(), cm.dim());
        let (mut p, psd) = weights_program(cm, 0);
        for (k, (t, c)) in theta.iter().zip(cm.centre().iter()).enumerate() {
            p.add_psd_constant(psd, k, dim, t - c);
        }
        let (eval, _) = solve_certified(settings, &p, |sol| {
            cm.certify(theta, &sol.x[..n], &block_matrix(&psd, &sol.z))
        })?;
        Ok(eval)
    }
}
