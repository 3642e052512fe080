//! Shared helpers of the sampler tests: Kolmogorov–Smirnov statistics and p-values. One copy,
//! also included (`#[path]`) by the tests of the sampler on a CM oracle (tests/sampler_*.rs)
//! and by the learner's privacy test (tests/privacy.rs), which share the exact laws of
//! tests/exact_law.
#![allow(dead_code)]

use rand::SeedableRng;
use rand::rngs::StdRng;

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// Asymptotic Kolmogorov tail `P(sqrt(n_eff) D > lambda)` with Stephens' correction.
pub fn ks_p_value(d: f64, n_eff: f64) -> f64 {
    let sq = n_eff.sqrt();
    let lambda = (sq + 0.12 + 0.11 / sq) * d;
    if lambda < 0.2 {
        return 1.0;
    }
    let mut p = 0.0;
    for k in 1..=100 {
        let term = 2.0 * (-1f64).powi(k - 1) * (-2.0 * (k as f64 * lambda).powi(2)).exp();
        p += term;
        if term.abs() < 1e-12 {
            break;
        }
    }
    p.clamp(0.0, 1.0)
}

/// One-sample KS statistic of `xs` against the CDF `cdf`.
pub fn ks_one(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    v.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max)
}

/// One-sample KS p-value.
pub fn ks_one_p(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    ks_p_value(ks_one(xs, cdf), xs.len() as f64)
}

/// Two-sample KS p-value.
pub fn ks_two_p(a: &[f64], b: &[f64]) -> f64 {
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    x.sort_by(f64::total_cmp);
    y.sort_by(f64::total_cmp);
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < x.len() && j < y.len() {
        let t = x[i].min(y[j]);
        while i < x.len() && x[i] <= t {
            i += 1;
        }
        while j < y.len() && y[j] <= t {
            j += 1;
        }
        d = d.max((i as f64 / x.len() as f64 - j as f64 / y.len() as f64).abs());
    }
    let n_eff = (x.len() * y.len()) as f64 / (x.len() + y.len()) as f64;
    ks_p_value(d, n_eff)
}

/// CDF of a density on `[lo, hi]` by the trapezoid rule on `steps` cells, as a closure.
pub fn numeric_cdf(
    density: impl Fn(f64) -> f64,
    lo: f64,
    hi: f64,
    steps: usize,
) -> impl Fn(f64) -> f64 {
    let h = (hi - lo) / steps as f64;
    let mut cum = vec![0.0];
    for k in 0..steps {
        let (a, b) = (lo + k as f64 * h, lo + (k + 1) as f64 * h);
        cum.push(cum[k] + 0.5 * h * (density(a) + density(b)));
    }
    let total = *cum.last().unwrap();
    move |x: f64| {
        if x <= lo {
            return 0.0;
        }
        if x >= hi {
            return 1.0;
        }
        let pos = (x - lo) / h;
        let k = (pos.floor() as usize).min(steps - 1);
        let frac = pos - k as f64;
        (cum[k] + frac * (cum[k + 1] - cum[k])) / total
    }
}
