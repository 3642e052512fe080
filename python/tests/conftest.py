"""Shared data and the command-line tool for the package's tests."""
import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def gaussian(n, d=2, seed=0, identity=False):
    """n records of N(mu, Sigma) in R^d with mu = (1, -1, 0, ...) and Sigma = A A^T for a fixed A
    (the command-line tests' [[4, 2], [2, 2]] at d = 2), or Sigma = I with ``identity``."""
    rng = np.random.default_rng(seed)
    a = np.eye(d)
    if not identity:
        a[0, 0] = 2.0
    if d > 1 and not identity:
        a[1, 0], a[1, 1] = 1.0, 1.0
    mu = np.zeros(d)
    mu[0] = 1.0
    if d > 1:
        mu[1] = -1.0
    return rng.normal(size=(n, d)) @ a.T + mu, mu, a @ a.T


@pytest.fixture(scope="session")
def cli():
    """The `sosdp` binary: $SOSDP_CLI, else this checkout's target/release/sosdp (built by
    `cargo build --release`, as scripts/test-python.sh does)."""
    path = os.environ.get("SOSDP_CLI")
    candidate = REPO / "target" / "release" / "sosdp"
    if not path and candidate.exists():
        path = str(candidate)
    if not path:
        pytest.fail(
            "the sosdp command-line tool is needed to compare releases: run "
            "`cargo build --release --bin sosdp` in the repository, or set SOSDP_CLI"
        )
    return path
