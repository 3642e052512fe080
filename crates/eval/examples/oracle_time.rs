//! Seconds per fast CM evaluation at a given size, without the anchor (which `sosdp bench
//! score` computes first): N(mu, I_d) data with 5% in a cluster at distance 5, centre the
//! coordinate-wise median, Gamma = G I (default 2), evaluations at the centre plus random
//! offsets of norm STEP (default 0.2; the first is cold, the rest warm). `G = 101`, `STEP = 5`
//! resemble the first stage of a fit with radius 10.
//!
//! `AGG = 0` turns off the aggregation of free weights (MATH.md 4.10; default on). With `LEVEL`,
//! the evaluations after the first are membership questions at the first score plus `LEVEL`
//! (stopping as soon as the bracket decides), as the sampler asks them.
//!
//! `cargo run --release -p sosdp-eval --example oracle_time -- N D REPS [G] [STEP] [AGG] [LEVEL]`
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_eval::{Adversary, CoordinateMedian, CorruptedSample, MeanEstimator};
use sosdp_score::{Answer, CertifiedMean, FastCm, FastSettings};
use std::time::Instant;

fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let arg = |k: usize, default: f64| args.get(k).copied().unwrap_or(default);
    let (n, d, reps) = (
        arg(0, 50000.0) as usize,
        arg(1, 50.0) as usize,
        arg(2, 3.0) as usize,
    );
    let (gamma, step) = (arg(3, 2.0), arg(4, 0.2));
    let mut settings = FastSettings::default();
    if arg(5, 1.0) == 0.0 {
        settings.aggregate.grouped_rounds = 0;
    }
    let mut rng = StdRng::seed_from_u64(1);
    let sample = CorruptedSample::identity_covariance(
        &mut rng,
        n,
        &vec![0.0; d],
        0.05,
        &Adversary::ShiftedCluster {
            distance: 5.0,
            axis: 0,
            spread: 0.1,
        },
    );
    let centre = CoordinateMedian.estimate(&sample.data, 0).expect("median");
    let oracle = FastCm::new(
        CertifiedMean::new(&sample.data, &centre, &(DMatrix::identity(d, d) * gamma))
            .expect("problem"),
    )
    .with_settings(settings);
    let offset = args.get(6).copied();
    let mut level = None;
    for k in 0..reps {
        let g: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut rng)).collect();
        let norm = g.iter().map(|x: &f64| x * x).sum::<f64>().sqrt();
        let theta: Vec<f64> = centre
            .iter()
            .zip(&g)
            .map(|(c, x)| c + if k == 0 { 0.0 } else { step * x / norm })
            .collect();
        let clock = Instant::now();
        let (eval, stats) = oracle.evaluate_detailed(&theta, level).expect("evaluation");
        if k == 0 {
            level = offset.map(|o| eval.score + o);
        }
        println!(
            "n {n} d {d} evaluation {k}: score {:.2} in [{:.2}, {:.2}], {:.3} s, {} rounds ({} grouped), {} iterations, {} free in {} groups{}{}",
            eval.score,
            eval.lower,
            eval.upper,
            clock.elapsed().as_secs_f64(),
            stats.rounds,
            stats.grouped_rounds,
            stats.iterations,
            stats.free,
            stats.groups,
            if stats.restarted_cold {
                ", restarted cold"
            } else {
                ""
            },
            if stats.answer == Answer::Fallback {
                ", fell back to clarabel"
            } else {
                ""
            }
        );
    }
}
