//! Approximate-DP mean estimators without a prior radius (MATH.md 5.5 (a)) behind
//! [`MeanEstimator`]: the sum-of-squares localised mean ([`LocalisedMean`]) and its
//! non-robust peer, the stable-histogram localisation followed by a clipped Laplace mean
//! ([`LocalisedClippedMean`], in the manner of Karwa and Vadhan 2018), at the same eps, delta and
//! localisation.
use crate::baseline::{ClippedLaplaceMean, Guarantee, MeanEstimator};
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp_learn::localise::{LocalisationPlan, localise, shift_rows};
use sosdp_learn::{LearnError, Learner, LocaliseSettings, LocalisedMean, Privacy, check_data};

/// A localised fit that released no estimate, as the harness's error for this dataset.
fn refused(reason: Option<String>) -> LearnError {
    LearnError::InvalidSetting(format!(
        "the localisation released no estimate: {}",
        reason.unwrap_or_default()
    ))
}

impl MeanEstimator for LocalisedMean {
    fn name(&self) -> String {
        let p = self.privacy();
        format!(
            "SoS localised mean (eps = {}, delta = {})",
            p.epsilon(),
            p.delta_value()
        )
    }
    fn guarantee(&self) -> Guarantee {
        let p = self.privacy();
        Guarantee::Approximate {
            epsilon: p.epsilon(),
            delta: p.delta_value(),
        }
    }
    /// The fit seeded with `seed`; a release with no estimate is an error of this dataset.
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<Vec<f64>, LearnError> {
        let privacy = self.privacy().seed(seed);
        let release = self.clone().with_privacy(privacy).fit(data)?.release;
        match release.estimate {
            Some(estimate) => Ok(estimate.as_slice().to_vec()),
            None => Err(refused(release.refusal)),
        }
    }
}

/// The localised clipped Laplace mean, `(eps, delta)`-DP, for records from `N(mu, I)` with no
/// prior on `mu`: the localisation of [`sosdp_learn::localise`] with the default
/// [`LocaliseSettings`] (the same eps share, bins and threshold as [`LocalisedMean`]) releases
/// a ball `B(c, r)`; then the [`ClippedLaplaceMean`] with the rest of eps, on the records
/// shifted by `-c` and clipped to `B(0, r + sqrt(d) + sqrt(2 log n))`, shifted back. Not
/// robust: a corrupted fraction `eta` moves it by up to about `eta` times the clip.
#[derive(Clone, Copy, Debug)]
pub struct LocalisedClippedMean {
    /// The privacy parameter of the whole estimate.
    pub epsilon: f64,
    /// The `delta` of `(eps, delta)`-DP, all of it spent by the localisation.
    pub delta: f64,
}

impl LocalisedClippedMean {
    /// The localisation's plan for `n` records in `R^d`: [`LocaliseSettings::plan`] with the
    /// default settings, eps and delta, no corruption assumed and the default beta (0.05).
    fn plan(&self, n: usize, d: usize) -> Result<LocalisationPlan, LearnError> {
        let privacy = Privacy::new(self.epsilon).delta(self.delta);
        LocaliseSettings::default().plan(&privacy, n, d, 1.0)
    }
}

impl MeanEstimator for LocalisedClippedMean {
    fn name(&self) -> String {
        format!(
            "localised clipped Laplace mean (eps = {}, delta = {})",
            self.epsilon, self.delta
        )
    }
    fn guarantee(&self) -> Guarantee {
        Guarantee::Approximate {
            epsilon: self.epsilon,
            delta: self.delta,
        }
    }
    /// Seeded with `seed` (the localisation) and `seed + 1` (the Laplace noise).
    fn estimate(&self, data: &DMatrix<f64>, seed: u64) -> Result<Vec<f64>, LearnError> {
        check_data(data)?;
        let (n, d) = data.shape();
        let plan = self.plan(n, d)?;
        let laplace = ClippedLaplaceMean::for_prior(self.epsilon - plan.epsilon, plan.radius, n, d);
        laplace.grid(n)?; // its settings, checked before the data are read
        let centre = localise(data, &plan, &mut StdRng::seed_from_u64(seed))
            .ok_or_else(|| refused(Some("no bin above the threshold".into())))?;
        let shifted = shift_rows(data.clone(), &centre);
        let estimate = laplace.release(&shifted, Some(seed.wrapping_add(1)))?;
        Ok(estimate
            .iter()
            .zip(centre.iter())
            .map(|(x, c)| x + c)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CorruptedSample, l2_error};

    /// Both estimators find a mean 1e4 from the origin (d = 5, n = 20000, eps = 1,
    /// delta = 1e-6) within 0.3, and report a refusal (100 records) as an error.
    #[test]
    fn both_localised_estimators_find_a_far_mean_and_report_refusals() {
        let mu = vec![1e4 / 5f64.sqrt(); 5];
        let none = crate::Adversary::ScatteredOutliers { distance: 0.0 };
        let s = CorruptedSample::identity_covariance(
            &mut StdRng::seed_from_u64(1),
            20_000,
            &mu,
            0.0,
            &none,
        );
        let sos = LocalisedMean::new(Privacy::new(1.0).delta(1e-6));
        let peer = LocalisedClippedMean {
            epsilon: 1.0,
            delta: 1e-6,
        };
        let estimators: [&dyn MeanEstimator; 2] = [&sos, &peer];
        for estimator in estimators {
            let error = l2_error(&estimator.estimate(&s.data, 3).unwrap(), &mu);
            assert!(error <= 0.3, "{}: {error}", estimator.name());
            let small = s.data.rows(0, 100).into_owned();
            let e = estimator.estimate(&small, 3).unwrap_err().to_string();
            assert!(e.contains("no estimate"), "{e}");
        }
    }
}
