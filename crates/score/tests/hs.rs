//! The hypercontractive spectral score HS (MATH.md 5.2b) on clarabel at d = 2, 3: the quartic
//! Gram structure, certified brackets, sensitivity 1 on adversarial neighbours,
//! quasi-convexity, the two programs (fixed `S`, free `S`) against each other, and what the
//! fourth-moment certificate removes (with a vacuous certificate as the broken variant).
mod common;
use common::*;
use nalgebra::{DMatrix, DVector};
use rand::RngExt;
use sosdp_oracle::svec::triangular_number;
use sosdp_score::hs::quartic::{QuarticForms, null_matrix};
use sosdp_score::{ClarabelHs, HsSettings, Hypercontractive, ScoreOracle};

/// `n` draws of `N(0, diag(scales))`, one per row.
fn gaussian(seed: u64, n: usize, scales: &[f64]) -> DMatrix<f64> {
    let mut rng = rng(seed);
    let d = scales.len();
    let mut m = DMatrix::zeros(n, d);
    for i in 0..n {
        let v = normal_vec(&mut rng, d);
        for k in 0..d {
            m[(i, k)] = v[k] * scales[k].sqrt();
        }
    }
    m
}

fn score(data: &DMatrix<f64>, lambda: f64, constant: f64) -> Hypercontractive {
    let settings = HsSettings {
        constant,
        ..HsSettings::default()
    };
    Hypercontractive::new(data, lambda, 0.05, settings).unwrap()
}

fn diag(values: &[f64]) -> Vec<f64> {
    Hypercontractive::theta_of(&DMatrix::from_diagonal(&DVector::from_row_slice(values)))
}

/// `binomial(d + 3, 4)`, the number of quartic monomials in `d` variables.
fn quartic_monomials(d: usize) -> usize {
    (d * (d + 1) * (d + 2) * (d + 3)) / 24
}

#[test]
fn quartic_gram_structure() {
    let mut rng = rng(5);
    for d in 1..=4 {
        let forms = QuarticForms::new(d);
        let big = forms.side();
        assert_eq!(forms.monomials(), quartic_monomials(d));
        let basis = forms.null_basis();
        assert_eq!(
            basis.len(),
            triangular_number(big) - quartic_monomials(d),
            "d = {d}"
        );
        let gauss = forms.gaussian_moments();
        assert!(gauss.clone().symmetric_eigenvalues().min() > 0.1);
        // E[(v^T A v)^2] for v ~ N(0, I) is 2 tr(A^2) + tr(A)^2: the moment matrix's form.
        let a = random_spd(&mut rng, d, 0.5, 2.0);
        let za = DVector::from_vec(Hypercontractive::theta_of(&a));
        let expected = 2.0 * (&a * &a).trace() + a.trace().powi(2);
        assert!(((za.transpose() * &gauss * &za)[(0, 0)] - expected).abs() < 1e-9 * expected);
        let s = random_spd(&mut rng, d, 0.2, 3.0);
        let kron = forms.sym_kron_identity(&s);
        for element in &basis {
            let m = null_matrix(big, std::slice::from_ref(element), &[1.0]);
            // An element of the null space: zero quartic, orthogonal to the moment matrices.
            assert!(forms.project_to_moments(&m).amax() < 1e-12);
            assert!((m.component_mul(&gauss)).sum().abs() < 1e-12);
            for _ in 0..5 {
                let v = normal_vec(&mut rng, d);
                assert!(forms.evaluate(&m, &v).abs() < 1e-12);
            }
        }
        assert!((forms.project_to_moments(&gauss) - &gauss).amax() < 1e-12);
        let mut nonzero = 0.0f64;
        for _ in 0..5 {
            let v = normal_vec(&mut rng, d);
            let vv: f64 = v.iter().map(|x| x * x).sum();
            let vsv = (DVector::from_vec(v.clone()).transpose()
                * &s
                * DVector::from_vec(v.clone()))[(0, 0)];
            assert!((forms.evaluate(&kron, &v) - vsv * vv).abs() < 1e-10 * (1.0 + vsv * vv));
            // Non-vacuity: a generic symmetric matrix has a nonzero quartic.
            let generic = random_spd(&mut rng, big, 0.5, 2.0);
            nonzero = nonzero.max(forms.evaluate(&generic, &v).abs());
        }
        assert!(nonzero > 1e-3);
    }
}

#[test]
fn brackets_are_certified_and_tight() {
    for (d, scales) in [(2, vec![1.0, 0.2]), (3, vec![1.0, 0.5, 0.1])] {
        let data = gaussian(1, 200, &scales);
        let hs = ClarabelHs::new(score(&data, 11.3, 4.0));
        let mut spread = Vec::new();
        for factor in [0.5, 0.8, 1.0, 1.5, 3.0] {
            let s: Vec<f64> = scales.iter().map(|v| v * factor).collect();
            let eval = hs.evaluate(&diag(&s)).unwrap();
            assert!(eval.in_domain);
            assert!(eval.lower <= eval.score && eval.score <= eval.upper);
            assert!(eval.width() <= 1e-3, "d = {d}, factor {factor}: {eval:?}");
            spread.push(eval.score);
        }
        // The clean data certify their own second moment; halved or tripled it costs records.
        assert!(spread[2] < 0.02 * 200.0, "d = {d}: {spread:?}");
        assert!(
            spread[0] > 0.1 * 200.0 && spread[4] > 0.1 * 200.0,
            "d = {d}: {spread:?}"
        );
        // Outside the domain: the cap n.
        let mut indefinite = diag(&scales);
        indefinite[0] = -1.0;
        assert_eq!(hs.evaluate(&indefinite).unwrap().score, 200.0);
    }
}

#[test]
fn sensitivity_one_on_adversarial_neighbours() {
    let mut rng = rng(17);
    let lambda: f64 = 9.2;
    let mut largest: f64 = 0.0;
    for trial in 0..12 {
        let d = 2 + trial % 2;
        let scales: Vec<f64> = (0..d).map(|k| [1.0, 0.1, 0.4][k]).collect();
        let n = 60 + 5 * trial;
        let data = gaussian(100 + trial as u64, n, &scales);
        let j = rng.random_range(0..n);
        // The replacement: far along the thinnest direction, at the clip radius along it, or
        // an ordinary draw.
        let mut point = vec![0.0; d];
        match trial % 3 {
            0 => point[1] = 10.0 * lambda.sqrt(),
            1 => point[1] = lambda.sqrt(),
            _ => point = normal_vec(&mut rng, d),
        }
        let mut other = data.clone();
        for (k, &x) in point.iter().enumerate() {
            other[(j, k)] = x;
        }
        let (a, b) = (
            ClarabelHs::new(score(&data, lambda, 4.0)),
            ClarabelHs::new(score(&other, lambda, 4.0)),
        );
        for factor in [0.6, 1.0, 2.0] {
            let s: Vec<f64> = scales.iter().map(|v| v * factor).collect();
            let theta = diag(&s);
            let (ea, eb) = (a.evaluate(&theta).unwrap(), b.evaluate(&theta).unwrap());
            let gap = (ea.score - eb.score).abs();
            largest = largest.max(gap);
            assert!(
                gap <= 1.0 + ea.width() + eb.width(),
                "trial {trial}: gap {gap}"
            );
            assert!(ea.lower <= eb.upper + 1.0 && eb.lower <= ea.upper + 1.0);
        }
    }
    // Non-vacuity: some neighbour moved the score by most of a record.
    assert!(largest > 0.5, "largest change {largest}");
}

#[test]
fn quasi_convex_along_segments() {
    let mut rng = rng(23);
    let data = gaussian(3, 150, &[1.0, 0.3, 0.1]);
    let hs = ClarabelHs::new(score(&data, 11.3, 4.0));
    for _ in 0..6 {
        let s1 = random_spd(&mut rng, 3, 0.05, 1.5);
        let s2 = random_spd(&mut rng, 3, 0.05, 1.5);
        let (t1, t2) = (
            Hypercontractive::theta_of(&s1),
            Hypercontractive::theta_of(&s2),
        );
        let e1 = hs.evaluate(&t1).unwrap();
        let e2 = hs.evaluate(&t2).unwrap();
        for w in [0.25, 0.5, 0.75] {
            let mid: Vec<f64> = t1
                .iter()
                .zip(&t2)
                .map(|(a, b)| w * a + (1.0 - w) * b)
                .collect();
            let em = hs.evaluate(&mid).unwrap();
            assert!(
                em.lower <= e1.upper.max(e2.upper) + 1e-6,
                "{em:?} above {e1:?}, {e2:?}"
            );
        }
    }
}

/// 5% of `n` records at `+-sqrt(r2)` along the thin axis of `N(0, diag(1, 0.05))`.
fn thin_corruption(n: usize, r2: f64) -> (DMatrix<f64>, usize) {
    let mut data = gaussian(2, n, &[1.0, 0.05]);
    let bad = n / 20;
    for i in 0..bad {
        data[(i, 0)] = 0.0;
        data[(i, 1)] = r2.sqrt() * if i % 2 == 0 { 1.0 } else { -1.0 };
    }
    (data, bad)
}

#[test]
fn level_sets_agree_with_the_score() {
    // The free-S program's extremal S lies in the level set the fixed-S score computes.
    let (data, bad) = thin_corruption(400, 4.0);
    let hs = score(&data, 9.2, 4.0);
    let level = bad as f64 + 5.0;
    let oracle = ClarabelHs::new(hs.clone());
    for sign in [1.0, -1.0] {
        let (value, s) = hs.extent(&[0.0, 1.0], level, sign, 1e-9).unwrap();
        assert!((s[(1, 1)] - value).abs() < 1e-6);
        let eval = oracle.evaluate(&Hypercontractive::theta_of(&s)).unwrap();
        assert!(
            eval.lower <= level + 1e-3,
            "sign {sign}: {eval:?} at level {level}"
        );
        // Non-vacuity: pushed a little further out along the axis, S leaves the level set.
        let mut beyond = s.clone();
        beyond[(1, 1)] += sign * 0.02;
        let out = oracle
            .evaluate(&Hypercontractive::theta_of(&beyond))
            .unwrap();
        assert!(out.lower > level, "sign {sign}: {out:?} at level {level}");
    }
}

#[test]
fn fourth_moment_certificate_removes_thin_corruption() {
    // An additive stage's second moment along the thin axis grows by eta * lambda when 5% of
    // the records sit at the clip radius there (lambda = 23.2, the clip at d = 10); HS's level
    // set at the corruption's own level (plus 10 records) stays well below, and the vacuous
    // certificate (C = 1e6, the broken variant) does not.
    let lambda: f64 = 23.2;
    let n = 1000;
    let (data, bad) = thin_corruption(n, lambda);
    let additive: f64 = (0..n)
        .map(|i| {
            let (a, b) = (data[(i, 0)], data[(i, 1)]);
            b * b * (lambda / (a * a + b * b)).min(1.0)
        })
        .sum::<f64>()
        / n as f64;
    let level = bad as f64 + 10.0;
    let (kept, _) = score(&data, lambda, 4.0)
        .extent(&[0.0, 1.0], level, 1.0, 1e-8)
        .unwrap();
    let (vacuous, _) = score(&data, lambda, 1e6)
        .extent(&[0.0, 1.0], level, 1.0, 1e-8)
        .unwrap();
    assert!(additive > 1.0, "additive {additive}");
    assert!(
        kept < 0.5 * additive,
        "HS extent {kept} against the additive {additive}"
    );
    assert!(
        vacuous > additive,
        "vacuous certificate {vacuous} against {additive}"
    );
}

#[test]
fn invalid_constants_are_refused() {
    let data = gaussian(1, 20, &[1.0, 1.0]);
    for (band, constant, margin) in [(0.0, 4.0, 1e-7), (0.1, 0.0, 1e-7), (0.1, 4.0, f64::NAN)] {
        let settings = HsSettings { constant, margin };
        assert!(Hypercontractive::new(&data, 9.2, band, settings).is_err());
    }
    assert!(Hypercontractive::new(&data, 0.0, 0.1, HsSettings::default()).is_err());
}

#[test]
fn duals_that_overflow_certify_nothing() {
    // Finite duals of 8e307 make the weak-duality bound `inf - inf = NaN`; it must count
    // as 0 (no certificate), not slip through `min` as the upper end. Non-vacuous: the same
    // S has a positive certified lower end from the solver's duals.
    let data = gaussian(4, 60, &[1.0, 0.2]);
    let hs = score(&data, 9.2, 4.0);
    let s = DMatrix::<f64>::identity(2, 2) * 10.0;
    let big = hs.dim();
    let huge = DMatrix::<f64>::identity(2, 2) * 8e307;
    let duals = sosdp_score::hs::Duals {
        mass: 1.0,
        trace: 0.0,
        upper: huge.clone(),
        lower: huge,
        schur: DMatrix::zeros(big + 1, big + 1),
        sos: DMatrix::zeros(big, big),
    };
    let bound = hs.lower_bound(&s, &duals);
    assert!(bound == 0.0, "bound {bound}");
    let exact = ClarabelHs::new(hs)
        .evaluate(&Hypercontractive::theta_of(&s))
        .unwrap();
    assert!(exact.lower > 1.0, "{exact:?}");
}
