"""The estimators: scikit-learn's habits (parameters set in ``__init__`` and checked in ``fit``,
``fit`` returns the estimator, fitted attributes end in ``_``, ``get_params``/``set_params``)."""
import inspect
import json
import operator
import warnings

from . import _core
from ._input import as_records, seed_of, warn_seeded
from ._progress import Progress


def _store(estimator, params):
    """Store ``__init__``'s arguments as attributes of the same names (scikit-learn's habit:
    nothing else happens in ``__init__``; ``fit`` checks them)."""
    for name, value in params.items():
        if name != "self":
            setattr(estimator, name, value)


class NotFittedError(ValueError, AttributeError):
    """The estimator is used before ``fit`` (as scikit-learn's ``NotFittedError``)."""


class _PrivateEstimator:
    """What the three estimators share. Subclasses name their learner and priors."""

    _learner = None
    #: The fitted estimate's attributes (None after a refused localised fit).
    _estimates = ()

    # --- scikit-learn's parameter protocol -------------------------------------------------
    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values() if p.name != "self"]

    def get_params(self, deep=True):
        """The estimator's parameters (its ``__init__`` arguments) as a dict."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set parameters (checked at the next ``fit`` or ``plan``); returns the estimator."""
        names = self._param_names()
        for name, value in params.items():
            if name not in names:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r}; it has {names}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # --- the learner -------------------------------------------------------------------------
    def _priors(self):
        raise NotImplementedError

    def _spec(self, seed):
        return _core.Spec(
            self._learner,
            epsilon=self.epsilon,
            corruption=self.corruption,
            beta=self.beta,
            seed=seed,
            sampler=self.sampler,
            **self._priors(),
        )

    def plan(self, n, d):
        """The public plan for ``n`` records in ``d`` dimensions, as a dict, without data: every
        stage's epsilon share, radius and planned accuracy.

        Raises ValueError for invalid parameters, and when the plan cannot reach a useful
        accuracy with ``n`` records (the message names the records it needs).
        """
        n, d = operator.index(n), operator.index(d)
        if n < 0 or d < 0:
            raise ValueError(f"n and d must be non-negative integers, got n = {n}, d = {d}")
        return json.loads(self._spec(None).plan(n, d))

    def fit(self, X, y=None):
        """Fit on ``X`` (array-like, shape ``(n_samples, n_features)``, one record per row);
        ``y`` is ignored. Returns the estimator.

        The parameters are checked before the data are read. The fit releases the GIL while it
        runs; Ctrl-C stops it within about a second and raises KeyboardInterrupt (nothing is
        released). With ``progress=True`` a progress bar (tqdm when installed, else plain lines
        on stderr) shows the plan's steps and iteration counts.
        """
        return self._fit(X)

    def _fit(self, X):
        """``fit``, for ``fit`` and the functions of ``_tools`` (each calls it directly, so the
        seed warning points three frames up: the user's call)."""
        seed = seed_of(self.random_state)
        spec = self._spec(seed)  # the parameters, checked before the data are read
        records = as_records(X)
        spec.plan(*records.shape)  # the plan, from the shape alone
        if seed is not None:
            warn_seeded(seed, stacklevel=3)
        bar = Progress() if self.progress else None
        try:
            release, diagnostics, location, covariance = spec.fit(
                records, diagnostics=bool(self.diagnostics), progress=bar
            )
        finally:
            if bar is not None:
                bar.close()
        self._release_json = release
        self.release_ = json.loads(release)
        self.n_features_in_ = records.shape[1]
        self.n_samples_ = records.shape[0]
        arrays = {"location_": location, "covariance_": covariance}
        for name in self._estimates:
            setattr(self, name, arrays[name])
        if self.release_["estimate"] is None:
            warnings.warn(
                f"the release has no estimate ({', '.join(self._estimates)} set to None): "
                f"{self.release_.get('refusal')}",
                UserWarning,
                stacklevel=3,
            )
        if diagnostics is not None:
            self.diagnostics_ = json.loads(diagnostics)
        elif hasattr(self, "diagnostics_"):
            del self.diagnostics_
        return self

    def to_json(self):
        """The release as the ``sosdp`` command line prints it for the same data, parameters and
        seed (one line of JSON, keys sorted)."""
        if not hasattr(self, "_release_json"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit(X) first")
        return self._release_json


_DELTA_DOC = """
    delta : float, default 0.0
        The delta of (epsilon, delta)-DP, in [0, 1). With a prior radius the fit is pure: the
        mean's release says delta = 0, the Gaussian refuses delta > 0. Without one
        (``radius=None``), delta > 0 finds the mean's ball privately first (MATH.md 5.5 (a):
        15% of epsilon and all of delta go to stable histograms on the coordinates of a random
        rotation); when no histogram bin passes its
        threshold the release has ``estimate`` None and a ``refusal`` reason, the estimate's
        attributes are None and a UserWarning says so. Use delta well below 1 / n.
"""

_COMMON_DOC = """
    corruption : float, default 0.0
        The fraction of the records an adversary may have replaced, in [0, 0.5) (below 0.25
        for the covariance: pairing records doubles it). The accuracy bound accounts for it;
        a plan that cannot tolerate it is refused before the data are read.
    beta : float, default 0.05
        The failure probability of the accuracy bound, in (0, 1).
    random_state : None or int, default None
        None draws fresh OS randomness (what a published release needs). An int makes the
        release reproducible and therefore NOT differentially private (a UserWarning says so).
    sampler : {"slice", "mala"}, default "slice"
        How the exponential mechanism's stages are sampled (docs/sampler.md).
    diagnostics : bool, default False
        Also keep ``diagnostics_``: the sampler's records, oracle counts and timings. They are
        computed from the data and are NOT private; never publish them.
    progress : bool, default False
        Show progress (tqdm when installed, plain lines on stderr otherwise).

    Attributes
    ----------
    release_ : dict
        The public release: ``estimate``, ``epsilon``, ``delta``, ``plan``,
        ``stage_releases``, ``accuracy`` (bounds with their assumptions), ``guarantee`` (and
        ``refusal`` when a localised fit released no estimate).
    n_features_in_ : int
    n_samples_ : int
    diagnostics_ : dict
        Only with ``diagnostics=True``; marked non-private.
"""


class PrivateMean(_PrivateEstimator):
    __doc__ = (
        """The private, robust mean of records from ``N(mu, I)`` (MATH.md 5.1).

    Parameters
    ----------
    epsilon : float
        The privacy parameter of the whole fit.
    radius : float or None, default None
        The prior ``|mu| <= radius`` (priors are never inferred from the data). Required
        unless ``delta`` > 0, which localises the mean privately instead.
"""
        + _DELTA_DOC
        + _COMMON_DOC
        + """    location_ : ndarray of shape (n_features,) or None
        The private mean (None when a localised fit released no estimate).
"""
    )
    _learner = "mean"
    _estimates = ("location_",)

    def __init__(
        self,
        epsilon,
        radius=None,
        corruption=0.0,
        beta=0.05,
        random_state=None,
        *,
        delta=0.0,
        sampler="slice",
        diagnostics=False,
        progress=False,
    ):
        _store(self, locals())

    def _priors(self):
        return {"radius": self.radius, "delta": self.delta}


_PRECONDITIONER_DOC = """    preconditioner : {"planned", "pairs", "records"} or None, default None
        Where the covariance's preconditioner releases its second moment when the refinement
        is centred (MATH.md 5.2): on pairs, or on records centred in every stage by a mean
        released in its frame (the record corruption instead of twice it on half the points);
        "planned" keeps the smaller planned error, before the data are read; None is the
        library's default, "planned". Without a centred refinement: pairs.
"""


class PrivateCovariance(_PrivateEstimator):
    __doc__ = (
        """The private, robust covariance of records from ``N(mu, Sigma)`` (MATH.md 5.2, 5.3).

    Parameters
    ----------
    epsilon : float
        The privacy parameter (pure DP: the release says delta = 0) of the whole fit.
    kappa : float or None
        The prior ``I <= Sigma <= kappa I``, kappa >= 1 (required unless ``condition`` is given).
    radius : float or None, default None
        With a prior ``|mu| <= radius``, the refinement is centred by a private mean (MATH.md
        5.3b): fewer records needed, but slower on large or clustered data. None: pairs.
    condition : float or None, default None
        A bound C >= 1 on the covariance's condition number in place of ``kappa`` (without
        ``radius``): the covariance's scale is found privately first (MATH.md 5.5 (a'), 5% of
        epsilon, still pure DP) and the fit runs with the public prior ``K`` of the plan's
        ``scale`` on the records divided by ``sqrt(u)``. The accuracy bounds assume the
        condition number is at most C.
"""
        + _PRECONDITIONER_DOC
        + _COMMON_DOC
        + """    covariance_ : ndarray of shape (n_features, n_features)
        The private covariance.
"""
    )
    _learner = "covariance"
    _estimates = ("covariance_",)

    def __init__(
        self,
        epsilon,
        kappa=None,
        corruption=0.0,
        beta=0.05,
        random_state=None,
        *,
        radius=None,
        condition=None,
        preconditioner=None,
        sampler="slice",
        diagnostics=False,
        progress=False,
    ):
        _store(self, locals())

    def _priors(self):
        return {
            "kappa": self.kappa,
            "radius": self.radius,
            "condition": self.condition,
            "preconditioner": self.preconditioner,
        }


class PrivateGaussian(_PrivateEstimator):
    __doc__ = (
        """A Gaussian ``N(mu, Sigma)`` learned privately in total variation (MATH.md 5.4).

    Parameters
    ----------
    epsilon : float
        The privacy parameter of the whole fit.
    radius : float or None, default None
        The prior ``|mu| <= radius``. Required unless ``delta`` > 0, which localises the mean
        privately instead (in bins ``4 sqrt(kappa)`` wide).
    kappa : float or None, default None
        The prior ``I <= Sigma <= kappa I``, kappa >= 1 (required, except with ``delta`` > 0
        and no ``radius``, where ``condition`` may replace it).
    condition : float or None, default None
        A bound C >= 1 on the covariance's condition number, in place of ``kappa`` when
        ``delta`` > 0 and ``radius`` is None: the covariance's scale is then found privately
        (MATH.md 5.5 (a), 5% of epsilon) and the fit runs with the public prior
        ``I <= Sigma / u <= K I`` on the records divided by ``sqrt(u)`` (``K`` in the plan's
        ``scale``). The accuracy bounds assume the condition number is at most C; it is not
        found privately. With ``delta`` > 0 and neither ``radius`` nor ``kappa``, None means
        1000 (with a warning).
    centring : {"planned", "always", "never"} or None, default None
        Whether the covariance's refinement is centred by the mean (MATH.md 5.3b); "planned"
        keeps the smaller planned error, before the data are read; None is the library's
        default, "planned".
"""
        + _PRECONDITIONER_DOC
        + _DELTA_DOC
        + _COMMON_DOC
        + """    location_ : ndarray of shape (n_features,) or None
        The private mean (None when a localised fit released no estimate).
    covariance_ : ndarray of shape (n_features, n_features) or None
        The private covariance (None when a localised fit released no estimate).
"""
    )
    _learner = "gaussian"
    _estimates = ("location_", "covariance_")

    def __init__(
        self,
        epsilon,
        radius=None,
        kappa=None,
        corruption=0.0,
        beta=0.05,
        random_state=None,
        *,
        delta=0.0,
        condition=None,
        centring=None,
        preconditioner=None,
        sampler="slice",
        diagnostics=False,
        progress=False,
    ):
        _store(self, locals())

    def _priors(self):
        if self.delta > 0 and self.radius is None and self.kappa is None and self.condition is None:
            warnings.warn(
                "no kappa or condition: the fit assumes the covariance's condition number is at "
                f"most {_core.DEFAULT_CONDITION:g} (condition=) and finds its scale privately",
                UserWarning,
                stacklevel=3,
            )
        return {
            "radius": self.radius,
            "delta": self.delta,
            "kappa": self.kappa,
            "condition": self.condition,
            "centring": self.centring,
            "preconditioner": self.preconditioner,
        }
