//! The slice path's releases follow the exact rounded law of a quadratic score (issue 22,
//! item iii; MATH.md 4.1, 4.5).
//!
//! Oracle: `s(theta) = min(n, (a/2) |theta - mu|^2)`, evaluated exactly (brackets of width 0),
//! on the ball `Theta = B(0, 40)` with `|mu| ≈ 2.7`. With `eps = 1` (`eps' = 1/2`) and `a = 2`
//! the unrounded target is `N(mu, I)`; the rounded target (levels `l_i = kappa + i`) has, for the
//! score `s = (a/2) r^2` with `r = |theta - mu|`, the density
//!
//! ```text
//! p(s) ∝ s^{d/2 - 1} exp(-eps' l_{i(s)}),   i(s) = ceil(s - kappa),
//! ```
//!
//! (the volume of `{r^2 <= 2s/a}` grows as `s^{d/2}`), so the mass of the level shell
//! `(max(0, l_i - 1), l_i]` is `e^{-eps' l_i} (l_i^{d/2} - lo^{d/2}) / (d/2)` and its CDF inside a
//! shell is `x^{d/2}` up to constants: the exact law, in closed form ([`RoundedLaw`]).
//! Truncation by the domain is negligible: `r >= 40 - |mu|` has probability below `e^{-500}`
//! at d = 50, and `n = 2000` exceeds the score's maximum `(a/2) 42.7^2` on `Theta`, so the cap
//! never binds.
//!
//! Each release draws its own offset `kappa` (recorded in the release record); the checks use
//! the law at that offset:
//! (a) KS of the probability-integral transforms `F_kappa(r^2)` of the final points against
//!     the uniform law;
//! (b) each coordinate's mean (`mu_k`) and second moment about `mu` (`E r^2 / d`, fourth
//!     moments from `E r^4` for the z-scores), Bonferroni over the `2 d` z-tests;
//! (c) split R-hat over 8 chains from the mode of the `r^2` traces (second half of each chain)
//!     below 1.05 for chains of 200 d iterations; for the release's 40 d it is only reported
//!     (1.39 at d = 10, 1.08 at d = 50): the `r^2` trace's autocorrelation time is about 2.8 d
//!     iterations (asserted below 4 d, so that 40 d is at least 10 of them), which leaves about
//!     3.6 effective draws per half chain, too few for R-hat < 1.05 (`R-hat^2 ≈ 1 + 1/n_eff`).
//!     For comparison, the ideal Gibbs sampler (a uniform point of the level body at each
//!     iteration) has about 1.05 d on this target (a simulation of its score chain, not part of
//!     this file); one hit-and-run step per iteration is slower.
//!
//! Chains are `sosdp_sampler::release` with `MechanismSettings::new(1, d)` (slice path: a
//! `20 d` pilot, then `40 d` iterations with rounded directions, one shrinkage step each),
//! started at the public point 0 with the score's maximum as its bound (MATH.md 4.7b), one
//! seed per chain: 4000 releases at d = 10, 1000 at d = 50, so the KS test at level 0.01
//! detects any deviation of the radial CDF above 1.63 / sqrt(4000) ≈ 0.026 (d = 10) and
//! 0.052 (d = 50). Power, asserted: the same tests reject releases drawn with `eps = 1.3`
//! (KS p ≈ 1e-186 at d = 10, 1e-234 at d = 50; coordinate moments 1e-30 and 1e-12) and releases
//! of an oracle with `a` 15% too large (KS p ≈ 1e-60 and 1e-72; moments 1e-14 at d = 10).
mod common;
use common::{ks_one_p, rng};
use sosdp_oracle::ScoreOracle;
use sosdp_sampler::reference::{QuadraticScore, RoundedQuadraticLaw};
use sosdp_sampler::target::Target;
use sosdp_sampler::{
    Ball, Directions, Levels, LineMove, MechanismSettings, Progress, SliceSettings, Start, release,
    slice,
};
use std::ops::ControlFlow;

fn r2(theta: &[f64], mu: &[f64]) -> f64 {
    theta.iter().zip(mu).map(|(t, m)| (t - m) * (t - m)).sum()
}

const EPS: f64 = 1.0;
const A: f64 = 2.0;
const N: f64 = 2000.0;
const RADIUS: f64 = 40.0;

/// A centre of norm about 2.7 (so that the coordinate means are not all 0).
fn mu(d: usize) -> Vec<f64> {
    (0..d)
        .map(|k| 0.6 * ((k % 5) as f64 - 2.0) / (d as f64 / 10.0).sqrt())
        .collect()
}

fn oracle(d: usize, a: f64) -> QuadraticScore {
    QuadraticScore::isotropic(mu(d), a, N)
}

fn domain(d: usize) -> Ball {
    Ball::new(vec![0.0; d], RADIUS).unwrap()
}

/// The exact law of `r^2 = |theta - mu|^2` under the rounded target (module doc) at offset
/// `kappa`, sampling parameter `eps'` and curvature `a`: the score's law
/// ([`RoundedQuadraticLaw`]) with `s = (a/2) r^2`.
struct RoundedLaw {
    score: RoundedQuadraticLaw,
    a: f64,
}

impl RoundedLaw {
    fn new(d: usize, eps: f64, a: f64, kappa: f64) -> Self {
        RoundedLaw {
            score: RoundedQuadraticLaw::new(d, eps, kappa),
            a,
        }
    }

    /// CDF of `r^2`.
    fn cdf(&self, r2: f64) -> f64 {
        self.score.cdf(0.5 * self.a * r2)
    }

    /// `E[(r^2)^k]`.
    fn moment(&self, k: u32) -> f64 {
        self.score.moment(k) * (2.0 / self.a).powi(k as i32)
    }
}

/// One release per seed from the public start `start` (its score bound the score's maximum,
/// as a learner's stage starts at its centre): the final points and their offsets.
fn releases_from(
    oracle: &QuadraticScore,
    settings: &MechanismSettings,
    start: &[f64],
    seeds: std::ops::Range<u64>,
) -> Vec<(Vec<f64>, f64, usize)> {
    let domain = domain(oracle.dim());
    let start = Start {
        theta: start.to_vec(),
        score_upper: oracle.max_score(),
    };
    seeds
        .map(|seed| {
            let out = release(
                oracle,
                &domain,
                &start,
                settings,
                &mut rng(seed),
                &mut |_: Progress| ControlFlow::Continue(()),
            )
            .unwrap();
            assert_eq!(
                out.record.slice.as_ref().unwrap().iterations,
                settings.slice.iterations
            );
            assert_eq!(out.record.oracle_calls.ties, 0);
            (
                out.theta,
                out.record.level_offset,
                out.record.oracle_calls.refined,
            )
        })
        .collect()
}

/// [`releases_from`] the domain's centre, the origin (`|mu| ≈ 2.7` away), with the default
/// settings at `eps`.
fn releases(
    oracle: &QuadraticScore,
    eps: f64,
    seeds: std::ops::Range<u64>,
) -> Vec<(Vec<f64>, f64, usize)> {
    let d = oracle.dim();
    let settings = MechanismSettings::new(eps, d).unwrap();
    assert_eq!(settings.slice.iterations, 40 * d);
    releases_from(oracle, &settings, &vec![0.0; d], seeds)
}

/// Two-sided normal tail `P(|Z| > |z|)` (erfc by Numerical Recipes' Chebyshev fit, relative
/// error below 1.2e-7).
fn normal_two_sided(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x);
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    (t * poly.exp()).min(1.0)
}

struct Verdict {
    /// KS p-value of the radial law.
    ks: f64,
    /// Bonferroni-adjusted p-value of the smallest of the `2 d` coordinate z-tests.
    moments: f64,
}

/// Checks (a) and (b) of the module doc for releases `(theta, kappa)` against the exact law
/// at `(EPS, A)`.
fn judge(d: usize, draws: &[(Vec<f64>, f64, usize)]) -> Verdict {
    let mu = mu(d);
    let laws: Vec<RoundedLaw> = draws
        .iter()
        .map(|(_, kappa, _)| RoundedLaw::new(d, 0.5 * EPS, A, *kappa))
        .collect();
    let pit: Vec<f64> = draws
        .iter()
        .zip(&laws)
        .map(|((theta, _, _), law)| law.cdf(r2(theta, &mu)))
        .collect();
    let ks = ks_one_p(&pit, |u| u.clamp(0.0, 1.0));
    // Per release: Var(theta_k - mu_k) = E r^2 / d; E (theta_k - mu_k)^4 = 3 E r^4 / (d (d + 2))
    // (spherical symmetry about mu).
    let (mut var_sum, mut var2_sum) = (0.0, 0.0);
    for law in &laws {
        let (e2, e4) = (law.moment(1), law.moment(2));
        let v = e2 / d as f64;
        var_sum += v;
        var2_sum += 3.0 * e4 / (d * (d + 2)) as f64 - v * v;
    }
    let mut p_min: f64 = 1.0;
    for k in 0..d {
        let dev: Vec<f64> = draws.iter().map(|(t, _, _)| t[k] - mu[k]).collect();
        let z_mean = dev.iter().sum::<f64>() / var_sum.sqrt();
        let z_var = (dev.iter().map(|x| x * x).sum::<f64>() - var_sum) / var2_sum.sqrt();
        p_min = p_min
            .min(normal_two_sided(z_mean))
            .min(normal_two_sided(z_var));
    }
    Verdict {
        ks,
        moments: (p_min * 2.0 * d as f64).min(1.0),
    }
}

/// Split R-hat (Gelman et al. 2013) of `traces`, each split in two halves.
fn split_rhat(traces: &[Vec<f64>]) -> f64 {
    let halves: Vec<&[f64]> = traces
        .iter()
        .flat_map(|t| {
            let h = t.len() / 2;
            [&t[..h], &t[h..2 * h]]
        })
        .collect();
    let n = halves[0].len() as f64;
    let m = halves.len() as f64;
    let means: Vec<f64> = halves.iter().map(|h| h.iter().sum::<f64>() / n).collect();
    let grand = means.iter().sum::<f64>() / m;
    let b = n / (m - 1.0) * means.iter().map(|x| (x - grand).powi(2)).sum::<f64>();
    let w = halves
        .iter()
        .zip(&means)
        .map(|(h, mean)| h.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0))
        .sum::<f64>()
        / m;
    (((n - 1.0) / n * w + b / n) / w).sqrt()
}

/// The `r^2` trace of one slice chain of `iterations` iterations from `start`, at a fixed
/// offset: `slice::sample` one iteration at a time (the chain is the same as one call of
/// `iterations`: the level index passed on is the point's own, and finding it uses no
/// randomness).
fn r2_trace(
    d: usize,
    kappa: f64,
    start: &[f64],
    iterations: usize,
    seed: u64,
) -> (Vec<f64>, Vec<f64>) {
    let oracle = oracle(d, A);
    let domain = domain(d);
    let levels = Levels::with_offset(kappa);
    let target = Target::new(
        &oracle,
        &domain,
        levels,
        0.5 * EPS,
        Directions::Isotropic,
        LineMove::Shrinkage,
    );
    let one = SliceSettings {
        iterations: 1,
        steps_per_iteration: 1,
    };
    let mut r = rng(seed);
    let mut theta = start.to_vec();
    let mut index = levels.index(oracle.evaluate(start).unwrap().upper);
    let mut trace = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let (next, record) = slice::sample(&target, &theta, index, &one, &mut r, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        theta = next;
        index = record.final_index;
        trace.push(r2(&theta, &oracle.mu));
    }
    (trace, theta)
}

fn check_law(d: usize, chains: u64) {
    let clock = std::time::Instant::now();
    let good = releases(&oracle(d, A), EPS, 0..chains);
    let verdict = judge(d, &good);
    let refined: usize = good.iter().map(|g| g.2).sum();
    eprintln!(
        "d = {d}, {chains} releases at eps = {EPS}, a = {A}: KS p = {:.3e}, moments p (Bonferroni) = {:.3e}, refined decisions {refined} ({:.1} s)",
        verdict.ks,
        verdict.moments,
        clock.elapsed().as_secs_f64()
    );
    assert!(verdict.ks > 0.01, "d = {d}: radial KS p = {}", verdict.ks);
    assert!(
        verdict.moments > 0.01,
        "d = {d}: coordinate moments p = {}",
        verdict.moments
    );

    // Power: releases at 1.3 eps, and of an oracle with a 15% too large, judged against the
    // law at (EPS, A).
    let hot = judge(
        d,
        &releases(&oracle(d, A), 1.3 * EPS, 10_000..10_000 + chains),
    );
    let steep = judge(
        d,
        &releases(&oracle(d, 1.15 * A), EPS, 20_000..20_000 + chains),
    );
    eprintln!(
        "d = {d}: at 1.3 eps KS p = {:.3e}, moments p = {:.3e}; with 1.15 a KS p = {:.3e}, moments p = {:.3e} ({:.1} s in all)",
        hot.ks,
        hot.moments,
        steep.ks,
        steep.moments,
        clock.elapsed().as_secs_f64()
    );
    for (what, v) in [("1.3 eps", &hot), ("1.15 a", &steep)] {
        assert!(v.ks < 1e-6, "d = {d}, {what}: KS p = {} not rejected", v.ks);
    }
    // The coordinate z-tests see a 23% (1.3 eps) or 13% (1.15 a) change of each coordinate's
    // variance through Bonferroni over 2 d tests: far below 1e-3 at d = 10 for both; at d = 50
    // (fewer chains, 100 tests) for 1.3 eps, while 1.15 a gives p ≈ 5e-4 there (reported, not
    // asserted).
    assert!(
        hot.moments < 1e-3,
        "d = {d}, 1.3 eps: moments p = {} not rejected",
        hot.moments
    );
    if d <= 10 {
        assert!(
            steep.moments < 1e-3,
            "d = {d}, 1.15 a: moments p = {} not rejected",
            steep.moments
        );
    }
}

/// Integrated autocorrelation time of a trace (Sokal's window `M >= 5 tau`).
fn tau(x: &[f64]) -> f64 {
    let n = x.len();
    let m = x.iter().sum::<f64>() / n as f64;
    let c0 = x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n as f64;
    let mut t = 1.0;
    for lag in 1..n / 10 {
        let c = x[..n - lag]
            .iter()
            .zip(&x[lag..])
            .map(|(a, b)| (a - m) * (b - m))
            .sum::<f64>()
            / n as f64;
        t += 2.0 * c / c0;
        if lag as f64 >= 5.0 * t {
            break;
        }
    }
    t
}

/// (c): chains from the mode agree. Split R-hat needs about 10 effective draws per half
/// chain to fall below 1.05 (`R-hat^2 ≈ 1 + 1 / n_eff` for stationary chains); the `r^2` trace
/// has an autocorrelation time of about 2.8 d iterations (measured here), so a release's
/// 40 d iterations (second half split in two: 10 d each, about 3.6 effective draws) cannot
/// show it and its R-hat is only reported; the assertion is on 8 chains of 200 d.
fn check_rhat(d: usize) {
    let clock = std::time::Instant::now();
    let kappa = 0.37;
    let rhat_of = |iterations: usize, seed: u64| {
        let traces: Vec<Vec<f64>> = (0..8)
            .map(|c| r2_trace(d, kappa, &mu(d), iterations, seed + c).0[iterations / 2..].to_vec())
            .collect();
        split_rhat(&traces)
    };
    let rhat_release = rhat_of(40 * d, 500);
    let rhat = rhat_of(200 * d, 700);
    // Autocorrelation time of r^2 at stationarity (one long chain, first 10% dropped).
    let long = r2_trace(d, kappa, &mu(d), 4000 * d, 900).0;
    let tau_r2 = tau(&long[400 * d..]);
    // Non-vacuity: the first 2 d iterations of 4 chains from the mode and 4 from a point at
    // r^2 = 4 E r^2 have not mixed, and R-hat sees it.
    let far: Vec<f64> = {
        let law = RoundedLaw::new(d, 0.5 * EPS, A, kappa);
        let r = (4.0 * law.moment(1)).sqrt();
        mu(d)
            .iter()
            .enumerate()
            .map(|(k, m)| m + if k == 0 { r } else { 0.0 })
            .collect()
    };
    let short: Vec<Vec<f64>> = (0..8)
        .map(|c| {
            let start = if c < 4 { mu(d) } else { far.clone() };
            r2_trace(d, kappa, &start, 2 * d, 600 + c).0
        })
        .collect();
    let rhat_short = split_rhat(&short);
    eprintln!(
        "d = {d}: tau(r^2) = {tau_r2:.1} iterations ({:.2} d); split R-hat of r^2 over 8 chains from the mode, second halves: {rhat_release:.3} at 40 d, {rhat:.4} at 200 d; first 2 d iterations from mode/far starts: {rhat_short:.3} ({:.1} s)",
        tau_r2 / d as f64,
        clock.elapsed().as_secs_f64()
    );
    assert!(rhat < 1.05, "d = {d}: R-hat {rhat}");
    assert!(rhat_short > 1.2, "d = {d}: short-chain R-hat {rhat_short}");
    // The release's 40 d iterations are at least 10 autocorrelation times.
    assert!(tau_r2 < 4.0 * d as f64, "d = {d}: tau(r^2) = {tau_r2}");
}

#[test]
fn exact_law_closed_form_matches_quadrature() {
    // The closed-form CDF against a trapezoid integral of s^{d/2-1} e^{-eps' l(s)}.
    for (d, kappa) in [(10, 0.0), (10, 0.73), (50, 0.21)] {
        let law = RoundedLaw::new(d, 0.5, A, kappa);
        let level = |s: f64| kappa + (s - kappa).ceil();
        let dens = |s: f64| {
            if s <= 0.0 {
                0.0
            } else {
                ((d as f64 / 2.0 - 1.0) * s.ln() - 0.5 * level(s)).exp()
            }
        };
        let hi = 400.0;
        let steps = 400_000;
        let h = hi / steps as f64;
        let mut cum = vec![0.0; steps + 1];
        for k in 0..steps {
            cum[k + 1] = cum[k] + 0.5 * h * (dens(k as f64 * h) + dens((k + 1) as f64 * h));
        }
        let total = cum[steps];
        for r2 in [2.0, 7.3, 10.0, 15.5, 40.0, 49.9, 60.0, 90.0] {
            let s = 0.5 * A * r2;
            let numeric = cum[(s / h).round() as usize] / total;
            assert!(
                (law.cdf(r2) - numeric).abs() < 2e-3,
                "d = {d}, kappa = {kappa}, r2 = {r2}: {} vs {numeric}",
                law.cdf(r2)
            );
        }
        // Without rounding the law is chi-square_d: the rounded mean lies within eps' of it.
        let mean = law.moment(1);
        assert!((mean - d as f64).abs() < 1.0, "d = {d}: E r^2 = {mean}");
    }
}

#[test]
fn stepwise_chain_is_the_release_chain() {
    // r2_trace's one-iteration steps give the same chain as one call of slice::sample.
    let d = 10;
    let oracle = oracle(d, A);
    let domain = domain(d);
    let levels = Levels::with_offset(0.37);
    let target = Target::new(
        &oracle,
        &domain,
        levels,
        0.5 * EPS,
        Directions::Isotropic,
        LineMove::Shrinkage,
    );
    let settings = SliceSettings {
        iterations: 100,
        steps_per_iteration: 1,
    };
    let (whole, _) = slice::sample(
        &target,
        &mu(d),
        levels.index(0.0),
        &settings,
        &mut rng(77),
        &mut |_| ControlFlow::Continue(()),
    )
    .unwrap();
    let (_, stepwise) = r2_trace(d, 0.37, &mu(d), 100, 77);
    assert_eq!(whole, stepwise);
}

#[test]
fn slice_releases_follow_the_rounded_law_d10() {
    check_law(10, 4000);
}

#[test]
fn slice_releases_follow_the_rounded_law_d50() {
    check_law(50, 1000);
}

#[test]
fn slice_chains_agree_d10() {
    check_rhat(10);
}

#[test]
fn slice_chains_agree_d50() {
    check_rhat(50);
}

/// Bonferroni-adjusted p-value of per-coordinate two-sample KS tests between `a` and `b`.
fn coordinate_ks(a: &[(Vec<f64>, f64, usize)], b: &[(Vec<f64>, f64, usize)]) -> f64 {
    let d = a[0].0.len();
    (0..d)
        .map(|k| {
            let xa: Vec<f64> = a.iter().map(|r| r.0[k]).collect();
            let xb: Vec<f64> = b.iter().map(|r| r.0[k]).collect();
            common::ks_two_p(&xa, &xb)
        })
        .fold(1.0_f64, f64::min)
        * d as f64
}

/// MATH.md 4.7b: releases from two public starts far apart, `mu -+ 25 e_0` (about 8 typical
/// radii from the bulk on either side, inside `B(0, 40)`), have the same law, and each
/// follows the exact one. 2000 releases per start at d = 10: the per-coordinate two-sample KS
/// tests at level 0.01 / d detect a difference of marginal CDFs above about
/// `1.95 sqrt(2 / 2000) ≈ 0.062`. Power, asserted: chains of `d` isotropic iterations from the
/// same starts (too short to forget them) are rejected.
#[test]
fn releases_from_far_public_starts_agree_d10() {
    let d = 10;
    let oracle = oracle(d, A);
    let settings = MechanismSettings::new(EPS, d).unwrap();
    let start = |sign: f64| -> Vec<f64> {
        let mut x = mu(d);
        x[0] += sign * 25.0;
        x
    };
    let (left, right) = (start(-1.0), start(1.0));
    let a = releases_from(&oracle, &settings, &left, 0..2000);
    let b = releases_from(&oracle, &settings, &right, 5000..7000);
    let p = coordinate_ks(&a, &b);
    let (ja, jb) = (judge(d, &a), judge(d, &b));
    let mut short = settings.clone();
    short.directions = sosdp_sampler::DirectionSetting::Isotropic;
    short.slice.iterations = d;
    let sa = releases_from(&oracle, &short, &left, 0..2000);
    let sb = releases_from(&oracle, &short, &right, 5000..7000);
    let p_short = coordinate_ks(&sa, &sb);
    eprintln!(
        "two starts 50 apart: coordinate KS p (Bonferroni) {p:.3}, exact-law KS p {:.3} / {:.3}, moments {:.3} / {:.3}; {d}-iteration chains: {p_short:.3e}",
        ja.ks, jb.ks, ja.moments, jb.moments
    );
    assert!(p > 0.01, "the two starts' releases differ: p = {p}");
    for v in [&ja, &jb] {
        assert!(
            v.ks > 0.01 && v.moments > 0.01,
            "ks {} moments {}",
            v.ks,
            v.moments
        );
    }
    assert!(p_short < 1e-6, "short chains not rejected: p = {p_short}");
}

/// MATH.md 4.7b: a level body 8 times longer along one axis (the shape records with a small
/// spread along a direction give the CM score's bodies) still gets the exact law with the
/// default chain rule: the probability integral transform of the score is uniform and the
/// spread along the long axis has its exact mean (`E[s] / d` for `w = c_0 (theta_0 - mu_0)^2
/// / 2`), 2000 releases at d = 10 from the public start 0. Power, asserted: the rule before
/// public starts (40 d isotropic iterations, no pilot) leaves the long axis unexplored.
#[test]
fn an_elongated_body_keeps_the_exact_law_d10() {
    let d = 10;
    let mut curvature = vec![A; d];
    curvature[0] = A / 64.0;
    let oracle = QuadraticScore {
        mu: mu(d),
        curvature,
        cap: N,
    };
    let eps = 0.5 * EPS;
    let verdict = |draws: &[(Vec<f64>, f64, usize)]| {
        let (mut pit, mut z) = (Vec::new(), 0.0);
        for (theta, kappa, _) in draws {
            let law = RoundedQuadraticLaw::new(d, eps, *kappa);
            pit.push(law.cdf(oracle.quadratic(theta)));
            let dd = d as f64;
            let mean_w = law.moment(1) / dd;
            let sd_w = (law.moment(2) * 3.0 / (dd * (dd + 2.0)) - mean_w * mean_w).sqrt();
            let w = 0.5 * oracle.curvature[0] * (theta[0] - oracle.mu[0]).powi(2);
            z += (w - mean_w) / sd_w;
        }
        let z = z / (draws.len() as f64).sqrt();
        (ks_one_p(&pit, |u| u.clamp(0.0, 1.0)), z)
    };
    let settings = MechanismSettings::new(EPS, d).unwrap();
    let (p, z) = verdict(&releases_from(&oracle, &settings, &vec![0.0; d], 0..2000));
    let mut isotropic = settings.clone();
    isotropic.directions = sosdp_sampler::DirectionSetting::Isotropic;
    isotropic.slice.iterations = 40 * d;
    let (p_iso, z_iso) = verdict(&releases_from(&oracle, &isotropic, &vec![0.0; d], 0..2000));
    eprintln!(
        "8:1 body, d = {d}: rounded rule KS p {p:.3}, long-axis spread z {z:+.2}; isotropic 40 d: KS p {p_iso:.3e}, z {z_iso:+.2}"
    );
    assert!(p > 0.01 && z.abs() < 3.0, "KS p {p}, spread z {z}");
    assert!(
        z_iso < -3.0,
        "the isotropic chain was not rejected: z {z_iso}"
    );
}
