//! Reference backend (MATH.md 3.2): the CM and SP programs as written, solved by clarabel.
//!
//! Every evaluation is certified by the backend-independent brackets of [`crate::cm`] and
//! [`crate::sp`]. On a solver failure we retry once at a relaxed tolerance; if the bracket is
//! still wider than the requested accuracy we return an error, never a guess.
use crate::ScoreError;
use crate::cm::CertifiedMean;
use crate::sp::Spectral;
use nalgebra::DMatrix;
use sosdp_oracle::svec::smat;
use sosdp_oracle::{ScoreEval, ScoreOracle};
use sosdp_sdp::{Block, Cone, ConicProblem, ConicSolution, SolveSettings};

/// Settings shared by the clarabel score backends.
#[derive(Clone, Debug)]
pub struct ClarabelSettings {
    /// Solver tolerance (gap and feasibility), first attempt.
    pub tolerance: f64,
    /// Tolerance of the single retry after a failed solve.
    pub relaxed_tolerance: f64,
    /// Largest accepted bracket width `upper - lower`, in points (MATH.md 3.2's zeta).
    pub accuracy: f64,
}

impl Default for ClarabelSettings {
    fn default() -> Self {
        ClarabelSettings {
            tolerance: 1e-8,
            relaxed_tolerance: 1e-6,
            accuracy: 1e-3,
        }
    }
}

impl ClarabelSettings {
    /// The settings for brackets of width `accuracy` on a score whose maximum is `scale`:
    /// clarabel's tolerance is relative to objectives of size up to `scale`, and its brackets
    /// come out about `tolerance * scale / 10` wide (`1e-9 n` at the default `1e-8`, measured
    /// on CM at n = 2000), so the tolerance becomes `accuracy / scale` when that is smaller.
    pub fn to_accuracy(&self, accuracy: f64, scale: f64) -> Self {
        ClarabelSettings {
            accuracy,
            tolerance: self.tolerance.min(accuracy / scale.max(1.0)),
            ..self.clone()
        }
    }
}

/// A refined bracket ([`ScoreOracle::member_eval_to`]) for a reference backend: the
/// evaluation at the requested accuracy, or, if clarabel cannot reach it, the evaluation at
/// the backend's own (a certified bracket wider than asked, which sends the query to the tie
/// rule of [`crate::membership::decide`]).
fn refined(
    settings: &ClarabelSettings,
    accuracy: f64,
    scale: f64,
    evaluate: impl Fn(&ClarabelSettings) -> Result<ScoreEval, ScoreError>,
) -> Result<ScoreEval, ScoreError> {
    evaluate(&settings.to_accuracy(accuracy, scale)).or_else(|_| evaluate(settings))
}

/// Solve at the first tolerance, and once more at the relaxed one if the certified bracket is
/// too wide. If it still is, the narrowest certified bracket found is returned, wider than
/// asked: its ends are still valid bounds (any primal point and any dual point certify them), and
/// a membership query it does not decide goes to the refinement and tie rule of
/// [`crate::membership::decide`], so a hard instance never turns into a data-dependent error.
/// An error only when no attempt returned a finite point.
fn solve_certified(
    settings: &ClarabelSettings,
    problem: &ConicProblem,
    certify: impl Fn(&ConicSolution) -> ScoreEval,
) -> Result<(ScoreEval, ConicSolution), ScoreError> {
    let mut last_status = String::new();
    let mut best: Option<(ScoreEval, ConicSolution)> = None;
    for (tolerance, max_iter) in [(settings.tolerance, 200), (settings.relaxed_tolerance, 500)] {
        let solution = problem.solve(&SolveSettings {
            tolerance,
            max_iter,
            verbose: false,
        });
        if solution.x.iter().all(|x| x.is_finite()) && solution.z.iter().all(|z| z.is_finite()) {
            let eval = certify(&solution);
            if eval.width() <= settings.accuracy {
                return Ok((eval, solution));
            }
            if best.as_ref().is_none_or(|(b, _)| eval.width() < b.width()) {
                best = Some((eval, solution));
            }
        } else {
            last_status = format!("{:?}", solution.status);
        }
    }
    best.ok_or(ScoreError::Solver(last_status))
}

/// The dual matrix of a PSD block as a dense matrix.
pub(crate) fn block_matrix(block: &Block, v: &[f64]) -> DMatrix<f64> {
    let Cone::PsdTriangle(m) = block.cone else {
        panic!("not a PSD block")
    };
    DMatrix::from_row_slice(m, m, &smat(m, block.slice(v)))
}

/// The CM score on clarabel.
#[derive(Clone, Debug)]
pub struct ClarabelCm {
    problem: CertifiedMean,
    settings: ClarabelSettings,
}

impl ClarabelCm {
    pub fn new(problem: CertifiedMean) -> Self {
        ClarabelCm {
            problem,
            settings: ClarabelSettings::default(),
        }
    }

    pub fn with_settings(mut self, settings: ClarabelSettings) -> Self {
        self.settings = settings;
        self
    }

    pub fn problem(&self) -> &CertifiedMean {
        &self.problem
    }

    pub fn settings(&self) -> &ClarabelSettings {
        &self.settings
    }

    /// Variables `a_0..a_{n-1}` then `extra` more; objective `-sum a`; box rows; and the PSD
    /// block of `B - sum (a_i / n) zh_i zh_i^T` without the `theta` column, which the caller
    /// fills in (constant for a fixed `theta`, variables for the anchor).
    pub(crate) fn weights_program(&self, extra: usize) -> (ConicProblem, Block) {
        let cm = &self.problem;
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
}

impl ScoreOracle for ClarabelCm {
    fn dim(&self) -> usize {
        self.problem.dim()
    }

    fn max_score(&self) -> f64 {
        self.problem.n() as f64
    }

    fn backend(&self) -> &'static str {
        "clarabel"
    }

    fn convex(&self) -> bool {
        true
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        self.evaluate_with(theta, &self.settings)
    }

    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        let _ = level;
        refined(&self.settings, accuracy, self.max_score(), |s| {
            self.evaluate_with(theta, s)
        })
    }
}

impl ClarabelCm {
    /// [`ScoreOracle::evaluate`] with `settings` instead of the backend's own.
    pub fn evaluate_with(
        &self,
        theta: &[f64],
        settings: &ClarabelSettings,
    ) -> Result<ScoreEval, ScoreError> {
        let cm = &self.problem;
        cm.check_theta(theta)?;
        if !cm.in_domain(theta) {
            return Ok(ScoreEval::outside(cm.n() as f64));
        }
        if let Some(eval) = cm.screen(theta, settings.accuracy, None) {
            return Ok(eval);
        }
        let (n, dim) = (cm.n(), cm.dim());
        let (mut p, psd) = self.weights_program(0);
        for (k, (t, c)) in theta.iter().zip(cm.centre().iter()).enumerate() {
            p.add_psd_constant(psd, k, dim, t - c);
        }
        let (eval, _) = solve_certified(settings, &p, |sol| {
            cm.certify(theta, &sol.x[..n], &block_matrix(&psd, &sol.z))
        })?;
        Ok(eval)
    }
}

/// The SP score on clarabel; `theta = svec(S)`.
#[derive(Clone, Debug)]
pub struct ClarabelSp {
    problem: Spectral,
    settings: ClarabelSettings,
}

impl ClarabelSp {
    pub fn new(problem: Spectral) -> Self {
        ClarabelSp {
            problem,
            settings: ClarabelSettings::default(),
        }
    }

    pub fn with_settings(mut self, settings: ClarabelSettings) -> Self {
        self.settings = settings;
        self
    }

    pub fn problem(&self) -> &Spectral {
        &self.problem
    }

    /// Variables `a_0..a_{n-1}, t`; minimise `t`; rows: box `0 <= a <= u(S)`,
    /// `t - n + sum a >= 0`, and the two LMIs divided by `n`, written after the congruence by
    /// `L^{-1}` (`S = L L^T`, `w_i = L^{-1} x_i`): `(1 + gamma) I - sum (a_i / n) w_i w_i^T ⪰ 0`
    /// and `sum (a_i / n) w_i w_i^T + (t / n) lambda I - (1 - gamma) I ⪰ 0`. The congruence is
    /// an exact equivalence and removes the conditioning of `S` from the solver's tolerances;
    /// duals `Yw` of the whitened LMIs map back as `L^{-T} Yw L^{-1}`.
    fn program(&self, whitened: &DMatrix<f64>, caps: &[f64]) -> (ConicProblem, Block, Block) {
        let sp = &self.problem;
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
}

impl ScoreOracle for ClarabelSp {
    fn dim(&self) -> usize {
        self.problem.dim()
    }

    fn max_score(&self) -> f64 {
        self.problem.max_score()
    }

    fn backend(&self) -> &'static str {
        "clarabel"
    }

    fn convex(&self) -> bool {
        true
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        self.evaluate_with(theta, &self.settings)
    }

    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        let _ = level;
        refined(&self.settings, accuracy, self.max_score(), |s| {
            self.evaluate_with(theta, s)
        })
    }
}

impl ClarabelSp {
    /// [`ScoreOracle::evaluate`] with `settings` instead of the backend's own.
    pub fn evaluate_with(
        &self,
        theta: &[f64],
        settings: &ClarabelSettings,
    ) -> Result<ScoreEval, ScoreError> {
        let sp = &self.problem;
        let s = sp.candidate(theta)?;
        let Some(factor) = s.factor.as_ref() else {
            return Ok(ScoreEval::outside(sp.max_score()));
        };
        let (p, upper, lower) = self.program(&factor.whitened, &factor.caps);
        let n = sp.n();
        let (eval, _) = solve_certified(settings, &p, |sol| {
            let y1 = factor.unwhiten(&block_matrix(&upper, &sol.z));
            let y2 = factor.unwhiten(&block_matrix(&lower, &sol.z));
            sp.certify(&s, &sol.x[..n], sol.x[n], &y1, &y2)
        })?;
        Ok(eval)
    }
}
