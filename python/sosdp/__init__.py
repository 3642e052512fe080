"""sosdp: differentially private, robust learning of Gaussians.

The sum-of-squares exponential mechanism of Hopkins, Kamath, Majid and Narayanan (2023),
implemented in Rust. Estimators in scikit-learn's style (``fit`` returns the estimator, fitted
attributes end in ``_``):

- :class:`PrivateMean`: the mean of ``N(mu, I)`` with the prior ``|mu| <= radius``, or without
  it with ``delta > 0``;
- :class:`PrivateCovariance`: the covariance of ``N(mu, Sigma)`` with ``I <= Sigma <= kappa I``;
- :class:`PrivateGaussian`: both, in total variation (without ``radius`` with ``delta > 0``).

and the functions :func:`mean` and :func:`covariance` (in the style of ``diffprivlib.tools``).

Every fit is ``epsilon``-differentially private (pure DP, ``delta = 0``) with respect to
replacing one record, or ``(epsilon, delta)``-DP when a ``delta > 0`` replaces the prior radius,
unless ``random_state`` fixes the randomness (a warning says so). The
fitted ``release_`` is the whole public release: the estimate, epsilon, delta, the public plan,
the stage releases, the accuracy bounds with their assumptions, and the guarantee. Diagnostics
(``diagnostics=True``) are computed from the data and are NOT private.
"""
from ._core import __version__
from ._estimators import NotFittedError, PrivateCovariance, PrivateGaussian, PrivateMean
from ._tools import covariance, mean

__all__ = [
    "PrivateMean",
    "PrivateCovariance",
    "PrivateGaussian",
    "NotFittedError",
    "mean",
    "covariance",
    "__version__",
]
