//! The shape of a CM level body (docs/sampler.md, "Chain lengths"): how elongated the body is
//! that the slice path walks in. A slice chain with isotropic directions mixes along a long
//! axis slowly (the `chain_length` calibration of `sosdp-sampler`), so this measures the axes.
//!
//! Data: `N(mu, I_d)` with a fraction `ETA` corrupted by `ADV`: `cluster` (default), a tight
//! cluster (spread 0.1) at distance 5 along axis 0, as the d = 50 target case; `subtractive`,
//! the records with the largest coordinate 0 moved to the mean of the rest; `scattered`, records
//! on the sphere of radius 5 around the mean; centre `mu + OFFSET u` for a random unit `u`
//! (a stage centred at the previous stage's release); `Gamma = G I`; the stage's eps `EPS`.
//! The anchor is the CM minimiser in the ball `B(centre, R)`; the level is the anchor's score
//! plus `d / (2 eps')` (`eps' = EPS / 2`), the mean excess of a quadratic score's rounded law,
//! where a stationary chain spends most of its time. Printed: the half-chords of the level body
//! through the anchor, clipped to the ball, along axis 0 (the cluster's axis), along the other
//! axes (median, min, max) and along 20 random directions (min, max), and the ratio of the
//! longest to the shortest (the body's elongation, as seen from the anchor).
//!
//! `cargo run --release -p sosdp-eval --example level_shape -- N D ETA G EPS OFFSET R [ADV]`
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp_eval::{Adversary, CorruptedSample};
use sosdp_learn::norm_noise::unit_direction;
use sosdp_sampler::{Ball, ConvexBody};
use sosdp_score::{BallDomain, CertifiedMean, FastCm, ScoreOracle};
use std::time::Instant;

fn main() {
    let words: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<f64> = words
        .iter()
        .take(7)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let arg = |k: usize, default: f64| args.get(k).copied().unwrap_or(default);
    let (n, d) = (arg(0, 20000.0) as usize, arg(1, 10.0) as usize);
    let (eta, gamma, eps, offset, radius) = (
        arg(2, 0.05),
        arg(3, 1.25),
        arg(4, 0.5),
        arg(5, 0.2),
        arg(6, 0.5),
    );
    assert!(
        d >= 2,
        "level_shape needs d >= 2 (it compares axis 0 with the others)"
    );
    let mut rng = StdRng::seed_from_u64(1);
    let mu: Vec<f64> = vec![5.0 / (d as f64).sqrt(); d];
    let adversary = match words.get(7).map_or("cluster", String::as_str) {
        "cluster" => Adversary::ShiftedCluster {
            distance: 5.0,
            axis: 0,
            spread: 0.1,
        },
        "subtractive" => Adversary::Subtractive { axis: 0 },
        "scattered" => Adversary::ScatteredOutliers { distance: 5.0 },
        other => panic!("unknown adversary {other}"),
    };
    let sample = CorruptedSample::identity_covariance(&mut rng, n, &mu, eta, &adversary);
    let u = unit_direction(d, &mut rng);
    let centre: Vec<f64> = mu.iter().zip(&u).map(|(m, u)| m + offset * u).collect();
    let oracle = FastCm::new(
        CertifiedMean::new(&sample.data, &centre, &(DMatrix::identity(d, d) * gamma))
            .expect("problem"),
    );
    let clock = Instant::now();
    let ball = BallDomain {
        centre: centre.clone(),
        radius,
    };
    let anchor = oracle.minimise(Some(&ball)).expect("anchor");
    let level = anchor.eval.upper + d as f64 / eps;
    let domain = Ball::new(centre.clone(), radius).expect("ball");
    let half = |dir: &[f64]| {
        let range = domain
            .chord(&anchor.theta, dir)
            .expect("anchor inside the ball");
        let chord = oracle
            .chord(&anchor.theta, dir, level, range, 1e-4)
            .expect("chord");
        0.5 * (chord.hi - chord.lo)
    };
    let axis = |k: usize| {
        let mut e = vec![0.0; d];
        e[k] = 1.0;
        e
    };
    let along0 = half(&axis(0));
    let mut others: Vec<f64> = (1..d).map(|k| half(&axis(k))).collect();
    others.sort_by(f64::total_cmp);
    let mut random: Vec<f64> = (0..20)
        .map(|_| half(&unit_direction(d, &mut rng)))
        .collect();
    random.sort_by(f64::total_cmp);
    let all: Vec<f64> = others
        .iter()
        .chain(&random)
        .chain(std::iter::once(&along0))
        .copied()
        .collect();
    let (lo, hi) = all
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
    println!(
        "{adversary:?} n {n} d {d} eta {eta} G {gamma} eps {eps} offset {offset} R {radius}: anchor score {:.1}, level +{:.1}; half-chords: axis 0 {along0:.4}, other axes median {:.4} (min {:.4}, max {:.4}), random min {:.4} max {:.4}; longest / shortest {:.2} ({:.1} s)",
        anchor.eval.upper,
        d as f64 / eps,
        others[others.len() / 2],
        others[0],
        others[others.len() - 1],
        random[0],
        random[random.len() - 1],
        hi / lo,
        clock.elapsed().as_secs_f64()
    );
}
