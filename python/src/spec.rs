//! A learner's public parameters as the Python estimators hold them ([`Spec`]), and what a fit
//! hands back to Python: the release's JSON text (the `sosdp` tool's output for the same
//! parameters and seed), the non-private diagnostics' JSON only when asked, and the estimate
//! as numpy arrays.
use crate::{data, run};
use nalgebra::{DMatrix, DVector};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde::Serialize;
use sosdp_learn::{
    Centring, CovarianceSettings, DEFAULT_CONDITION, Fit, GaussianEstimate, GaussianSettings,
    LearnError, Learner, LocalisedGaussian, LocalisedMean, Plan, PreconditionerPoints, Privacy,
    PrivateCovariance, PrivateGaussian, PrivateMean, SamplerKind, ScaledCovariance, ScaledGaussian,
};

/// A learner with its public parameters: `Spec(learner, *, epsilon, corruption, beta, seed,
/// sampler, delta=0, radius=None, kappa=None, condition=None, centring=None,
/// preconditioner=None)` with `learner`
/// one of `"mean"` (needs `radius`, or `delta > 0` to localise without it, MATH.md 5.5 (a)),
/// `"covariance"` (needs `kappa`, or `condition` in its place without `radius`; `radius`
/// centres its refinement, MATH.md 5.3b) and
/// `"gaussian"` (needs `kappa`, and `radius` or `delta > 0`; or, with `delta > 0` and no
/// `radius`, `condition` in place of `kappa`, the scale found privately, with `condition`
/// 1000 when neither is given; `centring` is `"planned"`, `"always"` or `"never"`;
/// `preconditioner` (covariance with `radius`, and gaussian) is `"planned"`, `"pairs"` or
/// `"records"` (MATH.md 5.2); `None` is the library's default, `"planned"`).
#[pyclass(frozen, module = "sosdp._core")]
pub struct Spec {
    learner: AnyLearner,
}

/// One of the learners: the three with their priors, the mean and the Gaussian localised
/// without a prior radius, and the Gaussian without the covariance's units.
enum AnyLearner {
    Mean(PrivateMean),
    LocalisedMean(LocalisedMean),
    Covariance(PrivateCovariance),
    Gaussian(PrivateGaussian),
    LocalisedGaussian(LocalisedGaussian),
    ScaledGaussian(ScaledGaussian),
    ScaledCovariance(ScaledCovariance),
}

/// Apply `$body` to the learner inside an [`AnyLearner`], whichever it is.
macro_rules! with_learner {
    ($any:expr, $l:ident => $body:expr) => {
        match $any {
            AnyLearner::Mean($l) => $body,
            AnyLearner::LocalisedMean($l) => $body,
            AnyLearner::Covariance($l) => $body,
            AnyLearner::Gaussian($l) => $body,
            AnyLearner::LocalisedGaussian($l) => $body,
            AnyLearner::ScaledGaussian($l) => $body,
            AnyLearner::ScaledCovariance($l) => $body,
        }
    };
}

/// A fit as Python receives it: `(release JSON, diagnostics JSON or None, location or None,
/// covariance or None)`.
type FitOutput<'py> = (
    String,
    Option<String>,
    Option<Bound<'py, PyArray1<f64>>>,
    Option<Bound<'py, PyArray2<f64>>>,
);

#[pymethods]
impl Spec {
    #[new]
    #[pyo3(signature = (learner, *, epsilon, corruption, beta, seed, sampler, delta=0.0, radius=None, kappa=None, condition=None, centring=None, preconditioner=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        learner: &str,
        epsilon: f64,
        corruption: f64,
        beta: f64,
        seed: Option<u64>,
        sampler: &str,
        delta: f64,
        radius: Option<f64>,
        kappa: Option<f64>,
        condition: Option<f64>,
        centring: Option<&str>,
        preconditioner: Option<&str>,
    ) -> PyResult<Self> {
        let preconditioner_points = match preconditioner {
            None => PreconditionerPoints::default(),
            Some("planned") => PreconditionerPoints::Planned,
            Some("pairs") => PreconditionerPoints::Pairs,
            Some("records") => PreconditionerPoints::Records,
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "preconditioner must be 'planned', 'pairs' or 'records', got {other:?}"
                )));
            }
        };
        let sampler = match sampler {
            "slice" => SamplerKind::Slice,
            "mala" => SamplerKind::Mala,
            other => {
                return Err(PyValueError::new_err(format!(
                    "sampler must be 'slice' or 'mala', got {other:?} (the layer-cake sampler \
                     can fail after the data are read; it is only in `sosdp mechanism`)"
                )));
            }
        };
        let privacy = Privacy::new(epsilon)
            .delta(delta)
            .corruption(corruption)
            .beta(beta)
            .sampler(sampler);
        let privacy = match seed {
            Some(seed) => privacy.seed(seed),
            None => privacy,
        };
        let required = |name: &str, value: Option<f64>| {
            value.ok_or_else(|| {
                PyValueError::new_err(format!(
                    "the {learner} learner needs the prior `{name}` (priors are never inferred \
                     from the data)"
                ))
            })
        };
        // Without a prior radius, delta > 0 localises the mean (MATH.md 5.5 (a)).
        let localised = radius.is_none() && delta > 0.0;
        let radius_or_delta = |radius: Option<f64>| {
            radius.ok_or_else(|| {
                PyValueError::new_err(format!(
                    "the {learner} learner needs the prior `radius`, or delta > 0 to find the \
                     mean's ball privately without it (MATH.md 5.5 (a))"
                ))
            })
        };
        let learner = match learner {
            "mean" if localised => AnyLearner::LocalisedMean(LocalisedMean::new(privacy)),
            "mean" => AnyLearner::Mean(PrivateMean::new(privacy, radius_or_delta(radius)?)),
            "covariance" => match (condition, radius) {
                (Some(condition), None) if kappa.is_none() => {
                    AnyLearner::ScaledCovariance(ScaledCovariance::new(privacy, condition))
                }
                (Some(_), _) => {
                    return Err(PyValueError::new_err(
                        "`condition` replaces `kappa` and cannot be combined with it or with \
                         `radius` (a radius is in the records' units)",
                    ));
                }
                (None, radius) => {
                    let covariance =
                        PrivateCovariance::new(privacy, required("kappa` or `condition", kappa)?)
                            .settings(CovarianceSettings {
                                preconditioner_points,
                                ..Default::default()
                            });
                    AnyLearner::Covariance(match radius {
                        Some(radius) => covariance.centred(radius),
                        None => covariance,
                    })
                }
            },
            "gaussian" => {
                let centring = match centring {
                    None => GaussianSettings::default().centring,
                    Some("never") => Centring::Never,
                    Some("always") => Centring::Always,
                    Some("planned") => Centring::Planned,
                    Some(other) => {
                        return Err(PyValueError::new_err(format!(
                            "centring must be 'never', 'always' or 'planned', got {other:?}"
                        )));
                    }
                };
                let settings = GaussianSettings {
                    centring,
                    preconditioner_points,
                    ..GaussianSettings::default()
                };
                match (kappa, condition) {
                    (Some(_), Some(_)) => {
                        return Err(PyValueError::new_err(
                            "give `kappa` (the prior I <= Sigma <= kappa I) or `condition` (a \
                             bound on the condition number, the scale found privately), not both",
                        ));
                    }
                    (None, condition) if localised => AnyLearner::ScaledGaussian(
                        ScaledGaussian::new(privacy, condition.unwrap_or(DEFAULT_CONDITION))
                            .settings(settings),
                    ),
                    (None, Some(_)) => {
                        return Err(PyValueError::new_err(
                            "`condition` needs delta > 0 and no `radius` (the scale is found \
                             with the localisation, MATH.md 5.5 (a)); with a radius give `kappa`",
                        ));
                    }
                    (Some(kappa), None) if localised => AnyLearner::LocalisedGaussian(
                        LocalisedGaussian::new(privacy, kappa).settings(settings),
                    ),
                    (kappa, None) => AnyLearner::Gaussian(
                        PrivateGaussian::new(
                            privacy,
                            radius_or_delta(radius)?,
                            required("kappa", kappa)?,
                        )
                        .settings(settings),
                    ),
                }
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "learner must be 'mean', 'covariance' or 'gaussian', got {other:?}"
                )));
            }
        };
        let spec = Spec { learner };
        spec.validate()?;
        Ok(spec)
    }

    /// The public plan for `n` records in `R^d` as JSON (no data read). A plan that cannot
    /// reach a useful accuracy raises ValueError naming the records it needs.
    fn plan(&self, n: usize, d: usize) -> PyResult<String> {
        with_learner!(&self.learner, l => plan_json(l, n, d))
    }

    /// Fit on `x` (a 2-D numpy array of float64, float32, int64 or int32, one record per row),
    /// with the GIL released; `progress(step, steps, phase, done, total)` is called as the fit
    /// advances. The plan is checked from the shape before the values are read.
    #[pyo3(signature = (x, *, diagnostics=false, progress=None))]
    fn fit<'py>(
        &self,
        py: Python<'py>,
        x: &Bound<'py, PyAny>,
        diagnostics: bool,
        progress: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<FitOutput<'py>> {
        with_learner!(&self.learner, l => fit_output(py, l.clone(), x, diagnostics, progress))
    }
}

impl Spec {
    /// Check the settings (no data).
    fn validate(&self) -> PyResult<()> {
        with_learner!(&self.learner, l => l.validate()).map_err(value_error)
    }
}

/// The plan of `learner` as JSON.
fn plan_json<L: Learner>(learner: &L, n: usize, d: usize) -> PyResult<String> {
    let plan = learner.plan(n, d).map_err(value_error)?;
    serde_json::to_string(&plan).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Fit `learner` on `x` (the learner and the records' one copy moved to the fit's thread) and
/// hand the fit to Python.
fn fit_output<'py, L>(
    py: Python<'py>,
    learner: L,
    x: &Bound<'py, PyAny>,
    diagnostics: bool,
    progress: Option<&Bound<'py, PyAny>>,
) -> PyResult<FitOutput<'py>>
where
    L: Learner + Send + 'static,
    L::Estimate: Arrays,
    L::Plan: Serialize,
    Fit<L::Estimate, L::Plan>: Send,
{
    // The plan first, from the shape alone: a refused plan costs no copy of the data, and its
    // number of steps numbers the progress reports.
    let (n, d): (usize, usize) = x.getattr("shape")?.extract()?;
    let steps = learner.plan(n, d).map_err(value_error)?.steps();
    let records = data::records(x)?;
    let fit = run::fit(py, learner, records, steps, progress)?.map_err(|e| match e {
        LearnError::Score(_) | LearnError::Sampler(_) => PyRuntimeError::new_err(e.to_string()),
        e => value_error(e),
    })?;
    let json =
        |r: serde_json::Result<String>| r.map_err(|e| PyRuntimeError::new_err(e.to_string()));
    let release = json(fit.release.to_json())?;
    let diagnostics = if diagnostics {
        Some(json(serde_json::to_string(&fit.diagnostics.non_private()))?)
    } else {
        None
    };
    let estimate = &fit.release.estimate;
    let location = estimate
        .location()
        .map(|v| v.as_slice().to_vec().into_pyarray(py));
    let covariance = estimate.covariance().map(|m| {
        Array2::from_shape_fn((m.nrows(), m.ncols()), |(i, j)| m[(i, j)]).into_pyarray(py)
    });
    Ok((release, diagnostics, location, covariance))
}

/// A learner's refusal as ValueError, its message unchanged.
fn value_error(e: LearnError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An estimate's parts as numpy arrays.
trait Arrays {
    /// The mean, when the estimate has one.
    fn location(&self) -> Option<&DVector<f64>> {
        None
    }
    /// The covariance, when the estimate has one.
    fn covariance(&self) -> Option<&DMatrix<f64>> {
        None
    }
}

impl Arrays for DVector<f64> {
    fn location(&self) -> Option<&DVector<f64>> {
        Some(self)
    }
}

impl Arrays for DMatrix<f64> {
    fn covariance(&self) -> Option<&DMatrix<f64>> {
        Some(self)
    }
}

/// A localised fit's estimate: its parts, or none when it refused (MATH.md 5.5).
impl<E: Arrays> Arrays for Option<E> {
    fn location(&self) -> Option<&DVector<f64>> {
        self.as_ref().and_then(Arrays::location)
    }
    fn covariance(&self) -> Option<&DMatrix<f64>> {
        self.as_ref().and_then(Arrays::covariance)
    }
}

impl Arrays for GaussianEstimate {
    fn location(&self) -> Option<&DVector<f64>> {
        Some(&self.mean)
    }
    fn covariance(&self) -> Option<&DMatrix<f64>> {
        Some(&self.covariance)
    }
}
