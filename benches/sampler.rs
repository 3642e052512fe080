//! Sampler benches (MATH.md 4): one hit-and-run step in a level body of the CM score, and one
//! release of one CM stage of the exponential mechanism (slice path, default settings).
//!
//! Instance: the corrupted Gaussian of `sosdp bench score` ([`ScoreInstance`]); the level body
//! is `{CM <= anchor score + d / eps}` inside the CM domain, eps = 1 (about the level the
//! mechanism visits most, MATH.md 4.5); steps use the default line move (stepping out and
//! shrinkage on membership answers).
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp::learn::stage::{CmStage, run_cm_stage};
use sosdp::sampler::hit_and_run::step;
use sosdp::sampler::level_body::LevelBody;
use sosdp::sampler::{Directions, Ellipsoid, LineMove, SamplerKind};
use sosdp::score::{FastCm, FastSettings};
use sosdp_cli::bench::ScoreInstance;
use std::hint::black_box;
use std::ops::ControlFlow;

fn bench_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("hit_and_run_step");
    group.sample_size(20);
    for &(n, d) in &[(2000, 5), (2000, 10)] {
        let instance = ScoreInstance::new(n, d, 1).unwrap();
        let oracle = FastCm::new(instance.problem.clone());
        let domain = Ellipsoid::new(
            instance.problem.centre().as_slice().to_vec(),
            instance.problem.gamma(),
        )
        .unwrap();
        let level = instance.anchor.eval.upper + d as f64;
        let body = LevelBody::new(
            &oracle,
            &domain,
            level,
            instance.radius,
            LineMove::Shrinkage,
        );
        let mut x = instance.anchor.theta.clone();
        let mut rng = StdRng::seed_from_u64(2);
        group.bench_function(BenchmarkId::from_parameter(format!("n{n}_D{d}")), |b| {
            b.iter(|| step(&body, &Directions::Isotropic, black_box(&mut x), &mut rng).unwrap())
        });
    }
    group.finish();
}

fn bench_release(c: &mut Criterion) {
    let mut group = c.benchmark_group("mechanism_release");
    group.sample_size(10);
    let (n, d) = (500, 3);
    let instance = ScoreInstance::new(n, d, 3).unwrap();
    let centre = instance.problem.centre().as_slice().to_vec();
    // Gamma of the instance is a multiple of the identity.
    let stage = CmStage {
        centre: &centre,
        radius: 0.5,
        gamma: instance.problem.gamma()[(0, 0)],
        epsilon: 1.0,
        sampler: SamplerKind::Slice,
        score: FastSettings::default(),
    };
    let mut rng = StdRng::seed_from_u64(4);
    group.bench_function(
        BenchmarkId::from_parameter(format!("slice_n{n}_d{d}")),
        |b| {
            // The stage takes its points (a copy per iteration, small beside the stage).
            b.iter(|| {
                black_box(
                    run_cm_stage(instance.data.clone(), &stage, None, &mut rng, &mut |_| {
                        ControlFlow::Continue(())
                    })
                    .unwrap(),
                )
            })
        },
    );
    group.finish();
}

criterion_group!(benches, bench_step, bench_release);
criterion_main!(benches);
