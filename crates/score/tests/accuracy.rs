//! Accuracy of the CM score (MATH.md 2.1, property 3): on n = 2000 points of N(m, I_5) with
//! 5% moved to a tight cluster, the minimiser of CM is close to m and the whole sublevel set
//! {CM <= min + 0.05 n} is small, whether the cluster sits at distance 3 or 30.
mod common;
use common::*;
use nalgebra::{DMatrix, DVector};
use sosdp_eval::{Adversary, CorruptedSample};
use sosdp_score::{CertifiedMean, ClarabelCm, ScoreOracle, minimise_cm};

/// Largest `s` with `score(from + s u) <= level`, by bisection (the sublevel set is convex).
fn reach(oracle: &ClarabelCm, from: &DVector<f64>, u: &DVector<f64>, level: f64) -> f64 {
    let at = |s: f64| oracle.evaluate((from + u * s).as_slice()).unwrap().score;
    let mut hi = 1.0;
    while at(hi) <= level {
        hi *= 2.0;
    }
    let mut lo = 0.0;
    for _ in 0..25 {
        let mid = 0.5 * (lo + hi);
        if at(mid) <= level { lo = mid } else { hi = mid }
    }
    lo
}

fn check_cluster_at(distance: f64, seed: u64) {
    let (n, d) = (2000, 5);
    let mut rng = rng(seed);
    let mean = vec![1.0, -2.0, 0.5, 0.0, 3.0];
    let adversary = Adversary::ShiftedCluster {
        distance,
        axis: 0,
        spread: 0.01,
    };
    let sample = CorruptedSample::identity_covariance(&mut rng, n, &mean, 0.05, &adversary);
    let plain: DVector<f64> = sample.data.row_mean().transpose();
    let truth = DVector::from_column_slice(&mean);
    // The centre is data-independent in the learner; here: the truth moved by 0.1.
    let offset = DVector::from_column_slice(&normal_vec(&mut rng, d)).normalize() * 0.1;
    let centre = &truth + offset;
    let cm = CertifiedMean::new(
        &sample.data,
        centre.as_slice(),
        &(DMatrix::identity(d, d) * 1.35),
    )
    .unwrap();
    let oracle = ClarabelCm::new(cm);
    let anchor = minimise_cm(&oracle, None).unwrap();
    let theta0 = DVector::from_column_slice(&anchor.theta);
    let err = (&theta0 - &truth).norm();
    assert!(
        err <= 0.2,
        "distance {distance}: minimiser is {err} from the mean (plain mean: {})",
        (&plain - &truth).norm()
    );
    assert!(anchor.radius > 0.0);
    eprintln!(
        "distance {distance}: minimiser error {err:.4}, plain mean error {:.4}, min score {:.2}, radius {:.2e}",
        (&plain - &truth).norm(),
        anchor.eval.score,
        anchor.radius
    );

    let level = anchor.eval.upper + 0.05 * n as f64;
    let mut directions: Vec<DVector<f64>> = (0..8)
        .map(|_| DVector::from_column_slice(&normal_vec(&mut rng, d)).normalize())
        .collect();
    for sign in [1.0, -1.0] {
        let mut e = DVector::zeros(d);
        e[0] = sign;
        directions.push(e);
    }
    for u in &directions {
        let s = reach(&oracle, &theta0, u, level);
        eprintln!("  reach {s:.4}");
        assert!(
            s <= 0.5,
            "distance {distance}: a point at {s} from the minimiser along {u:?} has CM <= min + 0.05 n"
        );
        assert!(s > 0.0);
    }
}

#[test]
fn cm_is_accurate_with_a_near_cluster() {
    check_cluster_at(3.0, 21);
}

#[test]
fn cm_is_accurate_with_a_far_cluster() {
    check_cluster_at(30.0, 22);
}
