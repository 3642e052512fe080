//! Privacy of every learner's **additive** stages and of the covariance's record-to-pair map
//! (MATH.md 1, 4.6, 5.1, 5.2, 5.4, 7; issue 35 item 5). The CM stages' exact law is tested
//! through the whole mean learner in tests/privacy.rs; here:
//!
//! - the covariance and Gaussian learners (d = 2, small plans) on neighbouring datasets, one
//!   record moved far: with the same seed, the first preconditioner stage's releases differ by
//!   at most its sensitivity `Delta_F = sqrt 2 lambda / m` (plus a grid step per coordinate when
//!   the releases are snapped); a learner that pairs the records in a data-dependent (sorted)
//!   order breaks the bound;
//! - every preconditioner stage's noise, recovered from its release at a known second moment,
//!   has the radius law `Gamma(D, Delta_F / eps_j)` and a uniform direction, with `eps_j` the
//!   stage's share in the public plan and the shares summing to eps; the same check rejects
//!   the release run with one stage's noise scale divided by J;
//! - the pairing `x_i = (y_{2i} - y_{2i-1}) / sqrt 2` changes exactly one pair when one record
//!   changes (an overlapping pairing is shown to change two);
//! - the mean's additive stages at d = 1 and d = 3 (through the whole learner): the releases
//!   follow the exact law of the snapped mechanism `snap(f + z)`, `z` l2-Laplace of scale
//!   `Delta_j / eps_j`, `Delta_j = 2 projection_radius_j / n`, cell by cell on the grid
//!   (chi-square, with its power against the scale divided by J computed and asserted).
//!
//! The checks return `Err` rather than panic, so that each test also runs them on a broken
//! variant and asserts the rejection.
#[path = "../crates/sampler/tests/common/mod.rs"]
mod common;
#[allow(dead_code)]
mod exact_law;
use exact_law::noise::{
    check_snapped_law, detected_grid, dkw_critical, dkw_power, gamma_cdf, gamma_scale_distance,
    ks_check, ks_two_check,
};
use exact_law::plane::{learner_releases, seeded};
use nalgebra::{DMatrix, DVector};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, Gamma, StandardNormal};
use sosdp::learn::covariance::pair;
use sosdp::learn::projection::project_rows;
use sosdp::learn::snap;
use sosdp::learn::symmetric::{matrix_of, spd_power, svec_of};
use sosdp::learn::{
    Constants, CovarianceSettings, GaussianSettings, Learner, MeanSettings, PlannedStage,
    PreconditionerPlan, PreconditionerPoints, PreconditionerSettings, Privacy, PrivateCovariance,
    PrivateGaussian, PrivateMean, StageMechanism,
};
use std::time::Instant;

// ----- the learners and the neighbouring datasets ---------------------------------------------

/// The covariance learner at d = 2 forced to a small plan: two preconditioner stages, one
/// refinement stage, the prior `I ⪯ Sigma ⪯ 4 I`. A large eps keeps the snapping grid (when
/// the releases are snapped) within about `Delta_F` of the coupling bound.
fn covariance_learner(epsilon: f64) -> PrivateCovariance {
    PrivateCovariance::new(Privacy::new(epsilon), 4.0).settings(small_plan())
}

/// Two preconditioner stages, one refinement stage, any planned error.
fn small_plan() -> CovarianceSettings {
    CovarianceSettings {
        preconditioner: PreconditionerSettings {
            stages: Some(2),
            ..Default::default()
        },
        refinement_stages: 1,
        max_planned_error: 1e9,
        ..Default::default()
    }
}

/// [`covariance_learner`] centred with the prior `|mu| <= 3`, its preconditioner on centred
/// records (MATH.md 5.2).
fn centred_records_learner(epsilon: f64) -> PrivateCovariance {
    PrivateCovariance::new(Privacy::new(epsilon), 4.0)
        .centred(3.0)
        .settings(CovarianceSettings {
            preconditioner_points: PreconditionerPoints::Records,
            ..small_plan()
        })
}

/// The Gaussian learner at d = 2 with one refinement stage (the preconditioner's stage count
/// chosen by its plan), priors `|mu| <= 3`, `I ⪯ Sigma ⪯ 4 I`.
fn gaussian_learner(epsilon: f64) -> PrivateGaussian {
    PrivateGaussian::new(Privacy::new(epsilon), 3.0, 4.0).settings(GaussianSettings {
        refinement_stages: 1,
        centring: sosdp::learn::Centring::Never,
        ..Default::default()
    })
}

const N: usize = 4000;

/// The coupling test's size: the sorted-pairing variant's gap grows like `sqrt(m)` times
/// `Delta_F`, so a larger `n` makes its rejection sure.
const N_COUPLING: usize = 100_000;

/// `N` records of `N(mu, Sigma)` in R^2, `Sigma` with eigenvalues 3 and 1.2 rotated by 0.5 rad,
/// and the neighbour with record `moved` replaced by `(3e5, -4e5)`.
fn neighbours(n: usize, seed: u64, moved: usize) -> (DMatrix<f64>, DMatrix<f64>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let (c, s) = (0.5f64.cos(), 0.5f64.sin());
    let half = DMatrix::from_row_slice(2, 2, &[c, -s, s, c])
        * DMatrix::from_diagonal(&DVector::from_vec(vec![3f64.sqrt(), 1.2f64.sqrt()]));
    let g = DMatrix::from_fn(n, 2, |_, _| normal(&mut rng));
    let mut y: DMatrix<f64> = g * half.transpose();
    for mut row in y.row_iter_mut() {
        row[0] += 1.0;
        row[1] -= 0.5;
    }
    let mut y2 = y.clone();
    y2[(moved, 0)] = 3e5;
    y2[(moved, 1)] = -4e5;
    (y, y2)
}

fn normal(rng: &mut StdRng) -> f64 {
    StandardNormal.sample(rng)
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The grid of snapped `svec` releases, in `svec` coordinates or in matrix entries (`None` when
/// the releases are not snapped).
fn release_grid(svecs: &[Vec<f64>], scale: f64) -> Option<f64> {
    let coords: Vec<f64> = svecs.iter().flatten().copied().collect();
    let entries: Vec<f64> = svecs
        .iter()
        .flat_map(|v| matrix_of(v).iter().copied().collect::<Vec<_>>())
        .collect();
    detected_grid(&coords, scale).or_else(|| detected_grid(&entries, scale))
}

// ----- 1 (a): same-seed coupling of the first stage -------------------------------------------

/// The first stages' releases of `release` (a seed to the stage releases in `svec`) on the two
/// datasets, for each of `seeds`.
fn first_stage_gaps(
    release: &dyn Fn(u64, &DMatrix<f64>) -> Vec<f64>,
    y: &DMatrix<f64>,
    y2: &DMatrix<f64>,
    seeds: std::ops::Range<u64>,
    cross: bool,
) -> Vec<(Vec<f64>, Vec<f64>)> {
    seeds
        .map(|s| (release(s, y), release(if cross { s + 1000 } else { s }, y2)))
        .collect()
}

/// Same-seed coupling of the first mean release of the preconditioner on centred records
/// (MATH.md 5.2 with 5.3b's centring in every frame: `PreconditionerPoints::Records`), d = 2,
/// through the fit's own path ([`PrivateCovariance::preconditioner_release`], asserted to be the
/// first entries of a whole fit's releases) on the neighbours of the coupling test above (one
/// record moved to `(3e5, -4e5)`), 40 seeds, a large eps so that the grid is far below the
/// sensitivity.
///
/// - Bound: `|v_1 - v_1'| <= 2 rho_1 / n` (the stage's clip radius `rho_1` in the public plan),
///   plus one grid step per coordinate.
/// - Not vacuous: the largest gap is at least 0.4 of the bound (the moved record alone moves the
///   clipped mean by about `(rho_1 + |x|) / n`).
/// - Broken variant: the same stages with the clip radius 100 times the plan's, run through
///   [`PreconditionerPlan::release`] on the records without their projection onto the plan's
///   `record_radius` (which alone would keep the moved record within about 1.5 `rho_1`), exceed
///   the plan's bound in every seed.
#[test]
fn centred_preconditioner_mean_is_coupled_on_neighbours() {
    let learner = centred_records_learner(512.0);
    let (small, _) = neighbours(N, 3, 0);
    let full = seeded(&learner, 7).fit(&small).unwrap();
    let (_, pre) = seeded(&learner, 7).preconditioner_release(&small).unwrap();
    assert_eq!(&full.release.stage_releases[..pre.len()], &pre[..]);
    let (y, y2) = neighbours(N_COUPLING, 11, 1234);
    let plan = learner.plan(N_COUPLING, 2).unwrap();
    let pre = &plan.preconditioner;
    assert!(pre.centring.is_some());
    let mean = pre.stages[0].mean.clone().expect("a centred stage");
    let sensitivity = 2.0 * mean.clip_radius / N_COUPLING as f64;
    let bound = sensitivity * (1.0 + 1e-9) + 2.0 * mean.grid;
    assert!(
        mean.grid < 0.1 * sensitivity,
        "the grid {} hides the sensitivity {sensitivity}",
        mean.grid
    );
    let release = |s: u64, data: &DMatrix<f64>| {
        let (_, releases) = seeded(&learner, s).preconditioner_release(data).unwrap();
        releases[0].release.clone()
    };
    let gaps: Vec<f64> = first_stage_gaps(&release, &y, &y2, 0..40, false)
        .iter()
        .map(|(a, b)| distance(a, b))
        .collect();
    let largest = gaps.iter().copied().fold(0.0, f64::max);
    println!(
        "centred stage mean: rho_1 = {:.3}, grid {:e}, bound {bound:.3e}, largest gap {largest:.3e}",
        mean.clip_radius, mean.grid
    );
    for (s, g) in gaps.iter().enumerate() {
        assert!(
            *g <= bound,
            "seed {s}: the first means differ by {g} > {bound}"
        );
    }
    assert!(
        largest >= 0.4 * bound,
        "vacuous: largest gap {largest} < 0.4 x {bound}"
    );
    // Broken: the clip 100 times wider than the plan states.
    let mut wide = pre.clone();
    for stage in &mut wide.stages {
        if let Some(m) = stage.mean.as_mut() {
            m.clip_radius *= 100.0;
        }
    }
    let over = (0..40u64)
        .filter(|&s| {
            let first = |data: &DMatrix<f64>| {
                let mut rng = StdRng::seed_from_u64(s);
                wide.release(data, &mut rng).1[0].release.clone()
            };
            distance(&first(&y), &first(&y2)) > bound
        })
        .count();
    assert_eq!(
        over, 40,
        "the wide clip exceeded the bound in only {over} of 40 seeds"
    );
}

/// The noise of every release of the preconditioner on centred records (MATH.md 5.2), d = 2,
/// recovered from the releases of [`PreconditionerPlan::release`] (what the fit calls) on fixed
/// records, 1000 seeds. For stage `j` the frame `U_j` and the centre `mu_j` are public
/// functions of the earlier releases, so the clipped statistics are recomputed here: the mean's
/// `m_j` (rows `W_j (x_i - mu_j)` clipped to the plan's radius `rho_j`) and the second moment's
/// `Z_j` about `mu_{j+1}`. The recovered noise `v_j - m_j` is compared (two-sample KS at level
/// 1e-4, radius over scale and the first direction coordinate) with this test's own draws of
/// `snap(m_j + z) - m_j`, `z` l2-Laplace of scale `2 rho_j / (n eps_j / 8)`, and `S_j - Z_j` with
/// `snap(Z_j + N) - Z_j`, `N` of scale `sqrt 2 lambda / (n 7 eps_j / 8)`: scales from the plan's
/// public inputs (eps, the stage count, the default share 1/8, `rho_j`, `lambda`, `n`), not read
/// from the stages. Broken variant: the same plan with every stage's noise scales halved is
/// rejected.
#[test]
fn centred_preconditioner_noise_has_its_law_and_scale() {
    let clock = Instant::now();
    let (draws, alpha) = (1000, 1e-4);
    let learner = centred_records_learner(8.0);
    let plan = learner.plan(N, 2).unwrap().preconditioner;
    let centring = plan.centring.clone().expect("centred records");
    let (y, _) = neighbours(N, 5, 0);
    let records = project_rows(&y, &[0.0, 0.0], centring.record_radius);
    let lines = check_centred_noise(&plan, &plan, &records, draws, 1, alpha).unwrap();
    for line in &lines {
        println!("{line}");
    }
    let mut broken = plan.clone();
    for stage in &mut broken.stages {
        stage.noise_scale /= 2.0;
        if let Some(m) = stage.mean.as_mut() {
            m.noise_scale /= 2.0;
        }
    }
    assert!(
        check_centred_noise(&broken, &plan, &records, draws, 1, alpha).is_err(),
        "the halved noise was not rejected"
    );
    println!("{:.1} s", clock.elapsed().as_secs_f64());
}

/// Runs `used.release` on `records` with seeds `seed..seed + draws` and checks every stage's two
/// noises against the law that `expected`'s public inputs give
/// ([`centred_preconditioner_noise_has_its_law_and_scale`]).
fn check_centred_noise(
    used: &PreconditionerPlan,
    expected: &PreconditionerPlan,
    records: &DMatrix<f64>,
    draws: usize,
    seed: u64,
    alpha: f64,
) -> Result<Vec<String>, String> {
    use sosdp::learn::preconditioner::{clipped_second_moment, whitened_clipped};
    let (n, d) = (records.nrows() as f64, records.ncols());
    let stages = expected.stages.len();
    let eps_j = expected.epsilon / stages as f64;
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    // Per stage: (observed noise, reference noise) for the mean and the second moment.
    let mut noise = vec![(vec![], vec![], vec![], vec![]); stages];
    for t in 0..draws {
        let mut release_rng = StdRng::seed_from_u64(seed + t as u64);
        let (_, releases) = used.release(records, &mut release_rng);
        let svecs: Vec<Vec<f64>> = releases.iter().map(|r| r.release.clone()).collect();
        let mut centre = DVector::zeros(d);
        for (j, stage) in expected.stages.iter().enumerate() {
            let frame = if j == 0 {
                DMatrix::identity(d, d) * expected.prior
            } else {
                expected.frame_from_releases(&svecs[..2 * j])
            };
            let w = spd_power(&frame, -0.5);
            let mean = stage.mean.as_ref().expect("a centred stage");
            let m: Vec<f64> = whitened_clipped(records, &centre, &w, mean.clip_radius)
                .row_sum()
                .iter()
                .map(|v| v / n)
                .collect();
            let v = &svecs[2 * j];
            let mean_scale = 2.0 * mean.clip_radius / (n * 0.125 * eps_j);
            let (observed, reference) =
                recovered_and_reference(&mut rng, v, &m, mean_scale, mean.clip_radius);
            noise[j].0.push(observed);
            noise[j].1.push(reference);
            centre += spd_power(&frame, 0.5) * DVector::from_column_slice(v);
            let centred = DMatrix::from_fn(records.nrows(), d, |i, k| records[(i, k)] - centre[k]);
            let z = svec_of(&clipped_second_moment(&centred, &w, expected.lambda));
            let moment_scale = std::f64::consts::SQRT_2 * expected.lambda / (n * 0.875 * eps_j);
            let (observed, reference) = recovered_and_reference(
                &mut rng,
                &svecs[2 * j + 1],
                &z,
                moment_scale,
                stage.box_half_width,
            );
            noise[j].2.push(observed);
            noise[j].3.push(reference);
        }
    }
    let radius = |v: &Vec<f64>| v.iter().map(|a| a * a).sum::<f64>().sqrt();
    let mut lines = vec![];
    for (j, (mean_obs, mean_ref, moment_obs, moment_ref)) in noise.iter().enumerate() {
        for (name, obs, reference) in [
            ("mean", mean_obs, mean_ref),
            ("second moment", moment_obs, moment_ref),
        ] {
            let (r_obs, r_ref): (Vec<f64>, Vec<f64>) = (
                obs.iter().map(radius).collect(),
                reference.iter().map(radius).collect(),
            );
            lines.push(ks_two_check(
                &format!("stage {} {name} radius / scale", j + 1),
                &r_obs,
                &r_ref,
                alpha,
            )?);
            let (c_obs, c_ref): (Vec<f64>, Vec<f64>) = (
                obs.iter().map(|v| v[0] / radius(v).max(1e-300)).collect(),
                reference
                    .iter()
                    .map(|v| v[0] / radius(v).max(1e-300))
                    .collect(),
            );
            lines.push(ks_two_check(
                &format!("stage {} {name} direction 1", j + 1),
                &c_obs,
                &c_ref,
                alpha,
            )?);
        }
    }
    Ok(lines)
}

/// The noise recovered from a snapped `release` of `statistic`, `(release - statistic) / scale`,
/// and this test's own draw of it, `(snap(statistic + z) - statistic) / scale` with `z`
/// l2-Laplace of scale `scale`, the grid of `scale` and the box `+-half_width`.
fn recovered_and_reference(
    rng: &mut StdRng,
    release: &[f64],
    statistic: &[f64],
    scale: f64,
    half_width: f64,
) -> (Vec<f64>, Vec<f64>) {
    let mut reference: Vec<f64> = statistic
        .iter()
        .zip(reference_noise(rng, statistic.len(), scale))
        .map(|(a, z)| a + z)
        .collect();
    snap::snap(
        &mut reference,
        &vec![0.0; statistic.len()],
        half_width,
        snap::grid(scale),
    );
    let scaled = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .zip(statistic)
            .map(|(a, b)| (a - b) / scale)
            .collect()
    };
    (scaled(release), scaled(&reference))
}

/// Same-seed coupling of the first preconditioner stage (MATH.md 5.2 step 2), for the
/// covariance learner and the Gaussian learner (its covariance step), d = 2, n = 4000 records
/// of a rotated `N(mu, Sigma)`; the neighbour moves one record to `(3e5, -4e5)` (its pair is
/// clipped to `sqrt(lambda)` in the first frame). 40 seeds, each run on both datasets through
/// [`PrivateCovariance::preconditioner_release`] (the fit's own path: asserted equal to the
/// first entries of a whole fit's `stage_releases`, covariance and Gaussian).
///
/// - Bound: `|S_1 - S_1'|_F <= Delta_F = sqrt 2 lambda / m` (to 1e-9) for every seed; when the
///   releases are snapped (detected: every coordinate a multiple of a power of two), plus one
///   grid step per matrix entry, `d g`.
/// - Not vacuous: the largest gap is at least 0.6 `Delta_F` (0.4 when snapped; the far record's
///   pair alone moves `Z_1` by about `lambda / m = 0.71 Delta_F`).
/// - Broken variants, each rejected: (i) independent seeds on the two datasets (no coupling)
///   exceed the bound in at least half of the seeds; (ii) a learner that sorts the records by
///   their first coordinate before pairing (a data-dependent order: the moved record shifts
///   every rank, so every pair changes) exceeds it by 10x in at least 90% of the seeds.
#[test]
fn first_preconditioner_stage_is_coupled_on_neighbours() {
    let clock = Instant::now();
    // The narrow API is the fit's own path (n = 4000, eps = 8).
    let (small, _) = neighbours(N, 3, 0);
    let (cov, gauss) = (covariance_learner(8.0), gaussian_learner(8.0));
    let full_cov = seeded(&cov, 7).fit(&small).unwrap();
    let (_, pre_cov) = seeded(&cov, 7).preconditioner_release(&small).unwrap();
    let full_gauss = seeded(&gauss, 7).fit(&small).unwrap();
    let (_, pre_gauss) = seeded(&gauss, 7)
        .covariance_learner(&gauss.plan(N, 2).unwrap())
        .preconditioner_release(&small)
        .unwrap();
    for (full, pre) in [
        (&full_cov.release.stage_releases, &pre_cov),
        (&full_gauss.release.stage_releases, &pre_gauss),
    ] {
        assert!(!pre.is_empty());
        assert_eq!(
            &full[..pre.len()],
            &pre[..],
            "the narrow API is not the fit's path"
        );
    }
    let sort = |y: &DMatrix<f64>| {
        let mut order: Vec<usize> = (0..y.nrows()).collect();
        order.sort_by(|&a, &b| y[(a, 0)].total_cmp(&y[(b, 0)]));
        y.select_rows(order.iter())
    };
    let (y, y2) = neighbours(N_COUPLING, 11, 1234);
    let (sorted, sorted2) = (sort(&y), sort(&y2));
    let cases: [(&str, PrivateCovariance); 2] = [
        ("covariance", covariance_learner(16.0)),
        ("gaussian", {
            let g = gaussian_learner(64.0);
            g.covariance_learner(&g.plan(N_COUPLING, 2).unwrap())
        }),
    ];
    for (name, learner) in cases {
        let plan = learner.plan(N_COUPLING, 2).unwrap();
        let pre = &plan.preconditioner;
        let (m, lambda) = (plan.pairs as f64, pre.lambda);
        let delta_f = std::f64::consts::SQRT_2 * lambda / m;
        assert!((pre.sensitivity - delta_f).abs() <= 1e-12 * delta_f);
        let release = |s: u64, data: &DMatrix<f64>| {
            let (_, releases) = seeded(&learner, s).preconditioner_release(data).unwrap();
            releases[0].release.clone()
        };
        let coupled = first_stage_gaps(&release, &y, &y2, 0..40, false);
        let all: Vec<Vec<f64>> = coupled
            .iter()
            .flat_map(|(a, b)| [a.clone(), b.clone()])
            .collect();
        let grid = release_grid(&all, pre.stages[0].noise_scale);
        // One grid step per matrix entry: `d g` in Frobenius norm (d = 2).
        let bound = delta_f * (1.0 + 1e-9) + grid.map_or(0.0, |g| 2.0 * g);
        let gaps: Vec<f64> = coupled.iter().map(|(a, b)| distance(a, b)).collect();
        let largest = gaps.iter().copied().fold(0.0, f64::max);
        println!(
            "{name}: J = {}, eps_1 = {:.3}, Delta_F = {delta_f:.5}, grid {grid:?}, bound {bound:.5}; coupled gaps: largest {largest:.5} = {:.3} Delta_F, smallest {:.5}",
            pre.stages.len(),
            pre.stages[0].epsilon,
            largest / delta_f,
            gaps.iter().copied().fold(f64::INFINITY, f64::min)
        );
        for (s, g) in gaps.iter().enumerate() {
            assert!(
                *g <= bound,
                "{name}, seed {s}: the first stage's releases differ by {g} > {bound} (Delta_F {delta_f})"
            );
        }
        let floor = if grid.is_some() { 0.4 } else { 0.6 };
        assert!(
            largest >= floor * delta_f,
            "{name}: vacuous coupling check: largest gap {largest} < {floor} Delta_F"
        );
        // (i) No coupling.
        let uncoupled = first_stage_gaps(&release, &y, &y2, 0..40, true);
        let over = uncoupled
            .iter()
            .filter(|(a, b)| distance(a, b) > bound)
            .count();
        println!("{name}: independent seeds exceed the bound in {over} of 40");
        assert!(
            over >= 10,
            "{name}: the uncoupled variant passed ({over} of 40 over)"
        );
        // (ii) A data-dependent pairing order.
        let broken = first_stage_gaps(&release, &sorted, &sorted2, 0..40, false);
        let broken_gaps: Vec<f64> = broken.iter().map(|(a, b)| distance(a, b)).collect();
        let over = broken_gaps.iter().filter(|g| **g > bound).count();
        println!(
            "{name}: sorted before pairing: gaps median {:.5} = {:.1} x bound, smallest {:.1} x bound; over the bound in {over} of 40",
            median(&broken_gaps),
            median(&broken_gaps) / bound,
            broken_gaps.iter().copied().fold(f64::INFINITY, f64::min) / bound
        );
        assert!(
            over >= 32,
            "{name}: the sorted-pairing variant was not rejected"
        );
    }
    println!("{:.1} s", clock.elapsed().as_secs_f64());
}

fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

// ----- 1 (b) and 4: each preconditioner stage's noise law and scale ---------------------------

/// `Z = (1/m) sum_i c_i c_i^T`, `c_i = W x_i` clipped to norm `sqrt(lambda)`, `W = U^{-1/2}`
/// (MATH.md 5.2 step 1), computed here independently of the library.
fn second_moment(x: &DMatrix<f64>, frame: &DMatrix<f64>, lambda: f64) -> DMatrix<f64> {
    let w = spd_power(frame, -0.5);
    let d = x.ncols();
    let mut z = DMatrix::zeros(d, d);
    for row in x.row_iter() {
        let mut c = &w * row.transpose();
        let norm = c.norm();
        if norm > lambda.sqrt() {
            c *= lambda.sqrt() / norm;
        }
        z += &c * c.transpose();
    }
    z / x.nrows() as f64
}

/// A draw of the l2-Laplace noise of scale `scale` in `R^dim` by this test's own sampler.
fn reference_noise(rng: &mut StdRng, dim: usize, scale: f64) -> Vec<f64> {
    let g: Vec<f64> = (0..dim).map(|_| StandardNormal.sample(rng)).collect();
    let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
    let r = Gamma::new(dim as f64, scale).unwrap().sample(rng);
    g.iter().map(|v| r * v / norm).collect()
}

/// Runs `used.release` on the fixed pairs `x` with seeds `seed..seed + draws`, recovers each
/// stage's noise `N_j = S_j - Z_j` (`Z_j` from the frame the earlier releases determine,
/// [`PreconditionerPlan::frame_from_releases`]), and checks, per stage, at level `alpha`
/// (DKW critical values): `|N_j|_F / scale_j ~ Gamma(D, 1)` and each `svec` coordinate of the
/// direction `~ U(-1, 1)` (D = 3: Archimedes), `scale_j = expected[j]`. When the releases are
/// snapped (detected), the noise's law is instead compared (two-sample KS) with this test's own
/// draws of `snap(Z_j + N)` on the detected grid, 20 per release.
fn check_preconditioner_noise(
    release: &dyn Fn(u64) -> Vec<Vec<f64>>,
    plan: &PreconditionerPlan,
    expected: &[f64],
    x: &DMatrix<f64>,
    draws: usize,
    seed: u64,
    alpha: f64,
) -> Result<Vec<String>, String> {
    let stages = expected.len();
    let dim = 3;
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    let mut releases: Vec<Vec<Vec<f64>>> = vec![];
    let mut moments: Vec<Vec<DMatrix<f64>>> = vec![];
    for t in 0..draws {
        let svecs = release(seed + t as u64);
        let z = (0..stages)
            .map(|j| {
                let frame = if j == 0 {
                    DMatrix::identity(2, 2) * plan.prior
                } else {
                    plan.frame_from_releases(&svecs[..j])
                };
                second_moment(x, &frame, plan.lambda)
            })
            .collect();
        releases.push(svecs);
        moments.push(z);
    }
    let mut lines = vec![];
    for (j, &scale) in expected.iter().enumerate() {
        let stage_svecs: Vec<Vec<f64>> = releases.iter().map(|r| r[j].clone()).collect();
        let grid = release_grid(&stage_svecs, scale);
        let in_svec =
            grid.is_some_and(|g| stage_svecs.iter().flatten().all(|v| (v / g).fract() == 0.0));
        let summarise = |noise: &[Vec<f64>]| -> Vec<Vec<f64>> {
            let mut cols = vec![vec![]; dim + 1];
            for v in noise {
                let r = v.iter().map(|a| a * a).sum::<f64>().sqrt();
                cols[0].push(r / scale);
                for k in 0..dim {
                    cols[k + 1].push(v[k] / r);
                }
            }
            cols
        };
        let noise: Vec<Vec<f64>> = (0..draws)
            .map(|t| {
                let z = svec_of(&moments[t][j]);
                releases[t][j].iter().zip(&z).map(|(s, z)| s - z).collect()
            })
            .collect();
        let observed = summarise(&noise);
        let names = [
            "radius / scale",
            "direction 1",
            "direction 2",
            "direction 3",
        ];
        match grid {
            None => {
                lines.push(ks_check(
                    &format!("stage {} {}", j + 1, names[0]),
                    &observed[0],
                    |r| gamma_cdf(dim as f64, r),
                    alpha,
                )?);
                for k in 1..=dim {
                    lines.push(ks_check(
                        &format!("stage {} {}", j + 1, names[k]),
                        &observed[k],
                        |u| ((u + 1.0) / 2.0).clamp(0.0, 1.0),
                        alpha,
                    )?);
                }
            }
            Some(g) => {
                let mut reference = vec![];
                for stage_moments in &moments {
                    let z = &stage_moments[j];
                    for _ in 0..20 {
                        let n = reference_noise(&mut rng, dim, scale);
                        let snapped: Vec<f64> = if in_svec {
                            svec_of(z)
                                .iter()
                                .zip(&n)
                                .map(|(a, b)| g * ((a + b) / g).round())
                                .collect()
                        } else {
                            svec_of(&(z + matrix_of(&n)).map(|v| g * (v / g).round()))
                        };
                        reference.push(
                            snapped
                                .iter()
                                .zip(svec_of(z))
                                .map(|(s, z)| s - z)
                                .collect::<Vec<f64>>(),
                        );
                    }
                }
                let expected_cols = summarise(&reference);
                for k in 0..=dim {
                    lines.push(ks_two_check(
                        &format!("stage {} {} (snapped, grid {g})", j + 1, names[k]),
                        &observed[k],
                        &expected_cols[k],
                        alpha,
                    )?);
                }
            }
        }
    }
    Ok(lines)
}

/// Every preconditioner stage's noise law and scale (MATH.md 5.2 step 2), for the covariance
/// learner (J = 2) and the Gaussian learner (its plan's J), d = 2 (D = 3).
///
/// - The public plan: `lambda` is the 0.99 quantile of chi-square(2), `-2 ln 0.01`;
///   `Delta_F = sqrt 2 lambda / m`; the stages' shares are equal and sum to the
///   preconditioner's share of eps, and with the refinement's (and the mean step's) shares to
///   eps.
/// - The release function the fit calls ([`PreconditionerPlan::release`] of the learner's
///   public plan) on fixed pairs whose first-frame second moment is `lambda / 4 I` (inside the
///   clip), 1000 seeds: for every stage `j` the recovered noise `N_j = S_j - Z_j` has radius
///   law `Gamma(3, Delta_F / eps_j)` (scale computed from the plan's sensitivity and share, not
///   read from the stage) and a uniform direction: KS at level 1e-4 with the DKW critical value
///   (0.070); its power against a scale off by 20% either way is at least 0.99 (DKW, asserted).
/// - Broken variant: the same release with one stage's noise scale divided by J (the plan's
///   stage count) is rejected on that stage.
#[test]
fn preconditioner_stages_have_their_noise_law_and_scale() {
    let clock = Instant::now();
    let (draws, alpha) = (1000, 1e-4);
    let critical = dkw_critical(draws, alpha);
    for factor in [0.8, 1.2] {
        let power = dkw_power(draws, gamma_scale_distance(3.0, factor), critical);
        println!("KS power against the scale x {factor}: >= {power:.4}");
        assert!(power >= 0.99, "the radius test is too weak: {power}");
    }
    let cov = covariance_learner(8.0);
    let gauss = gaussian_learner(8.0);
    let cov_plan = cov.plan(N, 2).unwrap();
    let gauss_plan = gauss.plan(N, 2).unwrap();
    let eps = cov.privacy().epsilon();
    // The shares sum to eps.
    let schedule_spent =
        |m: &sosdp::learn::Schedule| m.stages.iter().map(|s| s.epsilon).sum::<f64>();
    let spent = |c: &sosdp::learn::CovariancePlan| {
        c.preconditioner
            .stages
            .iter()
            .map(|s| s.epsilon + s.mean.as_ref().map_or(0.0, |m| m.epsilon))
            .sum::<f64>()
            + c.refinement.iter().map(|s| s.epsilon).sum::<f64>()
            + c.centring.as_ref().map_or(0.0, |c| schedule_spent(&c.mean))
    };
    assert!(
        (spent(&cov_plan) - eps).abs() < 1e-12,
        "covariance spends {}",
        spent(&cov_plan)
    );
    // On pairs and centred (MATH.md 5.3b: the centring mean's stages are in the
    // covariance's plan, and there is no mean step).
    let centred = gaussian_learner(8.0).settings(GaussianSettings {
        refinement_stages: 1,
        centring: sosdp::learn::Centring::Always,
        ..Default::default()
    });
    let centred_plan = centred.plan(N, 2).unwrap();
    assert!(centred_plan.covariance.centring.is_some() && centred_plan.mean.is_none());
    for (name, plan) in [("pairs", &gauss_plan), ("centred", &centred_plan)] {
        let gauss_spent = spent(&plan.covariance)
            + plan
                .mean
                .as_ref()
                .map_or(0.0, |m| schedule_spent(&m.schedule));
        assert!(
            (gauss_spent - gauss.privacy().epsilon()).abs() < 1e-12,
            "the Gaussian learner ({name}) spends {gauss_spent}"
        );
    }
    for (name, plan, share) in [
        ("covariance", &cov_plan.preconditioner, 0.5 * eps),
        (
            "gaussian",
            &gauss_plan.covariance.preconditioner,
            0.5 * gauss.privacy().epsilon(),
        ),
    ] {
        let stages = plan.stages.len();
        let m = N / 2;
        let lambda = -2.0 * 0.01f64.ln();
        assert!(
            (plan.lambda - lambda).abs() < 1e-9 * lambda,
            "lambda {}",
            plan.lambda
        );
        let delta_f = std::f64::consts::SQRT_2 * lambda / m as f64;
        assert!((plan.sensitivity - delta_f).abs() < 1e-9 * delta_f);
        let shares: f64 = plan.stages.iter().map(|s| s.epsilon).sum();
        assert!((shares - share).abs() < 1e-12 && (plan.epsilon - share).abs() < 1e-12);
        assert!(
            plan.stages
                .iter()
                .all(|s| (s.epsilon - share / stages as f64).abs() < 1e-12)
        );
        let expected: Vec<f64> = plan.stages.iter().map(|s| delta_f / s.epsilon).collect();
        // Pairs `sqrt(K) a e_1`, `sqrt(K) a e_2` alternately, `a^2 = lambda / 2`: in the first
        // frame `U_0 = K I` they are unclipped and `Z_1 = lambda / 4 I`.
        let a = (0.5 * lambda * plan.prior).sqrt();
        let x = DMatrix::from_fn(m, 2, |i, k| if i % 2 == k { a } else { 0.0 });
        let z1 = second_moment(&x, &(DMatrix::identity(2, 2) * plan.prior), lambda);
        assert!((z1 - DMatrix::identity(2, 2) * (0.25 * lambda)).norm() < 1e-12);
        let run = |used: &PreconditionerPlan, seed: u64| -> Vec<Vec<f64>> {
            let (_, rel) = used.release(&x, &mut StdRng::seed_from_u64(seed));
            rel.into_iter().map(|r| r.release).collect()
        };
        let seed = 1 + 100_000 * (name == "gaussian") as u64;
        match check_preconditioner_noise(&|s| run(plan, s), plan, &expected, &x, draws, seed, alpha)
        {
            Ok(lines) => {
                println!("{name}: J = {stages}, scales {expected:?}");
                lines.iter().for_each(|l| println!("  {l}"));
            }
            Err(e) => panic!("{name}: {e}"),
        }
        // Broken: one stage's noise divided by J.
        let k = stages / 2;
        let mut broken = plan.clone();
        broken.stages[k].noise_scale /= stages as f64;
        match check_preconditioner_noise(
            &|s| run(&broken, s),
            plan,
            &expected,
            &x,
            draws,
            seed,
            alpha,
        ) {
            Ok(_) => panic!(
                "{name}: the noise of stage {} divided by {stages} was not rejected",
                k + 1
            ),
            Err(e) => println!(
                "{name}: broken (stage {} noise / {stages}) rejected: {e}",
                k + 1
            ),
        }
        // Power shown on the first stage: its noise 25% too large is rejected too.
        let mut wide = plan.clone();
        wide.stages[0].noise_scale *= 1.25;
        match check_preconditioner_noise(
            &|s| run(&wide, s),
            plan,
            &expected,
            &x,
            draws,
            seed,
            alpha,
        ) {
            Ok(_) => panic!("{name}: the noise of stage 1 times 1.25 was not rejected"),
            Err(e) => println!("{name}: broken (stage 1 noise x 1.25) rejected: {e}"),
        }
    }
    println!("{:.1} s", clock.elapsed().as_secs_f64());
}

// ----- 2: the record-to-pair map --------------------------------------------------------------

/// The rows (pairs) in which two pairings differ.
fn changed_rows(a: &DMatrix<f64>, b: &DMatrix<f64>) -> Vec<usize> {
    (0..a.nrows()).filter(|&i| a.row(i) != b.row(i)).collect()
}

/// Record `i` changes pair `i / 2` only (none when it is the odd last record, which no pair
/// uses): [`pair`] on 300 random datasets (n = 201, d = 3) and neighbours that move one
/// random record to a random point, to `+-1e308` (the adversarial extreme: the half-difference
/// must not overflow) or onto its partner (the pair becomes 0). Every pair is finite and within
/// the public radius. Broken variant: an overlapping pairing `(y_{i+1} - y_i) / sqrt 2` changes
/// two pairs for an interior record, which the same check rejects.
#[test]
fn pairing_changes_exactly_one_pair() {
    let mut rng = StdRng::seed_from_u64(21);
    let (n, d, radius) = (201, 3, 6.0);
    let overlapping = |y: &DMatrix<f64>| {
        DMatrix::from_fn(y.nrows() - 1, y.ncols(), |i, k| {
            (y[(i + 1, k)] - y[(i, k)]) / std::f64::consts::SQRT_2
        })
    };
    let (mut one, mut none, mut broken_rejected) = (0, 0, 0);
    for trial in 0..300 {
        let y = DMatrix::from_fn(n, d, |_, _| 2.0 * normal(&mut rng));
        let i = if trial % 10 == 0 {
            n - 1
        } else {
            rand::RngExt::random_range(&mut rng, 0..n)
        };
        let mut y2 = y.clone();
        let partner = if i % 2 == 0 { i + 1 } else { i - 1 };
        for k in 0..d {
            y2[(i, k)] = match trial % 3 {
                0 => 50.0 * normal(&mut rng),
                1 => {
                    if k % 2 == 0 {
                        1e308
                    } else {
                        -1e308
                    }
                }
                _ => {
                    if partner < n {
                        y[(partner, k)]
                    } else {
                        0.0
                    }
                }
            };
        }
        let (p, p2) = (pair(&y, radius), pair(&y2, radius));
        assert_eq!(p.nrows(), n / 2);
        for q in [&p, &p2] {
            assert!(
                q.row_iter()
                    .all(|r| r.iter().all(|v| v.is_finite()) && r.norm() <= radius * (1.0 + 1e-12))
            );
        }
        let changed = changed_rows(&p, &p2);
        if i == n - 1 {
            assert!(
                changed.is_empty(),
                "the unused last record changed pairs {changed:?}"
            );
            none += 1;
        } else {
            assert_eq!(changed, vec![i / 2], "record {i} changed pairs {changed:?}");
            one += 1;
        }
        if i > 0 && i < n - 1 {
            let changed = changed_rows(&overlapping(&y), &overlapping(&y2));
            broken_rejected += usize::from(changed.len() != 1);
        }
    }
    println!(
        "{one} neighbours changed one pair, {none} none (odd last record); the overlapping pairing changed more than one in {broken_rejected}"
    );
    assert!(one >= 250 && none >= 20);
    assert!(
        broken_rejected >= 250,
        "the overlapping pairing was not rejected"
    );
}

// ----- 3 and 4: the mean's additive stages ----------------------------------------------------

/// `count` fits of `learner` on `data` with seeds `seed..seed + count`, on two threads: each
/// fit's stage releases.
fn mean_draws(
    learner: &PrivateMean,
    data: &DMatrix<f64>,
    count: usize,
    seed: u64,
) -> Vec<Vec<Vec<f64>>> {
    learner_releases(learner, data, count, seed, |r| {
        r.stage_releases.into_iter().map(|s| s.release).collect()
    })
}

/// An additive stage's noise scale `Delta / eps_j`, `Delta = 2 projection_radius / n` (computed
/// here and checked against the plan's), and its grid `snap::grid(scale)` (checked likewise).
fn additive_scale_and_grid(stage: &PlannedStage, n: usize) -> (f64, f64) {
    let StageMechanism::Additive {
        noise_scale, grid, ..
    } = stage.mechanism
    else {
        panic!("the stage must be additive: {stage:?}")
    };
    let scale = 2.0 * stage.projection_radius / (n as f64 * stage.epsilon);
    assert!((scale - noise_scale).abs() < 1e-12 * scale);
    assert_eq!(grid, snap::grid(scale));
    (scale, grid)
}

/// The mean's additive stages through the whole learner (MATH.md 5.1, 4.6), at d = 1 and d = 3.
///
/// - Item 3, one additive stage (`max_stages = 1`, R = 20, eps = 1, n = 2000 records of
///   `N(mu, I)` with 2% far outliers): the 2000 releases (one fit per seed) follow the exact law
///   of `snap(f + z)`, `f` the mean of the records projected onto `B(0, projection_radius)` (the
///   plan's), `z` l2-Laplace of scale `Delta / eps_1`, `Delta = 2 projection_radius / n`
///   (computed here and checked against the plan), on the grid `snap::grid(scale)`: the mass of
///   every grid cell (1-D: the Laplace CDF; 3-D: Gauss–Legendre, 6^3 nodes per cell, total mass
///   checked to 1e-4), chi-square over the grid points (1-D) or radius shell x orthant (3-D)
///   at level 1e-3, with its power against the scale x 1.25 and x 0.8 at that level printed
///   and, against the scale / 2, at level 1e-6 asserted >= 0.999.
/// - Item 4, two additive stages (`max_stages = 2`, R = 50, eps = 0.5, unequal shares), on n =
///   2000 identical records `p` (every stage's projected mean is `p` while the stage's ball
///   holds it): each stage's releases follow the exact law at scale `Delta_j / eps_j`, `eps_j`
///   the stage's share (the shares sum to eps), with power >= 0.999 at level 1e-6 against
///   the scale / J asserted. Stage 2 is tested on the fits whose first release leaves `p`
///   24 noise scales inside stage 2's clamping box (a public event of stage 1; its law is then
///   unclamped), at least 95% of them.
#[test]
fn mean_additive_stages_have_their_exact_law_and_scale() {
    let clock = Instant::now();
    let (count, alpha, rejection) = (2000, 1e-3, 1e-6);
    for d in [1usize, 3] {
        // Item 3: the first (only) stage on Gaussian records.
        let n = 2000;
        let single = PrivateMean::new(Privacy::new(1.0), 20.0).settings(MeanSettings {
            constants: Constants {
                max_stages: 1,
                ..Constants::default()
            },
            ..MeanSettings::default()
        });
        let plan = single.plan(n, d).unwrap();
        assert_eq!(plan.stages.len(), 1);
        let stage = &plan.stages[0];
        let (scale, grid) = additive_scale_and_grid(stage, n);
        assert!((stage.epsilon - 1.0).abs() < 1e-12);
        let mu = [1.3, -0.7, 0.4];
        let mut rng = StdRng::seed_from_u64(40 + d as u64);
        let mut data = DMatrix::from_fn(n, d, |_, k| mu[k] + normal(&mut rng));
        for i in 0..n / 50 {
            for k in 0..d {
                data[(50 * i, k)] = 1e4 * (k as f64 + 1.0);
            }
        }
        let f: Vec<f64> = project_rows(&data, &vec![0.0; d], stage.projection_radius)
            .row_mean()
            .iter()
            .copied()
            .collect();
        let draws: Vec<Vec<f64>> = mean_draws(&single, &data, count, 0)
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        let (line, powers) = check_snapped_law(
            &format!("d {d}, single additive stage (scale {scale:.4}, grid {grid})"),
            &draws,
            &f,
            scale,
            grid,
            alpha,
            &[(1.25, alpha), (0.8, alpha), (0.5, rejection)],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        println!("{line}");
        assert!(
            powers[2] >= 0.999,
            "d {d}: no power against the scale / 2: {powers:?}"
        );

        // Item 4: every additive stage of a two-stage plan.
        let epsilon = 0.5;
        let two = PrivateMean::new(Privacy::new(epsilon), 50.0).settings(MeanSettings {
            constants: Constants {
                max_stages: 2,
                ..Constants::default()
            },
            ..MeanSettings::default()
        });
        let plan = two.plan(n, d).unwrap();
        assert_eq!(plan.stages.len(), 2, "d {d}: {plan:?}");
        let spent: f64 = plan.stages.iter().map(|s| s.epsilon).sum();
        assert!(
            (spent - epsilon).abs() < 1e-12,
            "d {d}: the shares sum to {spent}"
        );
        let p = &[3.3, -1.7, 0.6][..d];
        let data = DMatrix::from_fn(n, d, |_, k| p[k]);
        let fits = mean_draws(&two, &data, count, 10_000);
        let j_count = plan.stages.len() as f64;
        for (j, stage) in plan.stages.iter().enumerate() {
            let (scale, g) = additive_scale_and_grid(stage, n);
            let inside = |c: &[f64]| {
                c.iter().zip(p).all(|(ci, pi)| {
                    (ci - pi).abs() + 24.0 * scale + g <= stage.radius
                        && distance(c, p) + stage.radius <= stage.projection_radius
                })
            };
            let draws: Vec<Vec<f64>> = fits
                .iter()
                .filter(|r| j == 0 || inside(&r[j - 1]))
                .map(|r| r[j].clone())
                .collect();
            assert!(
                draws.len() >= count * 95 / 100,
                "d {d}, stage {}: {} fits kept",
                j + 1,
                draws.len()
            );
            let (line, powers) = check_snapped_law(
                &format!(
                    "d {d}, stage {} of 2 (eps_j {:.3}, scale {scale:.4}, grid {g})",
                    j + 1,
                    stage.epsilon
                ),
                &draws,
                p,
                scale,
                g,
                alpha,
                &[(1.0 / j_count, rejection)],
            )
            .unwrap_or_else(|e| panic!("{e}"));
            println!("{line}");
            assert!(
                powers[0] >= 0.999,
                "d {d}, stage {}: no power against the scale / J",
                j + 1
            );
        }
    }
    println!("{:.1} s", clock.elapsed().as_secs_f64());
}
