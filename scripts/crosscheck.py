#!/usr/bin/env python3
"""Independent cross-check of `sosdp score mean` (CM, MATH.md 2.1) and
`sosdp score spectral` (SP, MATH.md 2.2) against a Python/cvxpy implementation.

How to run (from the repository root, with the CLI already built):

    pip install cvxpy scs numpy scipy
    python3 scripts/crosscheck.py --cli target/release/sosdp

Options: --solver SCS (default; CLARABEL / CVXOPT also accepted, CVXOPT is slow
at n=2000 and often stops with an error on these formulations), --eps 1e-8
(SCS eps_abs = eps_rel; if the certified bracket below is wider than 1e-7
relative, the solve is repeated once at eps/10; time limits 30 s and 120 s),
--quick (n in {50, 200} only), --only CM|SP, --tol 1e-4 (pass threshold on the
relative difference), --failures DIR (where the CSVs of failing instances are
kept; default scripts/crosscheck_failures).

The Python side is written from the formulas only (not from the Rust sources):

CM(theta) = n - max sum a  s.t. 0<=a<=1,
    [[n G I - sum a_i v_i v_i^T, n(theta-c) - sum a_i v_i],
     [(.)^T,                      n - sum a_i          ]] >= 0,   v_i = z_i - c,
  = n when ||theta-c||^2/G > 1.  Solved with the LMI divided by n, as a PSD
  variable M with the linear equality vec(M) = vec(B/n) - K a.

SP(S) = min t s.t. 0<=a_i<=u_i=min(1, lambda/(x_i^T S^-1 x_i)), t >= n - sum a,
    P_a <= (1+w) n S,  P_a + t lambda S >= (1-w) n S,   P_a = sum a_i x_i x_i^T.
  Solved after the congruence by L^{-1} (S = L L^T, y_i = L^{-1} x_i), which is
  an exact equivalence and removes the conditioning of S, with the LMIs divided
  by n, and in the variables b = a/u in [0,1], tau = t/n (again an exact change
  of variables; without it SCS stalls or stops inaccurate on many instances).

Besides the solver's value, each Python evaluation returns a *certified*
bracket [py_lo, py_hi] (independent of solver tolerance, up to floating-point
eigenvalue error): py_hi from an exactly feasible primal point (the solver's
point clipped to the box and pulled back into the LMI), py_lo from the weak
dual bound of the solver's (PSD-projected) dual matrices.

The Python reference value py is the midpoint of that certified bracket when
its width is <= 1e-6 relative (almost always), else the solver's objective if
it lies inside the bracket, else the midpoint (and the row says "py bracket
loose"; then rel is only meaningful down to the bracket width).  SCS at
eps 1e-9 is accurate but its run time is erratic (seconds to minutes on SP);
at eps 1e-8 it is fast and its iterates already give certified brackets of
width ~1e-12 .. 1e-8, hence the adaptive scheme above.

Instances (fixed seeds): n in {50, 200, 1000, 2000} x D in {1, 2, 5, 10}.
  CM: z ~ N(m, I) with 5% outliers at distance U(3, 10) from m; c = m + small
      offset; G = 1.5 + |m-c|^2 + U(0, 1.5); theta = c + r sqrt(G) u for
      r in {0, .3, .6, .9, .99} (random unit u), the sample mean, a point near
      m, and one point outside the domain (r = 1.2, score n, in_domain false).
  SP: x ~ N(0, Sigma) with 5% outliers at Mahalanobis distance U(3, 10);
      Sigma near I or with condition number 1e4 (d=1: Sigma = 37); width
      U(.3, .5); lambda = d + U(2, 4) or the MATH.md 2.2 value (beta = 0.1);
      S in {Sigma, clean sample covariance, 1.4 Sigma, 0.75 Sigma, and a
      random SPD near I (Sigma near I) or an unrelated SPD of condition 1e6}.
Table columns: cli score, python reference, rel, bviol, cviol, pywidth
(certified Python bracket width, relative), CLI and Python wall times (s).

Checks per instance:
  rel   = |cli.score - py| / max(1, |py|)              (pass if <= tol)
  bviol = distance of py from the CLI's [lower, upper]  (solver-tolerance level)
  cviol = gap between the CLI bracket and the certified Python bracket
          (both certified: must overlap; any positive gap > 1e-6*max(1,|py|)
           is a failure)
Prints a table and a summary line; exits 1 if any check fails.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import cvxpy as cp
from scipy.linalg import solve_triangular

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------
# CSV / CLI helpers
# --------------------------------------------------------------------------
def write_csv(path, arr):
    arr = np.atleast_2d(np.asarray(arr, dtype=float))
    np.savetxt(path, arr, delimiter=",", fmt="%.17g")


def run_cli(cli, args):
    t0 = time.time()
    p = subprocess.run([cli] + args, capture_output=True, text=True, timeout=600)
    dt = time.time() - t0
    if p.returncode != 0:
        return {"error": (p.stderr or p.stdout).strip()[:300]}, dt
    try:
        return json.loads(p.stdout.strip().splitlines()[-1]), dt
    except Exception as e:  # noqa: BLE001
        return {"error": "bad json: %s: %r" % (e, p.stdout[:300])}, dt


def solver_kwargs(solver, eps, time_limit=None):
    if solver == "SCS":
        kw = dict(solver="SCS", eps_abs=eps, eps_rel=eps, eps_infeas=1e-12,
                  max_iters=500000)
        if time_limit:
            kw["time_limit_secs"] = time_limit
        return kw
    if solver == "CVXOPT":
        t = max(eps, 1e-8)
        return dict(solver="CVXOPT", abstol=t, reltol=t, feastol=t, max_iters=300)
    if solver == "CLARABEL":
        return dict(solver="CLARABEL")
    raise ValueError(solver)


def psd_part(Y):
    Y = 0.5 * (Y + Y.T)
    w, Q = np.linalg.eigh(Y)
    return (Q * np.maximum(w, 0.0)) @ Q.T


def sym_from_vec(y, m):
    Y = np.asarray(y, dtype=float).reshape((m, m), order="F")
    return 0.5 * (Y + Y.T)


# --------------------------------------------------------------------------
# CM score
# --------------------------------------------------------------------------
def cm_python(Z, c, G, theta, skw):
    n, D = Z.shape
    d = theta - c
    if float(d @ d) / G > 1.0:
        return dict(value=float(n), lo=float(n), hi=float(n), in_domain=False,
                    status="out_of_domain", time=0.0)
    V = Z - c
    H = np.hstack([V, np.ones((n, 1))])                       # zh_i = [v_i; 1]
    m = D + 1
    K = np.einsum("ni,nj->ijn", H, H).reshape(m * m, n) / n   # vec(zh zh^T)/n (col-major == row-major, symmetric)
    Bh = np.block([[G * np.eye(D), d[:, None]], [d[None, :], np.ones((1, 1))]])  # B/n
    a = cp.Variable(n)
    M = cp.Variable((m, m), PSD=True)
    eq = cp.vec(M, order="F") == Bh.flatten(order="F") - K @ a
    prob = cp.Problem(cp.Maximize(cp.sum(a)), [a >= 0, a <= 1, eq])
    t0 = time.time()
    try:
        prob.solve(**skw)
    except cp.error.SolverError as e:
        return dict(value=np.nan, lo=np.nan, hi=np.nan, in_domain=True,
                    status="solver_error: %s" % e, time=time.time() - t0)
    dt = time.time() - t0
    value = n - prob.value if prob.value is not None else np.nan

    # certified upper bound on CM: feasible a' = (1-s) clip(a)
    hi = np.nan
    if a.value is not None:
        av = np.clip(a.value, 0.0, 1.0)
        beta = np.linalg.eigvalsh(Bh)[0]
        lmin = np.linalg.eigvalsh(Bh - (K @ av).reshape(m, m, order="F"))[0]
        s = 0.0
        if lmin < 0:
            s = min(1.0, (-lmin) / (beta - lmin) * (1 + 1e-9) + 1e-15)
        ap = (1 - s) * av
        lchk = np.linalg.eigvalsh(Bh - (K @ ap).reshape(m, m, order="F"))[0]
        if lchk >= -1e-13 * max(1.0, G):
            hi = n - float(ap.sum())
        else:
            hi = float(n)  # a = 0 is always feasible inside the domain
    # certified lower bound on CM: weak duality with Y >= 0 and best scale alpha
    lo = np.nan
    if eq.dual_value is not None:
        best = float(n)
        for sgn in (1.0, -1.0):
            Y = psd_part(sgn * sym_from_vec(eq.dual_value, m))
            q = (K.T @ Y.flatten(order="F"))      # <k_i, Y> >= 0
            b = float(np.sum(Bh * Y))
            best = min(best, min_hinge(b, q))
        lo = n - best
    return dict(value=float(value), lo=float(lo), hi=float(hi), in_domain=True,
                status=prob.status, time=dt)


def width_ok(r, rtol=1e-7):
    return (np.isfinite(r["lo"]) and np.isfinite(r["hi"])
            and r["hi"] - r["lo"] <= rtol * max(1.0, abs(r["hi"])))


def adaptive(fn, args, skw_list):
    """Solve with the first settings; tighten until the certified bracket is tight."""
    best, total, used = None, 0.0, []
    for skw in skw_list:
        r = fn(*args, skw)
        total += r["time"]
        used.append("%s:%s" % (skw.get("eps_abs", "-"), r["status"]))
        if best is None or not width_ok(best, np.inf) or (
                width_ok(r, np.inf) and r["hi"] - r["lo"] < best["hi"] - best["lo"]):
            best = r
        if width_ok(r) or r["status"] == "out_of_domain":
            break
    best = dict(best)
    best["time"] = total
    best["attempts"] = used
    return best


def min_hinge(b, q):
    """min over alpha >= 0 of alpha*b + sum_i max(0, 1 - alpha*q_i) (q_i >= 0)."""
    n = len(q)
    best = float(n)  # alpha = 0
    pos = q > 0
    qs = np.sort(q[pos])[::-1]                  # descending q -> ascending breakpoints
    if len(qs) == 0:
        return best
    alphas = 1.0 / qs
    # at alpha_j the active terms are those with alpha_i > alpha_j, i.e. index > j
    suf_cnt = np.arange(len(qs) - 1, -1, -1, dtype=float)
    cs = np.cumsum(qs[::-1])[::-1]              # suffix sums including j
    suf_q = np.concatenate([cs[1:], [0.0]])
    zero_q = float(np.sum(~pos))                # terms with q_i = 0 contribute 1 always
    f = alphas * b + suf_cnt - alphas * suf_q + zero_q
    return min(best, float(f.min()))


# --------------------------------------------------------------------------
# SP score
# --------------------------------------------------------------------------
def sp_python(X, S, lam, w, skw):
    n, d = X.shape
    S = 0.5 * (S + S.T)
    Lc = np.linalg.cholesky(S)
    Y = solve_triangular(Lc, X.T, lower=True).T          # y_i = L^{-1} x_i
    lev = np.einsum("ni,ni->n", Y, Y)                     # x_i^T S^{-1} x_i
    u = np.where(lev > 0, np.minimum(1.0, lam / np.where(lev > 0, lev, 1.0)), 1.0)
    K = np.einsum("ni,nj->ijn", Y, Y).reshape(d * d, n) / n
    I = np.eye(d).flatten(order="F")
    # Variables b = a/u in [0,1] and tau = t/n (same program, better scaled: the columns
    # u_i y_i y_i^T / n are bounded by lambda/n; without this SCS stalls on some instances).
    Ku = K * u
    b = cp.Variable(n)
    tau = cp.Variable()
    M1 = cp.Variable((d, d), PSD=True)
    M2 = cp.Variable((d, d), PSD=True)
    e1 = cp.vec(M1, order="F") == (1 + w) * I - Ku @ b
    e2 = cp.vec(M2, order="F") == Ku @ b + lam * tau * I - (1 - w) * I
    cons = [b >= 0, b <= 1, tau >= 1 - (u / n) @ b, e1, e2]
    prob = cp.Problem(cp.Minimize(tau), cons)
    t0 = time.time()
    try:
        prob.solve(**skw)
    except cp.error.SolverError as e:
        return dict(value=np.nan, lo=np.nan, hi=np.nan, status="solver_error: %s" % e,
                    time=time.time() - t0)
    dt = time.time() - t0
    value = n * prob.value if prob.value is not None else np.nan
    a_value = None if b.value is None else u * b.value

    hi = np.nan
    if a_value is not None:
        av = np.clip(a_value, 0.0, u)
        P = (K @ av).reshape(d, d, order="F")
        lmax = np.linalg.eigvalsh(P)[-1]
        if lmax > 1 + w:
            av = av * ((1 + w) / lmax) * (1 - 1e-14)
            P = (K @ av).reshape(d, d, order="F")
        lmin = np.linalg.eigvalsh(P)[0]
        hi = max(n - float(av.sum()), ((1 - w) - lmin) * n / lam)
    lo = np.nan
    if e1.dual_value is not None and e2.dual_value is not None:
        best = -np.inf
        for s1 in (1.0, -1.0):
            for s2 in (1.0, -1.0):
                # duals of the tau-program are 1/n times those of the t-program with LMIs / n
                U = psd_part(s1 * n * sym_from_vec(e1.dual_value, d))
                Vd = psd_part(s2 * n * sym_from_vec(e2.dual_value, d))
                trV = np.trace(Vd)
                if lam / n * trV > 1:
                    Vd = Vd * (n / (lam * trV))
                    trV = np.trace(Vd)
                nu = max(0.0, 1 - lam / n * trV)
                cvec = K.T @ (U - Vd).flatten(order="F") - nu
                g = (-(1 + w) * np.trace(U) + (1 - w) * trV + nu * n
                     + float(np.sum(u * np.minimum(0.0, cvec))))
                best = max(best, g)
        lo = best
    return dict(value=float(value), lo=float(lo), hi=float(hi), status=prob.status, time=dt)


# --------------------------------------------------------------------------
# instances
# --------------------------------------------------------------------------
def rand_unit(rng, D):
    u = rng.normal(size=D)
    return u / np.linalg.norm(u)


def gaussian_with_outliers(rng, n, mean, Sig_half, frac=0.05):
    D = len(mean)
    X = rng.normal(size=(n, D)) @ Sig_half.T + mean
    k = int(round(frac * n))
    idx = rng.choice(n, size=k, replace=False)
    for i in idx:
        X[i] = mean + Sig_half @ (rng.uniform(3, 10) * rand_unit(rng, D))
    return X, idx


def random_spd_near_identity(rng, d, eps=0.2):
    A = rng.normal(size=(d, d))
    A = 0.5 * (A + A.T) / np.sqrt(d)
    w, Q = np.linalg.eigh(np.eye(d) + eps * A)
    w = np.maximum(w, 0.3)
    return (Q * w) @ Q.T


def random_ill(rng, d, cond):
    Q, _ = np.linalg.qr(rng.normal(size=(d, d)))
    w = np.logspace(-0.5 * np.log10(cond), 0.5 * np.log10(cond), d) if d > 1 else np.array([cond])
    return (Q * w) @ Q.T


def msqrt(S):
    w, Q = np.linalg.eigh(S)
    return (Q * np.sqrt(np.maximum(w, 0))) @ Q.T


def cm_instances(ns, Ds, seed):
    out = []
    for n in ns:
        for D in Ds:
            rng = np.random.default_rng([seed, 1, n, D])
            m = rng.normal(size=D)
            Z, _ = gaussian_with_outliers(rng, n, m, np.eye(D))
            off = 0.3 * rng.normal(size=D) / np.sqrt(D)
            c = m + off
            G = float(1.5 + off @ off + rng.uniform(0, 1.5))
            clean_mean = Z.mean(axis=0)
            thetas = []
            for r in (0.0, 0.3, 0.6, 0.9, 0.99):
                thetas.append(("r=%g" % r, c + r * np.sqrt(G) * rand_unit(rng, D)))
            thetas.append(("mean", clean_mean if np.sum((clean_mean - c) ** 2) / G < 0.95 else c))
            thetas.append(("near-m", m + 0.05 * rand_unit(rng, D)))
            thetas.append(("out1.2", c + 1.2 * np.sqrt(G) * rand_unit(rng, D)))
            for tag, th in thetas:
                out.append(dict(kind="CM", n=n, D=D, tag=tag, Z=Z, c=c, G=G, theta=th))
    return out


def sp_instances(ns, ds, seed):
    out = []
    for n in ns:
        for d in ds:
            for sigtype in ("nearI", "ill"):
                rng = np.random.default_rng([seed, 2, n, d, 0 if sigtype == "nearI" else 1])
                if sigtype == "nearI":
                    Sig = random_spd_near_identity(rng, d)
                else:
                    Sig = random_ill(rng, d, 1e4) if d > 1 else np.array([[37.0]])
                X, out_idx = gaussian_with_outliers(rng, n, np.zeros(d), msqrt(Sig))
                w = float(rng.uniform(0.3, 0.5))
                L = np.log(n / 0.1)
                lam_spec = (d + 2 * np.sqrt(d * L) + 2 * L) / (1 - w / 2)
                lam_small = d + rng.uniform(2, 4)
                clean = np.delete(X, out_idx, axis=0)
                Ss = [("Sigma", Sig, lam_spec),
                      ("sampleCov", clean.T @ clean / len(clean), lam_small),
                      ("1.4Sigma", 1.4 * Sig, lam_spec),
                      ("0.75Sigma", 0.75 * Sig, lam_small)]
                if sigtype == "nearI":
                    Ss.append(("randSPD", random_spd_near_identity(rng, d, 0.5), lam_small))
                else:
                    Ss.append(("illSPD", random_ill(rng, d, 1e6) if d > 1 else np.array([[1e-3]]), lam_spec))
                for tag, S, lam in Ss:
                    S = 0.5 * (S + S.T)
                    out.append(dict(kind="SP", n=n, D=d, tag="%s/%s" % (sigtype, tag), X=X, S=S,
                                    lam=float(lam), w=w))
    return out


# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=os.path.join(REPO, "target/release/sosdp"))
    ap.add_argument("--solver", default="SCS")
    ap.add_argument("--eps", type=float, default=1e-8)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["CM", "SP"], default=None)
    ap.add_argument("--failures", default=os.path.join(REPO, "scripts", "crosscheck_failures"))
    args = ap.parse_args()

    if not os.path.exists(args.cli):
        print("CLI not found: %s" % args.cli, file=sys.stderr)
        return 2
    warnings.filterwarnings("ignore", message="Solution may be inaccurate")
    if args.solver == "SCS":
        skw = [solver_kwargs("SCS", args.eps, 30), solver_kwargs("SCS", args.eps / 10, 120)]
    else:
        skw = [solver_kwargs(args.solver, args.eps)]
    ns = [50, 200] if args.quick else [50, 200, 1000, 2000]
    Ds = [1, 2, 5, 10]
    insts = []
    if args.only in (None, "CM"):
        insts += cm_instances(ns, Ds, args.seed)
    if args.only in (None, "SP"):
        insts += sp_instances(ns, Ds, args.seed)

    T0 = time.time()
    tmp = tempfile.mkdtemp(prefix="sosdp_crosscheck_")
    rows = []
    hdr = ("%-4s %5s %3s %-20s %14s %14s %9s %9s %9s %9s %6s %6s %s" %
           ("kind", "n", "D", "instance", "cli", "python", "rel", "bviol", "cviol", "pywidth",
            "t_cli", "t_py", "status"))
    print(hdr)
    print("-" * len(hdr))
    n_fail = 0
    for k, ins in enumerate(insts):
        dd = os.path.join(tmp, "i%04d" % k)
        os.makedirs(dd)
        if ins["kind"] == "CM":
            write_csv(os.path.join(dd, "X.csv"), ins["Z"])
            write_csv(os.path.join(dd, "c.csv"), ins["c"][None, :])
            write_csv(os.path.join(dd, "t.csv"), ins["theta"][None, :])
            cargs = ["score", "mean", "--data", os.path.join(dd, "X.csv"), "--center",
                     os.path.join(dd, "c.csv"), "--gamma", repr(ins["G"]), "--theta",
                     os.path.join(dd, "t.csv")]
            py = adaptive(cm_python, (ins["Z"], ins["c"], ins["G"], ins["theta"]), skw)
        else:
            write_csv(os.path.join(dd, "X.csv"), ins["X"])
            write_csv(os.path.join(dd, "S.csv"), ins["S"])
            cargs = ["score", "spectral", "--data", os.path.join(dd, "X.csv"), "--matrix",
                     os.path.join(dd, "S.csv"), "--lambda", repr(ins["lam"]), "--width",
                     repr(ins["w"])]
            py = adaptive(sp_python, (ins["X"], ins["S"], ins["lam"], ins["w"]), skw)
        cli, tcli = run_cli(args.cli, cargs)

        # Python reference value: the midpoint of the certified bracket when it is tight
        # (it is built from the solver's primal/dual points, so it is accurate even when the
        # solver stops with "optimal_inaccurate"); otherwise the solver's objective value.
        notes = [py["status"]] + (["attempts " + ",".join(py["attempts"])] if len(py["attempts"]) > 1 else [])
        raw = py["value"]
        pv = raw
        if np.isfinite(py["lo"]) and np.isfinite(py["hi"]):
            if py["hi"] - py["lo"] <= 1e-6 * max(1.0, abs(py["hi"])):
                pv = 0.5 * (py["lo"] + py["hi"])
            else:
                notes.append("py bracket loose [%.9g, %.9g]" % (py["lo"], py["hi"]))
                if not (np.isfinite(raw) and py["lo"] <= raw <= py["hi"]):
                    pv = 0.5 * (py["lo"] + py["hi"])
        if np.isfinite(raw) and abs(raw - pv) > 1e-6 * max(1.0, abs(pv)):
            notes.append("solver objective %.9g off its certified bracket" % raw)
        scale = max(1.0, abs(pv)) if np.isfinite(pv) else 1.0
        py["reference"] = pv
        if "error" in cli:
            rel = bviol = cviol = np.inf
            notes.append("CLI error: " + cli["error"])
        else:
            cs, clo, chi = float(cli["score"]), float(cli["lower"]), float(cli["upper"])
            rel = abs(cs - pv) / scale if np.isfinite(pv) else np.inf
            bviol = max(0.0, clo - pv, pv - chi) / scale
            cviol = max(0.0, py["lo"] - chi, clo - py["hi"]) / scale if np.isfinite(py["lo"]) and np.isfinite(py["hi"]) else np.nan
            if ins["kind"] == "CM" and bool(cli.get("in_domain")) != py["in_domain"]:
                notes.append("in_domain mismatch (cli %s)" % cli.get("in_domain"))
                rel = max(rel, np.inf)
        pyw = (py["hi"] - py["lo"]) / scale if np.isfinite(py["lo"]) and np.isfinite(py["hi"]) else np.nan
        bad = (not rel <= args.tol) or (np.isfinite(cviol) and cviol > 1e-6)
        n_fail += bad
        tag = ins["tag"]
        print("%-4s %5d %3d %-20s %14.8f %14.8f %9.2e %9.2e %9.2e %9.2e %6.2f %6.2f %s%s" %
              (ins["kind"], ins["n"], ins["D"], tag[:20],
               float(cli.get("score", np.nan)), pv, rel, bviol, cviol, pyw, tcli, py["time"],
               "; ".join(notes), "  <-- FAIL" if bad else ""), flush=True)
        rows.append(dict(kind=ins["kind"], n=ins["n"], D=ins["D"], tag=tag, cli=cli, py=py,
                         rel=rel, bviol=bviol, cviol=cviol, pyw=pyw, bad=bad, tcli=tcli))
        if bad:
            fd = os.path.join(args.failures, "%s_n%d_D%d_%s" % (ins["kind"], ins["n"], ins["D"],
                                                                  tag.replace("/", "_")))
            shutil.rmtree(fd, ignore_errors=True)
            shutil.copytree(dd, fd)
            with open(os.path.join(fd, "README.txt"), "w") as f:
                f.write("sosdp %s\n" % " ".join(cargs).replace(dd, "."))
                f.write("cli: %s\npython(%s): %s\nrel=%g bviol=%g cviol=%g\n" %
                        (json.dumps(cli), args.solver, json.dumps(py), rel, bviol, cviol))
        shutil.rmtree(dd, ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)

    def agg(kind, key):
        v = [r[key] for r in rows if r["kind"] == kind and "error" not in r["cli"]
             and not np.isnan(r[key])]
        return max(v) if v else float("nan")

    errs = [r for r in rows if "error" in r["cli"]]

    ncm = sum(r["kind"] == "CM" for r in rows)
    nsp = sum(r["kind"] == "SP" for r in rows)
    print()
    print("CLI time total %.1fs, python (%s eps=%g) solve time total %.1fs" %
          (sum(r["tcli"] for r in rows), args.solver, args.eps, sum(r["py"]["time"] for r in rows)))
    print("max bracket violation (py value outside CLI [lower,upper], relative): CM %.2e  SP %.2e" %
          (agg("CM", "bviol"), agg("SP", "bviol")))
    print("max certified-bracket gap (CLI vs python certified bracket, relative): CM %.2e  SP %.2e" %
          (agg("CM", "cviol"), agg("SP", "cviol")))
    print("max python certified bracket width (relative): CM %.2e  SP %.2e" % (agg("CM", "pyw"), agg("SP", "pyw")))
    for kind in ("CM", "SP"):
        ok = [r for r in rows if r["kind"] == kind and "error" not in r["cli"]]
        if ok:
            wid = max(float(r["cli"]["upper"]) - float(r["cli"]["lower"]) for r in ok)
            inside = sum(float(r["cli"]["lower"]) <= float(r["cli"]["score"]) <= float(r["cli"]["upper"])
                         for r in ok)
            print("CLI %s: max bracket width upper-lower %.2e (absolute); score inside its own bracket %d/%d"
                  % (kind, wid, inside, len(ok)))
    for r in errs:
        print("CLI error: %s n=%d D=%d %s: %s" % (r["kind"], r["n"], r["D"], r["tag"], r["cli"]["error"]))
    print("SUMMARY: instances %d (CM %d, SP %d); max rel diff CM %.3e, SP %.3e (over CLI successes);"
          " CLI errors %d; failures %d; runtime %.1fs; %s" %
          (len(rows), ncm, nsp, agg("CM", "rel"), agg("SP", "rel"), len(errs), n_fail, time.time() - T0,
           "PASS" if n_fail == 0 else "FAIL"))
    return 0 if n_fail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
