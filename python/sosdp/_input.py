"""The data as the learners read them, and the seed."""
import numbers
import warnings

import numpy as np


def as_records(X):
    """``X`` as a 2-D numpy array of float64, float32, int64 or int32, one record per row.

    Such an ndarray (C or Fortran order, or a strided view) is passed on as it is: the extension
    copies it once, into the learner's matrix, converting on the way. Other array-likes (lists,
    other dtypes, data frames) are converted by numpy first. Masked arrays are refused (their
    masked values would be read as data). NaN and infinities are refused by the extension, which
    names the row and column.
    """
    if isinstance(X, np.ma.MaskedArray):
        raise ValueError("X is a masked array: fill or drop the masked values first (no row is dropped silently)")
    try:
        array = np.asarray(X)
        if array.dtype.kind == "O":
            array = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as e:
        ragged = _ragged_row(X)
        if ragged is not None:
            raise ValueError(ragged) from None
        raise ValueError(f"X must be an array of numbers (n_samples, n_features): {e}") from None
    if array.dtype.kind not in "iuf":
        raise ValueError(f"X must be an array of real numbers (n_samples, n_features), got dtype {array.dtype}")
    if array.dtype not in (np.float64, np.float32, np.int64, np.int32):
        array = array.astype(np.float64)
    if array.ndim != 2:
        hint = " (reshape one feature with X.reshape(-1, 1))" if array.ndim == 1 else ""
        raise ValueError(
            f"X must be 2-D, one record per row (n_samples, n_features); got shape {array.shape}{hint}"
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"X has no records or no features: shape {array.shape}")
    return array


def _ragged_row(X):
    """For a sequence of rows of unequal lengths, a message naming the first row whose length
    differs from the first row's; None otherwise."""
    try:
        lengths = [len(row) for row in X]
    except TypeError:
        return None
    for i, length in enumerate(lengths):
        if length != lengths[0]:
            return f"X: row {i} has {length} values, row 0 has {lengths[0]} (every record needs the same features)"
    return None


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


def warn_seeded(seed, stacklevel):
    """A ``UserWarning`` that a fixed seed voids the privacy guarantee, as the command line's
    ``--seed`` says on stderr; issued once the plan and the data are accepted, attributed to the
    frame ``stacklevel`` levels up (the user's call)."""
    warnings.warn(
        f"random_state={seed} fixes the randomness: the release is reproducible and NOT "
        "differentially private (MATH.md 7); use random_state=None for a release you publish",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
