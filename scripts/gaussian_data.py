"""Synthetic Gaussian data for the covariance/Gaussian runs of docs/learners.md.

    python3 scripts/gaussian_data.py OUT N D COND SEED [none|far|cluster ETA] [--scale S] [--mean-norm M]

Writes OUT.csv (N records of N(mu, Sigma), |mu| = M (default 5) with equal coordinates,
Sigma = Q diag(geomspace(S / COND, S, D)) Q^T (S default COND: eigenvalues 1 to COND) with Q
a random rotation from numpy's
default_rng(1000 + SEED)) and OUT.truth.json (mu, Sigma, the empirical mean and covariance).
A fraction ETA of the records (chosen at random) is replaced by: far, points 15 standard
deviations out along the thinnest direction (+ N(0, 0.01 I) jitter); cluster, a tight cluster
6 Mahalanobis units out along it (+ N(0, 1e-4 I) jitter).
"""
import json
import sys

import numpy as np

argv = sys.argv[1:]
options = {"--scale": None, "--mean-norm": 5.0}
for flag in options:
    if flag in argv:
        i = argv.index(flag)
        options[flag] = float(argv[i + 1])
        del argv[i : i + 2]
sys.argv = sys.argv[:1] + argv
out, n, d, cond, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
adversary = sys.argv[6] if len(sys.argv) > 6 else "none"
eta = float(sys.argv[7]) if len(sys.argv) > 7 else 0.0
rng = np.random.default_rng(1000 + seed)
q, _ = np.linalg.qr(rng.standard_normal((d, d)))
scale = cond if options["--scale"] is None else options["--scale"]
ev = np.geomspace(scale / cond, scale, d)
sigma = q @ np.diag(ev) @ q.T
mu = np.full(d, options["--mean-norm"] / np.sqrt(d))
x = mu + rng.standard_normal((n, d)) @ np.diag(np.sqrt(ev)) @ q.T
k = int(round(eta * n))
idx = rng.choice(n, k, replace=False)
thin = q[:, 0]
if adversary == "far":
    x[idx] = mu + 15 * np.sqrt(ev[0]) * thin + 0.1 * rng.standard_normal((k, d))
if adversary == "cluster":
    x[idx] = mu + 6 * np.sqrt(ev[0]) * thin + 0.01 * rng.standard_normal((k, d))
np.savetxt(out + ".csv", x, delimiter=",", fmt="%.10g")
truth = {"mu": mu.tolist(), "sigma": sigma.tolist(), "emp_cov": np.cov(x.T).tolist(), "emp_mean": x.mean(0).tolist()}
json.dump(truth, open(out + ".truth.json", "w"))
