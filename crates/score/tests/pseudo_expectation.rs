//! MATH.md 2.1: CM is exactly the degree-2 pseudo-expectation relaxation of
//! { w_i^2 = w_i, w_i (X'_i - y_i) = 0, (1/n) sum_i (X'_i - c)(X'_i - c)^T ⪯ Gamma }
//! with estimate theta = E~[(1/n) sum_i X'_i], as "n - max E~[sum_i w_i]". We build that program
//! with the generic builder and compare with the CM backend on random small instances.
mod common;
use common::*;
use nalgebra::DMatrix;
use rand::RngExt;
use sosdp_score::{CertifiedMean, ClarabelCm, ScoreOracle};
use sosdp_sdp::{Polynomial, PseudoExpectationProgram, SolveSettings, Status, Variables};

/// `n - max E~[sum w]` of the degree-2 relaxation.
fn cm_by_pseudo_expectation(
    y: &DMatrix<f64>,
    c: &[f64],
    gamma: &DMatrix<f64>,
    theta: &[f64],
) -> f64 {
    let (n, dim) = y.shape();
    let mut vars = Variables::new();
    let w = vars.add_many("w", n);
    let x: Vec<Vec<_>> = (0..n)
        .map(|i| vars.add_many(&format!("x{i}_"), dim))
        .collect();
    let mut program = PseudoExpectationProgram::new(&vars, 1);
    let inv_n = 1.0 / n as f64;
    for i in 0..n {
        let wi = Polynomial::var(w[i]);
        program.equality(&(&wi * &wi - &wi)).unwrap();
        for k in 0..dim {
            program
                .equality(&(&wi * &(Polynomial::var(x[i][k]) - y[(i, k)])))
                .unwrap();
        }
    }
    let centred = |i: usize, k: usize| Polynomial::var(x[i][k]) - c[k];
    let budget: Vec<Vec<Polynomial>> = (0..dim)
        .map(|r| {
            (0..dim)
                .map(|s| {
                    let scatter: Polynomial = (0..n).map(|i| centred(i, r) * centred(i, s)).sum();
                    Polynomial::constant(gamma[(r, s)]) - scatter * inv_n
                })
                .collect()
        })
        .collect();
    program.matrix_psd(&budget).unwrap();
    for k in 0..dim {
        let mean: Polynomial = (0..n).map(|i| Polynomial::var(x[i][k])).sum();
        program.moment_equality(&(mean * inv_n), theta[k]).unwrap();
    }
    let kept: Polynomial = w.iter().map(|&v| Polynomial::var(v)).sum();
    program.maximize(&kept).unwrap();
    let pe = program
        .solve(&SolveSettings {
            tolerance: 1e-9,
            ..SolveSettings::default()
        })
        .unwrap();
    assert!(
        pe.status.is_solved(),
        "pseudo-expectation program: {:?}",
        pe.status
    );
    n as f64 - pe.objective
}

#[test]
fn cm_equals_the_degree_two_pseudo_expectation_program() {
    let mut rng = rng(31);
    let mut interior = 0;
    for trial in 0..24 {
        let n = 4 + trial % 9; // 4..=12
        let dim = 1 + trial % 3; // 1..=3
        let y = small_data(&mut rng, n, dim);
        let c: Vec<f64> = normal_vec(&mut rng, dim).iter().map(|x| 0.2 * x).collect();
        let g = 0.8 + rng.random::<f64>();
        let a = DMatrix::from_fn(dim, dim, |_, _| 0.3 * rng.random::<f64>());
        let gamma = DMatrix::identity(dim, dim) * g + &a * a.transpose();
        let oracle = ClarabelCm::new(CertifiedMean::new(&y, &c, &gamma).unwrap());
        // theta inside the Gamma-ellipsoid around c.
        let mut theta = random_theta(&mut rng, dim, 0.8, 0.98);
        theta.iter_mut().zip(&c).for_each(|(t, ck)| *t += ck);
        assert!(oracle.problem().in_domain(&theta));
        let direct = oracle.evaluate(&theta).unwrap().score;
        let generic = cm_by_pseudo_expectation(&y, &c, &gamma, &theta);
        assert!(
            (direct - generic).abs() <= 1e-5,
            "trial {trial} (n = {n}, D = {dim}): CM {direct} vs pseudo-expectation {generic}"
        );
        if direct > 0.1 && direct < n as f64 - 0.1 {
            interior += 1;
        }
    }
    assert!(
        interior >= 12,
        "only {interior} instances had a score strictly inside (0, n)"
    );
}

#[test]
fn pseudo_expectation_program_is_infeasible_outside_the_domain() {
    let mut rng = rng(32);
    let y = small_data(&mut rng, 5, 2);
    let gamma = DMatrix::identity(2, 2);
    let mut vars = Variables::new();
    let x = vars.add_many("x", 2);
    let mut program = PseudoExpectationProgram::new(&vars, 1);
    let budget = vec![
        vec![
            Polynomial::constant(1.0) - Polynomial::var(x[0]) * Polynomial::var(x[0]),
            -(Polynomial::var(x[0]) * Polynomial::var(x[1])),
        ],
        vec![
            -(Polynomial::var(x[0]) * Polynomial::var(x[1])),
            Polynomial::constant(1.0) - Polynomial::var(x[1]) * Polynomial::var(x[1]),
        ],
    ];
    program.matrix_psd(&budget).unwrap();
    program
        .moment_equality(&Polynomial::var(x[0]), 1.5)
        .unwrap();
    let pe = program.solve(&SolveSettings::default()).unwrap();
    assert_eq!(pe.status, Status::PrimalInfeasible);
    // The CM backend calls the same theta "infinite".
    let oracle = ClarabelCm::new(CertifiedMean::new(&y, &[0.0, 0.0], &gamma).unwrap());
    let e = oracle.evaluate(&[1.5, 0.0]).unwrap();
    assert!(!e.in_domain && e.score == 5.0);
}
