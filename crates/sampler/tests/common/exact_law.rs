//! Exact laws of one-dimensional CM releases by quadrature, and the chi-square statistics that
//! compare release histograms with them (shared by the privacy tests of the sampler on a CM
//! oracle, tests/sampler_privacy.rs, which checks them against known values, and
//! of the learner, tests/privacy.rs).

/// `ln Gamma(x)`, x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-13).
pub fn ln_gamma(x: f64) -> f64 {
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
pub fn gamma_q(a: f64, x: f64) -> f64 {
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
pub fn chi2_sf(x: f64, df: f64) -> f64 {
    gamma_q(0.5 * df, 0.5 * x)
}

/// `P(chi2_df(lambda) > x)` for the non-central chi-square (Poisson mixture of central ones).
pub fn noncentral_chi2_sf(x: f64, df: f64, lambda: f64) -> f64 {
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
pub fn chi2_quantile(alpha: f64, df: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 10.0 * df + 200.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if chi2_sf(mid, df) > alpha {
            lo = mid
        } else {
            hi = mid
        }
    }
    0.5 * (lo + hi)
}

/// Pearson's chi-square of `counts` against the probabilities `p` after merging adjacent
/// bins (left to right) until every merged bin expects at least 5 draws; returns the merged
/// bins (groups of original bin indices), the statistic and its degrees of freedom.
pub struct ChiSquare {
    pub groups: Vec<Vec<usize>>,
    pub statistic: f64,
    pub df: f64,
}

pub fn merged_groups(p: &[f64], total: f64) -> Vec<Vec<usize>> {
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

pub fn chi_square(counts: &[f64], p: &[f64]) -> ChiSquare {
    let total: f64 = counts.iter().sum();
    let groups = merged_groups(p, total);
    let statistic = groups
        .iter()
        .map(|g| {
            let (o, e) = (
                g.iter().map(|&b| counts[b]).sum::<f64>(),
                total * g.iter().map(|&b| p[b]).sum::<f64>(),
            );
            (o - e).powi(2) / e
        })
        .sum();
    let df = (groups.len() - 1) as f64;
    ChiSquare {
        groups,
        statistic,
        df,
    }
}

/// Non-centrality `N sum_g (q_g - p_g)^2 / p_g` of the chi-square test against `p` when the
/// draws follow `q`, on the merged bins `groups`.
pub fn noncentrality(groups: &[Vec<usize>], p: &[f64], q: &[f64], total: f64) -> f64 {
    groups
        .iter()
        .map(|g| {
            let (pg, qg) = (
                g.iter().map(|&b| p[b]).sum::<f64>(),
                g.iter().map(|&b| q[b]).sum::<f64>(),
            );
            (qg - pg).powi(2) / pg
        })
        .sum::<f64>()
        * total
}

// ----- the mechanism and its exact law ------------------------------------------------------

/// The exact law of one CM stage's release per grid cell (`scores` at the cell midpoints): for each level offset `kappa` of a midpoint grid
/// of `offsets` values in `[0, 1)`, the target `pi_kappa(theta) ∝ exp(-eps' l_{i(theta)})`,
/// `l_i = kappa + i`, `i(theta) = min(ceil(s(theta) - kappa), top)` (crates/sampler/src/target.rs),
/// normalised; then the average over `kappa` (release() draws `kappa` uniformly from a grid of
/// step 1e-6 in [0, 1), `Levels::draw`).
pub fn exact_cell_law(
    scores: &[f64],
    max_score: f64,
    eps_sampling: f64,
    offsets: usize,
) -> Vec<f64> {
    let mut out = vec![0.0; scores.len()];
    for k in 0..offsets {
        let kappa = (k as f64 + 0.5) / offsets as f64;
        let top = (max_score - kappa).ceil();
        // Relative to the smallest level, so that nothing underflows.
        let levels: Vec<f64> = scores
            .iter()
            .map(|s| kappa + (s - kappa).ceil().min(top))
            .collect();
        let low = levels.iter().copied().fold(f64::INFINITY, f64::min);
        let m: Vec<f64> = levels
            .iter()
            .map(|l| (-eps_sampling * (l - low)).exp())
            .collect();
        let z: f64 = m.iter().sum();
        out.iter_mut()
            .zip(&m)
            .for_each(|(o, mi)| *o += mi / z / offsets as f64);
    }
    out
}

/// Cell masses summed into `bins` equal bins (the cell count a multiple of `bins`).
pub fn binned(cell_law: &[f64], bins: usize) -> Vec<f64> {
    let mut out = vec![0.0; bins];
    cell_law
        .iter()
        .enumerate()
        .for_each(|(c, m)| out[c * bins / cell_law.len()] += m);
    out
}

/// The bin of `x` among `bins` equal bins of `[-radius, radius]` (ends clamped).
pub fn bin_of(x: f64, radius: f64, bins: usize) -> usize {
    (((x + radius) / (2.0 * radius) * bins as f64)
        .floor()
        .max(0.0) as usize)
        .min(bins - 1)
}

/// Counts of `xs` in `bins` equal bins of `[-radius, radius]`.
pub fn histogram(xs: &[f64], radius: f64, bins: usize) -> Vec<f64> {
    let mut h = vec![0.0; bins];
    xs.iter().for_each(|&x| h[bin_of(x, radius, bins)] += 1.0);
    h
}

/// CDF on `[-radius, radius]` of the cell law (mass spread uniformly over each cell).
pub fn cell_cdf(cell_law: &[f64], radius: f64) -> impl Fn(f64) -> f64 + '_ {
    let h = 2.0 * radius / cell_law.len() as f64;
    move |x: f64| {
        let pos = ((x + radius) / h).clamp(0.0, cell_law.len() as f64);
        let k = pos.floor() as usize;
        cell_law[..k.min(cell_law.len())].iter().sum::<f64>()
            + if k < cell_law.len() {
                (pos - k as f64) * cell_law[k]
            } else {
                0.0
            }
    }
}

/// Largest |log(p / q)| over bins where both laws have at least `min_mass`.
pub fn largest_log_ratio(p: &[f64], q: &[f64], min_mass: f64) -> (f64, usize) {
    p.iter()
        .zip(q)
        .enumerate()
        .filter(|(_, (a, b))| **a >= min_mass && **b >= min_mass)
        .map(|(k, (a, b))| ((a / b).ln().abs(), k))
        .fold((0.0, 0), |m, x| if x.0 > m.0 { x } else { m })
}
