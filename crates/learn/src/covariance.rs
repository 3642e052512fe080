//! The private covariance (MATH.md 5.2 and 5.3): pair the records, precondition with the staged
//! additive release of [`crate::preconditioner`], then refine with staged CM on lifted, whitened
//! points, re-whitening at every stage.
//!
//! **Pairing.** `x_i = (y_{2i} - y_{2i-1}) / sqrt 2 ~ N(0, Sigma)` for clean pairs; a corrupted
//! record spoils one pair, so the pairs' corruption is at most `2 eta0`.
//!
//! **Preconditioner** (5.2): the staged additive release of [`crate::preconditioner`], a frame
//! `U` with `Sigma ⪯ U ⪯ kappa_J Sigma` (on the plan's event). The refinement starts in the frame
//! `Sigma_0 = U / c`, `c = 2 kappa_J / (kappa_J + 1)`: the whitened covariance
//! `c U^{-1/2} Sigma U^{-1/2}` then has its spectrum in `[c / kappa_J, c] = [1 - s0, 1 + s0]`,
//! `s0 = (kappa_J - 1) / (kappa_J + 1) < 1` (MATH.md 5.3 whitens by `U / sqrt(kappa_J)` instead,
//! which leaves the band `[1/sqrt(kappa_J), sqrt(kappa_J)]` lopsided around 1 and `s0 = sqrt(kappa_J) - 1`,
//! above 1 when `kappa_J > 4`; the arithmetic centring gives the smallest operator bound).
//!
//! **Refinement** (5.3). Stage `j` whitens by `W_j = Sigma_j^{-1/2}` (`Sigma_0 = S0`), lifts
//! `z_i = svec(W_j x_i x_i^T W_j)` (`|svec(A)| = |A|_F`, so Frobenius balls are Euclidean),
//! and runs CM with centre `svec(I)`, `Gamma_j = (2 (1 + s_j)^2 + r_j^2 + delta) I` over
//! `B(svec I, r_j)` ∩ the CM ellipsoid ∩ `{max(1 - 1.5 s_j, l_j/2) I ⪯ S ⪯ (1 + 1.5 s_j) I}`, where
//! `l_j > 0` is a guaranteed smallest eigenvalue of the whitened covariance (`1 - s_0` at the
//! first stage, see [`RefinementPlan::lower_eigenvalue`]). The release
//! `S_j` gives `Sigma_{j+1} = Sigma_j^{1/2} S_j Sigma_j^{1/2}`. Radii follow
//! `r'_{j+1} = min(safety * sqrt(eta'_j (8 s_j + r_j^2 + delta)) + floor, r_j)`, then
//! `r_{j+1} = r'_{j+1} / (1 - min(r'_{j+1}, 1/2))` for the re-whitening, `s_{j+1} = min(r_{j+1}, s_j)`,
//! `r_0 = sqrt(d) s0`, with the constants of [`Constants`].
//!
//! **Centring** (5.3b, [`PrivateCovariance::centred`], [`CentringPlan`]): with a prior
//! `|mu| <= R`, after `c` stages on pairs a mean released in the current frame centres the
//! records, and the remaining stages refine the second moment about it on all `n` records
//! (corruption `eta0`), with the mean's rank-one bias in the bound.
//!
//! Privacy: the preconditioner, the centring mean and every refinement stage are pure-DP releases with a
//! data-independent split of eps; stage parameters depend only on the plan and earlier
//! releases, so the output is eps-DP by composition.
use crate::learner::{Learner, Plan, accepts_corruption, check_size, records_needed};
use crate::mean::PrivateMean;
use crate::preconditioner::{Points, PreconditionerPlan, PreconditionerSettings};
use crate::privacy::{Privacy, seeded_rng};
use crate::projection::{clean_radius, project_onto_ball, project_rows};
use crate::release::{AccuracyBound, Diagnostics, Fit, Release, StageRelease, StepDiagnostics};
use crate::scale::{Rescalable, Scaled};
use crate::schedule::{Constants, Schedule};
use crate::stage::{CmStage, run_cm_stage};
use crate::symmetric::{matrix_of, spd_power, svec_of};
use crate::{LearnError, check_data};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use serde::Serialize;
use sosdp_oracle::svec::svec;
use sosdp_sampler::{ChainRule, MechanismSettings, Progress, Spectrahedron};
use sosdp_score::FastSettings;
use std::ops::ControlFlow;
use std::time::Instant;

/// `x_i = (y_{2i} - y_{2i-1}) / sqrt 2` for consecutive pairs of rows (an odd last row is
/// not used: the plan's pair count `m = floor(n / 2)` is public), each projected onto the public
/// ball `B(0, radius)` ([`crate::projection`]). The learners shuffle the rows first. Formed
/// without overflow for any finite records: `x_i = sqrt 2 * P(y_{2i}/2 - y_{2i-1}/2)`, with `P`
/// the projection onto `B(0, radius / sqrt 2)`.
pub fn pair(data: &DMatrix<f64>, radius: f64) -> DMatrix<f64> {
    let (m, d) = (data.nrows() / 2, data.ncols());
    let origin = vec![0.0; d];
    let mut out = DMatrix::zeros(m, d);
    let mut half = vec![0.0; d];
    for i in 0..m {
        for (k, h) in half.iter_mut().enumerate() {
            *h = 0.5 * data[(2 * i + 1, k)] - 0.5 * data[(2 * i, k)];
        }
        project_onto_ball(&mut half, &origin, radius / std::f64::consts::SQRT_2);
        for (k, h) in half.iter().enumerate() {
            out[(i, k)] = std::f64::consts::SQRT_2 * h;
        }
    }
    out
}

/// The fit's first steps: the pairs of `data` in a random (data-independent) order, so that a
/// sorted or grouped file still gives i.i.d. differences, then the staged preconditioner on
/// them, or on the shuffled records projected onto the plan's ball when it runs on centred
/// records: the pairs, the frame `U_J` and the stage releases.
fn precondition<R: Rng + ?Sized>(
    data: &DMatrix<f64>,
    plan: &CovariancePlan,
    rng: &mut R,
) -> (DMatrix<f64>, DMatrix<f64>, Vec<StageRelease>) {
    let order = rand::seq::index::sample(rng, data.nrows(), data.nrows()).into_vec();
    let shuffled = data.select_rows(order.iter());
    let x = pair(&shuffled, plan.pair_radius);
    let (frame, releases) = match &plan.preconditioner.centring {
        None => plan.preconditioner.release(&x, rng),
        Some(c) => {
            let records = project_rows(&shuffled, &vec![0.0; data.ncols()], c.record_radius);
            plan.preconditioner.release(&records, rng)
        }
    };
    (x, frame, releases)
}

/// Of `plans`, the first with the smallest `error`, or when none is `Ok` the first refusal;
/// `None` when there are no plans.
fn smallest_error<T>(
    plans: impl IntoIterator<Item = Result<T, LearnError>>,
    error: impl Fn(&T) -> f64,
) -> Option<Result<T, LearnError>> {
    let mut first_error = None;
    let mut best: Option<T> = None;
    for plan in plans {
        match plan {
            Ok(p) if best.as_ref().is_none_or(|b| error(&p) < error(b)) => best = Some(p),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    best.map(Ok).or(first_error.map(Err))
}

/// Lower edge of the refinement's band for an operator bound `s` and a guaranteed smallest
/// eigenvalue `l > 0` of the stage's whitened covariance: `max(1 - 1.5 s, l / 2)`, strictly
/// positive (so every release, and every re-whitening by it, is positive definite whatever the
/// data) and below the truth's `max(1 - s, l)`.
fn band_lower(s: f64, l: f64) -> f64 {
    (1.0 - 1.5 * s).max(0.5 * l)
}

/// Upper edge of the refinement's band: `1 + 1.5 s`.
fn band_upper(s: f64) -> f64 {
    1.0 + 1.5 * s
}

/// The private covariance: `PrivateCovariance::new(Privacy::new(eps).corruption(eta0), kappa)`
/// for records from `N(mu, Sigma)` with the prior `I ⪯ Sigma ⪯ kappa I` (the mean need not be
/// known); then [`Learner::plan`] and [`Learner::fit`].
#[derive(Clone, Debug)]
pub struct PrivateCovariance {
    privacy: Privacy,
    kappa: f64,
    mean_prior: Option<f64>,
    settings: CovarianceSettings,
}

/// The private covariance's own settings (the shared ones are in [`Privacy`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CovarianceSettings {
    /// The calibrated constants (default [`Constants::default`]; `max_kappa` is the largest
    /// prior accepted).
    pub constants: Constants,
    /// The preconditioner's settings: clip, stage count, noise quantiles (default
    /// [`PreconditionerSettings::default`]).
    pub preconditioner: PreconditionerSettings,
    /// Share of eps spent on the preconditioner (default 1/2, docs/calibration.md).
    pub preconditioner_share: f64,
    /// Lower preconditioner shares, as factors of `preconditioner_share`, tried in order when
    /// the plan at `preconditioner_share` is refused (default `[0.75, 0.5]`: 1/2, then 3/8, then
    /// 1/4). The first accepted plan is kept, so an accepted plan at the calibrated share is
    /// never changed. Under declared corruption the refinement's error, not the
    /// preconditioner's `kappa_J`, binds: for the Gaussian learner at d = 10, n = 50000, eps = 2,
    /// K = 100, corruption 0.005, on pairs, the plan at 1/2 has `kappa_J` 44.8 and a planned
    /// error of 0.541, the one at 3/8 `kappa_J` 59.9 and 0.490. Public: the choice depends on
    /// `(n, d)` and the settings.
    pub share_fallbacks: Vec<f64>,
    /// Share of eps spent on the centring mean when the refinement is centred
    /// ([`PrivateCovariance::centred`]; default 1/8); unused otherwise. The refinement gets what
    /// the shares leave, which must be positive.
    pub mean_share: f64,
    /// Where the preconditioner's stages release their second moment when the learner has a
    /// mean prior ([`PrivateCovariance::centred`]; without one, always on pairs): default
    /// [`PreconditionerPoints::Planned`].
    pub preconditioner_points: PreconditionerPoints,
    /// The number of Frobenius refinement stages, at least 1 (default 2).
    pub refinement_stages: usize,
    /// The largest planned error `|Sigma^-1/2 Sigma_hat Sigma^-1/2 - I|_F` a plan may have
    /// (default 0.5): above it the plan is refused as having too few records.
    pub max_planned_error: f64,
    /// The fast CM settings of the lifted refinement's stages. Default: [`FastSettings::default`]
    /// with its compressed programs aggregated more often (`compress.aggregate_share`,
    /// `compress.wide_core`) and far-off warm guesses repaired, not restarted cold
    /// (`repair.far_off_restarts`), each measured on the d = 10 Gaussian (lifted `D = 55`;
    /// the values and their measurements are in the function `CovarianceSettings::default`
    /// calls, in this file).
    /// Releases are the same for any of them: every answer is certified.
    pub refinement_score: FastSettings,
}

impl Default for CovarianceSettings {
    fn default() -> Self {
        CovarianceSettings {
            constants: Constants::default(),
            preconditioner: PreconditionerSettings::default(),
            preconditioner_share: 0.5,
            share_fallbacks: vec![0.75, 0.5],
            mean_share: 0.125,
            preconditioner_points: PreconditionerPoints::Planned,
            refinement_stages: 2,
            max_planned_error: 0.5,
            refinement_score: refinement_score(),
        }
    }
}

/// The lifted refinement's default score settings: [`FastSettings::default`] with
/// - compressed programs aggregated where more than a quarter of their weights start free
///   (`compress.aggregate_share`, MATH.md 4.10): the clean d = 10 Gaussian's refinement starts
///   45-50% free, and a compressed answer took 0.07-1.2 s with single weights, 10-40 ms grouped;
/// - far-off warm guesses repaired, not restarted cold (`repair.far_off_restarts`): with 0.5%
///   far records the cold restarts took 91 s of the first refinement stage's 385 s and 150 s of
///   the second's 972 s, and the fit 28:51 against 26:59 without them, side by side;
/// - the compressed programs it leaves single aggregated beyond `compress.wide_free` free
///   weights with 128 single on each side of the margins' crossing (`compress.wide_core`):
///   the same far fit took 17:45 with it against 22:03 without, side by side;
/// - interior-point solves from an infeasible guess started strictly feasible at half the
///   guess's largest feasible scale (`start_fraction` 0.5 in each round's
///   [`sosdp_score::ipm::IpmSettings`]):
///   with 0.5% far records its compressed programs took 26% fewer interior-point iterations
///   and its full programs 15% fewer, and the fit 14:59 against 16:04 side by side; clean, the
///   same time (docs/performance.md, section 2).
fn refinement_score() -> FastSettings {
    let mut score = FastSettings::default();
    score.compress.aggregate_share = 0.25;
    score.repair.far_off_restarts = false;
    score.compress.wide_core = 128;
    for ipm in [
        &mut score.round,
        &mut score.compress.compress_round,
        &mut score.cold.subsample_round,
    ] {
        ipm.start_fraction = 0.5;
    }
    score
}

/// Where the preconditioner's stages release their second moment (MATH.md 5.2, 5.3b).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PreconditionerPoints {
    /// Always on pairs (corruption `2 eta0`, `n / 2` points).
    Pairs,
    /// With a mean prior, plan on pairs and on records centred in every stage by a mean released
    /// in its frame ([`Points::Records`]: corruption `eta0`, `n` points, plus the means' offset)
    /// and keep the smaller planned error.
    #[default]
    Planned,
    /// Always on centred records; needs the mean prior.
    Records,
}

/// The share of a plan's largest accepted corruption
/// ([`crate::largest_accepted_corruption`]) up to which covariance releases were measured within
/// their planned error: beyond it, at d = 5 and 10, far records were only partly removed and a
/// cluster not at all (docs/limitations.md, section 3).
pub const MEASURED_CORRUPTION_SHARE: f64 = 2.0 / 3.0;

/// The note of [`Learner::plan_notes`] for the covariance and the Gaussian (with their priors;
/// the localised and scaled variants have none): when the plan at the declared corruption
/// `eta0 > 0` is accepted and the plan at `eta0 / MEASURED_CORRUPTION_SHARE` is refused, i.e.
/// `eta0` is above [`MEASURED_CORRUPTION_SHARE`] of the largest corruption the plan accepts
/// ([`crate::largest_accepted_corruption`], when the accepted fractions form an interval), that
/// releases there were measured beyond their planned error. Two public plans; a refused plan
/// gets no note (its refusal says why).
pub(crate) fn corruption_note<L: Learner + Clone>(learner: &L, n: usize, d: usize) -> Vec<String> {
    let eta = learner.privacy().corruption;
    let accepts = |eta: f64| accepts_corruption(learner, eta, n, d);
    let above = eta / MEASURED_CORRUPTION_SHARE;
    if !(eta > 0.0 && accepts(eta)) || accepts(above) {
        return Vec::new();
    }
    vec![format!(
        "the declared corruption {eta} is above {:.0}% of the largest this plan accepts (it refuses {above:.4}); that close to the limit, releases were measured beyond their planned covariance error (at d = 5 and 10: docs/limitations.md, section 3)",
        100.0 * MEASURED_CORRUPTION_SHARE
    )]
}

/// The public plan of a covariance fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CovariancePlan {
    /// The number of pairs `m = floor(n / 2)` the preconditioner uses.
    pub pairs: usize,
    /// Each pair is projected onto `B(0, pair_radius)` before any score sees it:
    /// `sqrt(K) rho_m`, `rho_m = sqrt(d) + sqrt(2 log(m / beta_p))`, holds the clean pairs with
    /// probability `1 - beta_p` under the prior `Sigma ⪯ K I` ([`crate::projection`]).
    pub pair_radius: f64,
    /// The plan of the staged preconditioner (MATH.md 5.2).
    pub preconditioner: PreconditionerPlan,
    /// The centring of MATH.md 5.3b, when the refinement's later stages run on centred records
    /// (`None`: all on pairs).
    pub centring: Option<CentringPlan>,
    /// The refinement's first frame is the preconditioner's `U_J` divided by
    /// `frame_scale = 2 kappa_J / (kappa_J + 1)`.
    pub frame_scale: f64,
    /// The Frobenius refinement stages (MATH.md 5.3), in order.
    pub refinement: Vec<RefinementPlan>,
    /// The worst-case bound on `|Sigma^-1/2 Sigma_hat Sigma^-1/2 - I|_F` that follows from the
    /// preconditioner's `kappa_J` through every refinement stage in the worst case (each stage's
    /// accuracy carried into the next stage's frame), plus the centring's bias
    /// ([`CentringPlan::bias`]); `None` when some stage's ball or band may miss the whitened
    /// truth. The stages' radii (the calibrated recursion) are what the mechanism uses either
    /// way.
    pub guaranteed_error: Option<f64>,
    /// The planned (calibrated) error: the last stage's accuracy, with the centring's bias.
    pub planned_error: f64,
}

/// The centring of MATH.md 5.3b: after the first `after_stages` refinement stages (on pairs), a
/// mean `mu_0` released in the current frame centres the `n` records, and the remaining stages
/// run on them (corruption `eta0`, `n` points) instead of on pairs (`2 eta0`, `n / 2`). The plan
/// chooses `after_stages` with the smallest planned error.
///
/// In the frame `Sigma_c` of that point, the whitened truth `T_c = Sigma_c^{-1/2} Sigma
/// Sigma_c^{-1/2}` has `|T_c - I|_op <= s_c` and `lambda_min(T_c) >= l_c` (the stage plan's
/// bounds; `s_0 = (kappa_J - 1) / (kappa_J + 1)`, `l_0 = 1 - s_0` in the preconditioner's frame),
/// and `|Sigma_c^{-1/2} mu| <= sqrt(1 + s_c) R` (`Sigma_c ⪰ Sigma / (1 + s_c) ⪰ I / (1 + s_c)`).
/// The private mean (MATH.md 5.1, `Gamma` widened by `s_c`) on the records whitened by
/// `Sigma_c^{-1/2}` releases `theta` with `|theta - Sigma_c^{-1/2} mu| <= r_0` (its plan's
/// accuracy), and `mu_0 = Sigma_c^{1/2} theta`. With `delta = mu - mu_0`, the centred records
/// `x_i - mu_0` have second moment `Sigma' = Sigma + delta delta^T`, whose whitened version
/// `T_c + b b^T` (`|b| <= r_0`) is within `r_c + r_0^2` of `I` in Frobenius norm and `s_c + r_0^2`
/// in operator norm, with smallest eigenvalue still `>= l_c`: the remaining stages refine
/// `Sigma'` from these bounds. An error `e'` relative to `Sigma'` is at most `(1 + t) e' + t`
/// relative to `Sigma`, `t = |Sigma^{-1/2} delta|^2 <= r_0^2 / l_c` (the rank-one bias).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CentringPlan {
    /// The number `c` of refinement stages on pairs before the centring.
    pub after_stages: usize,
    /// Every record is projected onto `B(0, record_radius)` first: `R + sqrt(K) rho_n`, which
    /// holds the clean records on the event of the refinement's projections.
    pub record_radius: f64,
    /// `sqrt(1 + s_c) R`, the mean's prior radius in the frame `Sigma_c`.
    pub whitened_radius: f64,
    /// `s_c`, the widening of the mean's `Gamma`.
    pub spectral: f64,
    /// The mean's schedule (MATH.md 5.1).
    pub mean: Schedule,
    /// `t = r_0^2 / l_c`, the bound on `|Sigma^{-1/2} (mu - mu_0)|^2`.
    pub bias: f64,
}

impl CentringPlan {
    /// The bound on the centring mean's Mahalanobis error `|Sigma^{-1/2} (mu_0 - mu)|`:
    /// `sqrt(t)`.
    pub fn mahalanobis_bound(&self) -> f64 {
        self.bias.sqrt()
    }

    /// An error `e'` relative to `Sigma' = Sigma + delta delta^T` as an error relative to
    /// `Sigma`: `(1 + t) e' + t` (`|Sigma^{-1/2} Sigma'^{1/2}|_op^2 <= 1 + t`).
    fn relative_to_sigma(&self, e: f64) -> f64 {
        (1.0 + self.bias) * e + self.bias
    }
}

/// The clean radii of the projections: `rho_m` for the pairs, `rho_n` for the records
/// ([`clean_radius`]).
struct Radii {
    pairs: f64,
    records: f64,
}

/// The refinement part of a plan ([`PrivateCovariance::refinement_plan`]).
struct RefinementOutcome {
    stages: Vec<RefinementPlan>,
    centring: Option<CentringPlan>,
    guaranteed_error: Option<f64>,
    planned_error: f64,
}

/// The worst case carried through the refinement stages: bounds on the whitened truth `T_j`
/// (`|T_j - I|_F <= frobenius`, `|T_j - I|_op <= operator`, `lambda_min(T_j) >= lower`), which
/// start from the preconditioner's `kappa_J` and must stay inside each stage's planned ball,
/// operator bound and band for that stage's accuracy `e_j` (`|S_j - T_j|_F <= e_j`) to hold.
/// Re-whitening by the release gives `T_{j+1} = S_j^{-1/2} T_j S_j^{-1/2}`, so
/// `|T_{j+1} - I|_F <= e_j / lambda_min(S_j)` with `lambda_min(S_j) >= max(band lower edge,
/// lower - e_j)`, and the final error in the truth's frame is `e_J / lambda_min(T_J)`. The
/// calibrated radius recursion of [`PrivateCovariance::plan`] divides by about `1 - e_j`
/// instead, which holds when the frame is nearly right; this chain holds always, and is far
/// weaker when `kappa_J` is not close to 1 (the release's error in a thin direction of the
/// frame is relative to that direction's variance).
#[derive(Clone, Copy, Debug)]
struct WorstCase {
    frobenius: f64,
    operator: f64,
    lower: f64,
    valid: bool,
}

impl WorstCase {
    /// One stage with planned radius `r`, operator bound `s`, smallest eigenvalue `l` and
    /// accuracy `e`.
    fn step(&mut self, r: f64, s: f64, l: f64, e: f64) {
        let tol = 1e-12;
        self.valid &=
            self.frobenius <= r + tol && self.operator <= s + tol && self.lower >= l - tol;
        let (lo, hi) = (band_lower(s, l), band_upper(s));
        let release_min = lo.max(self.lower - e);
        let release_max = hi.min(1.0 + self.operator + e);
        let frobenius = e / release_min;
        let operator = frobenius
            .min(((1.0 + self.operator) / release_min - 1.0).max(1.0 - self.lower / release_max));
        self.lower = (self.lower / release_max).max(1.0 - operator);
        self.frobenius = frobenius;
        self.operator = operator;
    }

    /// After the last stage, the error in the truth's frame: `Sigma^{-1/2} Sigma_hat Sigma^{-1/2}`
    /// has the eigenvalues of `T^{-1}`, `T` the next whitened truth, and
    /// `|T^{-1} - I|_F <= |T - I|_F / lambda_min(T)`. `None` when the chain left a stage's
    /// assumptions.
    fn final_error(&self) -> Option<f64> {
        (self.valid && self.lower > 0.0).then(|| self.frobenius / self.lower)
    }
}

/// The public plan of one refinement stage `j`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RefinementPlan {
    /// The stage's share of eps.
    pub epsilon: f64,
    /// The Frobenius radius `r_j` of the stage's ball around the whitened identity.
    pub radius: f64,
    /// The operator bound `s_j` on the stage's whitened covariance: `|T_j - I|_op <= s_j`.
    pub spectral: f64,
    /// A guaranteed smallest eigenvalue `l_j > 0` of the stage's whitened covariance (the
    /// preconditioner's `1 - s_0` for `j = 0`; `max(l_{j-1} / (1 + 1.5 s_{j-1}), 1 - s_j)` after).
    /// It keeps the band positive definite.
    pub lower_eigenvalue: f64,
    /// `Gamma_j = gamma I`, `gamma = 2 (1 + s_j)^2 + r_j^2 + delta`.
    pub gamma: f64,
    /// The score bound `k*_j` of the release (Lemma 2.1).
    pub score_bound: f64,
    /// The chain's public start and length (MATH.md 4.7b).
    pub chain: ChainRule,
    /// The stage's accuracy `r_{j+1}`.
    pub accuracy: f64,
    /// The whitened points are projected onto `B(0, projection_radius)` before they are lifted:
    /// `sqrt(1 + s_j) (rho + sqrt(t))`, which holds the clean points when the whitened second
    /// moment is at most `1 + s_j` (`rho = rho_m` for pairs, on the event of
    /// [`CovariancePlan::pair_radius`]; `rho = rho_n` for centred records, whose whitened bias
    /// has norm at most `sqrt((1 + s_j) t)`; `t = 0` for pairs).
    pub projection_radius: f64,
}

/// The fit of the private covariance: the public release and non-private diagnostics.
pub type CovarianceFit = Fit<DMatrix<f64>, CovariancePlan>;

/// The public release of the private covariance (its estimate serialised row by row).
pub type CovarianceRelease = Release<DMatrix<f64>, CovariancePlan>;

impl PrivateCovariance {
    /// The private covariance with the shared settings `privacy` and the prior
    /// `I ⪯ Sigma ⪯ kappa I` (`kappa >= 1`, at most [`Constants::max_kappa`]), and the default
    /// [`CovarianceSettings`].
    pub fn new(privacy: Privacy, kappa: f64) -> Self {
        PrivateCovariance {
            privacy,
            kappa,
            mean_prior: None,
            settings: CovarianceSettings::default(),
        }
    }

    /// Centre the records by a mean released in a frame of the fit (after the plan's `c`
    /// refinement stages on pairs), with the prior `|mu| <= radius`, and refine on the `n`
    /// centred records instead of the `n / 2` pairs
    /// (MATH.md 5.3b, [`CentringPlan`]): half the corruption, twice the samples, at the price of
    /// the mean's eps share ([`CovarianceSettings::mean_share`]) and a rank-one bias in the bound.
    pub fn centred(mut self, radius: f64) -> Self {
        self.mean_prior = Some(radius);
        self
    }

    /// The learner's own settings ([`CovarianceSettings`]; default
    /// [`CovarianceSettings::default`]).
    pub fn settings(mut self, settings: CovarianceSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The share of eps the refinement gets: what the preconditioner and (when centred) the
    /// mean leave.
    fn refinement_share(&self) -> f64 {
        let mean = if self.mean_prior.is_some() {
            self.settings.mean_share
        } else {
            0.0
        };
        1.0 - self.settings.preconditioner_share - mean
    }

    /// The centring mean with the prior radius `radius` (in the frame of the centring) and the
    /// widening `spectral` of its `Gamma`: `mean_share * eps`, `beta / 2`, the seed plus one.
    fn centring_learner(&self, radius: f64, spectral: f64) -> PrivateMean {
        PrivateMean::step_of(self.privacy, self.settings.mean_share, radius, spectral)
    }

    /// The refusal's note that the lower shares of [`CovarianceSettings::share_fallbacks`] were
    /// refused too (empty without fallbacks).
    fn fallbacks_refused(&self) -> String {
        if self.settings.share_fallbacks.is_empty() {
            return String::new();
        }
        let shares: Vec<String> = self
            .settings
            .share_fallbacks
            .iter()
            .map(|f| format!("{:.3}", f * self.settings.preconditioner_share))
            .collect();
        format!(
            " (also refused at the lower preconditioner shares {} of eps)",
            shares.join(", ")
        )
    }

    /// Whether `plan`'s planned error is at most [`CovarianceSettings::max_planned_error`].
    fn acceptable(&self, plan: &CovariancePlan) -> bool {
        plan.planned_error <= self.settings.max_planned_error
    }

    /// The plan at the preconditioner share [`CovarianceSettings::preconditioner_share`] when it
    /// is acceptable, else at the first of its [`CovarianceSettings::share_fallbacks`] that is;
    /// when none is, the plan with the smallest planned error (or the first refusal) at the
    /// preferred share. At each share, with a mean
    /// prior ([`PrivateCovariance::centred`]) and [`PreconditionerPoints::Planned`], the
    /// preconditioner is planned on pairs and on centred records and the acceptable plan with
    /// the smaller planned error kept (ties: pairs). No acceptance check.
    fn plan_unchecked(&self, n: usize, d: usize) -> Result<CovariancePlan, LearnError> {
        let share = self.settings.preconditioner_share;
        let points: &[bool] = match (self.mean_prior, self.settings.preconditioner_points) {
            (Some(_), PreconditionerPoints::Planned) => &[false, true],
            (Some(_), PreconditionerPoints::Records) => &[true],
            _ => &[false],
        };
        let at_share = |factor: f64| -> Vec<Result<CovariancePlan, LearnError>> {
            let learner = self.clone().settings(CovarianceSettings {
                preconditioner_share: factor * share,
                ..self.settings.clone()
            });
            points
                .iter()
                .map(|&centred| learner.plan_at_share(n, d, centred))
                .collect()
        };
        // The acceptable plan with the smallest planned error (ties: the first, pairs).
        let best = |plans: Vec<Result<CovariancePlan, LearnError>>| {
            let acceptable = plans
                .into_iter()
                .filter(|p| p.as_ref().is_ok_and(|p| self.acceptable(p)));
            smallest_error(acceptable, |p| p.planned_error).and_then(Result::ok)
        };
        let preferred = at_share(1.0);
        if let Some(plan) = best(preferred.clone()) {
            return Ok(plan);
        }
        if let Some(plan) = self
            .settings
            .share_fallbacks
            .iter()
            .find_map(|&factor| best(at_share(factor)))
        {
            return Ok(plan);
        }
        // None acceptable: the preferred share's plan with the smallest planned error, or its
        // first refusal.
        smallest_error(preferred, |p| p.planned_error).expect("at least one kind of points")
    }

    /// The plan at the preconditioner share of the settings, without the acceptance check, with
    /// the preconditioner on pairs or (`centred_frames`) on centred records. Centred, every
    /// switch point `c` of the refinement is planned and the one with the smallest planned error
    /// kept (ties: the earliest).
    fn plan_at_share(
        &self,
        n: usize,
        d: usize,
        centred_frames: bool,
    ) -> Result<CovariancePlan, LearnError> {
        let m = n / 2;
        if m < 2 * d + 2 {
            return Err(LearnError::TooFewSamples(format!(
                "{n} records give {m} pairs; the covariance in dimension {d} needs at least {}",
                2 * d + 2
            )));
        }
        // Centred, half of beta goes to the mean's bound. Of the rest, a quarter for the
        // projections (the clean pairs and, when centred, the clean records lie in their balls),
        // half of the remainder for the preconditioner's event, half for the refinement's.
        let (beta, beta_projection) = match self.mean_prior {
            Some(_) => (0.5 * self.privacy.beta, 0.0625 * self.privacy.beta),
            None => (self.privacy.beta, 0.25 * self.privacy.beta),
        };
        let rho = Radii {
            pairs: clean_radius(m, d, beta_projection),
            records: clean_radius(n, d, beta_projection),
        };
        let beta = 0.75 * beta;
        let (points, corruption) = match self.mean_prior.filter(|_| centred_frames) {
            Some(radius) => (
                Points::Records {
                    count: n,
                    mean_prior: radius,
                    record_radius: radius + self.kappa.sqrt() * rho.records,
                },
                self.privacy.corruption,
            ),
            None => (Points::Pairs(m), 2.0 * self.privacy.corruption),
        };
        let preconditioner = PreconditionerPlan::new(
            points,
            d,
            self.kappa,
            self.settings.preconditioner_share * self.privacy.epsilon,
            0.5 * beta,
            corruption,
            &self.settings.preconditioner,
        )?;
        let kappa_j = preconditioner.kappa;
        let refinement = match self.mean_prior {
            None => self.refinement_plan(n, d, kappa_j, 0.5 * beta, &rho, None)?,
            Some(radius) => {
                let plans = (0..self.settings.refinement_stages).map(|c| {
                    self.refinement_plan(n, d, kappa_j, 0.5 * beta, &rho, Some((c, radius)))
                });
                smallest_error(plans, |o| o.planned_error)
                    .expect("refinement_stages >= 1 is validated")?
            }
        };
        Ok(CovariancePlan {
            pairs: m,
            pair_radius: self.kappa.sqrt() * rho.pairs,
            frame_scale: 2.0 * kappa_j / (kappa_j + 1.0),
            preconditioner,
            centring: refinement.centring,
            refinement: refinement.stages,
            guaranteed_error: refinement.guaranteed_error,
            planned_error: refinement.planned_error,
        })
    }

    /// The refinement's stages from the preconditioner's `kappa_J` with the failure
    /// probability `beta`, on pairs throughout (`centre_after` `None`) or centred after
    /// `c` stages with the prior `|mu| <= R` (`centre_after = (c, R)`, [`CentringPlan`]).
    fn refinement_plan(
        &self,
        n: usize,
        d: usize,
        kappa_j: f64,
        beta: f64,
        rho: &Radii,
        centre_after: Option<(usize, f64)>,
    ) -> Result<RefinementOutcome, LearnError> {
        let c = &self.settings.constants;
        let df = d as f64;
        let dim = df * (df + 1.0) / 2.0;
        let stages = self.settings.refinement_stages;
        let eps_j = self.refinement_share() * self.privacy.epsilon / stages as f64;
        let s0 = (kappa_j - 1.0) / (kappa_j + 1.0);
        let (mut r, mut s, mut l) = (df.sqrt() * s0, s0, 1.0 - s0);
        let mut chain = WorstCase {
            frobenius: r,
            operator: s,
            lower: l,
            valid: true,
        };
        let mut centring: Option<CentringPlan> = None;
        let mut refinement = Vec::with_capacity(stages);
        for j in 0..stages {
            if let Some((_, radius)) = centre_after.filter(|&(c, _)| c == j) {
                let whitened_radius = (1.0 + s).sqrt() * radius;
                let mean = self.centring_learner(whitened_radius, s).plan(n, d)?;
                // The rank-one bias moves the whitened target by at most `r_0^2` in both norms
                // and keeps its smallest eigenvalue.
                let shift = mean.accuracy().powi(2);
                centring = Some(CentringPlan {
                    after_stages: j,
                    record_radius: radius + self.kappa.sqrt() * rho.records,
                    whitened_radius,
                    spectral: s,
                    mean,
                    bias: shift / l,
                });
                (r, s) = (r + shift, s + shift);
                chain.frobenius += shift;
                chain.operator += shift;
            }
            let (samples, eta, rho_j, bias) = match &centring {
                Some(centring) => (n, self.privacy.corruption, rho.records, centring.bias),
                None => (n / 2, 2.0 * self.privacy.corruption, rho.pairs, 0.0),
            };
            let nf = samples as f64;
            let delta = c.slack * (dim / nf).sqrt();
            let floor = c.floor_scale * (2.0 * dim / nf).sqrt();
            let rho_lift = c.rho_scale * (2.0 * dim / nf).sqrt();
            let k =
                2.0 / eps_j * (dim * (r / rho_lift).max(1.0).ln() + (stages as f64 / beta).ln());
            let eta_j = eta + k / nf;
            if eta_j >= 0.5 {
                return Err(LearnError::TooFewSamples(format!(
                    "the refinement's score bound {k:.0} is too large for {samples} points"
                )));
            }
            let next = (c.safety * (eta_j * (8.0 * s + r * r + delta)).sqrt() + floor).min(r);
            refinement.push(RefinementPlan {
                epsilon: eps_j,
                radius: r,
                spectral: s,
                lower_eigenvalue: l,
                gamma: 2.0 * (1.0 + s).powi(2) + r * r + delta,
                score_bound: k,
                chain: MechanismSettings::new(eps_j, dim as usize)?.chain_rule(),
                accuracy: next,
                projection_radius: (1.0 + s).sqrt() * (rho_j + bias.sqrt()),
            });
            chain.step(r, s, l, next);
            // Calibrated: re-whitening by the release divides the next error by about `1 - r`
            // (its smallest eigenvalue); the operator bound never grows. The release lies in the
            // band, so the next whitened covariance keeps at least `l / (1 + 1.5 s)`.
            let next_r = next / (1.0 - next.min(0.5));
            let next_s = next_r.min(s);
            let next_l = (l / band_upper(s)).max(1.0 - next_s);
            // While the worst case still contracts, the next stage's ball, operator bound and
            // band also cover it (so the bound of `guaranteed_error` holds); once it does not,
            // the calibrated recursion alone sets them and there is no worst-case bound.
            if chain.valid && chain.frobenius < r {
                (r, s, l) = (
                    next_r.max(chain.frobenius),
                    next_s.max(chain.operator),
                    next_l.min(chain.lower),
                );
            } else {
                chain.valid = false;
                (r, s, l) = (next_r, next_s, next_l);
            }
        }
        let to_sigma = |e: f64| centring.as_ref().map_or(e, |c| c.relative_to_sigma(e));
        Ok(RefinementOutcome {
            guaranteed_error: chain.final_error().map(to_sigma),
            planned_error: to_sigma(refinement.last().map_or(f64::INFINITY, |s| s.accuracy)),
            stages: refinement,
            centring,
        })
    }

    /// The preconditioner's part of a fit, for tests of its stages' privacy
    /// (tests/privacy_learners.rs): exactly the first steps of [`Learner::fit`] on `data` (the
    /// checks, the public plan, the seeded randomness, the shuffle, the pairing and the staged
    /// release of [`PreconditionerPlan::release`]) without the refinement. Returns the frame
    /// `U_J` and the stage releases (the `S_j`, each after its mean `v_j` on centred records),
    /// the same as the first entries of the fit's
    /// `stage_releases` for the same seed; each is an eps-share release covered by the
    /// guarantee, and `U_J` is computed from them.
    pub fn preconditioner_release(
        &self,
        data: &DMatrix<f64>,
    ) -> Result<(DMatrix<f64>, Vec<StageRelease>), LearnError> {
        self.validate()?;
        check_data(data)?;
        let plan = self.plan(data.nrows(), data.ncols())?;
        let mut rng = seeded_rng(self.privacy.seed)?;
        let (_, frame, releases) = precondition(data, &plan, &mut rng);
        Ok((frame, releases))
    }

    /// How a bound states the prior `I ⪯ Sigma ⪯ kappa I` (a scaled fit replaces exactly this
    /// line: [`crate::scale::ScalePlan`]).
    pub(crate) fn prior_assumption(kappa: f64) -> String {
        format!("I ⪯ Sigma ⪯ K I with K = {kappa} (the prior)")
    }

    /// The assumptions every covariance bound rests on.
    pub fn assumptions(&self) -> Vec<String> {
        let mut assumptions = vec![
            "the uncorrupted records are i.i.d. Gaussian N(mu, Sigma)".to_string(),
            Self::prior_assumption(self.kappa),
        ];
        if let Some(radius) = self.mean_prior {
            assumptions.push(Privacy::mean_prior_assumption(radius));
        }
        assumptions.push(self.privacy.corruption_assumption());
        assumptions
    }

    /// The final accuracy bound of `plan` with its assumptions: the worst case carried from the
    /// preconditioner's `kappa_J` through the refinement ([`CovariancePlan::guaranteed_error`]);
    /// `None`, with the reason and the number of records that would give a bound of at most
    /// `max_planned_error`, when the chain does not hold at this size.
    pub fn accuracy_bound(&self, plan: &CovariancePlan, n: usize, d: usize) -> AccuracyBound {
        let bound = plan.guaranteed_error.filter(|b| b.is_finite());
        let unavailable = bound.is_none().then(|| {
            let good = |size: usize| self.plan_unchecked(size, d).is_ok_and(|p| p.guaranteed_error.is_some_and(|b| b <= self.settings.max_planned_error));
            let needed = (1..=20).map(|k| n << k).find(|&bigger| good(bigger)).map_or("more than 2^20 times as many records".to_string(), |b| format!("at most {b} records"));
            format!(
                "the refinement's worst case does not follow from the preconditioner's kappa_J = {:.2} at n = {n}, d = {d}, eps = {} \
                 (a stage's ball or band may miss the whitened truth when the frame is off by kappa_J); a bound <= {} needs {needed}; \
                 the planned (calibrated) error is {:.3}",
                plan.preconditioner.kappa,
                self.privacy.epsilon,
                self.settings.max_planned_error,
                plan.planned_error
            )
        });
        AccuracyBound {
            metric: "|Sigma^-1/2 Sigma_hat Sigma^-1/2 - I|_F".into(),
            bound,
            probability: 1.0 - self.privacy.beta,
            assumptions: self.assumptions(),
            basis: format!(
                "MATH 5.2 (staged preconditioner{}: Sigma ⪯ U ⪯ {:.2} Sigma) carried through the refinement stages (2.3) in the worst case{}, with calibrated constants (docs/calibration.md), for the exact mechanism",
                if plan.preconditioner.centring.is_some() {
                    " on records centred in every frame by a mean released there"
                } else {
                    ""
                },
                plan.preconditioner.kappa,
                match &plan.centring {
                    Some(c) => format!(
                        ", on records centred after {} stages on pairs by a mean released in that frame (MATH 5.3b; rank-one bias t = {:.4})",
                        c.after_stages, c.bias
                    ),
                    None => " on pairs".to_string(),
                }
            ),
            unavailable,
        }
    }
}

impl Plan for CovariancePlan {
    /// The preconditioner, the centring mean's stages (when centred), then the refinement
    /// stages.
    fn steps(&self) -> usize {
        1 + self.centring.as_ref().map_or(0, |c| c.mean.steps()) + self.refinement.len()
    }
}

impl Rescalable for PrivateCovariance {
    fn with_kappa(self, kappa: f64) -> Self {
        PrivateCovariance { kappa, ..self }
    }

    /// The covariance times `u`.
    fn unscale(estimate: DMatrix<f64>, unit: f64) -> DMatrix<f64> {
        estimate * unit
    }
}

/// The private covariance without the covariance's units (MATH.md 5.5 (a')):
/// `ScaledCovariance::new(Privacy::new(eps).corruption(eta0), condition)` for records from
/// `N(mu, Sigma)` whose condition number is at most `condition`: the pure scale ([`Scaled`]),
/// then the [`PrivateCovariance`] on pairs of the rescaled records. Pure eps-DP: neither step
/// spends delta. (Its refinement stays on pairs: a centring mean's prior radius would be in the
/// records' units.)
pub type ScaledCovariance = Scaled<PrivateCovariance>;

impl Scaled<PrivateCovariance> {
    /// The scaled covariance with the shared settings `privacy`, the bound `condition` on the
    /// covariance's condition number, and the default [`ScaleSettings`](crate::ScaleSettings) and
    /// [`CovarianceSettings`].
    pub fn new(privacy: Privacy, condition: f64) -> Self {
        Scaled::around(PrivateCovariance::new(privacy, 1.0), condition)
    }
}

impl Learner for PrivateCovariance {
    type Estimate = DMatrix<f64>;
    type Plan = CovariancePlan;

    fn privacy(&self) -> Privacy {
        self.privacy
    }

    fn with_privacy(self, privacy: Privacy) -> Self {
        PrivateCovariance { privacy, ..self }
    }

    fn validate(&self) -> Result<(), LearnError> {
        self.privacy.validate()?;
        self.privacy.refuse_delta("covariance (and Gaussian)")?;
        if !(self.kappa.is_finite() && self.kappa >= 1.0) {
            return Err(LearnError::InvalidSetting(format!(
                "kappa (the prior Sigma ⪯ K I) must be finite and >= 1, got {}",
                self.kappa
            )));
        }
        if self.kappa > self.settings.constants.max_kappa {
            return Err(LearnError::InvalidSetting(format!(
                "kappa K = {} is above the largest prior the preconditioner handles ({}): rescale the data by a public factor so that I ⪯ Sigma ⪯ K I holds with a smaller K",
                self.kappa, self.settings.constants.max_kappa
            )));
        }
        if self.privacy.corruption >= 0.25 {
            return Err(LearnError::InvalidSetting(format!(
                "pairing doubles the corruption: the covariance needs a corruption fraction below 0.25, got {}",
                self.privacy.corruption
            )));
        }
        if !(self.settings.max_planned_error.is_finite() && self.settings.max_planned_error > 0.0) {
            return Err(LearnError::InvalidSetting(format!(
                "the largest planned error must be positive and finite, got {}",
                self.settings.max_planned_error
            )));
        }
        let (p, m) = (self.settings.preconditioner_share, self.settings.mean_share);
        if !(p > 0.0 && m > 0.0 && self.refinement_share() > 0.0)
            || self.settings.refinement_stages == 0
        {
            return Err(LearnError::InvalidSetting(format!(
                "the eps shares must be positive and leave a positive share for the refinement (preconditioner {p}, mean {m}{}), and there must be >= 1 refinement stage",
                if self.mean_prior.is_some() {
                    ""
                } else {
                    ", unused: not centred"
                }
            )));
        }
        if let Some(f) = self
            .settings
            .share_fallbacks
            .iter()
            .find(|f| !(f.is_finite() && **f > 0.0 && **f < 1.0))
        {
            return Err(LearnError::InvalidSetting(format!(
                "a fallback of the preconditioner share is a factor in (0, 1), got {f}"
            )));
        }
        if self.settings.preconditioner_points == PreconditionerPoints::Records
            && self.mean_prior.is_none()
        {
            return Err(LearnError::InvalidSetting(
                "the preconditioner on centred records needs the prior |mu| <= R (the centred covariance, --radius R)".into(),
            ));
        }
        self.settings.preconditioner.validate()?;
        if let Some(radius) = self.mean_prior {
            // The centring mean's own checks (the plan checks its radius in the frame, up to
            // sqrt(2) R).
            self.centring_learner(radius, 1.0).validate()?;
        }
        Ok(())
    }

    /// [`corruption_note`].
    fn plan_notes(&self, n: usize, d: usize) -> Vec<String> {
        corruption_note(self, n, d)
    }

    /// Refused, with the number of records that would be accepted, when at the preconditioner
    /// share and at each of its fallbacks the preconditioner cannot contract or the planned
    /// error exceeds [`CovarianceSettings::max_planned_error`].
    fn plan(&self, n: usize, d: usize) -> Result<CovariancePlan, LearnError> {
        self.validate()?;
        check_size(n, d)?;
        let refusal = match self.plan_unchecked(n, d) {
            Ok(plan) if self.acceptable(&plan) => return Ok(plan),
            Ok(plan) => format!(
                "the planned error |Sigma^-1/2 Sigma_hat Sigma^-1/2 - I|_F <= {:.3} is above {} (the preconditioner's kappa_J = {:.1})",
                plan.planned_error, self.settings.max_planned_error, plan.preconditioner.kappa
            ),
            Err(LearnError::TooFewSamples(reason)) => reason,
            Err(other) => return Err(other),
        };
        let needed = records_needed(n, |size| {
            self.plan_unchecked(size, d)
                .is_ok_and(|p| self.acceptable(&p))
        });
        Err(LearnError::TooFewSamples(format!(
            "{refusal}{}: at d = {d}, K = {}, eps = {}, corruption {} the covariance needs {needed} records, got {n}",
            self.fallbacks_refused(),
            self.kappa,
            self.privacy.epsilon,
            self.privacy.corruption
        )))
    }

    /// Progress steps: 0 the preconditioner, then the centring mean's stages (when centred),
    /// then the refinement stages.
    fn fit_with_progress(
        &self,
        data: &DMatrix<f64>,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<CovarianceFit, LearnError> {
        self.validate()?;
        check_data(data)?;
        let plan = self.plan(data.nrows(), data.ncols())?;
        let clock = Instant::now();
        let mut parts = self.fit_parts(data, &plan, progress)?;
        parts.diagnostics.elapsed_s = clock.elapsed().as_secs_f64();
        let accuracy = vec![self.accuracy_bound(&plan, data.nrows(), data.ncols())];
        let release = Release::pure(
            parts.covariance,
            self.privacy.epsilon,
            plan,
            parts.stage_releases,
            accuracy,
        );
        Ok(Fit {
            release,
            diagnostics: parts.diagnostics,
        })
    }
}

/// What a covariance fit computes before it is packaged as a release: the estimate, the
/// centring mean (when centred), the stage releases and the diagnostics.
pub(crate) struct CovarianceParts {
    pub covariance: DMatrix<f64>,
    pub centring_mean: Option<DVector<f64>>,
    pub stage_releases: Vec<StageRelease>,
    pub diagnostics: Diagnostics,
}

impl PrivateCovariance {
    /// The fit's mechanism steps on checked `data` with its checked `plan`: the
    /// preconditioner on pairs, then the Frobenius refinement (MATH.md 5.3), CM on lifted
    /// points re-whitened at each stage; when centred, after `c` stages on pairs, the mean in the
    /// current frame centres the projected records and the remaining stages run on them.
    pub(crate) fn fit_parts(
        &self,
        data: &DMatrix<f64>,
        plan: &CovariancePlan,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<CovarianceParts, LearnError> {
        let d = data.ncols();
        let mut rng = seeded_rng(self.privacy.seed)?;
        let mut diagnostics = Diagnostics::default();
        let mut stage_releases = Vec::with_capacity(plan.steps());
        let mut centring_mean = None;

        // Preconditioner: the staged additive release; the refinement starts in its frame.
        let (mut points, frame, releases) = precondition(data, plan, &mut rng);
        stage_releases.extend(releases);
        let mut sigma = frame / plan.frame_scale;
        let identity = svec_of(&DMatrix::identity(d, d));
        let origin = vec![0.0; d];
        let mut step = 1;
        for (j, stage) in plan.refinement.iter().enumerate() {
            if let Some(centring) = plan.centring.as_ref().filter(|c| c.after_stages == j) {
                let projected = project_rows(data, &origin, centring.record_radius);
                let (mu, releases, mean_diagnostics) = self
                    .centring_learner(centring.whitened_radius, centring.spectral)
                    .fit_in_frame(
                        &projected,
                        &sigma,
                        "centring, whitened by the current frame",
                        &mut |i, p| progress(step + i, p),
                    )?;
                step += centring.mean.steps();
                stage_releases.extend(releases);
                diagnostics.extend(mean_diagnostics);
                points = DMatrix::from_fn(projected.nrows(), d, |i, k| projected[(i, k)] - mu[k]);
                centring_mean = Some(mu);
            }
            let w = spd_power(&sigma, -0.5);
            let xw = project_rows(&(&points * &w), &origin, stage.projection_radius);
            let mut lifted = DMatrix::zeros(xw.nrows(), identity.len());
            for (i, row) in xw.row_iter().enumerate() {
                for (k, v) in svec(d, |a, b| row[a] * row[b]).into_iter().enumerate() {
                    lifted[(i, k)] = v;
                }
            }
            let band = Spectrahedron::new(
                d,
                band_lower(stage.spectral, stage.lower_eigenvalue),
                band_upper(stage.spectral),
            )?;
            let cm = CmStage {
                centre: &identity,
                radius: stage.radius,
                gamma: stage.gamma,
                epsilon: stage.epsilon,
                sampler: self.privacy.sampler,
                score: self.settings.refinement_score.clone(),
            };
            let out = run_cm_stage(lifted, &cm, Some(Box::new(band)), &mut rng, &mut |p| {
                progress(step, p)
            })?;
            step += 1;
            let half = spd_power(&sigma, 0.5);
            sigma = &half * matrix_of(&out.theta) * &half;
            let name = format!("refinement {}", j + 1);
            stage_releases.push(StageRelease {
                step: format!("{name} (svec, whitened by the previous release)"),
                release: out.theta,
            });
            diagnostics.steps.push(StepDiagnostics {
                step: name,
                record: out.record,
            });
        }
        Ok(CovarianceParts {
            covariance: DMatrix::from_fn(d, d, |i, k| 0.5 * (sigma[(i, k)] + sigma[(k, i)])),
            centring_mean,
            stage_releases,
            diagnostics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every planned refinement band, on pairs or centred, is positive definite and contains
    /// the whitened truth's guaranteed spectrum `[max(1 - s, l), 1 + s]`, and the first stage's
    /// operator bound is
    /// `s0 = (kappa_J - 1)/(kappa_J + 1) < 1` (the frame's arithmetic centring), over a grid that
    /// includes plans with `kappa_J > 4` (where MATH.md 5.3's geometric centring would give
    /// `s0 > 1`).
    #[test]
    fn refinement_bands_are_positive_definite_and_contain_the_truth() {
        let (mut plans, mut wide, mut centred_plans) = (0, 0, 0);
        for &(n, d) in &[
            (2_000, 2),
            (20_000, 5),
            (20_000, 10),
            (100_000, 5),
            (100_000, 20),
            (50_000, 50),
        ] {
            for (&eps, &eta, centred) in [0.3, 1.5, 4.0].iter().flat_map(|e| {
                [0.0, 0.01, 0.05]
                    .iter()
                    .flat_map(move |eta| [(e, eta, false), (e, eta, true)])
            }) {
                let learner = PrivateCovariance::new(Privacy::new(eps).corruption(eta), 100.0)
                    .settings(CovarianceSettings {
                        max_planned_error: 1e9,
                        ..Default::default()
                    });
                let learner = if centred {
                    learner.centred(10.0)
                } else {
                    learner
                };
                let Ok(plan) = learner.plan(n, d) else {
                    continue;
                };
                centred_plans += usize::from(plan.centring.is_some());
                plans += 1;
                let kappa = plan.preconditioner.kappa;
                // Centred before the first stage, the bias widens it by `r_0^2`.
                let shift = plan
                    .centring
                    .as_ref()
                    .filter(|c| c.after_stages == 0)
                    .map_or(0.0, |c| c.mean.accuracy().powi(2));
                assert!(
                    (plan.refinement[0].spectral - (kappa - 1.0) / (kappa + 1.0) - shift).abs()
                        < 1e-12
                );
                wide += usize::from(kappa > 4.0);
                for st in &plan.refinement {
                    let (lo, hi) = (
                        band_lower(st.spectral, st.lower_eigenvalue),
                        band_upper(st.spectral),
                    );
                    assert!(
                        lo > 0.0 && st.lower_eigenvalue > 0.0,
                        "n {n} d {d} eps {eps} eta {eta}: band lower {lo}"
                    );
                    assert!(
                        lo < (1.0 - st.spectral).max(st.lower_eigenvalue) && hi > 1.0 + st.spectral
                    );
                }
            }
        }
        assert!(
            plans >= 10 && wide > 0 && centred_plans >= 5,
            "the grid must include plans, some with kappa_J > 4, some centred: {plans} plans, {wide} wide, {centred_plans} centred"
        );
    }

    /// The centring's bias term (MATH.md 5.3b): in a frame whose whitened truth `T` has
    /// smallest eigenvalue `l`, a centring error `b` (whitened) of norm `r_0` moves the second
    /// moment to `T + b b^T`, whose error relative to the truth is `b^T T^{-1} b <= r_0^2 / l =
    /// t` in Frobenius norm. An exact estimate of the biased second moment (`e' = 0`) then has
    /// error at most `relative_to_sigma(0) = t` for every direction, with equality along the
    /// thinnest direction: a bound that dropped the bias (`e' = 0`) is broken there.
    #[test]
    fn centring_bias_is_attained_in_the_thinnest_direction() {
        let plan = PrivateCovariance::new(Privacy::new(2.0), 100.0)
            .centred(10.0)
            .plan(100_000, 3)
            .expect("a centred plan");
        let centring = plan.centring.as_ref().expect("centred");
        let c = centring.after_stages;
        let l = plan.refinement[c].lower_eigenvalue;
        let r0 = centring.mean.accuracy();
        assert!((centring.bias - r0 * r0 / l).abs() <= 1e-12 * centring.bias);
        // A whitened truth with smallest eigenvalue l along e_1.
        let t = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![l, 1.0, 1.2]));
        let t_inv_half = spd_power(&t, -0.5);
        let error_of = |b: &nalgebra::DVector<f64>| {
            let biased = &t + b * b.transpose();
            (&t_inv_half * biased * &t_inv_half - DMatrix::identity(3, 3)).norm()
        };
        let bound = centring.relative_to_sigma(0.0);
        let thinnest = nalgebra::DVector::from_vec(vec![r0, 0.0, 0.0]);
        assert!((error_of(&thinnest) - bound).abs() <= 1e-9 * bound && bound > 0.0);
        for k in 0..50 {
            let a = k as f64 * 0.3;
            let b = nalgebra::DVector::from_vec(vec![a.cos(), a.sin() * 0.6, a.sin() * 0.8]) * r0;
            assert!(error_of(&b) <= bound * (1.0 + 1e-9));
        }
    }

    /// The share fallbacks ([`CovarianceSettings::share_fallbacks`]): a plan accepted at the
    /// preferred share is the plan without fallbacks, and one refused there (d = 10,
    /// n = 50000, eps = 2, K = 100, corruption 0.007 on pairs) is accepted at the first lower
    /// share whose plan is, spending exactly that share; every earlier share alone is refused,
    /// and so is the learner without fallbacks.
    #[test]
    fn lower_shares_are_tried_only_when_the_preferred_share_is_refused() {
        let learner = |eta: f64, share: f64, fallbacks: Vec<f64>| {
            PrivateCovariance::new(Privacy::new(2.0).corruption(eta), 100.0).settings(
                CovarianceSettings {
                    preconditioner_share: share,
                    share_fallbacks: fallbacks,
                    ..Default::default()
                },
            )
        };
        let defaults = CovarianceSettings::default();
        let (share, fallbacks) = (defaults.preconditioner_share, defaults.share_fallbacks);
        let (n, d) = (50_000, 10);
        assert_eq!(
            learner(0.0, share, fallbacks.clone()).plan(n, d).unwrap(),
            learner(0.0, share, vec![]).plan(n, d).unwrap()
        );
        assert!(matches!(
            learner(0.007, share, vec![]).plan(n, d),
            Err(LearnError::TooFewSamples(_))
        ));
        let plan = learner(0.007, share, fallbacks.clone())
            .plan(n, d)
            .expect("accepted at a lower share");
        let taken = fallbacks
            .iter()
            .position(|f| (plan.preconditioner.epsilon - 2.0 * f * share).abs() < 1e-12)
            .expect("the plan spends one of the fallback shares");
        for f in &fallbacks[..taken] {
            assert!(learner(0.007, f * share, vec![]).plan(n, d).is_err());
        }
        assert_eq!(
            plan,
            learner(0.007, fallbacks[taken] * share, vec![])
                .plan(n, d)
                .unwrap()
        );
        let refinement: f64 = plan.refinement.iter().map(|s| s.epsilon).sum();
        assert!((plan.preconditioner.epsilon + refinement - 2.0).abs() < 1e-12);
    }
}
