"""Thin functions in the style of ``diffprivlib.tools``: one call, the estimate back."""
from ._estimators import PrivateCovariance, PrivateMean

#: The settings the functions pass on (diagnostics need the estimator, which keeps them).
_SETTINGS = {
    "mean": ("delta", "sampler", "progress"),
    "covariance": ("radius", "sampler", "progress"),
}


def _check(function, settings):
    unknown = sorted(set(settings) - set(_SETTINGS[function]))
    if unknown:
        raise TypeError(
            f"sosdp.{function}() got unexpected settings {unknown}; it takes {list(_SETTINGS[function])} "
            "(for diagnostics, use the estimator)"
        )


def mean(X, *, epsilon, radius=None, corruption=0.0, beta=0.05, random_state=None, **settings):
    """The private, robust mean of ``X`` (records from ``N(mu, I)``, ``|mu| <= radius``), an
    ndarray of shape ``(n_features,)`` (None when a localised fit refused). ``settings``:
    ``delta`` (with ``radius=None``, delta > 0 localises the mean privately), ``sampler``,
    ``progress`` (see :class:`PrivateMean`). For the release and its accuracy bound, use the
    estimator."""
    _check("mean", settings)
    estimator = PrivateMean(epsilon, radius, corruption, beta, random_state, **settings)
    return estimator._fit(X).location_


def covariance(X, *, epsilon, kappa, corruption=0.0, beta=0.05, random_state=None, **settings):
    """The private, robust covariance of ``X`` (``I <= Sigma <= kappa I``), an ndarray of shape
    ``(n_features, n_features)``. ``settings``: ``radius``, ``sampler``, ``progress`` (see
    :class:`PrivateCovariance`)."""
    _check("covariance", settings)
    estimator = PrivateCovariance(epsilon, kappa, corruption, beta, random_state, **settings)
    return estimator._fit(X).covariance_
