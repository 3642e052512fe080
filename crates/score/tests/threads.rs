//! Score evaluations on rayon pools of 1, 2 and 3 threads give the same numbers, bit for bit
//! (issue 38): with the passes cut into small chunks (`dense::set_passes`), the solves take the
//! chunked path in most passes, and the chunks' partial sums are added in chunk order. A
//! reduction in rayon's own order (a tree that follows the pool's splits) fails this test:
//! the scores then differ in their last bits between pools.
mod common;

use common::{instance, random_theta, rng};
use sosdp_score::dense::{Passes, chunked_passes, set_passes};
use sosdp_score::{FastCm, ScoreOracle};

#[test]
fn scores_do_not_depend_on_the_thread_count() {
    let (n, d, g) = (3000, 3, 1.5);
    let mut r = rng(78);
    let thetas: Vec<Vec<f64>> = (0..8)
        .map(|k| random_theta(&mut r, d, g, 0.1 * (k + 1) as f64))
        .collect();
    set_passes(Passes {
        chunk: 128,
        min_points: 256,
        min_flops: 0,
    });
    let before = chunked_passes();
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        // A fresh oracle each time: the same warm-start history on every pool.
        let fast = FastCm::new(instance(7, n, d, g));
        pool.install(|| {
            thetas
                .iter()
                .map(|t| {
                    let e = fast.evaluate(t).unwrap();
                    [e.score, e.lower, e.upper].map(f64::to_bits)
                })
                .collect::<Vec<_>>()
        })
    };
    let one = on(1);
    let chunked = chunked_passes() - before;
    let others = [on(2), on(3)];
    set_passes(Passes::DEFAULT);
    assert!(chunked > 100, "only {chunked} chunked passes");
    for (threads, other) in [2, 3].iter().zip(&others) {
        assert_eq!(&one, other, "{threads} threads");
    }
}
