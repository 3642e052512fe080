//! Reference backend (MATH.md 3.2): the CM, SP and HS programs as written, solved by clarabel.
//!
//! [`Clarabel`] is the oracle of any [`ReferenceProgram`]; the programs themselves are
//! written in [`crate::cm::reference`], [`crate::sp::reference`] and [`crate::hs::reference`].
//! Every evaluation is certified by the backend-independent brackets of [`crate::cm`],
//! [`crate::sp`] and [`crate::hs`]. On a
//! solver failure we retry once at a relaxed tolerance; if the bracket is still wider than the
//! requested accuracy we return the narrowest certified bracket found, never a guess.
use crate::ScoreError;
use nalgebra::DMatrix;
use sosdp_oracle::svec::smat;
use sosdp_oracle::{ScoreEval, ScoreOracle};
use sosdp_sdp::{Block, Cone, ConicProblem, ConicSolution, SolveSettings};

/// Settings shared by the clarabel score backends. Every field states its default;
/// [`ClarabelSettings::default`] gives them.
#[derive(Clone, Debug)]
pub struct ClarabelSettings {
    /// Solver tolerance (gap and feasibility), first attempt. Default `1e-8`.
    pub tolerance: f64,
    /// Iteration budget of the first attempt. Default 200.
    pub max_iter: u32,
    /// Tolerance of the single retry after a bracket too wide. Default `1e-6`.
    pub relaxed_tolerance: f64,
    /// Iteration budget of the retry. Default 500.
    pub relaxed_max_iter: u32,
    /// Iteration budget of each of the anchor's two attempts ([`crate::minimise_cm`], at
    /// `tolerance` then `relaxed_tolerance`). Default 500.
    pub anchor_max_iter: u32,
    /// Largest accepted bracket width `upper - lower`, in points (MATH.md 3.2's zeta).
    /// Default `1e-3`.
    pub accuracy: f64,
}

impl Default for ClarabelSettings {
    fn default() -> Self {
        ClarabelSettings {
            tolerance: 1e-8,
            max_iter: 200,
            relaxed_tolerance: 1e-6,
            relaxed_max_iter: 500,
            anchor_max_iter: 500,
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

/// Solve at the first tolerance, and once more at the relaxed one if the certified bracket is
/// too wide. If it still is, the narrowest certified bracket found is returned, wider than
/// asked: its ends are still valid bounds (any primal point and any dual point certify them), and
/// a membership query it does not decide goes to the refinement and tie rule of
/// [`sosdp_oracle::decide`], so a hard instance never turns into a data-dependent error.
/// An error only when no attempt returned a finite point.
pub(crate) fn solve_certified(
    settings: &ClarabelSettings,
    problem: &ConicProblem,
    certify: impl Fn(&ConicSolution) -> ScoreEval,
) -> Result<(ScoreEval, ConicSolution), ScoreError> {
    let mut last_status = String::new();
    let mut best: Option<(ScoreEval, ConicSolution)> = None;
    for (tolerance, max_iter) in [
        (settings.tolerance, settings.max_iter),
        (settings.relaxed_tolerance, settings.relaxed_max_iter),
    ] {
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

/// A score program the reference backend solves: its data and how one evaluation is set up
/// as a conic program and certified.
pub trait ReferenceProgram {
    /// Dimension of `theta`.
    fn dim(&self) -> usize;
    /// Largest value of the score (its value outside the domain).
    fn max_score(&self) -> f64;
    /// The certified evaluation at `theta` with `settings`: clarabel at the first tolerance,
    /// once more at the relaxed one if the certified bracket is too wide.
    fn solve(&self, theta: &[f64], settings: &ClarabelSettings) -> Result<ScoreEval, ScoreError>;
}

/// The score of the program `P` on clarabel: [`crate::ClarabelCm`] for CM,
/// [`crate::ClarabelSp`] for SP, [`crate::ClarabelHs`] for HS.
#[derive(Clone, Debug)]
pub struct Clarabel<P> {
    problem: P,
    settings: ClarabelSettings,
}

impl<P> Clarabel<P> {
    /// The backend for `problem`, with the default [`ClarabelSettings`].
    pub fn new(problem: P) -> Self {
        Clarabel {
            problem,
            settings: ClarabelSettings::default(),
        }
    }

    /// The same backend with `settings`.
    pub fn with_settings(mut self, settings: ClarabelSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The score program.
    pub fn problem(&self) -> &P {
        &self.problem
    }

    /// The backend's settings.
    pub fn settings(&self) -> &ClarabelSettings {
        &self.settings
    }
}

impl<P: ReferenceProgram> Clarabel<P> {
    /// [`ScoreOracle::evaluate`] with `settings` instead of the backend's own.
    pub fn evaluate_with(
        &self,
        theta: &[f64],
        settings: &ClarabelSettings,
    ) -> Result<ScoreEval, ScoreError> {
        self.problem.solve(theta, settings)
    }

    /// The evaluation with a bracket at most `accuracy` wide: with the backend's own settings
    /// when their [`ClarabelSettings::accuracy`] is already at most `accuracy`; otherwise
    /// with clarabel's tolerance tightened to `accuracy / max(1, n)`
    /// ([`ClarabelSettings::to_accuracy`]) and, if that solve fails, with the backend's own
    /// settings (a certified bracket wider than asked, which sends an undecided membership
    /// query to the tie rule of [`sosdp_oracle::decide`]). How brackets are refined
    /// ([`ScoreOracle::member_eval_to`]), and what the fast backends ask for when their
    /// rounds fail, so that refinement reaches the tie band's floor through the fallback too.
    pub fn evaluate_to(&self, theta: &[f64], accuracy: f64) -> Result<ScoreEval, ScoreError> {
        if accuracy >= self.settings.accuracy {
            return self.evaluate(theta);
        }
        self.evaluate_with(
            theta,
            &self
                .settings
                .to_accuracy(accuracy, self.problem.max_score()),
        )
        .or_else(|_| self.evaluate(theta))
    }
}

impl<P: ReferenceProgram> ScoreOracle for Clarabel<P> {
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
        self.evaluate_to(theta, accuracy)
    }
}
