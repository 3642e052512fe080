//! Score oracle benches (MATH.md 3.2): one evaluation of CM and SP on a corrupted Gaussian
//! instance, at a theta near the minimiser.
//!
//! `cm_fast_cold` / `cm_fast_warm` use the instance of `sosdp bench score`
//! ([`sosdp_cli::bench::ScoreInstance`]): cold evaluations (state reset before each one) at a
//! random theta near the anchor, and warm evaluations along a short random walk.
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::DMatrix;
use rand::SeedableRng;
use sosdp::eval::{Adversary, CorruptedSample};
use sosdp::score::{CertifiedMean, ClarabelCm, ClarabelSp, FastCm, ScoreOracle, Spectral};
use sosdp_cli::bench::{ScoreInstance, theta_seed, walk_seed};
use std::hint::black_box;

fn instance(n: usize, d: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let adversary = Adversary::ShiftedCluster {
        distance: 3.0,
        axis: 0,
        spread: 0.1,
    };
    CorruptedSample::identity_covariance(&mut rng, n, &vec![0.0; d], 0.05, &adversary).data
}

fn bench_cm(c: &mut Criterion) {
    let mut group = c.benchmark_group("cm_clarabel");
    group.sample_size(10);
    for &(n, d) in &[(2000, 5), (2000, 10)] {
        let data = instance(n, d, 7);
        let oracle = ClarabelCm::new(
            CertifiedMean::new(&data, &vec![0.0; d], &(DMatrix::identity(d, d) * 1.35)).unwrap(),
        );
        let theta = vec![0.05; d];
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("n{n}_D{d}")),
            &theta,
            |b, t| b.iter(|| black_box(oracle.evaluate(t).unwrap())),
        );
    }
    group.finish();
}

fn bench_sp(c: &mut Criterion) {
    let mut group = c.benchmark_group("sp_clarabel");
    group.sample_size(10);
    {
        let (n, d) = (2000, 5);
        let data = instance(n, d, 8);
        let oracle = ClarabelSp::new(Spectral::new(&data, 2.0 * d as f64, 0.4).unwrap());
        let theta = Spectral::theta_of(&(DMatrix::identity(d, d) * 1.1));
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("n{n}_d{d}")),
            &theta,
            |b, t| b.iter(|| black_box(oracle.evaluate(t).unwrap())),
        );
    }
    group.finish();
}

fn bench_cm_fast_cold(c: &mut Criterion) {
    let mut group = c.benchmark_group("cm_fast_cold");
    group.sample_size(20);
    for &(n, d) in &[(2000, 5), (2000, 10)] {
        let instance = ScoreInstance::new(n, d, 1).unwrap();
        let theta = instance.ball_thetas(1, theta_seed(1)).unwrap().remove(0);
        let oracle = FastCm::new(instance.problem.clone());
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("n{n}_D{d}")),
            &theta,
            |b, t| {
                b.iter(|| {
                    oracle.reset();
                    black_box(oracle.evaluate(t).unwrap())
                })
            },
        );
    }
    group.finish();
}

fn bench_cm_fast_warm(c: &mut Criterion) {
    let mut group = c.benchmark_group("cm_fast_warm");
    group.sample_size(20);
    let (n, d) = (2000, 10);
    let instance = ScoreInstance::new(n, d, 1).unwrap();
    // Walk back and forth along the path so that consecutive evaluations are always one step
    // apart; each iteration is one warm evaluation.
    let walk = instance.random_walk(20, walk_seed(1)).unwrap();
    let oracle = FastCm::new(instance.problem.clone());
    oracle.evaluate(&walk[0]).unwrap();
    let period = 2 * (walk.len() - 1);
    let mut k = 0usize;
    group.bench_function(
        BenchmarkId::from_parameter(format!("n{n}_D{d}_walk")),
        |b| {
            b.iter(|| {
                k = (k + 1) % period;
                let i = if k < walk.len() { k } else { period - k };
                black_box(oracle.evaluate(&walk[i]).unwrap())
            })
        },
    );
    group.finish();
}

criterion_group!(
    benches,
    bench_cm,
    bench_sp,
    bench_cm_fast_cold,
    bench_cm_fast_warm
);
criterion_main!(benches);
