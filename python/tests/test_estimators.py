"""The estimators' API: fit returns the estimator, fitted attributes, the release, the plan,
refusals, parameters."""
import json
import re
import warnings

import numpy as np
import pytest

import sosdp
from conftest import gaussian

RELEASE_KEYS = {"estimate", "epsilon", "delta", "plan", "stage_releases", "accuracy", "guarantee"}


def quiet(estimator, X):
    """Fit with a fixed seed, the warning it raises checked and silenced."""
    with pytest.warns(UserWarning, match="NOT differentially private"):
        return estimator.fit(X)


def test_mean_fit_returns_the_estimator_with_its_release():
    X, mu, _ = gaussian(3000, d=3, seed=1, identity=True)
    est = sosdp.PrivateMean(epsilon=1.0, radius=10.0, random_state=5)
    assert quiet(est, X) is est
    assert est.location_.shape == (3,) and est.location_.dtype == np.float64
    assert est.n_features_in_ == 3 and est.n_samples_ == 3000
    assert set(est.release_) == RELEASE_KEYS
    assert est.release_["epsilon"] == 1.0 and est.release_["delta"] == 0.0
    assert "differential privacy" in est.release_["guarantee"]
    # The fitted array is the release's estimate, bit for bit.
    assert est.location_.tolist() == est.release_["estimate"]
    # The release's accuracy bound holds on this seed (it holds with probability 1 - beta).
    bound = est.release_["accuracy"][0]["bound"]
    assert bound is not None and np.linalg.norm(est.location_ - mu) <= bound
    # to_json is the release's text.
    assert json.loads(est.to_json()) == est.release_
    assert not hasattr(est, "diagnostics_")


def test_diagnostics_only_when_asked_and_marked_non_private():
    X, _, _ = gaussian(2000, seed=2)
    est = quiet(sosdp.PrivateMean(1.0, 10.0, random_state=1, diagnostics=True), X)
    assert "NON-PRIVATE" in est.diagnostics_["warning"]
    assert len(est.diagnostics_["steps"]) >= 1
    # The release is the same with or without diagnostics, and never carries them.
    plain = quiet(sosdp.PrivateMean(1.0, 10.0, random_state=1), X)
    assert plain.to_json() == est.to_json()
    assert "NON-PRIVATE" not in est.to_json()
    # Refitting without diagnostics drops the old ones.
    est.set_params(diagnostics=False)
    quiet(est, X)
    assert not hasattr(est, "diagnostics_")


def test_covariance_and_gaussian():
    X, mu, sigma = gaussian(3000, seed=3)
    cov = quiet(sosdp.PrivateCovariance(epsilon=2.0, kappa=10.0, random_state=1), X)
    assert cov.covariance_.shape == (2, 2)
    assert np.allclose(cov.covariance_, cov.covariance_.T)
    assert cov.covariance_.tolist() == cov.release_["estimate"]
    assert abs(cov.covariance_[0, 0] - sigma[0, 0]) < 1.5
    g = quiet(sosdp.PrivateGaussian(epsilon=2.0, radius=5.0, kappa=10.0, random_state=1), X)
    assert g.location_.tolist() == g.release_["estimate"]["mean"]
    assert g.covariance_.tolist() == g.release_["estimate"]["covariance"]
    assert np.linalg.norm(g.location_ - mu) < 0.5
    # The eps shares of the public plan sum to eps.
    plan = g.release_["plan"]
    spent = (
        plan["covariance"]["preconditioner"]["epsilon"]
        + sum(s["epsilon"] for s in plan["covariance"]["refinement"])
        + sum(s["epsilon"] for s in plan["mean"]["schedule"]["stages"])
    )
    assert abs(spent - 2.0) < 1e-9


def needed(message):
    """The records a refusal names ("... needs about N records ...")."""
    match = re.search(r"needs about (\d+) records", message)
    assert match, message
    return int(match.group(1))


def test_the_plan_needs_no_data_and_refusals_name_the_records_needed():
    est = sosdp.PrivateMean(epsilon=1.0, radius=10.0)
    plan = est.plan(20000, 10)
    assert plan == json.loads(json.dumps(plan)) and "stages" in json.dumps(plan)
    for refused, n, d in [
        (sosdp.PrivateMean(epsilon=1.0, radius=10.0), 4, 2),
        (sosdp.PrivateCovariance(epsilon=1.0, kappa=100.0, corruption=0.005), 50000, 10),
        (sosdp.PrivateGaussian(epsilon=2.0, radius=10.0, kappa=100.0), 5000, 10),
    ]:
        with pytest.raises(ValueError, match="too few samples") as error:
            refused.plan(n, d)
        more = needed(str(error.value))
        assert more > n
        refused.plan(more, d)  # the size it names is accepted
    # The same refusal from fit, from the shape alone: before the values are read (the NaN is
    # never reached) and before any seed warning.
    X = np.zeros((3, 2))
    X[1, 1] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="too few samples"):
            sosdp.PrivateMean(epsilon=1.0, radius=10.0, random_state=1).fit(X)
    for n, d in [(5, 0), (0, 3)]:
        with pytest.raises(ValueError, match="at least one record and one dimension"):
            est.plan(n, d)
    with pytest.raises(TypeError):
        est.plan(20000.5, 10)
    with pytest.raises(ValueError, match="non-negative"):
        est.plan(-1, 10)


def test_parameters_are_checked_before_the_data():
    bad_x = "not even an array"
    for est, message in [
        (sosdp.PrivateMean(epsilon=-1.0, radius=10.0), "epsilon"),
        (sosdp.PrivateMean(epsilon=1.0), "radius"),
        (sosdp.PrivateMean(epsilon=1.0, delta=1.0), "delta"),
        (sosdp.PrivateGaussian(epsilon=1.0, kappa=5.0), "radius"),
        (sosdp.PrivateGaussian(epsilon=1.0, radius=1.0, condition=10.0), "condition"),
        (sosdp.PrivateMean(epsilon=1.0, radius=0.0), "radius"),
        (sosdp.PrivateMean(epsilon=1.0, radius=1.0, corruption=0.7), "corruption"),
        (sosdp.PrivateMean(epsilon=1.0, radius=1.0, beta=1.5), "beta"),
        (sosdp.PrivateMean(epsilon=1.0, radius=1.0, sampler="layer-cake"), "sampler"),
        (sosdp.PrivateCovariance(epsilon=1.0, kappa=None), "kappa"),
        (sosdp.PrivateGaussian(epsilon=1.0, radius=1.0, kappa=5.0, centring="sometimes"), "centring"),
        (sosdp.PrivateGaussian(epsilon=1.0, radius=1.0, kappa=5.0, preconditioner="triples"), "preconditioner"),
    ]:
        with pytest.raises(ValueError, match=message):
            est.fit(bad_x)


def test_get_params_set_params_and_clone():
    est = sosdp.PrivateGaussian(1.0, 5.0, 10.0, corruption=0.01, centring="planned")
    params = est.get_params()
    assert params["kappa"] == 10.0 and params["centring"] == "planned" and params["random_state"] is None
    again = type(est)(**params)
    assert again.get_params() == params
    assert est.set_params(epsilon=2.0) is est and est.epsilon == 2.0
    with pytest.raises(ValueError, match="no parameter"):
        est.set_params(eps=2.0)
    assert repr(est).startswith("PrivateGaussian(epsilon=2.0, radius=5.0")
    sklearn_base = pytest.importorskip("sklearn.base")
    assert sklearn_base.clone(est).get_params() == est.get_params()


def test_not_fitted():
    with pytest.raises(sosdp.NotFittedError):
        sosdp.PrivateMean(1.0, 1.0).to_json()
    with pytest.raises(AttributeError):
        sosdp.PrivateMean(1.0, 1.0).location_


def test_functions_in_the_style_of_diffprivlib_tools():
    X, mu, sigma = gaussian(3000, seed=4)
    with pytest.warns(UserWarning) as record:
        m = sosdp.mean(X, epsilon=1.0, radius=10.0, random_state=3)
    assert record[0].filename == __file__  # the warning points at this call
    with pytest.warns(UserWarning):
        assert m.tolist() == sosdp.PrivateMean(1.0, 10.0, random_state=3).fit(X).location_.tolist()
    with pytest.warns(UserWarning):
        c = sosdp.covariance(X, epsilon=2.0, kappa=10.0, random_state=3)
    assert c.shape == (2, 2)
    with pytest.raises(TypeError, match="diagnostics"):
        sosdp.mean(X, epsilon=1.0, radius=10.0, diagnostics=True)


def test_seeds_warn_and_os_randomness_does_not():
    X, _, _ = gaussian(2000, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = sosdp.PrivateMean(1.0, 10.0).fit(X).location_
        b = sosdp.PrivateMean(1.0, 10.0).fit(X).location_
    assert a.tolist() != b.tolist()  # fresh randomness each fit
    with pytest.warns(UserWarning, match=r"random_state=7 .*NOT differentially private") as record:
        sosdp.PrivateMean(1.0, 10.0, random_state=7).fit(X)
    assert record[0].filename == __file__  # attributed to the caller of fit
    with pytest.raises(TypeError, match="random_state"):
        sosdp.PrivateMean(1.0, 10.0, random_state=np.random.default_rng(0)).fit(X)
    with pytest.raises(ValueError, match="random_state"):
        sosdp.PrivateMean(1.0, 10.0, random_state=-1).fit(X)


def test_delta_replaces_the_prior_radius_and_a_refusal_is_a_release():
    X, mu, _ = gaussian(3000, d=2, seed=2, identity=True)
    far = X + 1e4
    est = quiet(sosdp.PrivateMean(epsilon=1.0, delta=1e-6, random_state=1), far)
    assert est.release_["delta"] == 1e-6 and "refusal" not in est.release_
    assert est.release_["plan"]["localisation"]["threshold"] > 0
    assert np.linalg.norm(est.location_ - (mu + 1e4)) <= 0.3
    # 100 records: no histogram bin passes its threshold; the release says so, with no estimate.
    small = sosdp.PrivateMean(epsilon=1.0, delta=1e-6, random_state=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        small.fit(far[:100])
    messages = [str(w.message) for w in caught]
    assert any("no estimate" in m and "threshold" in m for m in messages), messages
    assert small.location_ is None and small.release_["estimate"] is None
    assert set(small.release_) == RELEASE_KEYS | {"refusal"}
    # The Gaussian without a radius, with kappa: the localisation's bins are 4 sqrt(kappa) wide.
    g = quiet(sosdp.PrivateGaussian(epsilon=2.0, kappa=4.0, delta=1e-6, random_state=1), far)
    assert g.release_["plan"]["localisation"]["bin_width"] == 8.0
    assert g.location_.shape == (2,) and g.covariance_.shape == (2, 2)
    assert np.linalg.norm(g.location_ - (mu + 1e4)) <= 0.5
    # With `condition` in place of `kappa`, in units nobody wrote down: the scale is found first.
    Y, _, _ = gaussian(8000, d=2, seed=2, identity=True)
    wide = (Y - mu) * 300.0 + mu + 1e6
    c = quiet(sosdp.PrivateGaussian(epsilon=2.0, condition=4.0, delta=1e-6, random_state=1), wide)
    assert c.release_["plan"]["scale"]["condition"] == 4.0
    assert c.release_["stage_releases"][0]["step"].startswith("scale unit")
    assert np.linalg.norm(c.location_ - (mu + 1e6)) <= 0.5 * 300.0
    assert np.all(np.abs(np.diag(c.covariance_) / 300.0**2 - 1.0) <= 0.5)
    # Neither kappa nor condition: condition 1000, with a warning that says so.
    with pytest.warns(UserWarning, match="at most 1000"):
        d = sosdp.PrivateGaussian(epsilon=2.0, delta=1e-6, random_state=1).plan(8000, 2)
    assert d["scale"]["condition"] == 1000.0
    # The covariance alone with `condition`: pure, its scale found privately.
    cov = quiet(sosdp.PrivateCovariance(2.0, condition=4.0, random_state=1), wide)
    assert cov.release_["delta"] == 0.0 and cov.release_["plan"]["scale"]["condition"] == 4.0
    assert np.all(np.abs(np.diag(cov.covariance_) / 300.0**2 - 1.0) <= 0.5)
    with pytest.raises(ValueError, match="not both"):
        sosdp.PrivateGaussian(epsilon=2.0, kappa=4.0, condition=4.0, delta=1e-6).fit(X)


def test_the_preconditioner_on_pairs_or_centred_records():
    # MATH.md 5.2: with a prior radius the preconditioner may run on records centred in every
    # stage; the plan says which (a `centring` entry and a `mean` per stage), and the default
    # ("planned") picks the smaller planned error.
    plans = {
        p: sosdp.PrivateGaussian(2.0, 10.0, 100.0, corruption=0.01, preconditioner=p).plan(100000, 5)
        for p in ["pairs", "records", None]
    }
    pre = {p: plan["covariance"]["preconditioner"] for p, plan in plans.items()}
    assert "centring" not in pre["pairs"] and all("mean" not in s for s in pre["pairs"]["stages"])
    assert "centring" in pre["records"] and all("mean" in s for s in pre["records"]["stages"])
    errors = {p: plan["covariance"]["planned_error"] for p, plan in plans.items()}
    assert errors["records"] < errors["pairs"] and pre[None] == pre["records"]
    cov = sosdp.PrivateCovariance(2.0, 100.0, radius=10.0, preconditioner="records").plan(100000, 5)
    assert "centring" in cov["preconditioner"]
