"""The data as the learners read them, and the seed."""
import numbers
import warnings

import numpy as np


def as_records(X):
    """``X`` as a 2-D float64 or float32 numpy array, one record per row.

    A float64 or float32 ndarray (C or Fortran order, or a strided view) is passed on as it
    is: the extension copies it once, into the learner's matrix (float32 upcast exactly).
    Other array-likes (lists, integer arrays, data frames) are converted by
    ``numpy.asarray(X, dtype=float64)`` first. NaN and infinities are refused by the extension,
    which names the row and column.
    """
    try:
        array = np.asarray(X)
        if array.dtype.kind == "O":
            array = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValueError(f"X must be an array of numbers (n_samples, n_features): {e}") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"X must be an array of real numbers (n_samples, n_features), got dtype {array.dtype}")
    if array.dtype not in (np.float64, np.float32):
        array = array.astype(np.float64)
    if array.ndim != 2:
        hint = " (reshape one feature with X.reshape(-1, 1))" if array.ndim == 1 else ""
        raise ValueError(
            f"X must be 2-D, one record per row (n_samples, n_features); got shape {array.shape}{hint}"
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"X has no records or no features: shape {array.shape}")
    return array


def seed_of(random_state):
    """The fit's seed: ``None`` (fresh OS randomness, a private release) or a fixed integer in
    ``[0, 2**64)``, which makes the release reproducible and therefore NOT private (see
    :func:`warn_seeded`)."""
    if random_state is None:
        return None
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise TypeError(
            "random_state must be None (OS randomness, for releases you publish) or an int "
            f"(reproducible experiments), got {type(random_state).__name__}"
        )
    seed = int(random_state)
    if not 0 <= seed < 2**64:
        raise ValueError(f"random_state must lie in [0, 2**64), got {seed}")
    return seed


def warn_seeded(seed):
    """A ``UserWarning`` that a fixed seed voids the privacy guarantee, as the command line's
    ``--seed`` says on stderr; issued once the data are accepted, attributed to the caller of
    the estimator's ``fit``."""
    warnings.warn(
        f"random_state={seed} fixes the randomness: the release is reproducible and NOT "
        "differentially private (MATH.md 7); use random_state=None for a release you publish",
        UserWarning,
        stacklevel=3,
    )
