//! Learning a Gaussian in total variation (MATH.md 5.4): the private covariance (pairing,
//! preconditioning, refinement) with a share of eps, then the private mean of the records
//! whitened by the covariance estimate, with `Gamma` widened by the covariance's error bound;
//! `mu_hat = Sigma_hat^{1/2} theta`. The mean step's prior radius and widening come from the
//! covariance's public plan, not from its release.
//!
//! Privacy: the eps split (default 1/2 preconditioner, 3/8 refinement, 1/8 mean, MATH.md 5.4,
//! calibrated in docs/calibration.md) is
//! data-independent; the mean step uses the covariance release (already private) to whiten,
//! which is adaptive composition, so the pair is eps-DP.
use crate::covariance::{CovariancePlan, CovarianceSettings, PrivateCovariance};
use crate::learner::{Learner, Plan};
use crate::mean::{MeanSettings, PrivateMean};
use crate::privacy::Privacy;
use crate::projection::{clean_radius, project_rows};
use crate::release::{
    AccuracyBound, Estimate, Fit, Release, StageRelease, serialize_rows, serialize_vector,
};
use crate::schedule::Schedule;
use crate::symmetric::spd_power;
use crate::{LearnError, check_data};
use nalgebra::{DMatrix, DVector};
use serde::{Serialize, Serializer};
use sosdp_sampler::Progress;
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
    /// Share of eps for the mean step (default 1/8); the refinement gets what neither share
    /// takes. Both shares positive with a sum below 1.
    pub mean_share: f64,
    /// The number of Frobenius refinement stages of the covariance, at least 1 (default 2).
    pub refinement_stages: usize,
}

impl Default for GaussianSettings {
    fn default() -> Self {
        GaussianSettings {
            preconditioner_share: 0.5,
            mean_share: 0.125,
            refinement_stages: 2,
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

/// The public plan of a Gaussian fit: the covariance's plan and the mean step's schedule,
/// with the whitened prior radius and the widening of `Gamma` the latter uses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GaussianPlan {
    /// The covariance step's plan.
    pub covariance: CovariancePlan,
    /// The mean step's schedule (on the whitened records).
    pub mean: Schedule,
    /// `R / sqrt(1 - s)`, `s` the covariance's planned operator error (capped at 0.99).
    pub whitened_radius: f64,
    /// `2 s / (1 - s)`.
    pub widening: f64,
    /// Before whitening, the mean step projects every record onto `B(0, record_radius)`:
    /// `R + sqrt(K) rho_n`, `rho_n = sqrt(d) + sqrt(2 log(4 n / beta_mean))` with the mean step's
    /// share `beta_mean = beta / 2`: it holds the clean records under the priors with the same
    /// probability as the mean step's own projections ([`crate::projection`]).
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

    /// The covariance step: `(1 - mean share) eps`, `beta / 2`, the same seed, the
    /// preconditioner's share rescaled so that it spends `preconditioner_share * eps`. A fit runs
    /// exactly this learner first (its plan is [`GaussianPlan::covariance`], its releases the
    /// first entries of the fit's `stage_releases`); public for tests of the stages' privacy.
    pub fn covariance_learner(&self) -> PrivateCovariance {
        let privacy = Privacy {
            epsilon: (1.0 - self.settings.mean_share) * self.privacy.epsilon,
            beta: self.privacy.beta / 2.0,
            ..self.privacy
        };
        PrivateCovariance::new(privacy, self.kappa).settings(CovarianceSettings {
            preconditioner_share: self.settings.preconditioner_share
                / (1.0 - self.settings.mean_share),
            refinement_stages: self.settings.refinement_stages,
            ..CovarianceSettings::default()
        })
    }

    /// The mean step: `mean share * eps`, `beta / 2`, the seed plus one.
    fn mean_learner(&self, radius: f64, covariance_error: f64) -> PrivateMean {
        let privacy = Privacy {
            epsilon: self.settings.mean_share * self.privacy.epsilon,
            beta: self.privacy.beta / 2.0,
            seed: self.privacy.seed.map(|s| s.wrapping_add(1)),
            ..self.privacy
        };
        PrivateMean::new(privacy, radius).settings(MeanSettings {
            covariance_error,
            ..MeanSettings::default()
        })
    }

    /// The accuracy bounds of `plan` (for `n` records in `R^d`) with their assumptions: the
    /// covariance's (Mahalanobis-Frobenius) and the mean's (Mahalanobis), the latter from the
    /// mean step's bound `r` in the frame of `Sigma_hat` and the covariance's planned operator
    /// error `s`: `|Sigma^-1/2 (mu_hat - mu)| <= sqrt(1 + s) r`. The mean's holds only when the
    /// covariance's guaranteed error is at most the `s` its widening was planned for; both are
    /// `None` (with the reason) otherwise.
    pub fn accuracy_bounds(&self, plan: &GaussianPlan, n: usize, d: usize) -> Vec<AccuracyBound> {
        let covariance = self
            .covariance_learner()
            .accuracy_bound(&plan.covariance, n, d);
        let s = plan.widening / (2.0 + plan.widening);
        let mut assumptions = self.covariance_learner().assumptions();
        assumptions.insert(1, format!("|mu| <= R = {} (the prior)", self.radius));
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
        let mean = AccuracyBound {
            metric: "|Sigma^-1/2 (mu_hat - mu)|_2".into(),
            bound: covered.map(|_| (1.0 + s).sqrt() * plan.mean.accuracy()),
            probability: 1.0 - self.privacy.beta,
            assumptions,
            basis: "the mean step's bound (MATH 5.1) in the frame of the covariance release, widened by the covariance's planned error".into(),
            unavailable,
        };
        vec![covariance, mean]
    }
}

impl Plan for GaussianPlan {
    /// The covariance's steps, then the mean's.
    fn steps(&self) -> usize {
        self.covariance.steps() + self.mean.steps()
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
        self.covariance_learner().validate()?;
        self.mean_learner(self.radius, 0.0).validate()
    }

    fn plan(&self, n: usize, d: usize) -> Result<GaussianPlan, LearnError> {
        self.validate()?;
        let covariance = self.covariance_learner().plan(n, d)?;
        // The covariance's planned operator error `s`: `Sigma_hat ⪰ (1 - s) Sigma ⪰ (1 - s) I`,
        // so the whitened mean has norm <= R / sqrt(1 - s), and the whitened clean covariance
        // is within `s / (1 - s)` of I on both sides; `Gamma` widens by twice that (its upper
        // side and the lower side of the covariance enter the bound, MATH.md 2.1).
        let s = covariance
            .refinement
            .last()
            .map_or(1.0, |s| s.accuracy)
            .min(0.99);
        let (whitened_radius, widening) = (self.radius / (1.0 - s).sqrt(), 2.0 * s / (1.0 - s));
        let max_radius = crate::Constants::default().max_radius;
        if whitened_radius > max_radius {
            return Err(LearnError::InvalidSetting(format!(
                "the prior radius R = {}, in the frame of the covariance's planned error (s = {s:.3}), is R / sqrt(1 - s) = {whitened_radius:.1}, \
                 above the largest the mean's stages resolve ({max_radius}): centre the data at a public guess of the mean and use a smaller R",
                self.radius
            )));
        }
        let mean = self.mean_learner(whitened_radius, widening).plan(n, d)?;
        let record_radius =
            self.radius + self.kappa.sqrt() * clean_radius(n, d, self.privacy.beta / 8.0);
        Ok(GaussianPlan {
            covariance,
            mean,
            whitened_radius,
            widening,
            record_radius,
        })
    }

    /// Progress steps: the covariance's (preconditioner, refinement stages), then the mean's
    /// stages.
    fn fit_with_progress(
        &self,
        data: &DMatrix<f64>,
        progress: &mut dyn FnMut(usize, Progress),
    ) -> Result<GaussianFit, LearnError> {
        self.validate()?;
        check_data(data)?;
        let (n, d) = data.shape();
        // Both plans are checked before any data-dependent computation.
        let plan = self.plan(n, d)?;
        let clock = Instant::now();
        let cov = self
            .covariance_learner()
            .fit_with_progress(data, progress)?;
        let sigma = &cov.release.estimate;
        let w = spd_power(sigma, -0.5);
        let steps = plan.covariance.steps();
        let mean_learner = self.mean_learner(plan.whitened_radius, plan.widening);
        // Records projected onto the public ball before whitening, so that the whitened
        // records are finite and bounded whatever the input.
        let projected = project_rows(data, &vec![0.0; d], plan.record_radius);
        let mean = mean_learner
            .fit_with_progress(&(projected * &w), &mut |j, p| progress(steps + j, p))?;
        let half = spd_power(sigma, 0.5);
        let mu = &half * &mean.release.estimate;

        let mut diagnostics = cov.diagnostics;
        diagnostics.extend(mean.diagnostics);
        diagnostics.elapsed_s = clock.elapsed().as_secs_f64();
        let mut stage_releases = cov.release.stage_releases;
        stage_releases.extend(
            mean.release
                .stage_releases
                .into_iter()
                .map(|s| StageRelease {
                    step: format!("{} (whitened)", s.step),
                    ..s
                }),
        );
        let accuracy = self.accuracy_bounds(&plan, n, d);
        let estimate = GaussianEstimate {
            mean: mu,
            covariance: cov.release.estimate,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan needs no data, widens the mean step by the covariance's planned error, and
    /// rejects sizes no stage can use.
    #[test]
    fn plan_without_data() {
        let learner = PrivateGaussian::new(Privacy::new(2.0), 10.0, 100.0);
        let plan = learner
            .plan(100_000, 5)
            .expect("a plan at the issue's size");
        let s = plan
            .covariance
            .refinement
            .last()
            .expect("refinement stages")
            .accuracy;
        assert!(
            (plan.whitened_radius - 10.0 / (1.0 - s).sqrt()).abs() < 1e-12 && plan.widening > 0.0
        );
        assert!(!plan.mean.stages.is_empty());
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
