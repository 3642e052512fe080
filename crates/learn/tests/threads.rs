//! A fit run on rayon pools of 1, 2 and 3 threads gives the same release, byte for byte (issue
//! 38): the passes over many records are cut into chunks that depend on `n` alone and their
//! partial sums are added in chunk order (`sosdp_score::dense::Passes`). The fits are small, so
//! the tests cut the passes finer than the default (chunks of 128 points from 256, whatever
//! their cost) to take the chunked path in most passes of the solves. Non-vacuous: the test
//! checks through `sosdp_score::dense::chunked_passes` that chunked (parallel) passes were
//! taken; the score crate's unit test shows that a plain rayon sum of such values does change
//! with the pool.
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_learn::{GaussianSettings, Learner, Privacy, PrivateGaussian, PrivateMean};
use sosdp_score::dense::{Passes, chunked_passes, set_passes};
use std::sync::Mutex;

/// The tests of this file run one at a time (the counter of chunked passes is per process).
static SERIAL: Mutex<()> = Mutex::new(());

/// `n` records of N(mu, diag(scales^2)) with `mu = (1, -2, 0.5, ...)`, the first `corrupted`
/// of them moved to a tight cluster at distance 5 along the first axis (seeded).
fn records(n: usize, scales: &[f64], corrupted: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    let d = scales.len();
    let mu = |k: usize| [1.0, -2.0, 0.5][k % 3];
    DMatrix::from_fn(n, d, |i, k| {
        let z: f64 = StandardNormal.sample(&mut rng);
        if i < corrupted {
            mu(k) + if k == 0 { 5.0 } else { 0.0 } + 0.1 * z
        } else {
            mu(k) + scales[k] * z
        }
    })
}

/// The release JSON of `learner` on `data` on a pool of `threads` threads, and how many passes
/// were chunked during it.
fn release_on<L: Learner + Sync>(
    learner: &L,
    data: &DMatrix<f64>,
    threads: usize,
) -> (String, usize)
where
    L::Estimate: Send,
    L::Plan: Send,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let before = chunked_passes();
    let fit = pool.install(|| learner.fit(data)).expect("a release");
    (fit.release.to_json().unwrap(), chunked_passes() - before)
}

fn assert_same_release<L: Learner + Sync>(learner: &L, data: &DMatrix<f64>)
where
    L::Estimate: Send,
    L::Plan: Send,
{
    set_passes(Passes {
        chunk: 128,
        min_points: 256,
        min_flops: 0,
    });
    let (one, chunked) = release_on(learner, data, 1);
    let others: Vec<String> = [2, 3]
        .iter()
        .map(|&threads| release_on(learner, data, threads).0)
        .collect();
    set_passes(Passes::DEFAULT);
    assert!(
        chunked > 100,
        "{chunked} passes chunked: the test would be vacuous"
    );
    for (threads, other) in [2, 3].iter().zip(&others) {
        assert_eq!(&one, other, "{threads} threads");
    }
}

#[test]
fn a_mean_fit_releases_the_same_on_1_2_and_3_threads() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let data = records(6000, &[1.0, 1.0, 1.0], 300, 1);
    let learner = PrivateMean::new(Privacy::new(1.0).corruption(0.05).seed(3), 10.0);
    assert_same_release(&learner, &data);
}

#[test]
fn a_gaussian_fit_releases_the_same_on_1_2_and_3_threads() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let data = records(5000, &[1.5, 1.0], 0, 2);
    let learner =
        PrivateGaussian::new(Privacy::new(2.0).seed(5), 10.0, 10.0).settings(GaussianSettings {
            refinement_stages: 1,
            ..Default::default()
        });
    assert_same_release(&learner, &data);
}
