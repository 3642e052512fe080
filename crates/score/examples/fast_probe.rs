use nalgebra::DMatrix;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_eval::{Adversary, CorruptedSample};
use sosdp_score::{CertifiedMean, ClarabelCm, FastCm, ScoreOracle};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (n, d, reps) = (args[0], args[1], args[2]);
    let skip_ref = args.get(3).copied().unwrap_or(0) == 1;
    let step = args.get(4).copied().unwrap_or(80) as f64 / 1000.0;
    let mut rng = StdRng::seed_from_u64(7);
    let mean = vec![0.0; d];
    let data = CorruptedSample::identity_covariance(&mut rng, n, &mean, 0.05, &Adversary::ShiftedCluster { distance: 5.0, axis: 0, spread: 0.1 }).data;
    let c: Vec<f64> = (0..d).map(|_| { let g: f64 = StandardNormal.sample(&mut rng); 0.3 * g / (d as f64).sqrt() }).collect();
    let gamma = DMatrix::identity(d, d) * (1.2 + 0.3f64.powi(2) * 2.0);
    let cm = CertifiedMean::new(&data, &c, &gamma).unwrap();
    let fast = FastCm::new(cm.clone());
    let reference = ClarabelCm::new(cm);
    let mut worst: f64 = 0.0;
    let mut theta: Vec<f64> = vec![0.0; d];
    for r in 0..reps {
        // a hit-and-run-like walk: small moves
        for k in 0..d {
            let g: f64 = StandardNormal.sample(&mut rng);
            theta[k] = (1.0 - step) * theta[k] + step * g;
        }
        if r == 0 { fast.reset(); }
        let t0 = Instant::now();
        let (e, st) = fast.evaluate_detailed(&theta, None).unwrap();
        let tf = t0.elapsed().as_secs_f64() * 1e3;
        let (er, tr) = if skip_ref { (e, 0.0) } else {
            let t1 = Instant::now();
            let er = reference.evaluate(&theta).unwrap();
            (er, t1.elapsed().as_secs_f64() * 1e3)
        };
        worst = worst.max((e.score - er.score).abs());
        println!("rep {r}: fast {:.4} [{:.4},{:.4}] {tf:.2} ms  ref {:.4} {tr:.1} ms  stats {:?}", e.score, e.lower, e.upper, er.score, st);
    }
    println!("max abs diff {worst:.3e}");
}
