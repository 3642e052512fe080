//! Exact laws of the learners' **additive** stages (MATH.md 4.6, 5.1, 5.2), for
//! tests/privacy_learners.rs: the l2-Laplace ("norm") noise, density `∝ exp(-|z| / s)` on `R^D`
//! (a uniform direction times a `Gamma(D, s)` radius), before and after snapping to a
//! power-of-two grid, and the Kolmogorov–Smirnov and chi-square checks against those laws with
//! their powers (DKW bounds for KS, the exact non-centrality for chi-square). Every check
//! returns `Err(message)` instead of panicking, so that a test can show it rejecting a broken
//! variant.
use super::{ChiSquare, chi_square, noncentral_chi2_sf, noncentrality};
use crate::common::{ks_one, ks_p_value};
use sosdp::learn::special::{chi_square_quantile, chi_square_upper, gamma_upper, ln_gamma};
use std::collections::BTreeMap;

/// The CDF of `Gamma(shape, 1)`.
pub fn gamma_cdf(shape: f64, x: f64) -> f64 {
    if x <= 0.0 {
        0.0
    } else {
        1.0 - gamma_upper(shape, x)
    }
}

/// The DKW critical value of the one-sample KS test at level `alpha` with `n` draws:
/// `P(D_n > c) <= 2 exp(-2 n c^2) = alpha` under the null, whatever the law (conservative).
pub fn dkw_critical(n: usize, alpha: f64) -> f64 {
    ((2.0 / alpha).ln() / (2.0 * n as f64)).sqrt()
}

/// A lower bound on the power of the KS test with critical value `critical` and `n` draws when
/// the draws' CDF is at sup-distance `distance` from the tested one (DKW on the draws' own CDF).
pub fn dkw_power(n: usize, distance: f64, critical: f64) -> f64 {
    if distance <= critical {
        0.0
    } else {
        1.0 - 2.0 * (-2.0 * n as f64 * (distance - critical).powi(2)).exp()
    }
}

/// `sup_x |F(x) - F(x / factor)|` for `F` the CDF of `Gamma(shape, 1)`: the KS distance between
/// the radius laws at scales `s` and `factor s`.
pub fn gamma_scale_distance(shape: f64, factor: f64) -> f64 {
    (1..4000)
        .map(|k| {
            let x = k as f64 * 0.01;
            (gamma_cdf(shape, x) - gamma_cdf(shape, x / factor)).abs()
        })
        .fold(0.0, f64::max)
}

/// The largest power of two `g >= 1e-3 scale` of which every value is a multiple (`None` when
/// there is none: the values are not snapped). Candidates start at `8 * snap::grid(scale)`.
pub fn detected_grid(values: &[f64], scale: f64) -> Option<f64> {
    let mut g = 8.0 * sosdp::learn::snap::grid(scale);
    while g >= 1e-3 * scale {
        if values.iter().all(|v| (v / g).fract() == 0.0) {
            return Some(g);
        }
        g /= 2.0;
    }
    None
}

/// One-sample KS of `xs` against `cdf` at level `alpha` with the DKW critical value.
pub fn ks_check(
    label: &str,
    xs: &[f64],
    cdf: impl Fn(f64) -> f64,
    alpha: f64,
) -> Result<String, String> {
    let d = ks_one(xs, cdf);
    let critical = dkw_critical(xs.len(), alpha);
    let p = ks_p_value(d, xs.len() as f64);
    let line =
        format!("{label}: KS D = {d:.4} (critical {critical:.4} at level {alpha}), p = {p:.3}");
    if d > critical {
        Err(format!("{line}: rejected"))
    } else {
        Ok(line)
    }
}

/// Two-sample KS at level `alpha` (asymptotic p-value).
pub fn ks_two_check(
    label: &str,
    xs: &[f64],
    reference: &[f64],
    alpha: f64,
) -> Result<String, String> {
    let p = crate::common::ks_two_p(xs, reference);
    let line = format!(
        "{label}: two-sample KS against {} reference draws, p = {p:.3}",
        reference.len()
    );
    if p < alpha {
        Err(format!("{line}: rejected"))
    } else {
        Ok(line)
    }
}

/// `log` of the normaliser `int exp(-|z| / s) dz = s^D |S^{D-1}| Gamma(D)` on `R^D`.
fn log_normaliser(dim: usize, scale: f64) -> f64 {
    let d = dim as f64;
    (2.0f64).ln() + 0.5 * d * std::f64::consts::PI.ln() - ln_gamma(0.5 * d)
        + ln_gamma(d)
        + d * scale.ln()
}

/// Gauss–Legendre nodes and weights on `[0, 1]`.
fn gauss_legendre(points: usize) -> Vec<(f64, f64)> {
    (0..points)
        .map(|i| {
            let n = points as f64;
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n + 0.5)).cos();
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p0, mut p1) = (1.0, x);
                for k in 2..=points {
                    let kf = k as f64;
                    (p0, p1) = (p1, ((2.0 * kf - 1.0) * x * p1 - (kf - 1.0) * p0) / kf);
                }
                dp = n * (x * p1 - p0) / (x * x - 1.0);
                let step = p1 / dp;
                x -= step;
                if step.abs() < 1e-15 {
                    break;
                }
            }
            let w = 2.0 / ((1.0 - x * x) * dp * dp);
            (0.5 * (1.0 + x), 0.5 * w)
        })
        .collect()
}

/// The exact law of `round_grid(f + z)` (each coordinate rounded to the nearest multiple of
/// `grid`, Mironov's snapping without the clamp), `z` l2-Laplace of scale `scale` on `R^D`,
/// `D = f.len()` in 1..=3: the mass of every grid point `k grid` whose cell
/// `prod [(k_i - 1/2) grid, (k_i + 1/2) grid)` comes within `reach` of `f`. In 1-D by the
/// Laplace CDF; otherwise by a tensor Gauss–Legendre rule with `nodes` points per axis in each
/// cell.
pub fn snapped_law(
    f: &[f64],
    scale: f64,
    grid: f64,
    reach: f64,
    nodes: usize,
) -> BTreeMap<Vec<i64>, f64> {
    let dim = f.len();
    let lo: Vec<i64> = f
        .iter()
        .map(|c| ((c - reach) / grid).floor() as i64)
        .collect();
    let hi: Vec<i64> = f
        .iter()
        .map(|c| ((c + reach) / grid).ceil() as i64)
        .collect();
    let mut out = BTreeMap::new();
    if dim == 1 {
        let cdf = |z: f64| {
            if z < 0.0 {
                0.5 * (z / scale).exp()
            } else {
                1.0 - 0.5 * (-z / scale).exp()
            }
        };
        for k in lo[0]..=hi[0] {
            let (a, b) = (
                (k as f64 - 0.5) * grid - f[0],
                (k as f64 + 0.5) * grid - f[0],
            );
            out.insert(vec![k], cdf(b) - cdf(a));
        }
        return out;
    }
    let rule = gauss_legendre(nodes);
    let log_c = log_normaliser(dim, scale);
    let mut k = lo.clone();
    loop {
        // The cell's nearest point to f.
        let near: f64 = (0..dim)
            .map(|i| {
                let (a, b) = ((k[i] as f64 - 0.5) * grid, (k[i] as f64 + 0.5) * grid);
                (a - f[i]).max(f[i] - b).max(0.0).powi(2)
            })
            .sum::<f64>()
            .sqrt();
        if near <= reach {
            let mut mass = 0.0;
            let mut idx = vec![0usize; dim];
            loop {
                let (mut r2, mut w) = (0.0, 1.0);
                for i in 0..dim {
                    let (x, wi) = rule[idx[i]];
                    let z = (k[i] as f64 - 0.5 + x) * grid - f[i];
                    r2 += z * z;
                    w *= wi;
                }
                mass += w * (-r2.sqrt() / scale - log_c).exp();
                let mut i = 0;
                while i < dim {
                    idx[i] += 1;
                    if idx[i] < nodes {
                        break;
                    }
                    idx[i] = 0;
                    i += 1;
                }
                if i == dim {
                    break;
                }
            }
            out.insert(k.clone(), mass * grid.powi(dim as i32));
        }
        let mut i = 0;
        while i < dim {
            k[i] += 1;
            if k[i] <= hi[i] {
                break;
            }
            k[i] = lo[i];
            i += 1;
        }
        if i == dim {
            break;
        }
    }
    out
}

/// The bins of the chi-square test of a snapped law: in 1-D every grid point; otherwise the
/// grid points grouped by the shell `floor(|k grid - f| / shell)` and the orthant of
/// `k grid - f` (radius and direction), ordered by shell, then orthant.
pub fn bin_key(k: &[i64], f: &[f64], grid: f64, shell: f64) -> (i64, usize) {
    if f.len() == 1 {
        return (k[0], 0);
    }
    let z: Vec<f64> = k
        .iter()
        .zip(f)
        .map(|(&ki, c)| ki as f64 * grid - c)
        .collect();
    let r = z.iter().map(|v| v * v).sum::<f64>().sqrt();
    let orthant = z
        .iter()
        .enumerate()
        .map(|(i, v)| usize::from(*v > 0.0) << i)
        .sum();
    ((r / shell).floor() as i64, orthant)
}

/// A law binned by [`bin_key`]: the bin masses in key order and the key-to-index map.
pub fn binned_law(
    law: &BTreeMap<Vec<i64>, f64>,
    f: &[f64],
    grid: f64,
    shell: f64,
) -> (Vec<f64>, BTreeMap<(i64, usize), usize>) {
    let mut masses: BTreeMap<(i64, usize), f64> = BTreeMap::new();
    for (k, m) in law {
        *masses.entry(bin_key(k, f, grid, shell)).or_insert(0.0) += m;
    }
    let index = masses.keys().enumerate().map(|(i, k)| (*k, i)).collect();
    (masses.into_values().collect(), index)
}

/// The chi-square test of snapped releases `draws` (each a point of `R^D`) against the exact law
/// of `snap(f + z)`, `z` l2-Laplace of scale `scale`, grid `grid`, at level `alpha`; the test's
/// power at level `rejection` against the same mechanism with scale `scale * factor` for each
/// `factor` in `alternatives` (exact non-centrality), returned with the summary. Fails when a
/// draw is off the grid or outside the enumerated cells, or the draws do not fit.
pub fn check_snapped_law(
    label: &str,
    draws: &[Vec<f64>],
    f: &[f64],
    scale: f64,
    grid: f64,
    alpha: f64,
    alternatives: &[(f64, f64)],
) -> Result<(String, Vec<f64>), String> {
    let reach = 24.0 * scale;
    let nodes = 6;
    let shell = scale;
    let law = snapped_law(f, scale, grid, reach, nodes);
    let total: f64 = law.values().sum();
    if (total - 1.0).abs() > 1e-4 {
        return Err(format!(
            "{label}: the exact law's mass is {total}, not 1 (quadrature)"
        ));
    }
    let (p, index) = binned_law(&law, f, grid, shell);
    let mut counts = vec![0.0; p.len()];
    for x in draws {
        let k: Vec<i64> = x.iter().map(|v| (v / grid).round() as i64).collect();
        if x.iter().zip(&k).any(|(v, &ki)| *v != ki as f64 * grid) {
            return Err(format!(
                "{label}: the release {x:?} is not on the grid {grid}"
            ));
        }
        if !law.contains_key(&k) {
            return Err(format!(
                "{label}: the release {x:?} is beyond {reach} of {f:?}"
            ));
        }
        counts[index[&bin_key(&k, f, grid, shell)]] += 1.0;
    }
    let ChiSquare {
        groups,
        statistic,
        df,
    } = chi_square(&counts, &p);
    let pv = chi_square_upper(df, statistic);
    let n = draws.len() as f64;
    let mut powers = vec![];
    let mut line = format!(
        "{label}: {} draws, {} cells in {} bins ({} after merging), chi-square {statistic:.1} on {df} df, p = {pv:.3}",
        draws.len(),
        law.len(),
        p.len(),
        groups.len()
    );
    for &(factor, rejection) in alternatives {
        let alt = snapped_law(f, scale * factor, grid, reach, nodes);
        let (q, alt_index) = binned_law(&alt, f, grid, shell);
        // The alternative's mass on the null's bins (bins it lacks have mass ~0 under both).
        let mut q_on_p = vec![0.0; p.len()];
        for (key, &i) in &alt_index {
            if let Some(&j) = index.get(key) {
                q_on_p[j] += q[i];
            }
        }
        let lambda = noncentrality(&groups, &p, &q_on_p, n);
        let power = noncentral_chi2_sf(chi_square_quantile(df, 1.0 - rejection), df, lambda);
        line += &format!(
            "; power {power:.4} at level {rejection} against scale x {factor:.3} (non-centrality {lambda:.0})"
        );
        powers.push(power);
    }
    if pv < alpha {
        Err(format!("{line}: rejected at level {alpha}"))
    } else {
        Ok((line, powers))
    }
}
