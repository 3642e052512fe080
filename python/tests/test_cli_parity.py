"""The Python release is the command line's, byte for byte, for the same data and seed."""
import subprocess

import numpy as np
import pytest

import sosdp
from conftest import gaussian


def cli_release(cli, tmp_path, X, args):
    path = tmp_path / "x.csv"
    np.savetxt(path, X, delimiter=",", fmt="%.17g")
    out = subprocess.run(
        [cli, *args, "--input", str(path), "--seed", "3"], capture_output=True, text=True, check=True
    )
    assert "NOT differentially private" in out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize(
    "estimator, args, n",
    [
        (sosdp.PrivateMean(1.0, 10.0, 0.02, random_state=3), ["mean", "--epsilon", "1", "--radius", "10", "--corruption", "0.02"], 3000),
        (sosdp.PrivateCovariance(2.0, 10.0, random_state=3), ["covariance", "--epsilon", "2", "--kappa", "10"], 3000),
        (
            sosdp.PrivateGaussian(2.0, 5.0, 10.0, beta=0.1, random_state=3, sampler="mala"),
            ["gaussian", "--epsilon", "2", "--kappa", "10", "--radius", "5", "--beta", "0.1", "--sampler", "mala"],
            3000,
        ),
        (sosdp.PrivateMean(1.0, delta=1e-6, random_state=3), ["mean", "--epsilon", "1", "--delta", "1e-6"], 3000),
        (
            sosdp.PrivateGaussian(2.0, kappa=10.0, delta=1e-6, random_state=3),
            ["gaussian", "--epsilon", "2", "--kappa", "10", "--delta", "1e-6"],
            3000,
        ),
        (
            sosdp.PrivateGaussian(2.0, condition=10.0, delta=1e-6, random_state=3),
            ["gaussian", "--epsilon", "2", "--condition", "10", "--delta", "1e-6"],
            8000,
        ),
    ],
    ids=["mean", "covariance", "gaussian", "mean-delta", "gaussian-delta", "gaussian-condition"],
)
def test_same_release_as_the_command_line(cli, tmp_path, estimator, args, n):
    X, _, _ = gaussian(n, seed=9)
    with pytest.warns(UserWarning):
        text = estimator.fit(X).to_json()
    assert text == cli_release(cli, tmp_path, X, args)
    # Non-vacuity: the command line with another seed releases something else.
    other = subprocess.run(
        [cli, *args, "--input", str(tmp_path / "x.csv"), "--seed", "4"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert other != text


def test_the_plan_is_the_release_plan():
    X, _, _ = gaussian(3000, seed=10)
    est = sosdp.PrivateGaussian(2.0, 5.0, 10.0, random_state=1)
    with pytest.warns(UserWarning):
        est.fit(X)
    assert est.plan(3000, 2) == est.release_["plan"]
