//! Privacy of the **whole learner** on neighbouring datasets (MATH.md 1, 4.1, 5.1, 7):
//! [`PrivateMean`] in 1-D, forced to a single stage so that the exact law of its release is
//! computable by quadrature. That stage is the CM mechanism with centre 0, `Gamma = gamma I`
//! and domain `B(0, radius) ∩ {theta^2 <= gamma}` of the public plan, on the records projected
//! onto `B(0, projection_radius)`, sampled at eps/2 with a uniformly random level offset. The
//! test compares the learner's releases (`fit(..).release.estimate`) with that exact law on two
//! neighbouring datasets, checks the binned privacy loss, exact and empirical, and shows that
//! its goodness-of-fit test rejects a learner that samples at eps instead of eps/2.
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp::eval::{Adversary, CorruptedSample};
use sosdp::learn::projection::project_rows;
use sosdp::learn::{Constants, Learner, MeanSettings, Privacy, PrivateMean, StageMechanism};
use sosdp::score::{CertifiedMean, FastCm, ScoreOracle};
use std::time::Instant;

#[path = "../crates/sampler/tests/common/mod.rs"]
mod common;
mod exact_law;
use exact_law::{
    assert_binned_privacy_loss, assert_fits_exact_law, assert_rejects_variant, binned,
    exact_cell_law, largest_log_ratio,
};

// ----- the learner's single stage and its exact law ----------------------------------------

/// The single stage's score, on records projected as the learner projects them, at the
/// midpoints of `cells` equal cells of `[-radius, radius]`.
fn stage_scores(
    data: &DMatrix<f64>,
    radius: f64,
    gamma: f64,
    projection_radius: f64,
    cells: usize,
) -> (Vec<f64>, f64) {
    let projected = project_rows(data, &[0.0], projection_radius);
    let oracle = FastCm::new(
        CertifiedMean::new(&projected, &[0.0], &DMatrix::from_element(1, 1, gamma)).unwrap(),
    );
    let scores = (0..cells)
        .map(|c| {
            oracle
                .evaluate(&[radius * (-1.0 + (c as f64 + 0.5) * 2.0 / cells as f64)])
                .unwrap()
                .score
        })
        .collect();
    (scores, oracle.max_score())
}

/// `count` releases of `learner` on `data`, one fit per seed `seed..seed + count`, on two
/// threads.
fn learner_draws(learner: &PrivateMean, data: &DMatrix<f64>, count: usize, seed: u64) -> Vec<f64> {
    let half = count / 2;
    std::thread::scope(|scope| {
        let parts: Vec<_> = [(0, half), (half, count)]
            .into_iter()
            .map(|(a, b)| {
                scope.spawn(move || {
                    (a..b)
                        .map(|k| {
                            let privacy = learner.privacy().seed(seed + k as u64);
                            learner
                                .clone()
                                .with_privacy(privacy)
                                .fit(data)
                                .unwrap()
                                .release
                                .estimate[0]
                        })
                        .collect::<Vec<f64>>()
                })
            })
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

/// The whole learner's privacy on neighbouring datasets, against its exact law.
///
/// Setting: n = 40 records of N(0.3, 1), 10% of them a tight cluster (spread 0.1) at distance
/// 3 to the right of the mean, seed 5; the neighbour moves the largest record (an outlier) to
/// -1e6, which the learner projects onto `-projection_radius` (about -6). Learner:
/// `PrivateMean::new(Privacy::new(2), 1)` with `max_stages = 1` (asserted: one stage, eps = 2, the
/// domain ball `[-1, 1]` inside the CM ellipsoid). Exact laws: 4000 cells of `[-1, 1]`, 1000
/// level offsets (checked converged against 2000 cells / 250 offsets: every bin mass within
/// 1e-4 and every binned log-ratio within 0.01), 20 bins of width 0.1. Hardening moves a
/// release by at most 1e-6 (1e-6 of the radius): negligible for bins of width 0.1.
///
/// - Exact: the binned log-ratio is at most eps on every bin (and on every single grid cell)
///   and at least eps/3 on some bin
///   with >= 1% of the mass under both laws (non-vacuity).
/// - N = 2000 fits per dataset (seeds distinct per fit): chi-square goodness of fit on the 20
///   bins (tail bins merged to >= 5 expected) accepted at p >= 1e-3, with its power at level
///   1e-3 against a deviation of Cohen's w = 0.15 (non-centrality N w^2 = 45) computed and
///   asserted >= 0.9; KS against the exact CDF accepted at p >= 1e-3 (it detects CDF deviations
///   above about 0.058 with probability about 0.9).
/// - Empirical: on every bin with >= 50 fits on both sides, |log(c / c')| <= eps + 3 SE,
///   SE = sqrt(1/c + 1/c'); non-vacuity: the largest observed one is >= eps/4.
/// - Power shown: the same learner asked for 2 eps (`PrivateMean::new(Privacy::new(4), 10.0)`, same plan otherwise:
///   exactly what a learner that forgot the mechanism's halving would release at eps), N = 1000
///   fits per dataset, must be rejected by the chi-square test against the correct exact law
///   at p < 1e-6, with its exact non-centrality's power at that level asserted >= 0.999, while
///   fitting its own exact law (p >= 1e-3). (Its exact binned log-ratio, 1.98 on bins with at
///   least 0.1% mass, happens to stay just below eps here; the rejection does not rely on it.)
///
/// Observed (this seed set): exact binned log-ratio 1.006 = 0.50 eps (bin [0.9, 1.0)), single
/// cells at most 1.03; chi-square p = 0.33 and 0.64 (12 and 13 df, power 0.97 and
/// 0.96 against w = 0.15); KS p = 0.50 and 0.84; empirical log-ratios at most 0.94 (allowed at
/// least 2.23); without halving rejected at p = 4e-32 and 2e-30 (non-centralities 181 and 190).
/// About 40 s in release mode on 2 loaded cores.
#[test]
fn single_stage_private_mean_matches_its_exact_law_and_is_epsilon_private() {
    let clock = Instant::now();
    let (epsilon, prior, n) = (2.0, 1.0, 40);
    let (bins, cells, offsets, count, broken_count) = (20, 4000, 1000, 2000, 1000);
    let single = Constants {
        max_stages: 1,
        ..Constants::default()
    };
    // CM stages only: this test is about the exponential mechanism's halving.
    let learner = PrivateMean::new(Privacy::new(epsilon), prior).settings(MeanSettings {
        constants: single.clone(),
        additive_stages: false,
        ..MeanSettings::default()
    });
    let plan = learner.plan(n, 1).unwrap();
    assert_eq!(
        plan.stages.len(),
        1,
        "the plan must have one stage: {plan:?}"
    );
    let stage = &plan.stages[0];
    let StageMechanism::Cm { gamma, .. } = stage.mechanism else {
        panic!("the stage must be a CM stage: {stage:?}")
    };
    let (radius, projection) = (stage.radius, stage.projection_radius);
    assert!((stage.epsilon - epsilon).abs() < 1e-12 && (radius - prior).abs() < 1e-12);
    // The domain is the ball: the CM ellipsoid {theta^2 <= gamma} contains [-radius, radius].
    assert!(gamma.sqrt() > radius);
    // The learner without the halving: the same plan at twice the eps.
    let broken_learner =
        PrivateMean::new(Privacy::new(2.0 * epsilon), prior).settings(MeanSettings {
            constants: single,
            additive_stages: false,
            ..MeanSettings::default()
        });
    let broken_plan = broken_learner.plan(n, 1).unwrap();
    assert_eq!(broken_plan.stages.len(), 1);
    let b = &broken_plan.stages[0];
    assert!(
        b.radius == radius
            && matches!(b.mechanism, StageMechanism::Cm { gamma: g, .. } if g == gamma)
            && b.projection_radius == projection,
        "the broken variant's plan differs beyond eps"
    );
    println!("plan: radius {radius}, gamma {gamma:.3}, projection radius {projection:.3}");

    let y = CorruptedSample::identity_covariance(
        &mut StdRng::seed_from_u64(5),
        n,
        &[0.3],
        0.1,
        &Adversary::ShiftedCluster {
            distance: 3.0,
            axis: 0,
            spread: 0.1,
        },
    )
    .data;
    let mut y2 = y.clone();
    let k = (0..n)
        .max_by(|&a, &b| y[(a, 0)].total_cmp(&y[(b, 0)]))
        .unwrap();
    y2[(k, 0)] = -1e6;

    let (mut exact, mut exact_broken, mut cell_laws) = (vec![], vec![], vec![]);
    for data in [&y, &y2] {
        let (scores, max_score) = stage_scores(data, radius, gamma, projection, cells);
        let law = exact_cell_law(&scores, max_score, 0.5 * epsilon, offsets);
        let (coarse_scores, _) = stage_scores(data, radius, gamma, projection, cells / 2);
        let coarse = binned(
            &exact_cell_law(&coarse_scores, max_score, 0.5 * epsilon, offsets / 4),
            bins,
        );
        let fine = binned(&law, bins);
        for (a, b) in fine.iter().zip(&coarse) {
            assert!(
                (a - b).abs() < 1e-4 && (a.ln() - b.ln()).abs() < 0.01,
                "quadrature not converged: {a} against {b}"
            );
        }
        exact.push(fine);
        exact_broken.push(binned(
            &exact_cell_law(&scores, max_score, epsilon, offsets),
            bins,
        ));
        cell_laws.push(law);
    }
    let width = 2.0 * radius / bins as f64;
    for b in 0..bins {
        println!(
            "bin {b:2} [{:+.1}, {:+.1}): exact {:.5} / {:.5}, log ratio {:+.3}; without halving {:.5} / {:.5}, log ratio {:+.3}",
            -radius + width * b as f64,
            -radius + width * (b + 1) as f64,
            exact[0][b],
            exact[1][b],
            (exact[0][b] / exact[1][b]).ln(),
            exact_broken[0][b],
            exact_broken[1][b],
            (exact_broken[0][b] / exact_broken[1][b]).ln()
        );
    }
    let (worst, worst_bin) = largest_log_ratio(&exact[0], &exact[1], 0.0);
    let (visible, visible_bin) = largest_log_ratio(&exact[0], &exact[1], 0.01);
    let (broken_worst, broken_bin) = largest_log_ratio(&exact_broken[0], &exact_broken[1], 1e-3);
    println!(
        "exact largest |log ratio| {worst:.3} (bin {worst_bin}), {visible:.3} on bins with >= 1% mass (bin {visible_bin}); without halving {broken_worst:.3} (bin {broken_bin}, >= 0.1% mass); eps = {epsilon}; quadrature {:.1} s",
        clock.elapsed().as_secs_f64()
    );
    assert!(
        worst <= epsilon,
        "the exact single-stage mechanism exceeds eps: {worst}"
    );
    // The finest events: single grid cells (width 5e-4 of the domain's diameter).
    let (pointwise, _) = largest_log_ratio(&cell_laws[0], &cell_laws[1], 0.0);
    println!("exact largest |log ratio| over single cells: {pointwise:.3}");
    assert!(
        pointwise <= epsilon,
        "the exact mechanism exceeds eps on a cell: {pointwise}"
    );
    assert!(
        visible >= epsilon / 3.0,
        "vacuous: the exact log ratio {visible} is below eps/3"
    );

    let draws = [
        learner_draws(&learner, &y, count, 0),
        learner_draws(&learner, &y2, count, 100_000),
    ];
    println!("{} fits: {:.1} s", 2 * count, clock.elapsed().as_secs_f64());
    let alpha = 1e-3;
    for (k, xs) in draws.iter().enumerate() {
        assert!(
            xs.iter().all(|x| x.abs() <= radius),
            "a release outside the domain"
        );
        assert_fits_exact_law(
            &format!("dataset {k}"),
            xs,
            &exact[k],
            &cell_laws[k],
            radius,
            bins,
            alpha,
        );
    }
    assert_binned_privacy_loss(
        [&draws[0], &draws[1]],
        [&exact[0], &exact[1]],
        radius,
        bins,
        epsilon,
    );

    // The learner without the halving is rejected.
    let rejection = 1e-6;
    for (k, data) in [&y, &y2].into_iter().enumerate() {
        let xs = learner_draws(
            &broken_learner,
            data,
            broken_count,
            500_000 + 100_000 * k as u64,
        );
        assert_rejects_variant(
            &format!("without halving, dataset {k}"),
            &xs,
            &exact[k],
            &exact_broken[k],
            radius,
            bins,
            rejection,
            alpha,
        );
    }
    println!("total {:.1} s", clock.elapsed().as_secs_f64());
}

/// The l2 sensitivity of an additive stage's projected mean (MATH.md 5.1) is at most
/// `Delta = 2 projection_radius / n`, the bound its noise scale uses: over 200 random datasets
/// in d = 3 and adversarial neighbours (one record replaced by a point far out along the
/// direction opposite to it), the projected means differ by at most `Delta`, and the worst
/// neighbours (a record on the boundary replaced by its antipode) attain it to 1%. Not
/// vacuous: the means of the unprojected records differ by over 100 `Delta`.
#[test]
fn additive_stage_sensitivity_is_at_most_its_delta() {
    use rand::RngExt;
    let (n, d, radius) = (50, 3, 4.0);
    let delta = 2.0 * radius / n as f64;
    let mean = |x: &DMatrix<f64>| x.row_mean();
    let mut rng = StdRng::seed_from_u64(9);
    let (mut largest, mut unprojected): (f64, f64) = (0.0, f64::INFINITY);
    for _ in 0..200 {
        let mut x = DMatrix::from_fn(n, d, |_, _| 3.0 * rng.random::<f64>() - 1.5);
        let centre: Vec<f64> = (0..d).map(|_| rng.random::<f64>() - 0.5).collect();
        let i = rng.random_range(0..n);
        // Put record i on (or beyond) the boundary, and its replacement far out opposite.
        let dir: Vec<f64> = (0..d).map(|_| rng.random::<f64>() - 0.5).collect();
        let norm = dir.iter().map(|v| v * v).sum::<f64>().sqrt();
        let scale = radius * (1.0 + rng.random::<f64>());
        let mut y = x.clone();
        for k in 0..d {
            x[(i, k)] = centre[k] + scale * dir[k] / norm;
            y[(i, k)] = centre[k] - 1e6 * dir[k] / norm;
        }
        let gap = (mean(&project_rows(&x, &centre, radius))
            - mean(&project_rows(&y, &centre, radius)))
        .norm();
        assert!(gap <= delta * (1.0 + 1e-9), "gap {gap} above Delta {delta}");
        largest = largest.max(gap);
        unprojected = unprojected.min((mean(&x) - mean(&y)).norm());
    }
    assert!(
        largest >= 0.99 * delta,
        "largest gap {largest}, Delta {delta}"
    );
    assert!(unprojected > 100.0 * delta);
}
