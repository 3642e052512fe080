//! Certified memoisation of CM membership answers (MATH.md 4.9): every YES a kept certificate
//! gives is confirmed by the clarabel reference backend, a broken ellipsoid (without the `s12`
//! shift) is refuted by it, and a release is bit-identical with and without memoisation.
mod common;

use common::{cluster_instance, short_release};
use nalgebra::DVector;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use sosdp_score::{
    Answer, Certificate, CertifiedMean, ClarabelCm, FastCm, FastSettings, MemorySettings,
    ScoreOracle,
};

fn point(rng: &mut StdRng, centre: &[f64], radius: f64) -> Vec<f64> {
    let g: Vec<f64> = centre
        .iter()
        .map(|_| StandardNormal.sample(&mut *rng))
        .collect();
    let norm = g.iter().map(|x: &f64| x * x).sum::<f64>().sqrt();
    let r = radius * rng.random::<f64>();
    centre
        .iter()
        .zip(&g)
        .map(|(c, x)| c + r * x / norm)
        .collect()
}

/// The broken ellipsoid test: no `tau s12` shift of the centre.
fn broken_upper(c: &Certificate, theta: &[f64], cm: &CertifiedMean, level: f64) -> Option<f64> {
    let n = cm.n() as f64;
    let tau = (n - level) / c.total * (1.0 + 1e-9);
    let room = 1.0 - tau * c.s22;
    if !(tau <= 1.0 && room > 0.0) {
        return None;
    }
    let chol = (cm.gamma() - &c.s11 * tau).cholesky()?;
    let v = DVector::from_column_slice(theta) - cm.centre();
    (v.dot(&chol.solve(&v)) <= room).then_some(n - tau * c.total)
}

/// Fill the memo along a walk, then ask membership questions near the walk at levels around
/// the score: every memoised YES is a YES of the reference. On the same certificates, every YES
/// of the ellipsoid test is confirmed, while the broken test (no `s12` shift) gives YES answers
/// the reference refutes.
#[test]
fn memoised_answers_are_confirmed_by_the_reference() {
    let (mut memoised, mut asked, mut confirmed, mut refuted_broken) = (0, 0, 0, 0);
    for (seed, n, d) in [(1u64, 600usize, 2usize), (2, 1000, 3), (3, 1500, 5)] {
        let cm = cluster_instance(seed, n, d, 1.6);
        let fast = FastCm::new(cm.clone());
        let reference = ClarabelCm::new(cm.clone());
        let anchor = fast.minimise(None).unwrap();
        let mut rng = StdRng::seed_from_u64(50 + seed);
        for _ in 0..12 {
            fast.evaluate(&point(&mut rng, &anchor.theta, 0.15))
                .unwrap();
        }
        for _ in 0..40 {
            let theta = point(&mut rng, &anchor.theta, 0.15);
            let truth = reference.evaluate(&theta).unwrap();
            let level = truth.score + 6.0 * (rng.random::<f64>() - 0.3);
            let before = fast.answers(Answer::Memo);
            let (eval, stats) = fast.evaluate_detailed(&theta, Some(level)).unwrap();
            asked += 1;
            if stats.answer == Answer::Memo {
                memoised += 1;
                assert_eq!(fast.answers(Answer::Memo), before + 1);
                assert!(
                    eval.upper <= level,
                    "a memoised answer must be YES: {eval:?}"
                );
                assert!(
                    truth.lower <= level + 1e-6 * n as f64,
                    "memo said YES at level {level}, the reference says {truth:?}"
                );
            }
        }
        // The kept certificates, probed at points farther out, against the broken test.
        let certificates = fast.kept_certificates();
        assert!(!certificates.is_empty());
        let n_f = n as f64;
        for _ in 0..150 {
            let theta = point(&mut rng, &anchor.theta, 0.3);
            let level = anchor.eval.upper + 10.0 * rng.random::<f64>();
            let good = certificates
                .iter()
                .find_map(|c| c.upper_below(&theta, cm.centre(), cm.gamma(), n_f, level));
            let broken = certificates
                .iter()
                .find_map(|c| broken_upper(c, &theta, &cm, level));
            if good.is_none() && broken.is_none() {
                continue;
            }
            let truth = reference.evaluate(&theta).unwrap();
            if let Some(upper) = good {
                assert!(
                    truth.lower <= upper + 1e-6 * n_f,
                    "certified {upper} at {theta:?}, the reference says {truth:?}"
                );
                confirmed += 1;
            }
            if broken.is_some() && truth.lower > level + 1e-6 * n_f {
                refuted_broken += 1;
            }
        }
    }
    eprintln!(
        "memo: {memoised} of {asked} answered; {confirmed} ellipsoid answers confirmed; broken refuted {refuted_broken}"
    );
    assert!(
        memoised >= 10,
        "only {memoised} of {asked} questions answered by the memo: the test is vacuous"
    );
    assert!(
        confirmed >= 20,
        "only {confirmed} ellipsoid answers checked"
    );
    assert!(
        refuted_broken >= 1,
        "the broken ellipsoid (no s12 shift) was never refuted"
    );
}

/// The same seed gives the same release with and without memoisation (answers are
/// certified, so the chain is the same), and the memo answered questions in the first run.
#[test]
fn the_release_is_the_same_with_and_without_memoisation() {
    let (n, d, gamma) = (2000, 3, 1.6);
    let cm = cluster_instance(7, n, d, gamma);
    let run = |kept: usize| {
        let oracle = FastCm::new(cm.clone()).with_settings(FastSettings {
            memory: MemorySettings {
                kept_certificates: kept,
                ..MemorySettings::default()
            },
            ..FastSettings::default()
        });
        (
            short_release(&oracle, d, gamma),
            oracle.answers(Answer::Memo),
        )
    };
    let (with, answered) = run(64);
    let (without, none) = run(0);
    assert_eq!(none, 0);
    assert!(answered > 0, "the memo answered nothing");
    assert_eq!(with, without, "memoisation changed the release");
    eprintln!("memo answered {answered} questions");
}
