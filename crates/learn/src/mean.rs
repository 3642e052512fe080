//! The private, robust mean of a Gaussian with identity covariance (MATH.md 5.1):
//! `J` stages, each re-centred at the previous release inside a shrinking ball, with the
//! data-independent plan of [`crate::schedule`]: each stage is the CM exponential mechanism
//! or, where the plan finds it more accurate (while the ball is large), an additive stage
//! (the projected mean plus norm noise, [`crate::norm_noise`]).
//!
//! Before each stage's score sees them, the records are projected onto the public ball
//! `B(c_j, projection_radius_j)` of the plan ([`crate::projection`]), so that no record, however
//! far, can make a solve fail.
//!
//! Privacy: each stage is an `eps/J`-DP release (the exponential mechanism of
//! [`sosdp_sampler::release`], or the projected mean, of l2 sensitivity
//! `2 projection_radius / n`, plus norm noise of scale `sensitivity / (eps / J)`) whose centre
//! and domain are the previous stage's release and the public plan, so the estimate is
//! `eps`-DP by composition. A fit returns the public [`MeanRelease`] and separate
//! [`Diagnostics`] (anchor scores, sampler records, times) that depend on the data and are
//! **not** covered by the guarantee ([`crate::release`]).
//!
//! Without a prior radius, [`LocalisedMean`] (MATH.md 5.5 (a), `delta > 0`) first releases a
//! ball holding the mean with the `(eps_loc, delta)`-DP localisation of [`crate::localise`], then
//! runs the pure mean above in that ball.
use crate::LearnError;
use crate::learner::{Learner, Plan, check_size, records_needed};
use crate::localise::{LocalisationPlan, LocaliseSettings, fit_localised, shift_rows};
use crate::norm_noise;
use crate::privacy::{Privacy, seeded_rng};
use crate::projection::project_rows;
use crate::release::{AccuracyBound, Diagnostics, Fit, Release, StageRelease, StepDiagnostics};
use crate::schedule::{Constants, Schedule, StageMechanism, schedule};
use crate::snap;
use crate::stage::{CmStage, run_cm_stage};
use crate::symmetric::spd_power;
use nalgebra::{DMatrix, DVector};
use serde::Serialize;
use sosdp_sampler::Progress;
use sosdp_score::FastSettings;
use std::ops::ControlFlow;
use std::time::Instant;

/// Check a dataset (one record per row): non-empty, every value finite.
pub fn check_data(data: &DMatrix<f64>) -> Result<(), LearnError> {
    let n = data.nrows();
    if n == 0 || data.ncols() == 0 {
        return Err(LearnError::EmptyData);
    }
    if let Some(k) = data.iter().position(|x| !x.is_finite()) {
        return Err(LearnError::NonFinite {
            row: k % n,
            column: k / n,
        });
    }
    Ok(())
}

/// The private mean: `PrivateMean::new(Privacy::new(eps).corruption(eta0), radius)` for
/// records from `N(mu, I)` with the prior `|mu| <= radius`; then [`Learner::plan`] and
/// [`Learner::fit`].
#[derive(Clone, Debug)]
pub struct PrivateMean {
    privacy: Privacy,
    radius: f64,
    settings: MeanSettings,
}

/// The private mean's own settings (the shared ones are in [`Privacy`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MeanSettings {
    /// The schedule's constants (default: the calibrated [`Constants::default`],
    /// docs/calibration.md).
    pub constants: Constants,
    /// For records whitened by an estimated covariance (MATH.md 5.4 step 4): a public bound `s`
    /// on `|Cov - I|_op` of the whitened clean records; every stage's `Gamma` widens by `s`
    /// (default 0: identity covariance).
    pub covariance_error: f64,
    /// Whether the plan may use additive stages (MATH.md 5.1: the projected mean plus norm
    /// noise) where their accuracy is better than CM's (default true; false: CM stages only).
    pub additive_stages: bool,
}

impl MeanSettings {
    /// Check the settings: the covariance error bound finite and `>= 0`.
    pub fn validate(&self) -> Result<(), LearnError> {
        if !(self.covariance_error.is_finite() && self.covariance_error >= 0.0) {
            return Err(LearnError::InvalidSetting(format!(
                "the covariance error bound must be finite and >= 0, got {}",
                self.covariance_error
            )));
        }
        Ok(())
    }
}

impl Default for MeanSettings {
    fn default() -> Self {
        MeanSettings {
            constants: Constants::default(),
            covariance_error: 0.0,
            additive_stages: true,
        }
    }
}

/// The fit of the private mean: the public [`MeanRelease`] and non-private diagnostics.
pub type MeanFit = Fit<DVector<f64>, Schedule>;

/// The public release of the private mean: the estimate, eps, delta = 0, the stage plan, the
/// stage releases, the accuracy bound with its assumptions and the guarantee.
pub type MeanRelease = Release<DVector<f64>, Schedule>;

impl PrivateMean {
    /// The private mean with the shared settings `privacy` and the prior bound
    /// `|mu| <= radius` (`R > 0`, at most [`Constants::max_radius`]), and the default
    /// [`MeanSettings`] (calibrated constants, identity covariance).
    pub fn new(privacy: Privacy, radius: f64) -> Self {
        PrivateMean {
            privacy,
            radius,
            settings: MeanSettings::default(),
        }
    }

    /// The mean step of a larger fit (the Gaussian's, or a centring mean) with that fit's
    /// shared settings `privacy`: `share * eps`, `beta / 2`, the seed plus one, the prior radius
    /// `radius` and `Gamma` widened by `covariance_error`.
    pub(crate) fn step_of(
        privacy: Privacy,
        share: f64,
        radius: f64,
        covariance_error: f64,
    ) -> Self {
        let privacy = Privacy {
            epsilon: share * privacy.epsilon,
            beta: privacy.beta / 2.0,
            seed: privacy.seed.map(|s| s.wrapping_add(1)),
            ..privacy
        };
        PrivateMean::new(privacy, radius).settings(MeanSettings {
            covariance_error,
            ..MeanSettings::default()
        })
    }

    /// This learner as a step of a larger fit, in the frame `sigma` (MATH.md 5.3b, 5.4): its
    /// fit on `projected` (records already projected onto a public ball) whitened by
    /// `sigma^{-1/2}`, mapped back as `sigma^{1/2} theta`. Returns that estimate, the stage
    /// releases (in the whitened frame, each step tagged `(tag)`) and the diagnostics.
    pub(crate) fn fit_in_frame(
        &self,
        projected: &DMatrix<f64>,
        sigma: &DMatrix<f64>,
        tag: &str,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<(DVector<f64>, Vec<StageRelease>, Diagnostics), LearnError> {
        let fit = self.fit_with_progress(&(projected * spd_power(sigma, -0.5)), progress)?;
        let estimate = spd_power(sigma, 0.5) * &fit.release.estimate;
        let releases = fit
            .release
            .stage_releases
            .into_iter()
            .map(|s| StageRelease {
                step: format!("{} ({tag})", s.step),
                ..s
            })
            .collect();
        Ok((estimate, releases, fit.diagnostics))
    }

    /// The learner's own settings ([`MeanSettings`]; default [`MeanSettings::default`]).
    pub fn settings(mut self, settings: MeanSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The plan for validated settings, or `None` when no stage improves on the prior radius.
    fn planned(&self, n: usize, d: usize) -> Option<Schedule> {
        let p = &self.privacy;
        schedule(
            n,
            d,
            p.epsilon,
            self.radius,
            p.corruption,
            p.beta,
            self.settings.covariance_error,
            &self.settings.constants,
            self.settings.additive_stages,
        )
    }

    /// The plan for validated settings; refused, with the number of records that would be
    /// accepted, when no stage improves on the prior radius.
    fn schedule(&self, n: usize, d: usize) -> Result<Schedule, LearnError> {
        let p = &self.privacy;
        self.planned(n, d).ok_or_else(|| {
            let needed = records_needed(n, |size| self.planned(size, d).is_some());
            LearnError::TooFewSamples(format!(
                "with n = {n} records in dimension {d}, eps = {}, R = {} and corruption {} no stage improves on the prior radius: the mean needs {needed} records",
                p.epsilon, self.radius, p.corruption
            ))
        })
    }

    /// The final accuracy bound of `plan` with the assumptions it rests on.
    pub fn accuracy_bound(&self, plan: &Schedule) -> AccuracyBound {
        self.accuracy_with_prior(plan, Privacy::mean_prior_assumption(self.radius))
    }

    /// The final accuracy bound of `plan`, under the prior on the mean stated by `prior`.
    fn accuracy_with_prior(&self, plan: &Schedule, prior: String) -> AccuracyBound {
        let mut assumptions = vec![
            if self.settings.covariance_error > 0.0 {
                format!(
                    "the uncorrupted records are i.i.d. Gaussian with |Cov - I|_op <= {}",
                    self.settings.covariance_error
                )
            } else {
                "the uncorrupted records are i.i.d. N(mu, I): identity covariance".to_string()
            },
            prior,
        ];
        assumptions.push(self.privacy.corruption_assumption());
        AccuracyBound {
            metric: "|mu_hat - mu|_2".into(),
            bound: Some(plan.accuracy()),
            probability: 1.0 - self.privacy.beta,
            assumptions,
            basis: match plan.stages.last().map(|s| s.mechanism) {
                Some(StageMechanism::Additive { .. }) => "MATH 5.1 (additive stage: noise quantile, corruption bias and sampling), for the exact mechanism".into(),
                _ => "MATH 2.1 property 3 with calibrated constants (docs/calibration.md), for the exact mechanism".into(),
            },
            unavailable: None,
        }
    }
}

impl Plan for Schedule {
    fn steps(&self) -> usize {
        self.stages.len()
    }
}

impl Learner for PrivateMean {
    type Estimate = DVector<f64>;
    type Plan = Schedule;

    fn privacy(&self) -> Privacy {
        self.privacy
    }

    fn with_privacy(self, privacy: Privacy) -> Self {
        PrivateMean { privacy, ..self }
    }

    fn validate(&self) -> Result<(), LearnError> {
        self.privacy.validate()?;
        if !(self.radius.is_finite() && self.radius > 0.0) {
            return Err(LearnError::Radius(self.radius));
        }
        if self.radius > self.settings.constants.max_radius {
            return Err(LearnError::InvalidSetting(format!(
                "the prior radius R = {} is above the largest the stages resolve ({}, in units of the records' standard deviation): \
                 centre the data at a public guess of the mean and use a smaller R",
                self.radius, self.settings.constants.max_radius
            )));
        }
        self.settings.validate()
    }

    fn plan(&self, n: usize, d: usize) -> Result<Schedule, LearnError> {
        self.validate()?;
        check_size(n, d)?;
        self.schedule(n, d)
    }

    fn fit_with_progress(
        &self,
        data: &DMatrix<f64>,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<MeanFit, LearnError> {
        let (n, d) = data.shape();
        self.validate()?;
        check_data(data)?;
        let plan = self.schedule(n, d)?;
        let clock = Instant::now();
        let mut rng = seeded_rng(self.privacy.seed)?;
        let mut centre = vec![0.0; d];
        let mut stage_releases = Vec::with_capacity(plan.stages.len());
        let mut diagnostics = Diagnostics::default();
        for (j, stage) in plan.stages.iter().enumerate() {
            // The stage's score sees only records projected onto its public ball.
            let projected = project_rows(data, &centre, stage.projection_radius);
            let step = format!("mean stage {}", j + 1);
            let theta = match stage.mechanism {
                StageMechanism::Cm { gamma, .. } => {
                    let cm = CmStage {
                        centre: &centre,
                        radius: stage.radius,
                        gamma,
                        epsilon: stage.epsilon,
                        sampler: self.privacy.sampler,
                        score: FastSettings::default(),
                    };
                    let out =
                        run_cm_stage(projected, &cm, None, &mut rng, &mut |p| progress(j, p))?;
                    diagnostics.steps.push(StepDiagnostics {
                        step: step.clone(),
                        record: out.record,
                    });
                    out.theta
                }
                StageMechanism::Additive {
                    noise_scale, grid, ..
                } => additive_release(
                    &projected,
                    &centre,
                    stage.radius,
                    noise_scale,
                    grid,
                    &mut rng,
                ),
            };
            stage_releases.push(StageRelease {
                step,
                release: theta.clone(),
            });
            centre = theta;
        }
        diagnostics.elapsed_s = clock.elapsed().as_secs_f64();
        let accuracy = vec![self.accuracy_bound(&plan)];
        let release = Release::pure(
            DVector::from_vec(centre),
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

/// An additive stage (MATH.md 5.1, 4.6): the mean of the (projected) records plus norm noise
/// of scale `noise_scale` ([`norm_noise::sample`]), snapped to the grid `grid Z` and clamped
/// into the public box `centre +- radius` ([`snap::snap`]). The clamp never moves the release
/// away from a mean inside the stage's ball (the plan's event); the rounding is in the plan's
/// accuracy.
pub(crate) fn additive_release<R: rand::Rng + ?Sized>(
    projected: &DMatrix<f64>,
    centre: &[f64],
    radius: f64,
    noise_scale: f64,
    grid: f64,
    rng: &mut R,
) -> Vec<f64> {
    let n = projected.nrows() as f64;
    let noise = norm_noise::sample(projected.ncols(), noise_scale, rng);
    let mut theta: Vec<f64> = projected
        .column_iter()
        .zip(&noise)
        .map(|(column, z)| column.sum() / n + z)
        .collect();
    snap::snap(&mut theta, centre, radius, grid);
    theta
}

/// The private mean without a prior radius (MATH.md 5.5 (a)):
/// `LocalisedMean::new(Privacy::new(eps).delta(delta).corruption(eta0))` for records from
/// `N(mu, I)`, `delta > 0`. An `(eps_loc, delta)`-DP localisation ([`crate::localise`]) releases
/// a ball `B(c, r)` holding `mu`; the pure [`PrivateMean`] then runs with `eps - eps_loc` on the
/// records (projected onto the first stage's public ball around `c`) shifted by `-c`, with the
/// prior `|mu - c| <= r`, and its estimate is shifted back by `+c`. The fit is
/// `(eps, delta)`-DP by composition.
///
/// When the localisation keeps no bin in some coordinate (too few records concentrated
/// anywhere), the fit still returns a release: `estimate` `None` (`null`) with the reason in
/// `refusal`, and nothing else computed from the data. Its eps and delta are the planned ones,
/// whatever happens (so they reveal nothing).
#[derive(Clone, Debug)]
pub struct LocalisedMean {
    privacy: Privacy,
    localise: LocaliseSettings,
    settings: MeanSettings,
}

/// The public plan of a [`LocalisedMean`]: the localisation's, then the pure mean's stages in
/// the frame centred at the released `c` (prior radius `localisation.radius`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocalisedPlan {
    /// The localisation: grid, noise, threshold, eps/delta split, radius.
    pub localisation: LocalisationPlan,
    /// The pure mean's stages (eps `eps - eps_loc`, beta `(1 - beta_share) beta`), centred at
    /// `c`.
    pub mean: Schedule,
}

impl Plan for LocalisedPlan {
    fn steps(&self) -> usize {
        self.mean.stages.len()
    }
}

/// The fit of the localised mean: the public [`LocalisedRelease`] and non-private diagnostics.
pub type LocalisedFit = Fit<Option<DVector<f64>>, LocalisedPlan>;

/// The public release of the localised mean: the estimate (or `null` and the refusal), eps,
/// delta, the plan, the stage releases (the localisation's centre first), the accuracy bound
/// and the guarantee.
pub type LocalisedRelease = Release<Option<DVector<f64>>, LocalisedPlan>;

impl LocalisedMean {
    /// The localised mean with the shared settings `privacy` (`delta > 0` needed) and the
    /// default [`LocaliseSettings`] and [`MeanSettings`].
    pub fn new(privacy: Privacy) -> Self {
        LocalisedMean {
            privacy,
            localise: LocaliseSettings::default(),
            settings: MeanSettings::default(),
        }
    }

    /// The localisation's settings (default [`LocaliseSettings::default`]).
    pub fn localise_settings(mut self, settings: LocaliseSettings) -> Self {
        self.localise = settings;
        self
    }

    /// The pure mean's settings (default [`MeanSettings::default`]).
    pub fn settings(mut self, settings: MeanSettings) -> Self {
        self.settings = settings;
        self
    }

    /// The pure mean after the localisation, with the prior radius `radius` around `c`
    /// ([`LocaliseSettings::pure_privacy`]).
    fn pure_mean(&self, radius: f64) -> PrivateMean {
        PrivateMean::new(self.localise.pure_privacy(&self.privacy), radius)
            .settings(self.settings.clone())
    }

    /// The plan for validated settings, or `None` when the pure mean has no stage that
    /// improves on the localisation's radius; refused when that radius is above the largest the
    /// stages resolve (`d` in the hundreds of thousands), so that the fit cannot fail after the
    /// data are read.
    fn planned(&self, n: usize, d: usize) -> Result<Option<LocalisedPlan>, LearnError> {
        let localisation = self.localise.plan(&self.privacy, n, d, 1.0)?;
        let pure = self.pure_mean(localisation.radius);
        pure.validate()?;
        Ok(pure
            .planned(n, d)
            .map(|mean| LocalisedPlan { localisation, mean }))
    }

    /// The plan for validated settings; refused, with the number of records that would be
    /// accepted, when no stage improves on the localisation's radius.
    fn localised_plan(&self, n: usize, d: usize) -> Result<LocalisedPlan, LearnError> {
        self.planned(n, d)?.ok_or_else(|| {
            let needed =
                records_needed(n, |size| matches!(self.planned(size, d), Ok(Some(_))));
            LearnError::TooFewSamples(format!(
                "with n = {n} records in dimension {d}, eps = {}, delta = {} and corruption {} no stage improves on the localisation's radius: the localised mean needs {needed} records",
                self.privacy.epsilon, self.privacy.delta, self.privacy.corruption
            ))
        })
    }

    /// The final accuracy bound of `plan`: the pure mean's, with the localisation's ball as the
    /// prior, holding with probability `1 - beta`; `null` when the localisation's coverage
    /// margin is not positive.
    pub fn accuracy_bound(&self, plan: &LocalisedPlan) -> AccuracyBound {
        let loc = &plan.localisation;
        let bound = self.pure_mean(loc.radius).accuracy_bound(&plan.mean);
        loc.qualify(bound, &self.privacy)
    }
}

impl Learner for LocalisedMean {
    type Estimate = Option<DVector<f64>>;
    type Plan = LocalisedPlan;

    fn privacy(&self) -> Privacy {
        self.privacy
    }

    fn with_privacy(self, privacy: Privacy) -> Self {
        LocalisedMean { privacy, ..self }
    }

    fn validate(&self) -> Result<(), LearnError> {
        self.privacy.validate()?;
        LocaliseSettings::require_delta(&self.privacy, "the mean")?;
        self.localise.validate()?;
        self.settings.validate()
    }

    fn plan(&self, n: usize, d: usize) -> Result<LocalisedPlan, LearnError> {
        self.validate()?;
        check_size(n, d)?;
        self.localised_plan(n, d)
    }

    fn fit_with_progress(
        &self,
        data: &DMatrix<f64>,
        progress: &mut dyn FnMut(usize, Progress) -> ControlFlow<()>,
    ) -> Result<LocalisedFit, LearnError> {
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
                // Project onto the first stage's public ball around c before shifting (the
                // difference of two finite numbers can overflow; that of a projected record
                // cannot).
                let projected = project_rows(
                    data,
                    centre.as_slice(),
                    plan.mean.stages[0].projection_radius,
                );
                let shifted = shift_rows(projected, centre);
                let fit = self
                    .pure_mean(plan.localisation.radius)
                    .fit_with_progress(&shifted, progress)?;
                let shift_back = |v: Vec<f64>| -> Vec<f64> {
                    v.iter().zip(centre.iter()).map(|(x, c)| x + c).collect()
                };
                let releases = fit
                    .release
                    .stage_releases
                    .into_iter()
                    .map(|s| StageRelease {
                        release: shift_back(s.release),
                        ..s
                    })
                    .collect();
                let estimate = fit.release.estimate + centre;
                Ok((estimate, releases, fit.release.accuracy, fit.diagnostics))
            },
        )
    }
}
