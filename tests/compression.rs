//! Membership answers from the CM program compressed onto a small subspace
//! (`sosdp_score::cm::compress`): every NO (from its cut) and every YES (from its weights made
//! feasible for the full LMI) is confirmed by the clarabel reference backend (the check has
//! power: the same bounds moved by two points towards the score are refuted), and a release is
//! bit-identical with and without the compressed answers.
//!
//! The compressed program is forced at small `D` (`large_rank = 0`, `compress_answer_free = 1`);
//! by default it only runs from `D = 31`, where cold starts are expensive. The questions are
//! asked again with its free weights aggregated (`aggregate_share = 0`, MATH.md 4.10), and some
//! answers must come from aggregated solves.
mod common;

use common::{cluster_instance, short_release};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use sosdp_score::{Answer, ClarabelCm, CompressSettings, FastCm, FastSettings, ScoreOracle};

/// Settings that run the compressed test at every size.
fn forced(rank: usize) -> FastSettings {
    FastSettings {
        large_rank: 0,
        compress: CompressSettings {
            compress_rank: rank,
            compress_answer_free: 1.0,
            ..CompressSettings::default()
        },
        ..FastSettings::default()
    }
}

/// [`forced`], the compressed program's free weights aggregated whatever their share.
fn forced_aggregated(rank: usize) -> FastSettings {
    let mut settings = forced(rank);
    settings.compress.aggregate_share = 0.0;
    settings
}

/// [`forced`], the compressed program's free weights that `aggregate_share` leaves single
/// aggregated from 64 free weights on, 16 single on each side of the crossing (the lifted
/// refinement's wide core, at these sizes).
fn forced_wide(rank: usize) -> FastSettings {
    let mut settings = forced(rank);
    settings.compress.wide_core = 16;
    settings.compress.wide_free = 64;
    settings
}

/// `centre + r u` for a uniform direction `u`.
fn at_distance(rng: &mut StdRng, centre: &[f64], r: f64) -> Vec<f64> {
    let g: Vec<f64> = centre
        .iter()
        .map(|_| StandardNormal.sample(&mut *rng))
        .collect();
    let norm = g.iter().map(|x: &f64| x * x).sum::<f64>().sqrt();
    centre
        .iter()
        .zip(&g)
        .map(|(c, x)| c + r * x / norm)
        .collect()
}

/// Fill the kept cuts near the anchor, then ask membership questions farther out at levels a
/// little above the anchor's score (the shrinkage proposals of a slice sampler): every NO the
/// compressed program gives is a NO of the reference, with its certified lower bound at most
/// the reference's score, and every YES a YES, with its certified upper bound at least that
/// score.
#[test]
fn compressed_answers_are_confirmed_by_the_reference() {
    let (mut compressed, mut asked, mut refuted_raised) = (0, 0, 0);
    let (mut yes, mut refuted_lowered, mut grouped) = (0, 0, [0; 3]);
    let instances = [(1u64, 1500usize, 4usize), (2, 2000, 6), (3, 2500, 8)];
    let settings = [forced(2), forced_aggregated(2), forced_wide(2)];
    for ((seed, n, d), (kind, settings)) in instances
        .iter()
        .flat_map(|i| settings.iter().enumerate().map(move |s| (*i, s)))
    {
        let cm = cluster_instance(seed, n, d, 1.6);
        let fast = FastCm::new(cm.clone()).with_settings(settings.clone());
        let reference = ClarabelCm::new(cm.clone());
        let anchor = fast.minimise(None).unwrap();
        let mut rng = StdRng::seed_from_u64(70 + seed);
        for _ in 0..6 {
            fast.evaluate(&at_distance(&mut rng, &anchor.theta, 0.05))
                .unwrap();
        }
        let tol = 1e-6 * n as f64;
        for _ in 0..80 {
            let r = 0.02 + 0.48 * rng.random::<f64>();
            let theta = at_distance(&mut rng, &anchor.theta, r);
            if !cm.in_domain(&theta) {
                continue;
            }
            let level = anchor.eval.upper + 8.0 * rng.random::<f64>();
            let before = fast.answers(Answer::Compressed);
            let (eval, stats) = fast.evaluate_detailed(&theta, Some(level)).unwrap();
            asked += 1;
            if stats.answer != Answer::Compressed {
                continue;
            }
            compressed += 1;
            grouped[kind] += (stats.grouped_rounds > 0) as usize;
            assert_eq!(fast.answers(Answer::Compressed), before + 1);
            let truth = reference.evaluate(&theta).unwrap();
            if eval.upper <= level {
                yes += 1;
                assert!(
                    truth.lower <= eval.upper + tol,
                    "compressed upper bound {} at level {level}, the reference says {truth:?}",
                    eval.upper
                );
                if truth.lower > eval.upper - 2.0 + tol {
                    refuted_lowered += 1;
                }
                continue;
            }
            assert!(
                eval.lower > level,
                "a compressed answer must decide: {eval:?}"
            );
            assert!(
                truth.upper >= eval.lower - tol,
                "compressed bound {} at level {level}, the reference says {truth:?}",
                eval.lower
            );
            if truth.upper < eval.lower + 2.0 - tol {
                refuted_raised += 1;
            }
        }
    }
    eprintln!(
        "compression: {compressed} of {asked} questions answered ({yes} YES, {grouped:?} with \
         aggregated weights: single, aggregated, wide core); lower bounds raised by 2 points \
         refuted {refuted_raised}, upper bounds lowered by 2 points refuted {refuted_lowered}"
    );
    assert!(
        compressed >= 10,
        "only {compressed} of {asked} questions answered by the compressed program: the test is vacuous"
    );
    assert!(
        compressed - yes >= 1 && yes >= 1,
        "compressed answers: {yes} YES of {compressed}: a side is untested"
    );
    assert!(
        refuted_raised >= 1 && refuted_lowered >= 1,
        "no bound was within two points of the reference: the confirmation has no power"
    );
    assert!(
        grouped[0] == 0
            && grouped[1] >= 1
            && grouped[2] >= 1
            && grouped[1] + grouped[2] < compressed,
        "{grouped:?} of {compressed} compressed answers aggregated their weights (single, \
         aggregated, wide core): a kind is untested"
    );
}

/// The same seed gives the same release with and without the compressed program (its answers
/// are certified, so the chain is the same), and it answered questions in the first run.
#[test]
fn the_release_is_the_same_with_and_without_compression() {
    let (n, d, gamma) = (2000, 5, 1.6);
    let cm = cluster_instance(7, n, d, gamma);
    let run = |rank: usize| {
        let oracle = FastCm::new(cm.clone()).with_settings(forced(rank));
        (
            short_release(&oracle, d, gamma),
            oracle.answers(Answer::Compressed),
        )
    };
    let (with, answered) = run(2);
    let (without, none) = run(0);
    assert_eq!(none, 0);
    assert!(answered > 0, "the compressed program answered nothing");
    assert_eq!(with, without, "the compressed test changed the release");
    eprintln!("compressed program answered {answered} questions");
}
