"""Thin functions in the style of ``diffprivlib.tools``: one call, the estimate back."""
from ._estimators import PrivateCovariance, PrivateMean


def mean(X, *, epsilon, radius, corruption=0.0, beta=0.05, random_state=None, **settings):
    """The private, robust mean of ``X`` (records from ``N(mu, I)``, ``|mu| <= radius``), an
    ndarray of shape ``(n_features,)``. ``settings``: ``sampler``, ``progress`` (see
    :class:`PrivateMean`). For the release and its accuracy bound, use the estimator."""
    estimator = PrivateMean(epsilon, radius, corruption, beta, random_state, **settings)
    return estimator.fit(X).location_


def covariance(X, *, epsilon, kappa, corruption=0.0, beta=0.05, random_state=None, **settings):
    """The private, robust covariance of ``X`` (``I <= Sigma <= kappa I``), an ndarray of shape
    ``(n_features, n_features)``. ``settings``: ``radius``, ``sampler``, ``progress`` (see
    :class:`PrivateCovariance`)."""
    estimator = PrivateCovariance(epsilon, kappa, corruption, beta, random_state, **settings)
    return estimator.fit(X).covariance_
