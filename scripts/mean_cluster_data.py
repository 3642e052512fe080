"""Synthetic data of the private mean's cluster runs (docs/performance.md).

    python3 scripts/mean_cluster_data.py OUT N D SEED [ETA DIST]

Writes OUT.csv: N records of N(mu, I_D), mu = 5 / sqrt(D) (1, ..., 1) (|mu| = 5), drawn from
numpy's default_rng(SEED); then round(ETA N) records chosen at random (default ETA = 0.05) are
replaced by a tight cluster mu + DIST e_1 + N(0, 0.01 I) (default DIST = 5). Also writes
OUT.centre.csv, the public centre of a one-stage replay: mu + 0.2 e_2.
"""
import sys

import numpy as np

out, n, d, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
eta = float(sys.argv[5]) if len(sys.argv) > 5 else 0.05
dist = float(sys.argv[6]) if len(sys.argv) > 6 else 5.0
rng = np.random.default_rng(seed)
mu = np.full(d, 5 / np.sqrt(d))
x = mu + rng.standard_normal((n, d))
k = int(round(eta * n))
idx = rng.choice(n, k, replace=False)
e1 = np.zeros(d)
e1[0] = 1.0
x[idx] = mu + dist * e1 + 0.1 * rng.standard_normal((k, d))
np.savetxt(out + ".csv", x, delimiter=",", fmt="%.10g")
centre = mu.copy()
centre[1 % d] += 0.2
np.savetxt(out + ".centre.csv", centre[None, :], delimiter=",", fmt="%.10g")
