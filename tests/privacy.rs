//! Privacy of the **whole learner** on neighbouring datasets (MATH.md 1, 4.1, 5.1, 7):
//! [`PrivateMean`] in 1-D, forced to a single stage so that the exact law of its release is
//! computable by quadrature. That stage is the CM mechanism with centre 0, `Gamma = gamma I`
//! and domain `B(0, radius) ∩ {theta^2 <= gamma}` of the public plan, on the records projected
//! onto `B(0, projection_radius)`, sampled at eps/2 with a uniformly random level offset. The
//! test compares the learner's releases (`fit(..).release.estimate`) with that exact law on two
//! neighbouring datasets, checks the binned privacy loss, exact and empirical, and shows that
//! its goodness-of-fit test rejects a learner that samples at eps instead of eps/2.
use nalgebra::DMatrix;
use rand::rngs::StdRng;
use rand::SeedableRng;
use sosdp::eval::{Adversary, CorruptedSample};
use sosdp::learn::projection::project_rows;
use sosdp::learn::{Constants, PrivateMean};
use sosdp::score::{CertifiedMean, FastCm, ScoreOracle};
use std::time::Instant;

// ----- statistics -------------------------------------------------------------------------
// (Copies of the helpers in crates/sampler/tests/privacy.rs, which checks them against known
// values in `statistics_helpers_are_correct`.)

/// `ln Gamma(x)`, x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-13).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let a = C[0] + (1..9).map(|i| C[i] / (x + i as f64)).sum::<f64>();
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Regularised upper incomplete gamma `Q(a, x) = Gamma(a, x) / Gamma(a)` (series below
/// `a + 1`, Lentz's continued fraction above).
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut sum, mut term, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * front).max(0.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        front * h
    }
}

/// `P(chi2_df > x)`.
fn chi2_sf(x: f64, df: f64) -> f64 {
    gamma_q(0.5 * df, 0.5 * x)
}

/// `P(chi2_df(lambda) > x)` for the non-central chi-square (Poisson mixture of central ones).
fn noncentral_chi2_sf(x: f64, df: f64, lambda: f64) -> f64 {
    let mu = 0.5 * lambda;
    let jmax = (mu + 12.0 * mu.sqrt() + 50.0) as usize;
    (0..=jmax)
        .map(|j| {
            let log_w = -mu + j as f64 * mu.max(1e-300).ln() - ln_gamma(j as f64 + 1.0);
            log_w.exp() * chi2_sf(x, df + 2.0 * j as f64)
        })
        .sum::<f64>()
        .min(1.0)
}

/// The `1 - alpha` quantile of `chi2_df` (bisection).
fn chi2_quantile(alpha: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 10.0 * df + 200.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if chi2_sf(mid, df) > alpha { lo = mid } else { hi = mid }
    }
    0.5 * (lo + hi)
}

/// Pearson's chi-square of `counts` against the probabilities `p` after merging adjacent
/// bins (left to right) until every merged bin expects at least 5 draws; returns the merged
/// bins (groups of original bin indices), the statistic and its degrees of freedom.
struct ChiSquare {
    groups: Vec<Vec<usize>>,
    statistic: f64,
    df: f64,
}

fn merged_groups(p: &[f64], total: f64) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = vec![];
    let mut current = vec![];
    let mut mass = 0.0;
    for (b, &pb) in p.iter().enumerate() {
        current.push(b);
        mass += pb;
        if mass * total >= 5.0 {
            groups.push(std::mem::take(&mut current));
            mass = 0.0;
        }
    }
    if !current.is_empty() {
        match groups.last_mut() {
            Some(last) => last.extend(current),
            None => groups.push(current),
        }
    }
    groups
}

fn chi_square(counts: &[f64], p: &[f64]) -> ChiSquare {
    let total: f64 = counts.iter().sum();
    let groups = merged_groups(p, total);
    let statistic = groups
        .iter()
        .map(|g| {
            let (o, e) = (g.iter().map(|&b| counts[b]).sum::<f64>(), total * g.iter().map(|&b| p[b]).sum::<f64>());
            (o - e).powi(2) / e
        })
        .sum();
    let df = (groups.len() - 1) as f64;
    ChiSquare { groups, statistic, df }
}

/// Non-centrality `N sum_g (q_g - p_g)^2 / p_g` of the chi-square test against `p` when the
/// draws follow `q`, on the merged bins `groups`.
fn noncentrality(groups: &[Vec<usize>], p: &[f64], q: &[f64], total: f64) -> f64 {
    groups
        .iter()
        .map(|g| {
            let (pg, qg) = (g.iter().map(|&b| p[b]).sum::<f64>(), g.iter().map(|&b| q[b]).sum::<f64>());
            (qg - pg).powi(2) / pg
        })
        .sum::<f64>()
        * total
}

/// Kolmogorov–Smirnov statistic of `xs` against `cdf`.
fn ks_statistic(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    v.iter().enumerate().map(|(i, &x)| {
        let f = cdf(x);
        (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
    }).fold(0.0, f64::max)
}

/// Asymptotic Kolmogorov tail `P(D_n > d)` with Stephens' correction.
fn ks_p_value(d: f64, n: f64) -> f64 {
    let lambda = (n.sqrt() + 0.12 + 0.11 / n.sqrt()) * d;
    if lambda < 0.2 {
        return 1.0;
    }
    (1..=100).map(|k| 2.0 * (-1f64).powi(k - 1) * (-2.0 * (k as f64 * lambda).powi(2)).exp()).sum::<f64>().clamp(0.0, 1.0)
}

// ----- the learner's single stage and its exact law ----------------------------------------

/// The exact law of one CM stage's release per grid cell of `[-a, a]` (`scores` at the cell
/// midpoints): for each level offset `kappa` of a midpoint grid of `offsets` values in
/// `[0, 1)`, `pi_kappa(theta) ∝ exp(-eps' l_{i(theta)})`, `l_i = kappa + i`,
/// `i(theta) = min(ceil(s(theta) - kappa), top)` (crates/sampler/src/target.rs), normalised;
/// then the average over `kappa` (`release()` draws it uniformly on a grid of step 1e-6).
fn exact_cell_law(scores: &[f64], max_score: f64, eps_sampling: f64, offsets: usize) -> Vec<f64> {
    let mut out = vec![0.0; scores.len()];
    for k in 0..offsets {
        let kappa = (k as f64 + 0.5) / offsets as f64;
        let top = (max_score - kappa).ceil();
        let levels: Vec<f64> = scores.iter().map(|s| kappa + (s - kappa).ceil().min(top)).collect();
        let low = levels.iter().copied().fold(f64::INFINITY, f64::min);
        let m: Vec<f64> = levels.iter().map(|l| (-eps_sampling * (l - low)).exp()).collect();
        let z: f64 = m.iter().sum();
        out.iter_mut().zip(&m).for_each(|(o, mi)| *o += mi / z / offsets as f64);
    }
    out
}

/// The single stage's score, on records projected as the learner projects them, at the
/// midpoints of `cells` equal cells of `[-radius, radius]`.
fn stage_scores(data: &DMatrix<f64>, radius: f64, gamma: f64, projection_radius: f64, cells: usize) -> (Vec<f64>, f64) {
    let projected = project_rows(data, &[0.0], projection_radius);
    let oracle = FastCm::new(CertifiedMean::new(&projected, &[0.0], &DMatrix::from_element(1, 1, gamma)).unwrap());
    let scores = (0..cells).map(|c| oracle.evaluate(&[radius * (-1.0 + (c as f64 + 0.5) * 2.0 / cells as f64)]).unwrap().score).collect();
    (scores, oracle.max_score())
}

fn binned(cell_law: &[f64], bins: usize) -> Vec<f64> {
    let mut out = vec![0.0; bins];
    cell_law.iter().enumerate().for_each(|(c, m)| out[c * bins / cell_law.len()] += m);
    out
}

fn histogram(xs: &[f64], radius: f64, bins: usize) -> Vec<f64> {
    let mut h = vec![0.0; bins];
    for &x in xs {
        h[(((x + radius) / (2.0 * radius) * bins as f64).floor().max(0.0) as usize).min(bins - 1)] += 1.0;
    }
    h
}

/// CDF on `[-radius, radius]` of the cell law (mass spread uniformly over each cell).
fn cell_cdf(cell_law: &[f64], radius: f64) -> impl Fn(f64) -> f64 + '_ {
    let h = 2.0 * radius / cell_law.len() as f64;
    move |x: f64| {
        let pos = ((x + radius) / h).clamp(0.0, cell_law.len() as f64);
        let k = pos.floor() as usize;
        cell_law[..k.min(cell_law.len())].iter().sum::<f64>() + if k < cell_law.len() { (pos - k as f64) * cell_law[k] } else { 0.0 }
    }
}

/// Largest |log(p / q)| (and its bin) over bins where both laws have at least `min_mass`.
fn largest_log_ratio(p: &[f64], q: &[f64], min_mass: f64) -> (f64, usize) {
    p.iter().zip(q).enumerate().filter(|(_, (a, b))| **a >= min_mass && **b >= min_mass).map(|(k, (a, b))| ((a / b).ln().abs(), k)).fold((0.0, 0), |m, x| if x.0 > m.0 { x } else { m })
}

/// `count` releases of `learner` on `data`, one fit per seed `seed..seed + count`, on two
/// threads.
fn learner_draws(learner: &PrivateMean, data: &DMatrix<f64>, count: usize, seed: u64) -> Vec<f64> {
    let half = count / 2;
    std::thread::scope(|scope| {
        let parts: Vec<_> = [(0, half), (half, count)]
            .into_iter()
            .map(|(a, b)| scope.spawn(move || (a..b).map(|k| learner.clone().seed(seed + k as u64).fit(data).unwrap().release.estimate[0]).collect::<Vec<f64>>()))
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    })
}

/// The whole learner's privacy on neighbouring datasets, against its exact law.
///
/// Setting: n = 40 records of N(0.3, 1), 10% of them a tight cluster (spread 0.1) at distance
/// 3 to the right of the mean, seed 5; the neighbour moves the largest record (an outlier) to
/// -1e6, which the learner projects onto `-projection_radius` (about -6). Learner:
/// `PrivateMean::new(2).radius(1)` with `max_stages = 1` (asserted: one stage, eps = 2, the
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
/// - Power shown: the same learner asked for 2 eps (`PrivateMean::new(4)`, same plan otherwise:
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
    let single = Constants { max_stages: 1, ..Constants::default() };
    let learner = PrivateMean::new(epsilon).radius(prior).constants(single.clone());
    let plan = learner.plan(n, 1).unwrap();
    assert_eq!(plan.stages.len(), 1, "the plan must have one stage: {plan:?}");
    let stage = &plan.stages[0];
    let (radius, gamma, projection) = (stage.radius, stage.gamma, stage.projection_radius);
    assert!((stage.epsilon - epsilon).abs() < 1e-12 && (radius - prior).abs() < 1e-12);
    // The domain is the ball: the CM ellipsoid {theta^2 <= gamma} contains [-radius, radius].
    assert!(gamma.sqrt() > radius);
    // The learner without the halving: the same plan at twice the eps.
    let broken_learner = PrivateMean::new(2.0 * epsilon).radius(prior).constants(single);
    let broken_plan = broken_learner.plan(n, 1).unwrap();
    assert_eq!(broken_plan.stages.len(), 1);
    let b = &broken_plan.stages[0];
    assert!(b.radius == radius && b.gamma == gamma && b.projection_radius == projection, "the broken variant's plan differs beyond eps");
    println!("plan: radius {radius}, gamma {gamma:.3}, projection radius {projection:.3}");

    let y = CorruptedSample::identity_covariance(&mut StdRng::seed_from_u64(5), n, &[0.3], 0.1, &Adversary::ShiftedCluster { distance: 3.0, axis: 0, spread: 0.1 }).data;
    let mut y2 = y.clone();
    let k = (0..n).max_by(|&a, &b| y[(a, 0)].total_cmp(&y[(b, 0)])).unwrap();
    y2[(k, 0)] = -1e6;

    let (mut exact, mut exact_broken, mut cell_laws) = (vec![], vec![], vec![]);
    for data in [&y, &y2] {
        let (scores, max_score) = stage_scores(data, radius, gamma, projection, cells);
        let law = exact_cell_law(&scores, max_score, 0.5 * epsilon, offsets);
        let (coarse_scores, _) = stage_scores(data, radius, gamma, projection, cells / 2);
        let coarse = binned(&exact_cell_law(&coarse_scores, max_score, 0.5 * epsilon, offsets / 4), bins);
        let fine = binned(&law, bins);
        for (a, b) in fine.iter().zip(&coarse) {
            assert!((a - b).abs() < 1e-4 && (a.ln() - b.ln()).abs() < 0.01, "quadrature not converged: {a} against {b}");
        }
        exact.push(fine);
        exact_broken.push(binned(&exact_cell_law(&scores, max_score, epsilon, offsets), bins));
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
    println!("exact largest |log ratio| {worst:.3} (bin {worst_bin}), {visible:.3} on bins with >= 1% mass (bin {visible_bin}); without halving {broken_worst:.3} (bin {broken_bin}, >= 0.1% mass); eps = {epsilon}; quadrature {:.1} s", clock.elapsed().as_secs_f64());
    assert!(worst <= epsilon, "the exact single-stage mechanism exceeds eps: {worst}");
    // The finest events: single grid cells (width 5e-4 of the domain's diameter).
    let (pointwise, _) = largest_log_ratio(&cell_laws[0], &cell_laws[1], 0.0);
    println!("exact largest |log ratio| over single cells: {pointwise:.3}");
    assert!(pointwise <= epsilon, "the exact mechanism exceeds eps on a cell: {pointwise}");
    assert!(visible >= epsilon / 3.0, "vacuous: the exact log ratio {visible} is below eps/3");

    let draws = [learner_draws(&learner, &y, count, 0), learner_draws(&learner, &y2, count, 100_000)];
    println!("{} fits: {:.1} s", 2 * count, clock.elapsed().as_secs_f64());
    let alpha = 1e-3;
    for (k, xs) in draws.iter().enumerate() {
        assert!(xs.iter().all(|x| x.abs() <= radius), "a release outside the domain");
        let h = histogram(xs, radius, bins);
        let chi = chi_square(&h, &exact[k]);
        let p = chi2_sf(chi.statistic, chi.df);
        let power = noncentral_chi2_sf(chi2_quantile(alpha, chi.df), chi.df, count as f64 * 0.15f64.powi(2));
        let d = ks_statistic(xs, cell_cdf(&cell_laws[k], radius));
        let ks_p = ks_p_value(d, xs.len() as f64);
        println!("dataset {k}: chi-square {:.2} on {} df, p = {p:.3} (power {power:.3} at level {alpha} against w = 0.15); KS D = {d:.4}, p = {ks_p:.3}", chi.statistic, chi.df);
        assert!(power >= 0.9, "the chi-square test is too weak: power {power}");
        assert!(p >= alpha, "dataset {k}: the learner's releases disagree with the exact law (chi-square p = {p})");
        assert!(ks_p >= alpha, "dataset {k}: the learner's releases disagree with the exact law (KS p = {ks_p})");
    }
    let (h0, h1) = (histogram(&draws[0], radius, bins), histogram(&draws[1], radius, bins));
    let (mut largest, mut checked): (f64, usize) = (0.0, 0);
    for b in 0..bins {
        let (c0, c1) = (h0[b], h1[b]);
        if c0 >= 50.0 && c1 >= 50.0 {
            let loss = (c0 / c1).ln();
            let se = (1.0 / c0 + 1.0 / c1).sqrt();
            println!("bin {b:2}: counts {c0} / {c1}, log ratio {loss:+.3} (exact {:+.3}), allowed {:.3}", (exact[0][b] / exact[1][b]).ln(), epsilon + 3.0 * se);
            assert!(loss.abs() <= epsilon + 3.0 * se, "bin {b}: empirical privacy loss {loss} > eps + 3 SE");
            largest = largest.max(loss.abs());
            checked += 1;
        }
    }
    println!("largest empirical |log ratio| {largest:.3} over {checked} bins");
    assert!(checked >= 4 && largest >= epsilon / 4.0, "vacuous empirical check: {checked} bins, largest {largest}");

    // The learner without the halving is rejected.
    let rejection = 1e-6;
    for (k, data) in [&y, &y2].into_iter().enumerate() {
        let xs = learner_draws(&broken_learner, data, broken_count, 500_000 + 100_000 * k as u64);
        let h = histogram(&xs, radius, bins);
        let chi = chi_square(&h, &exact[k]);
        let p = chi2_sf(chi.statistic, chi.df);
        let lambda = noncentrality(&chi.groups, &exact[k], &exact_broken[k], broken_count as f64);
        let power = noncentral_chi2_sf(chi2_quantile(rejection, chi.df), chi.df, lambda);
        let own = chi_square(&h, &exact_broken[k]);
        let p_own = chi2_sf(own.statistic, own.df);
        println!("without halving, dataset {k}: against the correct law chi-square {:.1} on {} df, p = {p:.2e} (exact non-centrality {lambda:.1}, power {power:.6} at level {rejection}); against its own exact law p = {p_own:.3}", chi.statistic, chi.df);
        assert!(power >= 0.999, "the rejection is not assured: power {power}");
        assert!(p < rejection, "dataset {k}: a learner sampling at eps was not rejected: p = {p}");
        assert!(p_own >= alpha, "dataset {k}: the variant's fits disagree with its own exact law: p = {p_own}");
    }
    println!("total {:.1} s", clock.elapsed().as_secs_f64());
}
