//! What a fit returns (MATH.md 4.7, 7): a public [`Release`] and separate, non-private
//! [`Diagnostics`].
//!
//! A release holds the estimate (or `null` with the reason, when a localised fit refuses after
//! the data were read: MATH.md 5.5), eps, delta (0 for the pure learners), the public plan (everything computed from
//! the public inputs before the data are read), the intermediate stage releases (each an
//! eps-share release, covered by the guarantee by composition), the accuracy bounds with the
//! assumptions they rest on, and the line stating the guarantee and its approximation. Nothing
//! else computed from the data is in it: no timings, no oracle counts, no anchor scores, no
//! sampler traces.
//!
//! Those are [`Diagnostics`]. They depend on the data and are **not** covered by the privacy
//! guarantee, so their type does not implement `Serialize`: the only way to serialise them is
//! [`Diagnostics::non_private`], whose output is marked non-private. A [`Fit`] (release plus
//! diagnostics) does not serialise either; publish `fit.release`.
use crate::Privacy;
use nalgebra::{DMatrix, DVector};
use serde::{Serialize, Serializer};
use sosdp_sampler::ReleaseRecord;

/// The guarantee line of an `(epsilon, delta)`-DP localised fit (MATH.md 5.5 (a)): a localisation
/// spending `(localisation_epsilon, delta)`, then the pure learner's [`guarantee`] for the rest
/// of eps, by composition.
pub fn approximate_guarantee(epsilon: f64, delta: f64, localisation_epsilon: f64) -> String {
    format!(
        "({epsilon}, {delta})-differential privacy of the exact mechanisms, with respect to replacing one record, by composition of a localisation, ({localisation_epsilon}, {delta})-DP (stable histograms with discrete Laplace noise on the coordinates of a public random rotation, basic composition over the coordinates), and, given its ball, {}",
        guarantee(epsilon - localisation_epsilon)
    )
}

/// The guarantee line of a release whose fit found the covariance's scale (pure
/// `scale_epsilon`-DP, MATH.md 5.5 (a')), then ran a learner with the guarantee `after` (for
/// `epsilon - scale_epsilon`); `delta` is the learner's.
pub fn scaled_guarantee(epsilon: f64, delta: f64, scale_epsilon: f64, after: &str) -> String {
    let whole = if delta == 0.0 {
        format!("pure {epsilon}-differential privacy (delta = 0)")
    } else {
        format!("({epsilon}, {delta})-differential privacy")
    };
    format!(
        "{whole} by composition of the covariance's scale, pure {scale_epsilon}-DP (the exponential mechanism for a quantile of the pairs' log2 half squared distances on a public grid), and, given its unit, {after}"
    )
}

/// The guarantee line of every pure release for a total `epsilon` (MATH.md 4.7).
pub fn guarantee(epsilon: f64) -> String {
    format!(
        "pure {epsilon}-differential privacy (delta = 0) of the exact mechanisms, with respect to replacing one record (exponential mechanisms with certified scores; additive stages with exactly sampled norm noise, snapped to a power-of-two grid, relative excess below 1e-6); the release is drawn by an approximate sampler: finite Markov chains from public starts (each stage's centre) with the public chain rule of the plan, exact membership decisions except ties within 1e-10 n points of a level (counted inside); its mixing is tested empirically, not proved, see docs/limitations.md"
    )
}

/// An accuracy bound with what it rests on. `bound` is `None` when the plan cannot guarantee
/// one, with the reason in `unavailable`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AccuracyBound {
    /// The error the bound is about, e.g. `|mu_hat - mu|_2`.
    pub metric: String,
    /// The bound, or `None` (printed as `null`) when the plan cannot guarantee one.
    pub bound: Option<f64>,
    /// The probability with which the bound holds under the assumptions (`1 - beta`).
    pub probability: f64,
    /// The assumptions (the prior, the model, the corruption) the bound rests on.
    pub assumptions: Vec<String>,
    /// How the bound was derived (e.g. calibrated constants rather than a proof).
    pub basis: String,
    /// Why there is no bound, when `bound` is `None`.
    pub unavailable: Option<String>,
}

/// One intermediate release: an eps-share of the fit, covered by the guarantee.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageRelease {
    /// The step, e.g. `"mean stage 2"` or `"refinement 1 (svec, whitened)"`.
    pub step: String,
    /// The stage's release (for a covariance refinement, the `svec` of the whitened matrix).
    pub release: Vec<f64>,
}

/// An estimate as a release writes it: a vector as a JSON list, a matrix as a list of its rows.
pub trait Estimate {
    /// Serialise the estimate (vectors as lists, matrices row by row).
    fn serialize_estimate<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error>;
}

impl Estimate for DVector<f64> {
    fn serialize_estimate<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_vector(self, serializer)
    }
}

/// An estimate that a fit may refuse to give (MATH.md 5.5): `null` when refused.
impl<E: Estimate> Estimate for Option<E> {
    fn serialize_estimate<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(e) => e.serialize_estimate(serializer),
            None => serializer.serialize_none(),
        }
    }
}

impl Estimate for DMatrix<f64> {
    fn serialize_estimate<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize_rows(self, serializer)
    }
}

/// A vector as a JSON list `[v_1, ..., v_d]`.
pub fn serialize_vector<S: Serializer>(v: &DVector<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(v.iter())
}

/// A matrix as the list of its rows `[[a_11, ..., a_1d], ...]`.
pub fn serialize_rows<S: Serializer>(m: &DMatrix<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(
        m.row_iter()
            .map(|row| row.iter().copied().collect::<Vec<f64>>()),
    )
}

/// The public release of a fit: estimate `E` and public plan `P`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound(serialize = "E: Estimate, P: Serialize"))]
pub struct Release<E, P> {
    /// The estimate (vectors as lists, matrices as lists of rows).
    #[serde(serialize_with = "Estimate::serialize_estimate")]
    pub estimate: E,
    /// The privacy parameter of the whole fit.
    pub epsilon: f64,
    /// The `delta` of `(eps, delta)`-DP: 0 for the pure learners, the requested `delta` for a
    /// localised fit (MATH.md 5.5 (a)), whether or not it released an estimate.
    pub delta: f64,
    /// The public plan, computed from the public inputs before the data were read.
    pub plan: P,
    /// The intermediate releases, in the order they were drawn.
    pub stage_releases: Vec<StageRelease>,
    /// The accuracy bounds of the estimate with the assumptions they rest on.
    pub accuracy: Vec<AccuracyBound>,
    /// The guarantee of the release ([`guarantee`]).
    pub guarantee: String,
    /// Why there is no estimate (`estimate` is `null`), when a fit refused after the data were
    /// read (MATH.md 5.5: a refusal is a release); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
}

impl<E: Estimate, P: Serialize> Release<E, P> {
    /// The release as one line of JSON, keys in sorted order: the text the `sosdp` tool prints
    /// and the Python package's `to_json()` returns.
    pub fn to_json(&self) -> serde_json::Result<String> {
        Ok(serde_json::to_value(self)?.to_string())
    }
}

impl<E, P> Release<E, P> {
    /// The release of a pure `epsilon`-DP fit: `delta = 0` and the [`guarantee`] line.
    pub(crate) fn pure(
        estimate: E,
        epsilon: f64,
        plan: P,
        stage_releases: Vec<StageRelease>,
        accuracy: Vec<AccuracyBound>,
    ) -> Self {
        Release {
            estimate,
            epsilon,
            delta: 0.0,
            plan,
            stage_releases,
            accuracy,
            guarantee: guarantee(epsilon),
            refusal: None,
        }
    }
}

impl<E, P> Release<Option<E>, P> {
    /// The release of a localised `(epsilon, delta)`-DP fit (MATH.md 5.5 (a)) whose
    /// localisation spent `localisation_epsilon`: the estimate, or `None` and the `refusal`
    /// reason; the planned eps and delta either way.
    pub(crate) fn localised(
        estimate: Option<E>,
        privacy: &Privacy,
        localisation_epsilon: f64,
        plan: P,
        stage_releases: Vec<StageRelease>,
        accuracy: Vec<AccuracyBound>,
        refusal: Option<String>,
    ) -> Self {
        let (epsilon, delta) = (privacy.epsilon, privacy.delta);
        Release {
            estimate,
            epsilon,
            delta,
            guarantee: approximate_guarantee(epsilon, delta, localisation_epsilon),
            plan,
            stage_releases,
            accuracy,
            refusal,
        }
    }
}

/// Data-dependent diagnostics of one step: its sampler's record (levels visited, oracle
/// calls, anchor score, timings). Not private.
#[derive(Clone, Debug)]
pub struct StepDiagnostics {
    /// The step, named as in the release's stage releases.
    pub step: String,
    /// The sampler's record of the step.
    pub record: ReleaseRecord,
}

/// Data-dependent diagnostics of a fit: **not covered by the privacy guarantee**. No
/// `Serialize`: see [`Diagnostics::non_private`].
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    /// One entry per mechanism step, in order.
    pub steps: Vec<StepDiagnostics>,
    /// Wall-clock seconds of the fit (a timing side channel: not private).
    pub elapsed_s: f64,
}

impl Diagnostics {
    /// A serialisable view, marked non-private: `{"warning": ..., "elapsed_s": t, "steps":
    /// [{"step": ..., "record": ...}]}`.
    pub fn non_private(&self) -> NonPrivate<'_> {
        NonPrivate {
            warning: "NON-PRIVATE: computed from the data and not covered by the privacy guarantee; do not publish",
            elapsed_s: self.elapsed_s,
            steps: self
                .steps
                .iter()
                .map(|s| NonPrivateStep {
                    step: &s.step,
                    record: &s.record,
                })
                .collect(),
        }
    }

    /// Append another fit's steps (composition of learners).
    pub fn extend(&mut self, other: Diagnostics) {
        self.steps.extend(other.steps);
    }
}

/// The serialisable, marked view of [`Diagnostics`].
#[derive(Debug, Serialize)]
pub struct NonPrivate<'a> {
    /// The non-private marker.
    pub warning: &'static str,
    /// Wall-clock seconds of the fit.
    pub elapsed_s: f64,
    /// The steps' records.
    pub steps: Vec<NonPrivateStep<'a>>,
}

/// One step of [`NonPrivate`].
#[derive(Debug, Serialize)]
pub struct NonPrivateStep<'a> {
    /// The step's name.
    pub step: &'a str,
    /// The sampler's record of the step.
    pub record: &'a ReleaseRecord,
}

/// A fit: the public release and the non-private diagnostics. Not `Serialize`: publish
/// `release`.
#[derive(Clone, Debug)]
pub struct Fit<E, P> {
    /// The public release.
    pub release: Release<E, P>,
    /// The non-private diagnostics.
    pub diagnostics: Diagnostics,
}
