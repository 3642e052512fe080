//! The SP program (MATH.md 2.2) as written, for the clarabel reference backend
//! ([`crate::reference`]).
use super::Spectral;
use crate::ScoreError;
use crate::reference::{
    Clarabel, ClarabelSettings, ReferenceProgram, block_matrix, solve_certified,
};
use nalgebra::DMatrix;
use sosdp_oracle::ScoreEval;
use sosdp_sdp::{Block, Cone, ConicProblem};

/// The SP score on clarabel; `theta = svec(S)`.
pub type ClarabelSp = Clarabel<Spectral>;

/// Variables `a_0..a_{n-1}, t`; minimise `t`; rows: box `0 <= a <= u(S)`,
/// `t - n + sum a >= 0`, and the two LMIs divided by `n`, written after the congruence by
/// `L^{-1}` (`S = L L^T`, `w_i = L^{-1} x_i`): `(1 + gamma) I - sum (a_i / n) w_i w_i^T ⪰ 0`
/// and `sum (a_i / n) w_i w_i^T + (t / n) lambda I - (1 - gamma) I ⪰ 0`. The congruence is
/// an exact equivalence and removes the conditioning of `S` from the solver's tolerances;
/// duals `Yw` of the whitened LMIs map back as `L^{-T} Yw L^{-1}`.
fn program(sp: &Spectral, whitened: &DMatrix<f64>, caps: &[f64]) -> (ConicProblem, Block, Block) {
    let (n, d) = (sp.n(), sp.d());
    let nf = n as f64;
    let t = n;
    let mut p = ConicProblem::new(n + 1);
    p.add_objective(t, 1.0);
    let rows = p.add_block(Cone::Nonnegative(2 * n + 1));
    let mass = rows.start + 2 * n;
    p.add_term(mass, t, 1.0);
    p.add_constant(mass, -nf);
    for (i, &cap) in caps.iter().enumerate() {
        p.add_term(rows.start + i, i, 1.0);
        p.add_constant(rows.start + n + i, cap);
        p.add_term(rows.start + n + i, i, -1.0);
        p.add_term(mass, i, 1.0);
    }
    let upper = p.add_block(Cone::PsdTriangle(d));
    let lower = p.add_block(Cone::PsdTriangle(d));
    let (g, lambda) = (sp.width(), sp.lambda());
    for col in 0..d {
        p.add_psd_constant(upper, col, col, 1.0 + g);
        p.add_psd_constant(lower, col, col, -(1.0 - g));
        p.add_psd_term(lower, col, col, t, lambda / nf);
        for row in 0..=col {
            for i in 0..n {
                let ww = whitened[(row, i)] * whitened[(col, i)] / nf;
                p.add_psd_term(upper, row, col, i, -ww);
                p.add_psd_term(lower, row, col, i, ww);
            }
        }
    }
    (p, upper, lower)
}

impl ReferenceProgram for Spectral {
    fn dim(&self) -> usize {
        Spectral::dim(self)
    }

    fn max_score(&self) -> f64 {
        Spectral::max_score(self)
    }

    fn solve(&self, theta: &[f64], settings: &ClarabelSettings) -> Result<ScoreEval, ScoreError> {
        let sp = self;
        let s = sp.candidate(theta)?;
        let Some(factor) = s.factor.as_ref() else {
            return Ok(ScoreEval::outside(sp.max_score()));
        };
        let (p, upper, lower) = program(sp, &factor.whitened, &factor.caps);
        let n = sp.n();
        let (eval, _) = solve_certified(settings, &p, |sol| {
            let y1 = factor.unwhiten(&block_matrix(&upper, &sol.z));
            let y2 = factor.unwhiten(&block_matrix(&lower, &sol.z));
            sp.certify(&s, &sol.x[..n], sol.x[n], &y1, &y2)
        })?;
        Ok(eval)
    }
}
