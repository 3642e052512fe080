"""What X may be: array-likes of floats in any order, float32 upcast; what it may not be."""
import numpy as np
import pytest

import sosdp
from conftest import gaussian


def fit_json(X, seed=11):
    with pytest.warns(UserWarning):
        return sosdp.PrivateMean(1.0, 10.0, random_state=seed).fit(X).to_json()


def test_orders_views_dtypes_and_lists_give_the_same_release():
    X, _, _ = gaussian(2000, d=3, seed=6)
    X = X.astype(np.float32).astype(np.float64)  # exactly representable in float32
    reference = fit_json(X)
    assert fit_json(np.asfortranarray(X)) == reference
    assert fit_json(X.astype(np.float32)) == reference
    assert fit_json(X.tolist()) == reference
    wide = np.zeros((2000, 6))
    wide[:, ::2] = X
    assert fit_json(wide[:, ::2]) == reference  # a strided view, not contiguous
    # Non-vacuity: another seed or other data give another release.
    assert fit_json(X, seed=12) != reference
    assert fit_json(X[::-1] + 1.0) != reference


def test_integers_are_converted():
    X = np.round(gaussian(2000, seed=7)[0]).astype(np.int64)
    reference = fit_json(X.astype(np.float64))
    for dtype in (np.int64, np.int32, np.int16, np.uint8 if X.min() >= 0 else np.int8):
        assert fit_json(X.astype(dtype)) == reference


def test_arrays_the_extension_reads_are_passed_on_uncopied():
    from sosdp._input import as_records

    X = np.ones((10, 3))
    for array in (X, np.asfortranarray(X), X.astype(np.float32), X.astype(np.int64), X.astype(np.int32), X[:, ::2]):
        assert as_records(array) is array
    assert as_records(X.astype(np.int16)) is not None  # converted by numpy first


def test_masked_arrays_and_ragged_rows_are_refused():
    with pytest.raises(ValueError, match="masked"):
        sosdp.PrivateMean(1.0, 10.0).fit(np.ma.masked_array(np.ones((10, 2)), mask=False))
    with pytest.raises(ValueError, match="row 2 has 1 values, row 0 has 2"):
        sosdp.PrivateMean(1.0, 10.0).fit([[1.0, 2.0], [3.0, 4.0], [5.0]])


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_values_name_their_row_and_column(value):
    X, _, _ = gaussian(500, seed=8)
    X[3, 1] = value
    for data in (X, X.astype(np.float32), np.asfortranarray(X)):
        with pytest.raises(ValueError, match=r"row 3, column 1"):
            sosdp.PrivateMean(1.0, 10.0).fit(data)


@pytest.mark.parametrize(
    "X, message",
    [
        (np.zeros(10), r"2-D.*X.reshape\(-1, 1\)"),
        (np.zeros((2, 3, 4)), "2-D"),
        (np.zeros((0, 3)), "no records"),
        (np.zeros((5, 0)), "no records"),
        ([["a", "b"], ["c", "d"]], "numbers"),
        (np.zeros((4, 2), dtype=complex), "numbers"),
    ],
)
def test_wrong_shapes_and_types_are_refused(X, message):
    with pytest.raises(ValueError, match=message):
        sosdp.PrivateMean(1.0, 10.0).fit(X)
