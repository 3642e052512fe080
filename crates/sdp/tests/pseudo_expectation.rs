//! Textbook instances of the pseudo-expectation SDP (MATH.md section 3.1).
//!
//! Each solve must end (almost) optimal, `Solved` or `AlmostSolved`, and its value is checked
//! against the known answer. Which of the two clarabel reports depends on the BLAS kernels: with
//! OpenBLAS's Zen kernels, `matrix_constraints` at t = 2 ends `AlmostSolved` at 0.99999997
//! (`Solved` at 0.999999995 with `OPENBLAS_CORETYPE=Haswell`).
use sosdp_sdp::{
    Monomial, Polynomial, ProgramError, PseudoExpectationProgram, SolveSettings, Status, Variables,
    monomials_up_to,
};

fn settings() -> SolveSettings {
    SolveSettings::default()
}

/// The univariate quartic p(x) = x^4 - 3x^2 + x + 2 and its derivatives.
fn quartic(x: f64) -> [f64; 3] {
    [
        x.powi(4) - 3.0 * x * x + x + 2.0,
        4.0 * x.powi(3) - 6.0 * x + 1.0,
        12.0 * x * x - 6.0,
    ]
}

/// Global minimiser of the quartic: best point of a grid on [-3, 3], then Newton on p'.
fn quartic_minimiser() -> f64 {
    let grid = (0..=60_000).map(|i| -3.0 + 1e-4 * i as f64);
    let mut x = grid
        .min_by(|a, b| quartic(*a)[0].total_cmp(&quartic(*b)[0]))
        .unwrap();
    for _ in 0..20 {
        let [_, d1, d2] = quartic(x);
        x -= d1 / d2;
    }
    x
}

/// Univariate nonnegative polynomials are sums of squares, so the degree-4 relaxation of
/// min p is exact, and its optimal pseudo-expectation is the Dirac mass at the minimiser.
#[test]
fn univariate_quartic_minimum_is_exact() {
    let x_star = quartic_minimiser();
    let p_star = quartic(x_star)[0];
    let mut vars = Variables::new();
    let x = Polynomial::var(vars.add("x"));
    let p = x.pow(4) - 3.0 * x.pow(2) + &x + 2.0;
    let mut program = PseudoExpectationProgram::new(&vars, 2);
    program.minimize(&p).unwrap();
    let e = program.solve(&settings()).unwrap();
    println!(
        "quartic: min {p_star} at {x_star}; SDP {} with E[x] = {}",
        e.objective,
        e.expect(&x)
    );
    assert!(e.status.is_solved(), "{:?}", e.status);
    assert!(
        (e.objective - p_star).abs() < 1e-5,
        "{} vs {p_star}",
        e.objective
    );
    assert!(
        (e.expect(&x) - x_star).abs() < 1e-3,
        "E[x] = {} vs {x_star}",
        e.expect(&x)
    );
}

/// MAXCUT relaxation of the cycle C_n: maximise sum_edges (1 - x_i x_j) / 2 with x_i^2 = 1.
fn cycle_maxcut(n: usize, t: usize) -> f64 {
    let mut vars = Variables::new();
    let x: Vec<Polynomial> = vars
        .add_many("x", n)
        .into_iter()
        .map(Polynomial::var)
        .collect();
    let mut program = PseudoExpectationProgram::new(&vars, t);
    for xi in &x {
        program.equality(&(xi * xi - 1.0)).unwrap();
    }
    let cut: Polynomial = (0..n).map(|i| 0.5 - 0.5 * (&x[i] * &x[(i + 1) % n])).sum();
    program.maximize(&cut).unwrap();
    let e = program.solve(&settings()).unwrap();
    assert!(e.status.is_solved(), "{:?}", e.status);
    e.objective
}

/// Level 1 is the Goemans-Williamson SDP, whose value on an odd cycle is
/// (n/2)(1 + cos(pi/n)); level 2 can only tighten it, never below the true max cut 4, and
/// on C5 it is exact.
#[test]
fn maxcut_on_the_five_cycle() {
    let closed_form = 2.5 * (1.0 + (std::f64::consts::PI / 5.0).cos());
    let level1 = cycle_maxcut(5, 1);
    let level2 = cycle_maxcut(5, 2);
    println!("C5 maxcut: closed form {closed_form}, t=1 {level1}, t=2 {level2}");
    assert!(
        (level1 - closed_form).abs() < 1e-5,
        "{level1} vs {closed_form}"
    );
    assert!(level2 <= level1 + 1e-6);
    assert!(level2 >= 4.0 - 1e-6);
    assert!((level2 - 4.0).abs() < 1e-5, "{level2}");
}

#[test]
fn infeasible_systems_are_reported() {
    // x^2 + 1 = 0 forces E[x^2] = -1 < 0.
    let mut vars = Variables::new();
    let x = Polynomial::var(vars.add("x"));
    let mut program = PseudoExpectationProgram::new(&vars, 1);
    program.equality(&(x.pow(2) + 1.0)).unwrap();
    let e = program.solve(&settings()).unwrap();
    assert_eq!(e.status, Status::PrimalInfeasible);
    assert_eq!(e.objective, f64::INFINITY);

    // x >= 1 and x^2 <= 1/2: E[x^2] >= E[x]^2 >= 1 by the moment matrix.
    let mut program = PseudoExpectationProgram::new(&vars, 1);
    program.inequality(&(&x - 1.0)).unwrap();
    program.inequality(&(0.5 - x.pow(2))).unwrap();
    program.maximize(&x).unwrap();
    let e = program.solve(&settings()).unwrap();
    assert_eq!(e.status, Status::PrimalInfeasible);
    assert_eq!(e.objective, f64::NEG_INFINITY);
}

fn motzkin(x: &Polynomial, y: &Polynomial) -> Polynomial {
    x.pow(4) * y.pow(2) + x.pow(2) * y.pow(4) - 3.0 * x.pow(2) * y.pow(2) + 1.0
}

/// Smallest pivot of the Cholesky factorisation of a symmetric matrix (row-major, `n x n`),
/// or a negative number if it is not positive semidefinite up to `shift * I`.
fn min_cholesky_pivot(a: &[f64], n: usize, shift: f64) -> f64 {
    let mut l = vec![0.0; n * n];
    let mut min_pivot = f64::INFINITY;
    for j in 0..n {
        let d = a[j * n + j] + shift - (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum::<f64>();
        min_pivot = min_pivot.min(d);
        if d <= 0.0 {
            return d;
        }
        l[j * n + j] = d.sqrt();
        for i in j + 1..n {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            l[i * n + j] = (a[i * n + j] - s) / l[j * n + j];
        }
    }
    min_pivot
}

/// The Motzkin polynomial is nonnegative (minimum 0 at |x| = |y| = 1) but M - c is not a sum
/// of squares for any c, so the degree-6 relaxation of min M is unbounded below: its SoS dual
/// is (weakly) infeasible. Clarabel does not detect this (cf. Waki, Nakata and Muramatsu,
/// "Strange behaviors of interior-point methods for solving SDPs in polynomial
/// optimization"): it reports `Solved` with a finite value near -552. What is true either
/// way is that the returned moments form a genuine pseudo-expectation with E[M] far below
/// 0, which is what we check. (1 + x^2 + y^2) M is a sum of squares, so its degree-8
/// relaxation is exact: value 0.
#[test]
fn motzkin_bounds() {
    let mut vars = Variables::new();
    let x = Polynomial::var(vars.add("x"));
    let y = Polynomial::var(vars.add("y"));
    let m = motzkin(&x, &y);
    let mut program = PseudoExpectationProgram::new(&vars, 3);
    program.minimize(&m).unwrap();
    let e = program.solve(&settings()).unwrap();
    println!(
        "Motzkin t=3: {:?}, value {}, iterations {}",
        e.status, e.objective, e.iterations
    );
    match e.status {
        Status::DualInfeasible => assert_eq!(e.objective, f64::NEG_INFINITY),
        Status::Solved | Status::AlmostSolved => {
            assert!(e.objective < -0.1, "{}", e.objective);
            let basis = monomials_up_to(&vars.all(), 3);
            let n = basis.len();
            let moment_matrix: Vec<f64> = (0..n * n)
                .map(|k| e.moment(&(&basis[k / n] * &basis[k % n])))
                .collect();
            let scale = (0..n).map(|i| moment_matrix[i * n + i]).fold(0.0, f64::max);
            let pivot = min_cholesky_pivot(&moment_matrix, n, 1e-7 * scale);
            assert!(pivot > 0.0, "moment matrix is not PSD: pivot {pivot}");
            assert!((e.expect(&m) - e.objective).abs() < 1e-9 * scale);
        }
        other => panic!("unexpected status {other:?}"),
    }

    let multiplied = (1.0 + x.pow(2) + y.pow(2)) * &m;
    let mut program = PseudoExpectationProgram::new(&vars, 4);
    program.minimize(&multiplied).unwrap();
    let e = program.solve(&settings()).unwrap();
    println!(
        "(1 + x^2 + y^2) Motzkin t=4: {:?}, value {}",
        e.status, e.objective
    );
    assert!(e.status.is_solved(), "{:?}", e.status);
    assert!(e.objective.abs() < 1e-5, "{}", e.objective);
}

/// [[1, x], [x, 1]] ⪰ 0 means |x| <= 1; [[y, x], [x, 1]] ⪰ 0 means y >= x^2.
#[test]
fn matrix_constraints() {
    let mut vars = Variables::new();
    let x = Polynomial::var(vars.add("x"));
    let y = Polynomial::var(vars.add("y"));
    let one = Polynomial::constant(1.0);
    for t in [1, 2] {
        let mut program = PseudoExpectationProgram::new(&vars, t);
        program
            .matrix_psd(&[vec![one.clone(), x.clone()], vec![x.clone(), one.clone()]])
            .unwrap();
        program.maximize(&x).unwrap();
        let e = program.solve(&settings()).unwrap();
        assert!(e.status.is_solved(), "{:?}", e.status);
        assert!((e.objective - 1.0).abs() < 1e-6, "t = {t}: {}", e.objective);

        let mut program = PseudoExpectationProgram::new(&vars, t);
        program
            .matrix_psd(&[vec![y.clone(), x.clone()], vec![x.clone(), one.clone()]])
            .unwrap();
        program.inequality(&(0.25 - &y)).unwrap();
        program.maximize(&x).unwrap();
        let e = program.solve(&settings()).unwrap();
        assert!(e.status.is_solved(), "{:?}", e.status);
        assert!((e.objective - 0.5).abs() < 1e-6, "t = {t}: {}", e.objective);
    }
}

/// E[x] = 0.3 is one linear condition; the identity x = 0.3 also fixes E[x^2] = 0.09.
#[test]
fn moment_conditions_differ_from_identities() {
    let mut vars = Variables::new();
    let x = Polynomial::var(vars.add("x"));
    let x2 = x.pow(2);

    let mut program = PseudoExpectationProgram::new(&vars, 1);
    program.moment_equality(&x, 0.3).unwrap();
    program.inequality(&(1.0 - &x2)).unwrap();
    program.maximize(&x2).unwrap();
    let e = program.solve(&settings()).unwrap();
    assert!((e.objective - 1.0).abs() < 1e-6, "{}", e.objective);
    program.minimize(&x2).unwrap();
    let e = program.solve(&settings()).unwrap();
    assert!((e.objective - 0.09).abs() < 1e-6, "{}", e.objective);

    let mut program = PseudoExpectationProgram::new(&vars, 1);
    program.equality(&(&x - 0.3)).unwrap();
    program.inequality(&(1.0 - &x2)).unwrap();
    program.maximize(&x2).unwrap();
    let e = program.solve(&settings()).unwrap();
    assert!((e.objective - 0.09).abs() < 1e-6, "{}", e.objective);
    assert!((e.moment(&Monomial::var(vars.all()[0])) - 0.3).abs() < 1e-6);

    let mut program = PseudoExpectationProgram::new(&vars, 1);
    program.moment_inequality(&x, 0.5).unwrap();
    program.minimize(&x2).unwrap();
    let e = program.solve(&settings()).unwrap();
    assert!((e.objective - 0.25).abs() < 1e-6, "{}", e.objective);
}

#[test]
fn malformed_constraints_are_rejected() {
    let mut vars = Variables::new();
    let x = Polynomial::var(vars.add("x"));
    let mut program = PseudoExpectationProgram::new(&vars, 1);
    assert_eq!(
        program.inequality(&x.pow(3)),
        Err(ProgramError::DegreeTooHigh { degree: 3, max: 2 })
    );
    assert_eq!(
        program.matrix_psd(&[vec![x.clone(), x.clone()], vec![-&x, x.clone()]]),
        Err(ProgramError::NotSymmetric { i: 0, j: 1 })
    );
    assert_eq!(
        program.matrix_psd(&[vec![x.clone(), x.clone()], vec![x.clone()]]),
        Err(ProgramError::NotSquare {
            row: 1,
            len: 1,
            size: 2
        })
    );
    let mut other = Variables::new();
    let z = Polynomial::var(other.add("z"));
    assert_eq!(
        program.maximize(&z),
        Err(ProgramError::ForeignVariable { index: 0 })
    );
    let late = Polynomial::var(vars.add("late"));
    assert_eq!(
        program.equality(&late),
        Err(ProgramError::ForeignVariable { index: 1 })
    );
}
