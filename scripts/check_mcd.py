#!/usr/bin/env python3
"""Cross-check of sosdp's FastMCD (crates/eval/src/mcd.rs) against scikit-learn's MinCovDet.

    python3 -m venv /tmp/mcd-venv && /tmp/mcd-venv/bin/pip install scikit-learn numpy
    cargo build --release -p sosdp-eval --example mcd
    /tmp/mcd-venv/bin/python scripts/check_mcd.py [--example PATH] [--data CSV] [--seeds K]

Data: crates/cli/data/demo.csv by default (shipped; 2000 draws of N(mu, I_5),
mu = (1, -2, 0.5, 0, 3), 5% replaced by a tight cluster at distance 5 along the first axis;
header line). Both implementations are randomized: the script fits MinCovDet with
random_state = 0..K-1 and sosdp with seed 0..K-1 (K = 5 by default) and reports

- sosdp (seed 0) against scikit-learn (random_state = 0): relative differences
  |a - b| / |b| of the locations and |A - B|_F / |B|_F of the covariances (reweighted and raw),
  and the records on which the supports differ;
- the spread of each implementation over its own seeds (the same differences, seed k against
  seed 0), which is the scale the first line should be judged on;
- each estimate's error against the truth (|mu_hat - mu| and |Sigma_hat - I|_F).

Not part of CI (it needs scikit-learn). Output measured: docs/results.md ("FastMCD against
scikit-learn").
"""
import argparse
import json
import os
import subprocess

import numpy as np
import sklearn
from sklearn.covariance import MinCovDet
from sklearn.covariance._robust_covariance import _consistency_factor

TRUE_MEAN = np.array([1.0, -2.0, 0.5, 0.0, 3.0])

parser = argparse.ArgumentParser()
parser.add_argument(
    "--example",
    default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "examples", "mcd"),
    help="the built example (default: $CARGO_TARGET_DIR or target, then release/examples/mcd)",
)
parser.add_argument("--data", default="crates/cli/data/demo.csv")
parser.add_argument("--seeds", type=int, default=5)
args = parser.parse_args()

x = np.loadtxt(args.data, delimiter=",", skiprows=1)
n, d = x.shape


def sosdp(seed):
    out = subprocess.run(
        [args.example, args.data, str(seed), "--header"], check=True, capture_output=True, text=True
    ).stdout
    fit = json.loads(out)
    return {
        "location": np.array(fit["location"]),
        "covariance": np.array(fit["covariance"]),
        "raw_location": np.array(fit["raw_location"]),
        "raw_covariance": np.array(fit["raw_covariance"]),
        "raw_support": set(fit["raw_support"]),
        "support": set(fit["support"]),
    }


def sklearn_fit(seed):
    m = MinCovDet(random_state=seed).fit(x)
    # raw_covariance_ is stored before the consistency factor (scikit-learn applies it to the
    # distances that select the reweighted records); sosdp stores it after.
    factor = _consistency_factor(d, m.raw_support_.sum() / n)
    return {
        "location": m.location_,
        "covariance": m.covariance_,
        "raw_location": m.raw_location_,
        "raw_covariance": m.raw_covariance_ * factor,
        "raw_support": set(np.flatnonzero(m.raw_support_)),
        "support": set(np.flatnonzero(m.support_)),
    }


def compare(a, b):
    rel = lambda u, v: np.linalg.norm(u - v) / np.linalg.norm(v)
    return (
        f"location {rel(a['location'], b['location']):.4f}, covariance {rel(a['covariance'], b['covariance']):.4f}, "
        f"raw location {rel(a['raw_location'], b['raw_location']):.4f}, raw covariance {rel(a['raw_covariance'], b['raw_covariance']):.4f}; "
        f"supports differ on {len(a['support'] ^ b['support'])} records (of {len(b['support'])}), "
        f"raw supports on {len(a['raw_support'] ^ b['raw_support'])} (of {len(b['raw_support'])})"
    )


def truth(a, label):
    corrupted = set(range(n)) - set(
        i for i in range(n) if np.linalg.norm(x[i] - TRUE_MEAN - np.array([5.0, 0, 0, 0, 0])) > 0.5
    )
    kept = len(corrupted & a["support"])
    return (
        f"{label}: |mu_hat - mu| = {np.linalg.norm(a['location'] - TRUE_MEAN):.4f}, "
        f"|Sigma_hat - I|_F = {np.linalg.norm(a['covariance'] - np.eye(d)):.4f}, "
        f"support {len(a['support'])}, cluster records in it {kept} of {len(corrupted)}"
    )


print(f"data {args.data}: n = {n}, d = {d}; scikit-learn {sklearn.__version__}, numpy {np.__version__}")
ours = [sosdp(k) for k in range(args.seeds)]
theirs = [sklearn_fit(k) for k in range(args.seeds)]
emp = {"location": x.mean(0), "covariance": np.cov(x.T), "support": set(range(n))}
print("sosdp seed 0 against scikit-learn random_state 0:", compare(ours[0], theirs[0]))
for k in range(1, args.seeds):
    print(f"sosdp seed {k} against sosdp seed 0:", compare(ours[k], ours[0]))
for k in range(1, args.seeds):
    print(f"scikit-learn random_state {k} against random_state 0:", compare(theirs[k], theirs[0]))
print(truth(ours[0], "sosdp seed 0"))
print(truth(theirs[0], "scikit-learn random_state 0"))
print(truth(emp, "empirical"))
