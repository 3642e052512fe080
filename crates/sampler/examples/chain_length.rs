//! Chain-length calibration of the slice path (docs/sampler.md, "Chain lengths"): how close
//! the law of a chain's state after `T` iterations from a start is to the exact rounded law,
//! on the reference quadratic score ([`sosdp_sampler::reference`]), as a function of `T / d`.
//!
//! For each dimension `d`, shape and sampling parameter `eps'`, `K` independent chains start at
//! `mu + START sqrt(d / eps') e` (`e` the unit diagonal; `START = 0` is the mode, larger values
//! a public start that many typical radii away, MATH.md 4.7b), each with its own uniform level
//! offset `kappa`. With `PILOT > 0` a pilot of `PILOT d` isotropic iterations runs first and
//! the covariance of its second half's states fixes rounded directions (as
//! `DirectionSetting::Rounded` does in a release); `T` counts the iterations after the pilot.
//! The chain runs `slice::sample` one iteration at a time (the same chain as one call with
//! more iterations). At the checkpoints `T = c d` the probability
//! integral transform `u = F_kappa(s(theta_T))` of the score is recorded; under the exact law `u`
//! is uniform. Printed per checkpoint: the KS distance of the `u` and its p-value, the z-score
//! of their mean (a chain that has not climbed to the bulk has `u` too small), and the z-score
//! of the spread along coordinate 0, `w = c_0 (theta_0 - mu_0)^2 / 2`, whose exact mean is
//! `E[s] / d` (the direction `C^{1/2} (theta - mu) / sqrt(2 s)` is uniform on the sphere and
//! independent of `s`; `E[U_0^4] = 3 / (d (d + 2))` gives its variance): on the `long` shape this
//! is the slowest direction.
//!
//! Shapes: `iso` (all curvatures 1); `long4`, `long8` and `long32` (coordinate 0 has curvature
//! 1/16, 1/64, resp. 1/1024: its axis is 4, 8, resp. 32 times longer than the others; hit-and-run with isotropic
//! directions moves along a long axis slowly); `flat4` and `flat8` (curvature 16, resp. 64: one
//! axis 4, resp. 8 times shorter, the shape of the mean learner's level bodies under a tight
//! cluster, measured by `sosdp-eval`'s `level_shape` example).
//!
//! `cargo run --release -p sosdp-sampler --example chain_length -- K EPS PILOT START d1 [d2 ...]`
#[path = "../tests/common/mod.rs"]
mod common;
use common::{ks_one, ks_p_value};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use sosdp_oracle::ScoreOracle;
use sosdp_sampler::hit_and_run::rounding_matrix;
use sosdp_sampler::reference::{QuadraticScore, RoundedQuadraticLaw};
use sosdp_sampler::target::Target;
use sosdp_sampler::{Ball, Directions, Levels, LineMove, SliceSettings, slice};
use std::ops::ControlFlow;

/// Checkpoints `T = c d`.
const MULTIPLIERS: [usize; 9] = [1, 2, 3, 5, 10, 15, 20, 40, 80];

/// Per checkpoint: the PIT of the score and the z-contribution `(w - E w) / sd(w)` of the spread
/// along coordinate 0.
fn chain(
    oracle: &QuadraticScore,
    eps: f64,
    pilot: usize,
    start: f64,
    seed: u64,
) -> Vec<(f64, f64)> {
    let d = oracle.dim();
    let mut rng = StdRng::seed_from_u64(seed);
    let kappa: f64 = rng.random();
    let law = RoundedQuadraticLaw::new(d, eps, kappa);
    // A domain far beyond the bulk (the score there exceeds its mean by thousands of sd).
    let domain = Ball::new(oracle.mu.clone(), 1e3).unwrap();
    let levels = Levels::with_offset(kappa);
    let mut target = Target::new(
        oracle,
        &domain,
        levels,
        eps,
        Directions::Isotropic,
        LineMove::Shrinkage,
    );
    let one = SliceSettings {
        iterations: 1,
        steps_per_iteration: 1,
    };
    // The exact mean and standard deviation of the spread `w` (module doc).
    let dd = d as f64;
    let mean_w = law.moment(1) / dd;
    let sd_w = (law.moment(2) * 3.0 / (dd * (dd + 2.0)) - mean_w * mean_w).sqrt();
    let offset = start * (d as f64 / eps).sqrt() / (d as f64).sqrt();
    let mut theta: Vec<f64> = oracle.mu.iter().map(|m| m + offset).collect();
    let mut index = levels.index(oracle.quadratic(&theta));
    let rounds: usize = std::env::var("ROUNDS").map_or(1, |r| r.parse().unwrap());
    for _ in 0..if pilot > 0 { rounds } else { 0 } {
        let mut states = Vec::new();
        let (end, record) = slice::sample_observed(
            &target,
            &theta,
            index,
            &SliceSettings {
                iterations: pilot * d / rounds,
                steps_per_iteration: 1,
            },
            &mut rng,
            &mut |_| ControlFlow::Continue(()),
            &mut |x| states.push(x.to_vec()),
        )
        .unwrap();
        (theta, index) = (end, record.final_index);
        if let Some(t) = rounding_matrix(&states[states.len() / 2..]) {
            target.directions = Directions::Rounded(t);
        }
    }
    let last = MULTIPLIERS[MULTIPLIERS.len() - 1] * d;
    let mut out = Vec::with_capacity(MULTIPLIERS.len());
    for t in 1..=last {
        let (next, record) = slice::sample(&target, &theta, index, &one, &mut rng, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        theta = next;
        index = record.final_index;
        if MULTIPLIERS.iter().any(|c| c * d == t) {
            let w = 0.5 * oracle.curvature[0] * (theta[0] - oracle.mu[0]).powi(2);
            out.push((law.cdf(oracle.quadratic(&theta)), (w - mean_w) / sd_w));
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let chains: u64 = args.first().map_or(1000, |a| a.parse().expect("K"));
    let eps: f64 = args.get(1).map_or(0.25, |a| a.parse().expect("EPS"));
    let pilot: usize = args.get(2).map_or(0, |a| a.parse().expect("PILOT"));
    let start: f64 = args.get(3).map_or(0.0, |a| a.parse().expect("START"));
    let dims: Vec<usize> = args[4.min(args.len())..]
        .iter()
        .map(|a| a.parse().expect("dimensions"))
        .collect();
    let dims = if dims.is_empty() { vec![10, 50] } else { dims };
    println!(
        "K = {chains} chains per row, eps' = {eps}, pilot {pilot} d, start {start}; columns: T/d: KS distance (p), mean-PIT z, spread z"
    );
    for d in dims {
        for (shape, c0) in [
            ("iso", 1.0),
            ("long4", 1.0 / 16.0),
            ("long8", 1.0 / 64.0),
            ("long32", 1.0 / 1024.0),
            ("flat4", 16.0),
            ("flat8", 64.0),
        ] {
            let mut curvature = vec![1.0; d];
            curvature[0] = c0;
            let oracle = QuadraticScore {
                mu: (0..d).map(|k| (k % 3) as f64 - 1.0).collect(),
                curvature,
                cap: f64::MAX,
            };
            let clock = std::time::Instant::now();
            let pits: Vec<Vec<(f64, f64)>> = (0..chains)
                .into_par_iter()
                .map(|seed| chain(&oracle, eps, pilot, start, 1_000_000 * d as u64 + seed))
                .collect();
            let mut line = format!("d = {d:3} {shape:5}:");
            for (j, c) in MULTIPLIERS.iter().enumerate() {
                let u: Vec<f64> = pits.iter().map(|p| p[j].0).collect();
                let ks = ks_one(&u, |x| x);
                let n = u.len() as f64;
                let z = (u.iter().sum::<f64>() / n - 0.5) / (1.0 / 12.0 / n).sqrt();
                let zw = pits.iter().map(|p| p[j].1).sum::<f64>() / n.sqrt();
                line += &format!("  {c}: {ks:.3} ({:.2}) {z:+.1} {zw:+.1}", ks_p_value(ks, n));
            }
            println!("{line}  [{:.0} s]", clock.elapsed().as_secs_f64());
        }
    }
}
