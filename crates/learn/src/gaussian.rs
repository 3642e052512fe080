//! Learning a Gaussian in total variation (MATH.md 5.4, 5.3b). By default the covariance
//! (pairing, preconditioning, refinement on pairs) comes first and the mean after it: the
//! private mean of the records whitened by the covariance estimate, with `Gamma` widened by the
//! covariance's planned error, `mu_hat = Sigma_hat^{1/2} theta`. With centring
//! ([`GaussianSettings::centring`]), the covariance releases a mean `mu_0` in a frame of the fit
//! and refines on the records centred by it ([`crate::covariance::CentringPlan`]); `mu_0` is then
//! the Gaussian's mean.
//!
//! Privacy: the eps split (default 1/2 preconditioner, 1/8 mean, 3/8 refinement,
//! docs/calibration.md) is data-independent; every step whitens or centres by earlier releases
//! (already private), which is adaptive composition, so the fit is eps-DP.
use crate::covariance::{
    CovariancePlan, CovarianceSettings, PreconditionerPoints, PrivateCovariance,
};
use crate::learner::{Learner, Plan, check_size};
use crate::localise::{LocalisationPlan, LocaliseSettings, fit_localised, shift_rows};
use crate::mean::PrivateMean;
use crate::privacy::Privacy;
use crate::projection::{clean_radius, project_rows};
use crate::release::{AccuracyBound, Estimate, Fit, Release, serialize_rows, serialize_vector};
use crate::scale::{Rescalable, Scaled};
use crate::schedule::Schedule;
use crate::{LearnError, check_data};
use nalgebra::{DMatrix, DVector};
use serde::{Serialize, Serializer};
use sosdp_sampler::Progress;
use std::ops::ControlFlow;
use std::time::Instant;

/// The Gaussian learner: `PrivateGaussian::new(Privacy::new(eps).corruption(eta0), radius,
/// kappa)` for records from `N(mu, Sigma)` with the priors `|mu| <= radius` and
/// `I ⪯ Sigma ⪯ kappa I`; then [`Learner::plan`] and [`Learner::fit`].
#[derive(Clone, Debug)]
pub struct PrivateGaussian {
    privacy: Privacy,
    radius: f64,
    kappa: f64,
    settings: GaussianSettings,
}

/// The Gaussian learner's own settings (the shared ones are in [`Privacy`]): the eps split and
/// the covariance's refinement stages.
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianSettings {
    /// Share of eps for the covariance's preconditioner (of the whole eps; default 1/2,
    /// docs/calibration.md).
    pub preconditioner_share: f64,
    /// Lower preconditioner shares, as factors of `preconditioner_share`, tried in order when
    /// the plan at it is refused (default: [`CovarianceSettings::share_fallbacks`]'s).
    pub share_fallbacks: Vec<f64>,
    /// Share of eps for the mean step (default 1/8); the refinement gets what neither share
    /// takes. Both shares positive with a sum below 1.
    pub mean_share: f64,
    /// The number of Frobenius refinement stages of the covariance, at least 1 (default 2).
    pub refinement_stages: usize,
    /// Whether the refinement's later stages run on records centred by a mean released in a
    /// frame of the fit (MATH.md 5.3b), or all on pairs with the mean step last (default
    /// [`Centring::Planned`]: the smaller planned error; centred where chosen, it halved the
    /// error under a 1% cluster at d = 5 and lowered the clean error at d = 10 from 0.28 to 0.17,
    /// at 1.1-1.2x the time of pairs, docs/learners.md).
    pub centring: Centring,
    /// Where the covariance's preconditioner releases its second moment when the covariance
    /// step has the mean prior (the centred refinement); on pairs otherwise (default
    /// [`PreconditionerPoints::Planned`]: the smaller planned covariance error).
    pub preconditioner_points: PreconditionerPoints,
}

/// Whether a Gaussian fit centres its refinement (MATH.md 5.3b). Centring halves the
/// refinement's corruption and doubles its points, but adds the centring mean's rank-one bias
/// `t = r_0^2 / l_c`, which grows with the frame's condition (so pairs can be better when the
/// preconditioner's `kappa_J` is large, e.g. under declared corruption).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Centring {
    /// Plan both and keep the smaller planned covariance error (ties: centred).
    Planned,
    /// Always centred.
    Always,
    /// Always on pairs.
    Never,
}

impl Default for GaussianSettings {
    fn default() -> Self {
        GaussianSettings {
            preconditioner_share: 0.5,
            share_fallbacks: CovarianceSettings::default().share_fallbacks,
            mean_share: 0.125,
            refinement_stages: 2,
            centring: Centring::Planned,
            preconditioner_points: PreconditionerPoints::Planned,
        }
    }
}

/// The estimate of a Gaussian fit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GaussianEstimate {
    /// The mean `mu_hat`.
    #[serde(serialize_with = "serialize_vector")]
    pub mean: DVector<f64>,
    /// The covariance `Sigma_hat` (serialised row by row).
    #[serde(serialize_with = "serialize_rows")]
    pub covariance: DMatrix<f64>,
}

impl Estimate for GaussianEstimate {
    fn serialize_estimate<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.serialize(serializer)
    }
}

/// The fit of a Gaussian: the public release and non-private diagnostics.
pub type GaussianFit = Fit<GaussianEstimate, GaussianPlan>;

/// The public release of a Gaussian fit.
pub type GaussianRelease = Release<GaussianEstimate, GaussianPlan>;

/// The public plan of a Gaussian fit: the covariance's plan and, when the refinement is on
/// pairs, the final mean step's.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GaussianPlan {
    /// The covariance step's plan (with the centring mean's schedule when centred).
    pub covariance: CovariancePlan,
    /// The mean step after the covariance, when the refinement is on pairs; `None` when
    /// centred (the centring mean is the Gaussian's mean).
    pub mean: Option<MeanStepPlan>,
}

/// The plan of the mean step after a pairs refinement: the schedule on the records whitened by
/// the covariance release, with the whitened prior radius and the widening of `Gamma` it uses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeanStepPlan {
    /// The mean step's schedule (on the whitened records).
    pub schedule: Schedule,
    /// `R / sqrt(1 - s)`, `s` the covariance's planned operator error (capped at 0.99).
    pub whitened_radius: f64,
    /// `2 s / (1 - s)`.
    pub widening: f64,
    /// Before whitening, the mean step projects every record onto `B(0, record_radius)`:
    /// `R + sqrt(K) rho_n`, `rho_n = sqrt(d) + sqrt(2 log(n / beta_p))` with `beta_p = beta / 8`:
    /// it holds the clean records under the priors with the same probability as the mean step's
    /// own projections ([`crate::projection`]).
    pub record_radius: f64,
}

impl PrivateGaussian {
    /// The Gaussian learner with the shared settings `privacy` and the priors `|mu| <= radius`,
    /// `I ⪯ Sigma ⪯ kappa I`, and the default [`GaussianSettings`].
    pub fn new(privacy: Privacy, radius: f64, kappa: f64) -> Self {
        PrivateGaussian {
            privacy,
            radius,
            kappa,
            settings: GaussianSettings::default(),
        }
    }

    /// The learner's own settings ([`GaussianSettings`]; default [`GaussianSettings::default`]).
    pub fn settings(mut self, settings: GaussianSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The covariance step of `plan`. Centred: the whole eps and beta, with the Gaussian's shares and
    /// the prior `|mu| <= R` (its centring mean is the Gaussian's mean). On pairs:
    /// `(1 - mean share) eps`, `beta / 2`, the preconditioner's share rescaled so that it spends
    /// `preconditioner_share * eps`. Either way the seed is the Gaussian's. A fit runs exactly
    /// this learner first (its plan is [`GaussianPlan::covariance`], its releases the first
    /// entries of the fit's `stage_releases`); public for tests of the stages' privacy.
    pub fn covariance_learner(&self, plan: &GaussianPlan) -> PrivateCovariance {
        self.covariance_learner_with(plan.mean.is_none())
    }

    /// The covariance step, centred or on pairs ([`Self::covariance_learner`]).
    fn covariance_learner_with(&self, centred: bool) -> PrivateCovariance {
        let (p, m) = (self.settings.preconditioner_share, self.settings.mean_share);
        let settings = |preconditioner_share, mean_share| CovarianceSettings {
            preconditioner_share,
            share_fallbacks: self.settings.share_fallbacks.clone(),
            mean_share,
            refinement_stages: self.settings.refinement_stages,
            // Without the mean prior the preconditioner is on pairs.
            preconditioner_points: if centred {
                self.settings.preconditioner_points
            } else {
                PreconditionerPoints::Pairs
            },
            ..CovarianceSettings::default()
        };
        if centred {
            PrivateCovariance::new(self.privacy, self.kappa)
                .centred(self.radius)
                .settings(settings(p, m))
        } else {
            let privacy = Privacy {
                epsilon: (1.0 - m) * self.privacy.epsilon,
                beta: self.privacy.beta / 2.0,
                ..self.privacy
            };
            PrivateCovariance::new(privacy, self.kappa).settings(settings(p / (1.0 - m), m))
        }
    }

    /// The mean step after a pairs refinement: `mean share * eps`, `beta / 2`, the seed plus
    /// one.
    fn mean_learner(&self, radius: f64, covariance_error: f64) -> PrivateMean {
        PrivateMean::step_of(
            self.privacy,
            self.settings.mean_share,
            radius,
            covariance_error,
        )
    }

    /// The plan on pairs: the covariance's, then the mean step's on the records whitened by the
    /// covariance release.
    fn pairs_plan(&self, n: usize, d: usize) -> Result<GaussianPlan, LearnError> {
        let covariance = self.covariance_learner_with(false).plan(n, d)?;
        // The covariance's planned operator error `s`: `Sigma_hat ⪰ (1 - s) Sigma ⪰ (1 - s) I`,
        // so the whitened mean has norm <= R / sqrt(1 - s), and the whitened clean covariance
        // is within `s / (1 - s)` of I on both sides; `Gamma` widens by twice that (its upper
        // side and the lower side of the covariance enter the bound, MATH.md 2.1).
        let s = covariance.planned_error.min(0.99);
        let (whitened_radius, widening) = (self.radius / (1.0 - s).sqrt(), 2.0 * s / (1.0 - s));
        let max_radius = crate::Constants::default().max_radius;
        if whitened_radius > max_radius {
            return Err(LearnError::InvalidSetting(format!(
                "the prior radius R = {}, in the frame of the covariance's planned error (s = {s:.3}), is R / sqrt(1 - s) = {whitened_radius:.1}, \
                 above the largest the mean's stages resolve ({max_radius}): centre the data at a public guess of the mean and use a smaller R",
                self.radius
            )));
        }
        let schedule = self.mean_learner(whitened_radius, widening).plan(n, d)?;
        let record_radius =
            self.radius + self.kappa.sqrt() * clean_radius(n, d, self.privacy.beta / 8.0);
        Ok(GaussianPlan {
            covariance,
            mean: Some(MeanStepPlan {
                schedule,
                whitened_radius,
                widening,
                record_radius,
            }),
        })
    }

    /// The accuracy bounds of `plan` (for `n` records in `R^d`) with their assumptions: the
    /// covariance's (Mahalanobis-Frobenius) and the mean's (Mahalanobis). Centred, the mean's is
    /// the centring mean's ([`crate::covariance::CentringPlan::mahalanobis_bound`]), which rests
    /// on the frame bound `l_c` at the centring: guaranteed when it centres in the
    /// preconditioner's frame (`c = 0`) or the covariance's worst case holds (`None`, with the
    /// reason, otherwise). On pairs, it is the mean step's bound `r` in the
    /// frame of `Sigma_hat` with the covariance's planned operator error `s`:
    /// `|Sigma^-1/2 (mu_hat - mu)| <= sqrt(1 + s) r`, which holds only when the covariance's
    /// guaranteed error is at most the `s` its widening was planned for (`None`, with the
    /// reason, otherwise).
    pub fn accuracy_bounds(&self, plan: &GaussianPlan, n: usize, d: usize) -> Vec<AccuracyBound> {
        let learner = self.covariance_learner(plan);
        let covariance = learner.accuracy_bound(&plan.covariance, n, d);
        let mut assumptions = learner.assumptions();
        if plan.mean.is_some() {
            assumptions.insert(1, Privacy::mean_prior_assumption(self.radius));
        }
        let mean = match &plan.mean {
            None => {
                let centring = plan.covariance.centring.as_ref();
                let holds = centring.is_some_and(|c| {
                    c.after_stages == 0 || plan.covariance.guaranteed_error.is_some()
                });
                AccuracyBound {
                    metric: "|Sigma^-1/2 (mu_hat - mu)|_2".into(),
                    bound: centring.filter(|_| holds).map(|c| c.mahalanobis_bound()),
                    probability: 1.0 - self.privacy.beta,
                    assumptions,
                    basis: "the centring mean's bound r_0 (MATH 5.1) in the frame Sigma_c of the centring, carried to Sigma's frame by lambda_min(Sigma_c^-1/2 Sigma Sigma_c^-1/2) >= l_c (MATH 5.3b): r_0 / sqrt(l_c)".into(),
                    unavailable: (!holds).then(|| {
                        "the frame bound l_c after the refinement stages on pairs is calibrated, not a worst case (the covariance's worst case does not hold)".to_string()
                    }),
                }
            }
            Some(step) => {
                let s = step.widening / (2.0 + step.widening);
                let covered = covariance.bound.filter(|&g| g <= s);
                let unavailable = match (&covariance.unavailable, covariance.bound) {
                    (Some(reason), _) => Some(format!(
                        "it rests on the covariance's bound, which is unavailable: {reason}"
                    )),
                    (None, Some(g)) if g > s => Some(format!(
                        "the covariance's guaranteed error {g:.3} exceeds the {s:.3} the mean step's widening was planned for"
                    )),
                    _ => None,
                };
                AccuracyBound {
                    metric: "|Sigma^-1/2 (mu_hat - mu)|_2".into(),
                    bound: covered.map(|_| (1.0 + s).sqrt() * step.schedule.accuracy()),
                    probability: 1.0 - self.privacy.beta,
                    assumptions,
                    basis: "the mean step's bound (MATH 5.1) in the frame of the covariance release, widened by the covariance's planned error".into(),
                    unavailable,
                }
            }
        };
        vec![covariance, mean]
    }
}

impl GaussianPlan {
    /// The schedule of the mean the fit releases: the mean step's (on pairs) or the centring
    /// mean's.
    pub fn mean_schedule(&self) -> Option<&Schedule> {
        match &self.mean {
            Some(step) => Some(&step.schedule),
            None => self.covariance.centring.as_ref().map(|c| &c.mean),
        }
    }
}

impl Plan for GaussianPlan {
    /// The covariance's steps, then the mean step's (on pairs).
    fn steps(&self) -> usize {
        self.covariance.steps() + self.mean.as_ref().map_or(0, |m| m.schedule.steps())
    }
}

impl Learner for PrivateGaussian {
    type Estimate = GaussianEstimate;
    type Plan = GaussianPlan;

    fn privacy(&self) -> Privacy {
        self.privacy
    }

    fn with_privacy(self, privacy: Privacy) -> Self {
        PrivateGaussian { privacy, ..self }
    }

    fn validate(&self) -> Result<(), LearnError> {
        let (p, m) = (self.settings.preconditioner_share, self.settings.mean_share);
        if !(p > 0.0 && m > 0.0 && p + m < 1.0) {
            return Err(LearnError::InvalidSetting(format!(
                "the eps shares must be positive with a sum below 1, got preconditioner {p}, mean {m}"
            )));
        }
        self.privacy.validate()?;
        if self.settings.centring == Centring::Never
            && self.settings.preconditioner_points == PreconditionerPoints::Records
        {
            return Err(LearnError::InvalidSetting(
                "the preconditioner on centred records needs the centred refinement (centring never keeps pairs)".into(),
            ));
        }
        if self.settings.centring != Centring::Never {
            self.covariance_learner_with(true).validate()?;
        }
        if self.settings.centring != Centring::Always {
            self.covariance_learner_with(false).validate()?;
        }
        self.mean_learner(self.radius, 0.0).validate()
    }

    /// The covariance's [`crate::covariance::corruption_note`].
    fn plan_notes(&self, n: usize, d: usize) -> Vec<String> {
        crate::covariance::corruption_note(self, n, d)
    }

    /// Centred, on pairs, or the one with the smaller planned covariance error
    /// ([`GaussianSettings::centring`]).
    fn plan(&self, n: usize, d: usize) -> Result<GaussianPlan, LearnError> {
        self.validate()?;
        check_size(n, d)?;
        let centred = || {
            self.covariance_learner_with(true)
                .plan(n, d)
                .map(|covariance| GaussianPlan {
                    covariance,
                    mean: None,
                })
        };
        match self.settings.centring {
            Centring::Always => centred(),
            Centring::Never => self.pairs_plan(n, d),
            Centring::Planned => match (centred(), self.pairs_plan(n, d)) {
                (Ok(c), Ok(p)) if p.covariance.planned_error < c.covariance.planned_error => Ok(p),
                (Ok(c), _) => Ok(c),
                (Err(_), Ok(p)) => Ok(p),
                (Err(LearnError::TooFewSamples(c)), Err(LearnError::TooFewSamples(p))) => Err(
                    LearnError::TooFewSamples(format!("centred: {c}; on pairs: {p}")),
                ),
                (Err(e), Err(_)) => Err(e),
            },
        }
    }

    /// Progress steps: the covariance's (preconditioner, then the refinement stages with the
    /// centring mean's stages before the first centred one), then the mean step's stages (on
    /// pairs).
    fn fit_with_progress(
        &self,
        data: &DMatrix<f64>,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<GaussianFit, LearnError> {
        self.validate()?;
        check_data(data)?;
        let (n, d) = data.shape();
        // Both plans are checked before any data-dependent computation.
        let plan = self.plan(n, d)?;
        let clock = Instant::now();
        let cov = self
            .covariance_learner(&plan)
            .fit_parts(data, &plan.covariance, progress)?;
        let sigma = cov.covariance;
        let (mut diagnostics, mut stage_releases) = (cov.diagnostics, cov.stage_releases);
        let mu = match (&plan.mean, cov.centring_mean) {
            (Some(step), _) => {
                let steps = plan.covariance.steps();
                // Records projected onto the public ball before whitening, so that the
                // whitened records are finite and bounded whatever the input.
                let projected = project_rows(data, &vec![0.0; d], step.record_radius);
                let (mu, releases, mean_diagnostics) = self
                    .mean_learner(step.whitened_radius, step.widening)
                    .fit_in_frame(&projected, &sigma, "whitened", &mut |j, p| {
                        progress(steps + j, p)
                    })?;
                diagnostics.extend(mean_diagnostics);
                stage_releases.extend(releases);
                mu
            }
            (None, Some(mu)) => mu,
            (None, None) => unreachable!("a plan without a mean step is centred"),
        };
        diagnostics.elapsed_s = clock.elapsed().as_secs_f64();
        let accuracy = self.accuracy_bounds(&plan, n, d);
        let estimate = GaussianEstimate {
            mean: mu,
            covariance: sigma,
        };
        let release = Release::pure(
            estimate,
            self.privacy.epsilon,
            plan,
            stage_releases,
            accuracy,
        );
        Ok(Fit {
            release,
            diagnostics,
        })
    }
}

/// The Gaussian learner without a prior radius (MATH.md 5.5 (a)):
/// `LocalisedGaussian::new(Privacy::new(eps).delta(delta).corruption(eta0), kappa)` for records
/// from `N(mu, Sigma)` with the prior `I ⪯ Sigma ⪯ kappa I`, `delta > 0`, and no bound on `mu`.
/// An `(eps_loc, delta)`-DP localisation ([`crate::localise`], with bins of width
/// `w sqrt(kappa)`: every direction's standard deviation is at most `sqrt(kappa)`) releases a
/// ball `B(c, r)` holding `mu`; the pure [`PrivateGaussian`] then runs with `eps - eps_loc` on
/// the records shifted by `-c`, with the prior `|mu - c| <= r`, and its mean is shifted back by
/// `+c` (its covariance is that of the shifted records). The fit is `(eps, delta)`-DP by
/// composition.
///
/// Here `kappa` is a prior in the records' units; [`ScaledGaussian`] finds the scale privately
/// and needs only a bound on the condition number. When the localisation keeps no bin in some
/// coordinate,
/// the release has estimate `None` (`null`) and the reason in `refusal`.
#[derive(Clone, Debug)]
pub struct LocalisedGaussian {
    privacy: Privacy,
    kappa: f64,
    localise: LocaliseSettings,
    settings: GaussianSettings,
}

/// The public plan of a [`LocalisedGaussian`]: the localisation's, then the pure Gaussian's on
/// the records shifted by `-c` (prior radius `localisation.radius`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocalisedGaussianPlan {
    /// The localisation: grid (in units of `sqrt(kappa)`), noise, threshold, eps/delta split,
    /// radius.
    pub localisation: LocalisationPlan,
    /// The pure Gaussian's plan (eps `eps - eps_loc`, beta `(1 - beta_share) beta`).
    pub gaussian: GaussianPlan,
}

impl Plan for LocalisedGaussianPlan {
    fn steps(&self) -> usize {
        self.gaussian.steps()
    }
}

/// The fit of the localised Gaussian: the public release and non-private diagnostics.
pub type LocalisedGaussianFit = Fit<Option<GaussianEstimate>, LocalisedGaussianPlan>;

/// The public release of the localised Gaussian: the estimate (or `null` and the refusal), eps,
/// delta, the plan, the stage releases (the localisation's centre first, then the pure fit's on
/// the shifted records), the accuracy bounds and the guarantee.
pub type LocalisedGaussianRelease = Release<Option<GaussianEstimate>, LocalisedGaussianPlan>;

impl LocalisedGaussian {
    /// The localised Gaussian with the shared settings `privacy` (`delta > 0` needed), the prior
    /// `I ⪯ Sigma ⪯ kappa I`, and the default [`LocaliseSettings`] and [`GaussianSettings`].
    pub fn new(privacy: Privacy, kappa: f64) -> Self {
        LocalisedGaussian {
            privacy,
            kappa,
            localise: LocaliseSettings::default(),
            settings: GaussianSettings::default(),
        }
    }

    /// The localisation's settings (default [`LocaliseSettings::default`]).
    pub fn localise_settings(mut self, settings: LocaliseSettings) -> Self {
        self.localise = settings;
        self
    }

    /// The pure Gaussian's settings (default [`GaussianSettings::default`]).
    pub fn settings(mut self, settings: GaussianSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The pure Gaussian after the localisation, with the prior radius `radius` around `c`
    /// ([`LocaliseSettings::pure_privacy`]).
    fn pure_gaussian(&self, radius: f64) -> PrivateGaussian {
        PrivateGaussian::new(
            self.localise.pure_privacy(&self.privacy),
            radius,
            self.kappa,
        )
        .settings(self.settings.clone())
    }

    /// The plan for validated settings: the localisation's with the scale `sqrt(kappa)`, then
    /// the pure Gaussian's with its radius (refused, before the data, when that radius or the
    /// size is out of the pure Gaussian's range).
    fn localised_plan(&self, n: usize, d: usize) -> Result<LocalisedGaussianPlan, LearnError> {
        let localisation = self.localise.plan(&self.privacy, n, d, self.kappa.sqrt())?;
        let gaussian = self
            .pure_gaussian(localisation.radius)
            .plan(n, d)
            .map_err(|e| match e {
                LearnError::InvalidSetting(reason) => LearnError::InvalidSetting(format!(
                    "the localisation's ball (radius {:.1}: sqrt(d) times its bins' reach, which grows like sqrt(K)) is too wide for the pure Gaussian: {reason}",
                    localisation.radius
                )),
                e => e,
            })?;
        Ok(LocalisedGaussianPlan {
            localisation,
            gaussian,
        })
    }

    /// The accuracy bounds of `plan`: the pure Gaussian's, with the localisation's ball as the
    /// prior on the mean where they assumed `|mu| <= R`, holding with probability `1 - beta`;
    /// those are `null` when the localisation's coverage margin is not positive.
    pub fn accuracy_bounds(
        &self,
        plan: &LocalisedGaussianPlan,
        n: usize,
        d: usize,
    ) -> Vec<AccuracyBound> {
        let loc = &plan.localisation;
        self.pure_gaussian(loc.radius)
            .accuracy_bounds(&plan.gaussian, n, d)
            .into_iter()
            .map(|bound| loc.qualify(bound, &self.privacy))
            .collect()
    }
}

impl Learner for LocalisedGaussian {
    type Estimate = Option<GaussianEstimate>;
    type Plan = LocalisedGaussianPlan;

    fn privacy(&self) -> Privacy {
        self.privacy
    }

    fn with_privacy(self, privacy: Privacy) -> Self {
        LocalisedGaussian { privacy, ..self }
    }

    fn validate(&self) -> Result<(), LearnError> {
        self.privacy.validate()?;
        LocaliseSettings::require_delta(&self.privacy, "the Gaussian")?;
        self.localise.validate()?;
        // The pure Gaussian's own checks (kappa, shares), with a placeholder radius: the
        // plan checks the localisation's.
        self.pure_gaussian(1.0).validate()
    }

    fn plan(&self, n: usize, d: usize) -> Result<LocalisedGaussianPlan, LearnError> {
        self.validate()?;
        check_size(n, d)?;
        self.localised_plan(n, d)
    }

    /// Progress steps: the pure Gaussian's (the localisation is one pass over the data).
    fn fit_with_progress(
        &self,
        data: &DMatrix<f64>,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<LocalisedGaussianFit, LearnError> {
        let (n, d) = data.shape();
        self.validate()?;
        check_data(data)?;
        let plan = self.localised_plan(n, d)?;
        fit_localised(
            data,
            &self.privacy,
            plan,
            |plan| &plan.localisation,
            |plan, data, centre| {
                // Finite records stay finite (w and kappa <= 1e6 are validated).
                let shifted = shift_rows(data.clone(), centre);
                let fit = self
                    .pure_gaussian(plan.localisation.radius)
                    .fit_with_progress(&shifted, progress)?;
                let estimate = GaussianEstimate {
                    mean: fit.release.estimate.mean + centre,
                    covariance: fit.release.estimate.covariance,
                };

                Ok((
                    estimate,
                    fit.release.stage_releases,
                    fit.release.accuracy,
                    fit.diagnostics,
                ))
            },
        )
    }
}

impl Rescalable for LocalisedGaussian {
    fn with_kappa(self, kappa: f64) -> Self {
        LocalisedGaussian { kappa, ..self }
    }

    /// The mean times `sqrt(u)`, the covariance times `u`.
    fn unscale(estimate: Option<GaussianEstimate>, unit: f64) -> Option<GaussianEstimate> {
        estimate.map(|e| GaussianEstimate {
            mean: e.mean * unit.sqrt(),
            covariance: e.covariance * unit,
        })
    }
}

/// The Gaussian learner without priors on the mean or the covariance's units (MATH.md 5.5 (a)):
/// `ScaledGaussian::new(Privacy::new(eps).delta(delta).corruption(eta0), condition)` for records
/// from `N(mu, Sigma)` whose condition number is at most `condition`, `delta > 0`: the scale
/// ([`Scaled`]), then the [`LocalisedGaussian`] on the rescaled records.
pub type ScaledGaussian = Scaled<LocalisedGaussian>;

impl Scaled<LocalisedGaussian> {
    /// The scaled Gaussian with the shared settings `privacy` (`delta > 0` needed), the bound
    /// `condition` on the covariance's condition number, and the default [`crate::ScaleSettings`],
    /// [`LocaliseSettings`] and [`GaussianSettings`].
    pub fn new(privacy: Privacy, condition: f64) -> Self {
        Scaled::around(LocalisedGaussian::new(privacy, 1.0), condition)
    }

    /// The pure Gaussian's settings (default [`GaussianSettings::default`]).
    pub fn settings(self, settings: GaussianSettings) -> Self {
        self.map_learner(|l| l.settings(settings))
    }

    /// The localisation's settings (default [`LocaliseSettings::default`]).
    pub fn localise_settings(self, settings: LocaliseSettings) -> Self {
        self.map_learner(|l| l.localise_settings(settings))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan needs no data, widens the mean step by the covariance's planned error, and
    /// rejects sizes no stage can use.
    #[test]
    fn plan_without_data() {
        let learner =
            PrivateGaussian::new(Privacy::new(2.0), 10.0, 100.0).settings(GaussianSettings {
                centring: Centring::Never,
                ..Default::default()
            });
        let pairs = learner
            .plan(100_000, 5)
            .expect("a plan at the issue's size");
        let step = pairs.mean.as_ref().expect("on pairs, a mean step");
        let s = pairs.covariance.planned_error;
        assert!(pairs.covariance.centring.is_none());
        assert!(
            (step.whitened_radius - 10.0 / (1.0 - s).sqrt()).abs() < 1e-12 && step.widening > 0.0
        );
        // Planned (the default): centred here, with a smaller planned error than on pairs.
        let planned = PrivateGaussian::new(Privacy::new(2.0), 10.0, 100.0)
            .plan(100_000, 5)
            .expect("a planned plan");
        let centring = planned.covariance.centring.as_ref().expect("centred");
        assert!(planned.mean.is_none() && !centring.mean.stages.is_empty());
        assert!(planned.covariance.planned_error < s);
        assert!(matches!(
            learner.plan(20, 5),
            Err(LearnError::TooFewSamples(_))
        ));
        assert!(
            PrivateGaussian::new(Privacy::new(-1.0), 10.0, 100.0)
                .plan(100_000, 5)
                .is_err()
        );
    }
}
