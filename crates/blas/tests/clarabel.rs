//! clarabel's SDPs solved through the linked provider, pinned to closed-form optima: the
//! Goemans–Williamson MaxCut relaxation of the odd cycle C_51 (a 51 x 51 PSD block, the size of
//! sosdp's CM blocks at d = 50) and the smallest eigenvalue of the path Laplacian as an SDP.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT::*};
use sosdp_blas as _;

/// Position of `X(i, j)`, `i <= j`, in clarabel's `svec` (upper triangle by columns).
fn svec(i: usize, j: usize) -> usize {
    j * (j + 1) / 2 + i
}

/// Solve `min <C, X>` s.t. `X(i, i) = diag[i]` for the listed `i`, `trace X = trace` (if
/// given), `X ⪰ 0`; `c` lists `(i, j, C(i, j))` with `i <= j` (off-diagonals counted twice).
fn solve(n: usize, c: &[(usize, usize, f64)], diag: &[(usize, f64)], trace: Option<f64>) -> f64 {
    let nv = n * (n + 1) / 2;
    let r2 = 2f64.sqrt();
    let mut q = vec![0.0; nv];
    for &(i, j, v) in c {
        // <C, X> = sum_ii C_ii X_ii + 2 sum_{i<j} C_ij X_ij; svec scales X_ij by sqrt 2.
        q[svec(i, j)] += if i == j { v } else { r2 * v };
    }
    // Rows: the equalities, then the PSD cone (-svec(X) + s = 0).
    let mut triplets: Vec<(usize, usize, f64)> = Vec::new();
    let mut b = Vec::new();
    for &(i, v) in diag {
        triplets.push((b.len(), svec(i, i), 1.0));
        b.push(v);
    }
    if let Some(t) = trace {
        (0..n).for_each(|i| triplets.push((b.len(), svec(i, i), 1.0)));
        b.push(t);
    }
    let eq = b.len();
    for k in 0..nv {
        triplets.push((eq + k, k, -1.0));
        b.push(0.0);
    }
    let a = csc(eq + nv, nv, &triplets);
    let p = CscMatrix::zeros((nv, nv));
    let cones = [ZeroConeT(eq), PSDTriangleConeT(n)];
    let settings = DefaultSettings {
        verbose: false,
        ..DefaultSettings::default()
    };
    let mut solver = DefaultSolver::new(&p, &q, &a, &b, &cones, settings).expect("valid problem");
    solver.solve();
    assert_eq!(solver.solution.status, SolverStatus::Solved);
    solver.solution.obj_val
}

fn csc(m: usize, n: usize, triplets: &[(usize, usize, f64)]) -> CscMatrix<f64> {
    let mut cols: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for &(r, c, v) in triplets {
        cols[c].push((r, v));
    }
    let (mut colptr, mut rowval, mut nzval) = (vec![0], Vec::new(), Vec::new());
    for mut col in cols {
        col.sort_by_key(|e| e.0);
        for (r, v) in col {
            rowval.push(r);
            nzval.push(v);
        }
        colptr.push(rowval.len());
    }
    CscMatrix::new(m, n, colptr, rowval, nzval)
}

#[test]
fn maxcut_of_the_odd_cycle_c51() {
    // max 1/2 sum_{edges} (1 - X_ij), X_ii = 1, X ⪰ 0: |E| / 2 - min sum_{edges} X_ij / 2.
    // Its value on C_n, n odd: (n / 2) (1 + cos(pi / n)); clarabel's default tolerances give
    // it to a relative 1e-7 or so.
    let n = 51;
    let edges: Vec<(usize, usize, f64)> = (0..n)
        .map(|i| {
            let j = (i + 1) % n;
            (i.min(j), i.max(j), 0.25)
        })
        .collect();
    let diag: Vec<(usize, f64)> = (0..n).map(|i| (i, 1.0)).collect();
    let min = solve(n, &edges, &diag, None);
    let value = n as f64 / 2.0 - min;
    let exact = n as f64 / 2.0 * (1.0 + (std::f64::consts::PI / n as f64).cos());
    assert!(
        (value - exact).abs() < 1e-6 * exact,
        "MaxCut(C_51) {value} vs {exact}"
    );
}

#[test]
fn smallest_eigenvalue_of_the_path_laplacian() {
    // min <L, X>, trace X = 1, X ⪰ 0 is lambda_min(L); L = tridiag(-1, 2, -1) has
    // lambda_min = 2 - 2 cos(pi / (n + 1)).
    let n = 30;
    let mut c: Vec<(usize, usize, f64)> = (0..n).map(|i| (i, i, 2.0)).collect();
    c.extend((0..n - 1).map(|i| (i, i + 1, -1.0)));
    let min = solve(n, &c, &[], Some(1.0));
    let exact = 2.0 - 2.0 * (std::f64::consts::PI / (n + 1) as f64).cos();
    assert!((min - exact).abs() < 1e-7, "lambda_min {min} vs {exact}");
}
