//! Milliseconds per interior-point iteration against the number of free weights `N`, on a
//! CM-shaped program: `N` points `z_i ~ N(0, I_d)` (default `d = 50`), lifted to
//! `zh_i = [z_i; 1]` (`D = d + 1`), `B = diag(1.25 I, 1)`, every weight free, 8 iterations.
//! It measures what one Newton system costs on each side of the rule that picks Woodbury
//! (more free weights than the rank `m = D (D + 1) / 2`) or the dense `N x N` form
//! (docs/performance.md, section 6). OpenBLAS runs on one thread, as in the `sosdp` binary.
//!
//! `cargo run --release -p sosdp-score --example newton_cost -- [d] [N ...]`
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_score::ipm::{self, IpmSettings, Problem};
use std::borrow::Cow;
use std::time::Instant;

fn main() {
    sosdp_blas::set_num_threads(1);
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("an integer"))
        .collect();
    let dim = args.first().copied().unwrap_or(50);
    let sizes = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        vec![1000, 1400, 1800, 2200, 2600, 3000]
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let settings = IpmSettings {
        max_iter: 8,
        ..IpmSettings::default()
    };
    for &n in &sizes {
        let points = DMatrix::from_fn(dim + 1, n, |k, _| {
            if k < dim {
                StandardNormal.sample(&mut rng)
            } else {
                1.0
            }
        });
        let mut b = DMatrix::identity(dim + 1, dim + 1) * 1.25;
        b[(dim, dim)] = 1.0;
        let problem = Problem::packing(b, Cow::Owned(points));
        let a0 = vec![0.5; n];
        let clock = Instant::now();
        let sol = ipm::solve(&problem, &a0, &[], &settings, |_| false);
        let s = clock.elapsed().as_secs_f64();
        println!(
            "D {} N {n}: {} iterations, {:.1} ms per iteration",
            dim + 1,
            sol.iterations,
            1e3 * s / sol.iterations.max(1) as f64
        );
    }
}
