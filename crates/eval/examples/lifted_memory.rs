//! Peak memory of the lifted Frobenius refinement (docs/performance.md, issue 36): `n` records
//! `x_i ~ N(0, S)` (the whitened pairs of a clean fit, `S` diagonal with eigenvalues evenly
//! spaced in `[1 - s, 1 + s]`, the preconditioner's error `s = 0.3`) lifted to `z_i = svec(x_i x_i^T)` in
//! `R^D`, `D = d (d + 1) / 2`, and one CM stage run on them as the covariance learner's first
//! refinement runs it (MATH.md 5.3): centre `svec(I)`, ball radius `r = 0.3 sqrt(d)`,
//! `Gamma = (2 (1 + s)^2 + r^2 + 0.1) I`, the band `0.5 I ⪯ S ⪯ 1.5 I`, eps 0.3, from the public
//! centre, for `ITER` slice iterations after a pilot of `PILOT` (isotropic directions without
//! one).
//!
//! Progress lines give the elapsed time and the resident set (`VmRSS`) and its peak (`VmHWM`,
//! from `/proc/self/status`). With `BOUND_MB`, the example asserts at the end that the peak
//! stays below it (the memory test of issue 36: peak memory grows like `n D + D^4` at most,
//! never `n D^2`).
//!
//! `cargo run --release -p sosdp-eval --example lifted_memory -- D_SMALL N ITER [PILOT] [SEED] [BOUND_MB]`
//! (`D_SMALL` is `d`; defaults `20 90000 50 0 1`, no bound).
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_learn::projection::project_rows;
use sosdp_sampler::{
    Ball, DirectionSetting, Domain, Ellipsoid, Intersection, MechanismSettings, Spectrahedron,
    Start, release,
};
use sosdp_score::{Answer, CertifiedMean, FastCm, ScoreOracle};
use std::ops::ControlFlow;
use std::time::Instant;

/// A field of `/proc/self/status` in megabytes (`VmRSS`, `VmHWM`), or 0 where it is missing.
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim_start_matches(':').split_whitespace().next())
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// `svec(x x^T)`: column-major upper triangle, off-diagonal entries times `sqrt(2)`.
fn svec_outer(x: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len() * (x.len() + 1) / 2);
    for col in 0..x.len() {
        for row in 0..=col {
            let scale = if row == col {
                1.0
            } else {
                std::f64::consts::SQRT_2
            };
            out.push(x[row] * x[col] * scale);
        }
    }
    out
}

fn main() {
    let args: Vec<f64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let arg = |k: usize, default: f64| args.get(k).copied().unwrap_or(default);
    let (d, n, iterations, pilot, seed) = (
        arg(0, 20.0) as usize,
        arg(1, 90000.0) as usize,
        arg(2, 50.0) as usize,
        arg(3, 0.0) as usize,
        arg(4, 1.0) as u64,
    );
    let bound_mb = args.get(5).copied();
    let clock = Instant::now();
    let mut rng = StdRng::seed_from_u64(seed);
    let spread = 0.3;
    let x = DMatrix::from_fn(n, d, |_, k| {
        let eigenvalue = 1.0 - spread + 2.0 * spread * k as f64 / (d - 1).max(1) as f64;
        let g: f64 = StandardNormal.sample(&mut rng);
        eigenvalue.sqrt() * g
    });
    let x = project_rows(&x, &vec![0.0; d], 2.0 * (d as f64).sqrt());
    let dim = d * (d + 1) / 2;
    let mut lifted = DMatrix::zeros(n, dim);
    for (i, row) in x.row_iter().enumerate() {
        let row: Vec<f64> = row.iter().copied().collect();
        for (k, v) in svec_outer(&row).into_iter().enumerate() {
            lifted[(i, k)] = v;
        }
    }
    let identity: Vec<f64> = svec_outer(&vec![1.0; d])
        .iter()
        .enumerate()
        .map(|(k, _)| {
            // svec(I): 1 at the diagonal positions (k = col (col + 3) / 2).
            let diagonal = (0..d).any(|c| c * (c + 3) / 2 == k);
            if diagonal { 1.0 } else { 0.0 }
        })
        .collect();
    let radius = 0.3 * (d as f64).sqrt();
    let gamma = 2.0 * (1.0 + spread).powi(2) + radius * radius + 0.1;
    let gamma_matrix = DMatrix::identity(dim, dim) * gamma;
    let oracle = FastCm::new(
        CertifiedMean::new(&lifted, &identity, &gamma_matrix).expect("a valid CM problem"),
    );
    drop(lifted);
    let parts: Vec<Box<dyn Domain + Send + Sync>> = vec![
        Box::new(Ball::new(identity.clone(), radius).expect("ball")),
        Box::new(Ellipsoid::new(identity.clone(), &gamma_matrix).expect("ellipsoid")),
        Box::new(Spectrahedron::new(d, 0.5, 1.5).expect("band")),
    ];
    let domain = Intersection::new(parts).expect("domain");
    let start = Start {
        theta: identity.clone(),
        score_upper: oracle.max_score(),
    };
    let mut settings = MechanismSettings::new(0.3, dim).expect("settings");
    settings.slice.iterations = iterations;
    settings.directions = if pilot == 0 {
        DirectionSetting::Isotropic
    } else {
        DirectionSetting::Rounded { pilot }
    };
    println!(
        "d {d} D {dim} n {n}: set up in {:.1} s, RSS {:.0} MB, peak {:.0} MB",
        clock.elapsed().as_secs_f64(),
        status_mb("VmRSS"),
        status_mb("VmHWM")
    );
    let sampling = Instant::now();
    let mut last = (usize::MAX, "");
    let out = release(&oracle, &domain, &start, &settings, &mut rng, &mut |p| {
        if (p.done, p.phase) != last {
            last = (p.done, p.phase);
            println!(
                "{} {}/{}: {:.1} s, RSS {:.0} MB, peak {:.0} MB",
                p.phase,
                p.done,
                p.total,
                sampling.elapsed().as_secs_f64(),
                status_mb("VmRSS"),
                status_mb("VmHWM")
            );
        }
        ControlFlow::Continue(())
    })
    .expect("the stage's release");
    let seconds = sampling.elapsed().as_secs_f64();
    let peak = status_mb("VmHWM");
    println!(
        "released |theta - svec(I)| = {:.6} (|svec(S - I)| = {:.6}); {iterations} iterations after a pilot of {pilot} in {seconds:.1} s ({:.3} s per iteration), {} fallbacks; peak RSS {peak:.0} MB",
        out.theta
            .iter()
            .zip(&identity)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt(),
        (0..d)
            .map(|k| (2.0 * spread * k as f64 / (d - 1).max(1) as f64 - spread).powi(2))
            .sum::<f64>()
            .sqrt(),
        seconds / (iterations + pilot).max(1) as f64,
        oracle.answers(Answer::Fallback),
    );
    if let Some(bound) = bound_mb {
        assert!(
            peak <= bound,
            "peak RSS {peak:.0} MB above the bound {bound:.0} MB"
        );
        println!("peak RSS {peak:.0} MB within the bound {bound:.0} MB");
    }
}
