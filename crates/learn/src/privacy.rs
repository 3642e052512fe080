//! The settings every learner shares: the privacy parameters `(eps, delta)`, the corruption the
//! estimate must tolerate, the failure probability of its accuracy bound, the randomness and the
//! sampler.
use crate::LearnError;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp_sampler::SamplerKind;

/// The shared settings of a fit: `Privacy::new(eps).delta(d).corruption(eta0).beta(b).seed(s)`.
///
/// Defaults: `delta = 0` (pure DP), corruption 0, `beta = 0.05`, fresh OS randomness, the slice
/// sampler. The settings
/// are checked by [`Privacy::validate`], which every learner calls in `plan` and `fit` before
/// the data are read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Privacy {
    pub(crate) epsilon: f64,
    pub(crate) delta: f64,
    pub(crate) corruption: f64,
    pub(crate) beta: f64,
    pub(crate) seed: Option<u64>,
    pub(crate) sampler: SamplerKind,
}

impl Privacy {
    /// Pure `epsilon`-differential privacy (`delta = 0`) for the whole fit, with the defaults
    /// above.
    pub fn new(epsilon: f64) -> Self {
        Privacy {
            epsilon,
            delta: 0.0,
            corruption: 0.0,
            beta: 0.05,
            seed: None,
            sampler: SamplerKind::Slice,
        }
    }

    /// The shared settings of the step after one that spent `epsilon_spent` and `beta_share` of
    /// beta (composition): eps `eps - epsilon_spent`, beta `(1 - beta_share) beta`, the seed
    /// plus `seed_offset` (so that no later step reuses the earlier step's draws).
    pub(crate) fn after_step(&self, epsilon_spent: f64, beta_share: f64, seed_offset: u64) -> Self {
        Privacy {
            epsilon: self.epsilon - epsilon_spent,
            beta: (1.0 - beta_share) * self.beta,
            seed: self.seed.map(|s| s.wrapping_add(seed_offset)),
            ..*self
        }
    }

    /// The `delta` of `(eps, delta)`-DP, in `[0, 1)` (default 0: pure DP). Only the mean and the
    /// Gaussian without a prior radius spend it ([`crate::LocalisedMean`],
    /// [`crate::LocalisedGaussian`], MATH.md 5.5 (a)); the mean with a prior is pure and its
    /// release says `delta = 0`; the covariance learner and the Gaussian with a prior refuse
    /// `delta > 0` before the data are read.
    pub fn delta(mut self, delta: f64) -> Self {
        self.delta = delta;
        self
    }

    /// The fraction `eta0` of the records an adversary may have replaced, in `[0, 0.5)`
    /// (default 0).
    pub fn corruption(mut self, eta0: f64) -> Self {
        self.corruption = eta0;
        self
    }

    /// Failure probability of the accuracy guarantee, in `(0, 1)` (default 0.05).
    pub fn beta(mut self, beta: f64) -> Self {
        self.beta = beta;
        self
    }

    /// A fixed seed (reproducible releases; for experiments only: a published release should
    /// use fresh randomness, the default).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// The sampling path of every mechanism run (default [`SamplerKind::Slice`]).
    pub fn sampler(mut self, sampler: SamplerKind) -> Self {
        self.sampler = sampler;
        self
    }

    /// The privacy parameter `eps` of the whole fit.
    pub fn epsilon(&self) -> f64 {
        self.epsilon
    }

    /// The `delta` of `(eps, delta)`-DP ([`Privacy::delta`] sets it).
    pub fn delta_value(&self) -> f64 {
        self.delta
    }

    /// Refuse `delta > 0` for a pure learner that has no use for it (`learner` names it).
    pub(crate) fn refuse_delta(&self, learner: &str) -> Result<(), LearnError> {
        if self.delta > 0.0 {
            return Err(LearnError::InvalidSetting(format!(
                "the {learner} learner is pure DP with its priors and spends no delta: give delta = 0 \
                 (delta > 0, MATH.md 5.5 (a), is implemented for the mean and the Gaussian without a prior radius)"
            )));
        }
        Ok(())
    }

    /// The accuracy bounds' assumption of the prior `|mu| <= R` on the mean (a localised fit
    /// replaces it by its ball's, [`crate::localise::LocalisationPlan::qualify`]).
    pub(crate) fn mean_prior_assumption(radius: f64) -> String {
        format!("|mu| <= R = {radius} (the prior)")
    }

    /// The accuracy bounds' assumption on the corruption.
    pub(crate) fn corruption_assumption(&self) -> String {
        if self.corruption > 0.0 {
            format!(
                "at most a fraction {} of the records replaced arbitrarily",
                self.corruption
            )
        } else {
            "no corrupted records (corruption 0)".to_string()
        }
    }

    /// Check the settings: `eps > 0` finite, `delta` in `[0, 1)`, corruption in `[0, 0.5)`, `beta` in `(0, 1)`, and a
    /// sampler whose every path ends in a release. The layer-cake sampler is refused: its volume
    /// ladder can fail to close after the data are read, and whether a release then happens
    /// would depend on the data (MATH.md 4.7, 7); it stays available to `sosdp mechanism`
    /// experiments.
    pub fn validate(&self) -> Result<(), LearnError> {
        if !(self.epsilon.is_finite() && self.epsilon > 0.0) {
            return Err(LearnError::Epsilon(self.epsilon));
        }
        if !(self.delta >= 0.0 && self.delta < 1.0) {
            return Err(LearnError::InvalidSetting(format!(
                "delta must lie in [0, 1), got {}",
                self.delta
            )));
        }
        if !(self.corruption >= 0.0 && self.corruption < 0.5) {
            return Err(LearnError::Corruption(self.corruption));
        }
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(LearnError::Beta(self.beta));
        }
        if self.sampler == SamplerKind::LayerCake {
            return Err(LearnError::InvalidSetting(
                "the layer-cake sampler can fail after the data are read (its volume ladder may \
                 not close), so the learners refuse it: use slice (default) or mala; it remains \
                 available in `sosdp mechanism`"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// Refuse a step's eps or beta share outside `(0, 1)`: `owner` names the step in the message
/// (e.g. "the localisation"), `shares` pairs each share's name with its value.
pub(crate) fn check_shares(owner: &str, shares: [(&str, f64); 2]) -> Result<(), LearnError> {
    for (name, share) in shares {
        if !(share > 0.0 && share < 1.0) {
            return Err(LearnError::InvalidSetting(format!(
                "{owner}'s {name} must lie in (0, 1), got {share}"
            )));
        }
    }
    Ok(())
}

/// Randomness seeded with `seed` (experiments), or from the OS when `None` (releases).
pub fn seeded_rng(seed: Option<u64>) -> Result<StdRng, LearnError> {
    match seed {
        Some(s) => Ok(StdRng::seed_from_u64(s)),
        None => StdRng::try_from_rng(&mut rand::rngs::SysRng)
            .map_err(|e| LearnError::InvalidSetting(format!("no OS randomness: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learners_refuse_the_layer_cake_sampler_before_the_data() {
        assert!(Privacy::new(1.0).validate().is_ok());
        assert!(
            Privacy::new(1.0)
                .sampler(SamplerKind::Mala)
                .validate()
                .is_ok()
        );
        let err = Privacy::new(1.0)
            .sampler(SamplerKind::LayerCake)
            .validate()
            .unwrap_err();
        assert!(err.to_string().contains("layer-cake"), "{err}");
    }
}
