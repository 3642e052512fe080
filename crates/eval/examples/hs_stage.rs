//! One preconditioner stage at d = 2, released two ways with the same eps (MATH.md 5.2 and
//! 5.2b): the additive stage (the clipped second moment plus Frobenius-norm noise, the
//! learners' stage) and an HS stage (the exponential mechanism on the HS score, slice sampler
//! from the public centre of its domain, clarabel backend). Records from
//! `N(0, diag(1, thin))` in the stage's frame, a fraction `eta` moved to `+-r` along the thin
//! axis; the clip `lambda` is a parameter (23.2 is d = 10's, so the adversary's leverage is
//! that of d = 10). Printed per seed: the released `S`'s thin-axis entry and the extreme
//! eigenvalues of `Sigma^{-1/2} S Sigma^{-1/2}` (what the next frame's condition number
//! depends on).
//!
//! `cargo run --release -p sosdp-eval --example hs_stage -- [n] [eta] [r2] [lambda] [eps] [seeds]`
//! (defaults 2000 0.05 4 23.2 1 3)
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_learn::frobenius_noise;
use sosdp_sampler::{MechanismSettings, Spectrahedron, Start, release};
use sosdp_score::{ClarabelHs, HsSettings, Hypercontractive, ScoreOracle};
use std::ops::ControlFlow;

fn main() {
    let arg = |k: usize, default: f64| {
        std::env::args()
            .nth(k)
            .map_or(default, |v| v.parse().expect("a number"))
    };
    let (n, eta, r2, lambda, eps) = (
        arg(1, 2000.0) as usize,
        arg(2, 0.05),
        arg(3, 4.0),
        arg(4, 23.2),
        arg(5, 1.0),
    );
    let seeds = arg(6, 3.0) as u64;
    let thin = 0.05f64;
    let band = 0.02;
    println!(
        "n = {n}, eta = {eta}, r^2 = {r2}, lambda = {lambda}, eps = {eps}, thin variance {thin}"
    );
    println!(
        "| seed | additive: thin entry | additive: eigenvalues | HS: thin entry | HS: eigenvalues | HS: seconds |"
    );
    println!("|---|---|---|---|---|---|");
    let whiten = DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&[
        1.0,
        1.0 / thin.sqrt(),
    ]));
    let ratio = |s: &DMatrix<f64>| {
        let m = &whiten * s * &whiten;
        let ev = m.symmetric_eigenvalues();
        (ev.min(), ev.max())
    };
    for seed in 0..seeds {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut data = DMatrix::zeros(n, 2);
        for i in 0..n {
            let a: f64 = StandardNormal.sample(&mut rng);
            let b: f64 = StandardNormal.sample(&mut rng);
            data[(i, 0)] = a;
            data[(i, 1)] = b * thin.sqrt();
        }
        let bad = (eta * n as f64).round() as usize;
        for i in 0..bad {
            data[(i, 0)] = 0.0;
            data[(i, 1)] = r2.sqrt() * if i % 2 == 0 { 1.0 } else { -1.0 };
        }
        // The additive stage: clipped second moment plus noise of scale Delta_F / eps.
        let mut moment = DMatrix::zeros(2, 2);
        for row in data.row_iter() {
            let c = row.transpose() * (lambda / row.norm_squared()).min(1.0).sqrt();
            moment += &c * c.transpose() / n as f64;
        }
        let sensitivity = std::f64::consts::SQRT_2 * lambda / n as f64;
        let additive = moment + frobenius_noise::sample(2, sensitivity / eps, &mut rng);
        // The HS stage on the spectrahedron 1e-3 I ⪯ S ⪯ 2 I, from its centre.
        let settings = HsSettings::default();
        let hs =
            ClarabelHs::new(Hypercontractive::new(&data, lambda, band, settings).expect("data"));
        let domain = Spectrahedron::new(2, 1e-3, 2.0).expect("domain");
        let start = Start {
            theta: sosdp_sampler::Domain::centre(&domain).to_vec(),
            score_upper: hs.max_score(),
        };
        let mechanism = MechanismSettings::new(eps, 3).expect("settings");
        let clock = std::time::Instant::now();
        let out = release(&hs, &domain, &start, &mechanism, &mut rng, &mut |_| {
            ControlFlow::Continue(())
        })
        .expect("a release");
        let s = domain.matrix(&out.theta);
        let (a_lo, a_hi) = ratio(&additive);
        let (h_lo, h_hi) = ratio(&s);
        println!(
            "| {seed} | {:.3} | {a_lo:.2}, {a_hi:.2} | {:.3} | {h_lo:.2}, {h_hi:.2} | {:.0} |",
            additive[(1, 1)],
            s[(1, 1)],
            clock.elapsed().as_secs_f64()
        );
    }
}
