"""A notebook-sized comparison: a private mean and covariance of a table with a corrupted
fraction of its rows, next to the empirical (non-private, non-robust) estimates.

Run: python python/examples/robust_mean_and_covariance.py  (about a minute on one core)
"""
import numpy as np

import sosdp

rng = np.random.default_rng(2026)

# 10000 records of N(mu, I_5), 3% of them replaced by a tight cluster 5 units away.
d, n, eta = 5, 10000, 0.03
mu = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
X = rng.normal(size=(n, d)) + mu
bad = int(eta * n)
X[:bad] = mu + 5.0 * np.eye(d)[0] + 0.1 * rng.normal(size=(bad, d))

est = sosdp.PrivateMean(epsilon=1.0, radius=20.0, corruption=eta).fit(X)
bound = est.release_["accuracy"][0]
print(f"mean, {bad} of {n} records corrupted, eps = 1 (pure DP):")
print(f"  sosdp      error {np.linalg.norm(est.location_ - mu):.3f}  (bound {bound['bound']:.3f} w.p. {bound['probability']})")
print(f"  empirical  error {np.linalg.norm(X.mean(axis=0) - mu):.3f}  (not private)")

# The covariance of N(0, Sigma) in R^2 with Sigma = [[4, 2], [2, 2]], 1% of the records far out.
a = np.array([[2.0, 0.0], [1.0, 1.0]])
sigma = a @ a.T
Y = rng.normal(size=(8000, 2)) @ a.T
Y[:80] = [30.0, -30.0]
cov = sosdp.PrivateCovariance(epsilon=2.0, kappa=20.0, corruption=0.01).fit(Y)


def mahalanobis_frobenius(estimate):
    """|Sigma^-1/2 estimate Sigma^-1/2 - I|_F, the covariance's error in total variation's scale."""
    w = np.linalg.inv(np.linalg.cholesky(sigma))
    return np.linalg.norm(w @ estimate @ w.T - np.eye(2))


print("covariance, 80 of 8000 records far out, eps = 2:")
print(f"  sosdp      error {mahalanobis_frobenius(cov.covariance_):.3f}")
print(f"  empirical  error {mahalanobis_frobenius(np.cov(Y.T)):.3f}  (not private)")
try:
    from sklearn.covariance import MinCovDet

    mcd = MinCovDet(random_state=0).fit(Y).covariance_
    print(f"  MinCovDet  error {mahalanobis_frobenius(mcd):.3f}  (robust, not private)")
except ImportError:
    pass
