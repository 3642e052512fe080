//! The staged additive preconditioner (MATH.md 5.2): the sensitivity of the clipped second
//! moment and of the centred stages' clipped mean, the law of the Frobenius noise, `Sigma ⪯ U`
//! on clean and corrupted data, on pairs and on centred records, and the realised condition
//! number. Each property is also checked to fail for a broken variant.
use nalgebra::{DMatrix, DVector};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_learn::frobenius_noise;
use sosdp_learn::preconditioner::{
    Points, PreconditionerPlan, PreconditionerSettings, clipped_second_moment, whitened_clipped,
};
use sosdp_learn::special::gamma_upper;
use sosdp_learn::symmetric::spd_power;

fn gaussian(rng: &mut StdRng, rows: usize, cols: usize) -> DMatrix<f64> {
    DMatrix::from_fn(rows, cols, |_, _| StandardNormal.sample(rng))
}

/// `Sigma = Q diag(geometric over [1, cond]) Q^T` and its square root.
fn covariance(rng: &mut StdRng, d: usize, cond: f64) -> (DMatrix<f64>, DMatrix<f64>) {
    let q = gaussian(rng, d, d).qr().q();
    let ev = DVector::from_fn(d, |k, _| cond.powf(k as f64 / (d.max(2) - 1) as f64));
    (
        &q * DMatrix::from_diagonal(&ev) * q.transpose(),
        &q * DMatrix::from_diagonal(&ev.map(f64::sqrt)) * q.transpose(),
    )
}

fn nuclear(a: &DMatrix<f64>) -> f64 {
    a.clone()
        .symmetric_eigenvalues()
        .iter()
        .map(|v| v.abs())
        .sum()
}

/// Replacing one pair moves the clipped second moment by at most `sqrt 2 lambda / m`
/// (Frobenius) and `2 lambda / m` (nuclear), for adversarial replacements in random frames; the
/// worst neighbours come within 1% of both bounds (the bounds are tight, so the check can fail),
/// and without the clip the same neighbours exceed them by orders of magnitude.
#[test]
fn clipped_second_moment_has_its_sensitivity() {
    let mut rng = StdRng::seed_from_u64(1);
    let (m, d, lambda) = (200, 4, 9.0);
    let (mut worst_f, mut worst_n) = (0.0f64, 0.0f64);
    for trial in 0..200 {
        let x = gaussian(&mut rng, m, d) * 3.0;
        let (frame, _) = covariance(&mut rng, d, 50.0);
        let w = spd_power(&frame, -0.5);
        let z = clipped_second_moment(&x, &w, lambda);
        // Adversarial replacements: huge along a frame direction, orthogonal to the old pair,
        // zero, or a random far point.
        let old = x.row(trial % m).transpose();
        let wold = &w * &old;
        let mut orth = gaussian(&mut rng, d, 1).column(0).into_owned();
        orth -= &wold * (wold.dot(&orth) / wold.norm_squared().max(1e-300));
        let candidates = [
            spd_power(&frame, 0.5) * orth * 1e6,
            DVector::zeros(d),
            gaussian(&mut rng, d, 1).column(0) * 1e12,
            -&old * 1e3,
        ];
        for new in candidates {
            let mut y = x.clone();
            y.set_row(trial % m, &new.transpose());
            let diff = clipped_second_moment(&y, &w, lambda) - &z;
            let (f, n) = (diff.norm(), nuclear(&diff));
            assert!(
                f <= std::f64::consts::SQRT_2 * lambda / m as f64 * (1.0 + 1e-9),
                "Frobenius {f}"
            );
            assert!(n <= 2.0 * lambda / m as f64 * (1.0 + 1e-9), "nuclear {n}");
            worst_f = worst_f.max(f * m as f64 / (std::f64::consts::SQRT_2 * lambda));
            worst_n = worst_n.max(n * m as f64 / (2.0 * lambda));
            if new.norm() < 1e3 {
                continue;
            }
            // Broken variant: no clip (checked on the far replacements).
            let raw = |a: &DMatrix<f64>| {
                let t = a * &w;
                t.transpose() * &t / m as f64
            };
            let unclipped = (raw(&y) - raw(&x)).norm();
            assert!(
                unclipped > 1e3 * std::f64::consts::SQRT_2 * lambda / m as f64,
                "the unclipped moment must break the bound: {unclipped}"
            );
        }
    }
    assert!(
        worst_f > 0.99 && worst_n > 0.99,
        "the bounds are attained: {worst_f} {worst_n}"
    );
}

/// Kolmogorov-Smirnov distance of a sample to a continuous CDF.
fn ks(sample: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    sample.sort_by(f64::total_cmp);
    let n = sample.len() as f64;
    sample
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            (cdf(x) - i as f64 / n)
                .abs()
                .max(((i + 1) as f64 / n - cdf(x)).abs())
        })
        .fold(0.0, f64::max)
}

/// The noise law: the Frobenius radius is Gamma(D, scale) (KS at 3000 draws; critical value at
/// level 0.001 is 1.95 / sqrt(3000) = 0.036, and the test has power > 0.99 against a scale off by
/// 10%, checked below), and the direction is uniform in `svec` coordinates: every coordinate's
/// mean square is `1/D`, diagonal and off-diagonal alike (a sampler that draws matrix entries
/// i.i.d., forgetting the `sqrt 2` of `svec`, fails this).
#[test]
fn frobenius_noise_has_its_law() {
    let mut rng = StdRng::seed_from_u64(2);
    let (d, scale, draws) = (6usize, 0.37, 3000);
    let dim = d * (d + 1) / 2;
    let mut radii = Vec::with_capacity(draws);
    let (mut diag, mut off) = (0.0, 0.0);
    for _ in 0..draws {
        let noise = frobenius_noise::sample(d, scale, &mut rng);
        assert!((&noise - noise.transpose()).norm() == 0.0, "symmetric");
        let r = noise.norm();
        radii.push(r);
        for i in 0..d {
            diag += (noise[(i, i)] / r).powi(2);
            for k in i + 1..d {
                off += 2.0 * (noise[(i, k)] / r).powi(2);
            }
        }
    }
    let critical = 1.95 / (draws as f64).sqrt();
    let cdf = |s: f64| move |x: f64| 1.0 - gamma_upper(dim as f64, x / s);
    assert!(ks(&mut radii.clone(), cdf(scale)) < critical, "radius law");
    assert!(
        ks(&mut radii.clone(), cdf(1.1 * scale)) > critical,
        "power against a 10% wrong scale"
    );
    // Mean square per svec coordinate: diagonal d coordinates, off-diagonal D - d.
    let (per_diag, per_off) = (diag / (draws * d) as f64, off / (draws * (dim - d)) as f64);
    let se = (2.0 / (dim as f64 * dim as f64) / (draws * d) as f64).sqrt();
    assert!(
        (per_diag * dim as f64 - 1.0).abs() < 6.0 * se * dim as f64,
        "diagonal coordinates {per_diag} vs {}",
        1.0 / dim as f64
    );
    assert!(
        (per_off * dim as f64 - 1.0).abs() < 6.0 * se * dim as f64,
        "off-diagonal coordinates {per_off}"
    );
    // Broken variant: i.i.d. matrix entries; its svec coordinates are not isotropic.
    let (mut bdiag, mut boff) = (0.0, 0.0);
    for _ in 0..draws {
        let g = gaussian(&mut rng, d, d);
        let sym = DMatrix::from_fn(d, d, |i, k| if i <= k { g[(i, k)] } else { g[(k, i)] });
        let r2 = (0..d).map(|i| sym[(i, i)].powi(2)).sum::<f64>()
            + (0..d)
                .flat_map(|i| (i + 1..d).map(move |k| (i, k)))
                .map(|(i, k)| 2.0 * sym[(i, k)].powi(2))
                .sum::<f64>();
        bdiag += (0..d).map(|i| sym[(i, i)].powi(2)).sum::<f64>() / r2;
        boff += 1.0 - (0..d).map(|i| sym[(i, i)].powi(2)).sum::<f64>() / r2;
    }
    let broken = (
        bdiag / (draws * d) as f64,
        boff / (draws * (dim - d)) as f64,
    );
    assert!(
        (broken.0 * dim as f64 - 1.0).abs() > 6.0 * se * dim as f64
            || (broken.1 * dim as f64 - 1.0).abs() > 6.0 * se * dim as f64,
        "{broken:?}"
    );
}

/// Pairs `x = (y_2 - y_1)/sqrt 2` of `n` records from `N(0, Sigma)` after `corrupt` edits the
/// records.
fn pairs(
    rng: &mut StdRng,
    n: usize,
    half: &DMatrix<f64>,
    corrupt: &dyn Fn(&mut DMatrix<f64>),
) -> DMatrix<f64> {
    let d = half.nrows();
    let mut y = gaussian(rng, n, d) * half;
    corrupt(&mut y);
    let m = n / 2;
    DMatrix::from_fn(m, d, |i, k| {
        (y[(2 * i + 1, k)] - y[(2 * i, k)]) / std::f64::consts::SQRT_2
    })
}

/// Far: `count` evenly spaced records replaced by `point`.
fn far(y: &mut DMatrix<f64>, count: usize, point: &DVector<f64>) {
    let step = y.nrows() / count.max(1);
    for i in 0..count {
        y.set_row(i * step, &point.transpose());
    }
}

/// Subtractive (MATH.md 6 (b)): the `count` records with the largest `|<y - centre, v>|` moved
/// to `centre` (the mean): the second moment along `v` shrinks.
fn subtractive(y: &mut DMatrix<f64>, count: usize, v: &DVector<f64>, centre: &DVector<f64>) {
    let mut order: Vec<usize> = (0..y.nrows()).collect();
    let proj: Vec<f64> = (0..y.nrows())
        .map(|i| ((y.row(i) - centre.transpose()) * v)[0].abs())
        .collect();
    order.sort_by(|&a, &b| proj[b].total_cmp(&proj[a]));
    for &i in order.iter().take(count) {
        y.set_row(i, &centre.transpose());
    }
}

/// `Sigma ⪯ U ⪯ kappa Sigma`, or a panic naming `case`.
fn assert_frame_bounds(u: &DMatrix<f64>, sigma: &DMatrix<f64>, kappa: f64, case: &str) {
    let (lo, hi) = relative(u, sigma);
    assert!(
        hi <= 1.0,
        "{case}: Sigma is not below U (largest relative eigenvalue {hi})"
    );
    assert!(
        1.0 / lo <= kappa,
        "{case}: U above kappa_J Sigma ({} > {kappa})",
        1.0 / lo
    );
}

/// Replaces some of the records in place.
type Corruption = Box<dyn Fn(&mut DMatrix<f64>)>;

/// The cases of the dominance tests: clean with `plan`; with `corrupted`, `count` records
/// replaced by `far_point`, and the subtractive adversary along `unit` about `centre`.
fn adversary_cases<'a>(
    plan: &'a PreconditionerPlan,
    corrupted: &'a PreconditionerPlan,
    count: usize,
    far_point: DVector<f64>,
    unit: DVector<f64>,
    centre: DVector<f64>,
) -> [(&'static str, &'a PreconditionerPlan, Corruption); 3] {
    [
        ("clean", plan, Box::new(|_: &mut DMatrix<f64>| {})),
        (
            "far",
            corrupted,
            Box::new(move |y: &mut DMatrix<f64>| far(y, count, &far_point)),
        ),
        (
            "subtractive",
            corrupted,
            Box::new(move |y: &mut DMatrix<f64>| subtractive(y, count, &unit, &centre)),
        ),
    ]
}

/// The eigenvalues of `U^{-1/2} Sigma U^{-1/2}`: all `<= 1` iff `Sigma ⪯ U`; `max / min` is the
/// condition number of `Sigma` in the frame `U`.
fn relative(u: &DMatrix<f64>, sigma: &DMatrix<f64>) -> (f64, f64) {
    let w = spd_power(u, -0.5);
    let e = (&w * sigma * &w).symmetric_eigenvalues();
    (e.min(), e.max())
}

/// `Sigma ⪯ U_J` in at least `1 - beta` of the seeds (all 12 here; `beta = 0.05`) on clean
/// data and under the adversaries of MATH.md 6 at half the plan's tolerated corruption: far
/// points along the thinnest direction, and "subtractive" records moved to the mean (they shrink
/// the second moment, the lower side's risk). And `U_J ⪯ kappa_J Sigma`. The broken variant (no
/// `nu_j` shift and no slack `b`: `U = W^{-1} S W^{-1}`) fails `Sigma ⪯ U` in most seeds.
#[test]
fn frame_dominates_the_covariance() {
    let (n, d, eps) = (20_000, 5, 1.0);
    let plan = PreconditionerPlan::new(
        Points::Pairs(n / 2),
        d,
        100.0,
        eps,
        0.05,
        0.0,
        &PreconditionerSettings::default(),
    )
    .expect("a plan");
    let eta = 0.25 * plan.tolerated_pair_corruption;
    let corrupted = PreconditionerPlan::new(
        Points::Pairs(n / 2),
        d,
        100.0,
        eps,
        0.05,
        2.0 * eta,
        &PreconditionerSettings::default(),
    )
    .expect("a plan under corruption");
    let mut broken = plan.clone();
    broken.slack = 0.0;
    for stage in &mut broken.stages {
        stage.nu = 0.0;
    }
    let mut broken_failures = 0;
    for seed in 0..12u64 {
        let mut rng = StdRng::seed_from_u64(10 + seed);
        let (sigma, half) = covariance(&mut rng, d, 50.0);
        let eig = sigma.clone().symmetric_eigen();
        let k = eig.eigenvalues.imin();
        let thin: DVector<f64> =
            eig.eigenvectors.column(k).into_owned() * eig.eigenvalues[k].sqrt();
        let count = (eta * n as f64).round() as usize;
        let unit = thin.normalize();
        let far_point = &thin * 15.0;
        let cases = adversary_cases(&plan, &corrupted, count, far_point, unit, DVector::zeros(d));
        for (name, p, corrupt) in cases.iter() {
            let x = pairs(&mut rng, n, &half, corrupt.as_ref());
            let (u, releases) = p.release(&x, &mut rng);
            assert_eq!(releases.len(), p.stages.len());
            assert_frame_bounds(&u, &sigma, p.kappa, &format!("seed {seed} {name}"));
        }
        let x = pairs(&mut rng, n, &half, &|_| {});
        broken_failures += usize::from(relative(&broken.release(&x, &mut rng).0, &sigma).1 > 1.0);
    }
    assert!(
        broken_failures >= 6,
        "the unshifted variant must fail Sigma ⪯ U in most seeds, failed in {broken_failures}"
    );
}

/// The plan for `n` records (`n / 2` pairs) in dimension `d` with K = 100, eps_pre = 1,
/// beta = 0.05 and no corruption.
fn clean_plan(n: usize, d: usize, settings: &PreconditionerSettings) -> PreconditionerPlan {
    PreconditionerPlan::new(Points::Pairs(n / 2), d, 100.0, 1.0, 0.05, 0.0, settings)
        .expect("a plan")
}

/// The realised condition number of `Sigma` in `U_J` at d = 10, n = 50000, eps_pre = 1, K = 100
/// (a rotated covariance with condition number 50) is at most 2.5 in at least 4 of 5 seeds; a
/// single stage (the same eps, `J = 1`) does not get there.
#[test]
fn condition_number_at_d10() {
    let (n, d) = (50_000, 10);
    let plan = clean_plan(n, d, &PreconditionerSettings::default());
    let single = clean_plan(
        n,
        d,
        &PreconditionerSettings {
            stages: Some(1),
            ..Default::default()
        },
    );
    let (mut good, mut single_good) = (0, 0);
    for seed in 0..5u64 {
        let mut rng = StdRng::seed_from_u64(100 + seed);
        let (sigma, half) = covariance(&mut rng, d, 50.0);
        let x = pairs(&mut rng, n, &half, &|_| {});
        let (lo, hi) = relative(&plan.release(&x, &mut rng).0, &sigma);
        good += usize::from(hi / lo <= 2.5);
        let (lo, hi) = relative(&single.release(&x, &mut rng).0, &sigma);
        single_good += usize::from(hi / lo <= 2.5);
    }
    assert!(
        good >= 4,
        "condition number <= 2.5 in only {good} of 5 seeds"
    );
    assert!(
        single_good == 0,
        "one stage should not reach 2.5 ({single_good} of 5)"
    );
}

/// MATH.md 4.6: every number a preconditioner stage releases is a multiple of its grid
/// `Lambda_j` (the smallest power of two at or above the noise scale: no bits below it) inside
/// the public box `[-B_j, B_j]` widened to grid points, and the frame is recomputed from the
/// snapped releases alone. Non-vacuity: the unsnapped value of the same stage (the clipped
/// second moment plus noise, as released before snapping) has coordinates off the grid.
#[test]
fn releases_are_snapped_to_their_grid() {
    let (n, d) = (20_000, 3);
    let plan = clean_plan(n, d, &PreconditionerSettings::default());
    let mut rng = StdRng::seed_from_u64(9);
    let (_, half) = covariance(&mut rng, d, 20.0);
    let x = pairs(&mut rng, n, &half, &|_| {});
    let (frame, releases) = plan.release(&x, &mut rng);
    assert_eq!(releases.len(), plan.stages.len());
    for (stage, release) in plan.stages.iter().zip(&releases) {
        assert!(stage.grid >= stage.noise_scale && stage.grid / 2.0 < stage.noise_scale);
        assert_eq!(stage.grid.log2().fract(), 0.0, "a power of two");
        let edge = stage.grid * (stage.box_half_width / stage.grid).ceil();
        for v in &release.release {
            assert_eq!(
                (v / stage.grid).fract(),
                0.0,
                "{v} is not a multiple of {}",
                stage.grid
            );
            assert!(v.abs() <= edge, "{v} outside the box +-{edge}");
        }
    }
    let recomputed = plan.frame_from_releases(
        &releases
            .iter()
            .map(|r| r.release.clone())
            .collect::<Vec<_>>(),
    );
    assert_eq!(recomputed, frame);
    // The unsnapped first stage: the same statistic plus noise of the same scale.
    let w = spd_power(&(DMatrix::identity(d, d) * plan.prior), -0.5);
    let raw = clipped_second_moment(&x, &w, plan.lambda)
        + frobenius_noise::sample(d, plan.stages[0].noise_scale, &mut rng);
    let grid = plan.stages[0].grid;
    assert!(
        raw.iter().any(|v| (v / grid).fract() != 0.0),
        "the unsnapped release should be off the grid {grid}"
    );
}

/// Centred records (MATH.md 5.2 with 5.3b's centring in every frame, [`Points::Records`]): the
/// stage mean's clipped statistic moves by at most `2 rho / n` when one record is replaced
/// (adversarial replacements: far along a frame direction, at the centre, random far points; the
/// worst comes within 1% of the bound, so the check can fail), and without the clip the same
/// neighbours exceed it by orders of magnitude.
#[test]
fn centred_stage_mean_has_its_sensitivity() {
    let mut rng = StdRng::seed_from_u64(2);
    let (n, d, rho) = (200, 4, 3.0);
    let (mut worst, mut unclipped) = (0.0f64, 0.0f64);
    // The library's clip (what a centred stage averages), or none.
    let clipped_mean = |x: &DMatrix<f64>, w: &DMatrix<f64>, centre: &DVector<f64>, clip: bool| {
        let radius = if clip { rho } else { f64::INFINITY };
        let rows = whitened_clipped(x, centre, w, radius);
        rows.row_sum().transpose() / x.nrows() as f64
    };
    for trial in 0..200 {
        let x = gaussian(&mut rng, n, d) * 3.0;
        let (frame, _) = covariance(&mut rng, d, 50.0);
        let w = spd_power(&frame, -0.5);
        let centre = gaussian(&mut rng, d, 1).column(0).into_owned();
        let old = x.row(trial % n).transpose();
        let away = -(&w * (&old - &centre)).normalize();
        let candidates = [
            &centre + spd_power(&frame, 0.5) * away * 1e6,
            centre.clone(),
            gaussian(&mut rng, d, 1).column(0) * 1e12,
        ];
        for new in candidates {
            let mut y = x.clone();
            y.set_row(trial % n, &new.transpose());
            for (clip, out) in [(true, &mut worst), (false, &mut unclipped)] {
                let moved = (clipped_mean(&x, &w, &centre, clip)
                    - clipped_mean(&y, &w, &centre, clip))
                .norm();
                *out = out.max(moved * n as f64 / (2.0 * rho));
            }
        }
    }
    assert!(
        worst <= 1.0 + 1e-12,
        "the clipped mean moved {worst} times 2 rho / n"
    );
    assert!(worst >= 0.99, "no neighbour came near the bound: {worst}");
    assert!(unclipped > 100.0, "without the clip: {unclipped}");
}

/// Records `y_i ~ N(mu, Sigma)`, edited by `corrupt`.
fn records(
    rng: &mut StdRng,
    n: usize,
    mu: &DVector<f64>,
    half: &DMatrix<f64>,
    corrupt: &dyn Fn(&mut DMatrix<f64>),
) -> DMatrix<f64> {
    let d = half.nrows();
    let mut y = gaussian(rng, n, d) * half;
    for mut row in y.row_iter_mut() {
        row += mu.transpose();
    }
    corrupt(&mut y);
    y
}

/// On centred records (the mean `|mu| = R = 10` along the covariance's thinnest direction, so an
/// uncentred stage would see `mu mu^T` there): `Sigma ⪯ U_J ⪯ kappa_J Sigma` in all 12 seeds
/// (`beta = 0.05`) on clean data and under far and subtractive records at a quarter of the plan's
/// tolerated corruption; the frame also recomputes from the releases. The broken variant (the
/// same stages without their means: the records centred at the origin) fails `U_J ⪯ kappa_J
/// Sigma` in most seeds.
#[test]
fn centred_frames_dominate_the_covariance() {
    let (n, d, eps, radius) = (20_000, 5, 1.0, 10.0);
    let plan_at = |eta: f64| {
        PreconditionerPlan::new(
            Points::Records {
                count: n,
                mean_prior: radius,
                record_radius: f64::INFINITY,
            },
            d,
            100.0,
            eps,
            0.05,
            eta,
            &PreconditionerSettings::default(),
        )
        .expect("a plan")
    };
    let plan = plan_at(0.0);
    assert!(plan.centring.is_some() && plan.stages.iter().all(|s| s.mean.is_some()));
    let eta = 0.25 * plan.tolerated_pair_corruption;
    let corrupted = plan_at(eta);
    let mut broken = plan.clone();
    broken.centring = None;
    for stage in &mut broken.stages {
        stage.mean = None;
    }
    let mut broken_failures = 0;
    for seed in 0..12u64 {
        let mut rng = StdRng::seed_from_u64(40 + seed);
        let (sigma, half) = covariance(&mut rng, d, 50.0);
        let eig = sigma.clone().symmetric_eigen();
        let k = eig.eigenvalues.imin();
        let unit = eig.eigenvectors.column(k).into_owned();
        let mu = &unit * radius;
        let thin = &unit * eig.eigenvalues[k].sqrt();
        let count = (eta * n as f64).round() as usize;
        let far_point = &mu + &thin * 15.0;
        let cases = adversary_cases(&plan, &corrupted, count, far_point, unit, mu.clone());
        for (name, p, corrupt) in cases.iter() {
            let y = records(&mut rng, n, &mu, &half, corrupt.as_ref());
            let (u, releases) = p.release(&y, &mut rng);
            assert_eq!(releases.len(), p.release_count());
            assert_eq!(releases.len(), 2 * p.stages.len());
            let svecs: Vec<Vec<f64>> = releases.iter().map(|r| r.release.clone()).collect();
            assert_eq!(p.frame_from_releases(&svecs), u, "seed {seed} {name}");
            assert_frame_bounds(&u, &sigma, p.kappa, &format!("seed {seed} {name}"));
        }
        let y = records(&mut rng, n, &mu, &half, &|_| {});
        let (lo, _) = relative(&broken.release(&y, &mut rng).0, &sigma);
        broken_failures += usize::from(1.0 / lo > broken.kappa);
    }
    assert!(
        broken_failures >= 6,
        "the uncentred variant must fail U_J ⪯ kappa_J Sigma in most seeds, failed in {broken_failures}"
    );
}

/// The centred stages halve the corruption the preconditioner sees and double its points: at
/// d = 10, n = 10^6 (eps_pre = 1, K = 100, beta = 0.05) their plan tolerates more record
/// corruption than the pairs' (`tolerated_pair_corruption / 2`), and at d = 5, n = 100000 with 1%
/// of the records corrupted it has a smaller `kappa_J`.
#[test]
fn centred_frames_tolerate_more_corruption() {
    let plan = |points: Points, d: usize, eta: f64| {
        PreconditionerPlan::new(
            points,
            d,
            100.0,
            1.0,
            0.05,
            eta,
            &PreconditionerSettings::default(),
        )
        .expect("a plan")
    };
    let records = |n: usize| Points::Records {
        count: n,
        mean_prior: 10.0,
        record_radius: 1e3,
    };
    let n = 1_000_000;
    let on_pairs = 0.5 * plan(Points::Pairs(n / 2), 10, 0.0).tolerated_pair_corruption;
    let centred = plan(records(n), 10, 0.0).tolerated_pair_corruption;
    assert!(
        centred > 1.15 * on_pairs,
        "centred {centred}, pairs {on_pairs}"
    );
    let n = 100_000;
    let (pairs_kappa, centred_kappa) = (
        plan(Points::Pairs(n / 2), 5, 0.02).kappa,
        plan(records(n), 5, 0.01).kappa,
    );
    assert!(
        centred_kappa < 0.5 * pairs_kappa,
        "{centred_kappa} against {pairs_kappa}"
    );
}
