//! Exact laws of one-dimensional CM releases by quadrature, the chi-square statistics that
//! compare release histograms with them, and the three checks both privacy tests make (of the
//! sampler's entry point, tests/sampler_privacy.rs, which also checks the statistics against
//! known values, and of the learner, tests/privacy.rs): goodness of fit to the exact law, the
//! empirical binned privacy loss, and the rejection of a variant that samples at eps. The
//! chi-square tail and quantile and `ln Gamma` are the library's ([`sosdp::learn::special`]).
use crate::common::{ks_one, ks_p_value};
use sosdp::learn::special::{chi_square_quantile, chi_square_upper, ln_gamma};

/// The laws of the additive stages (tests/privacy_learners.rs).
#[allow(dead_code)]
pub mod noise;
/// Two-dimensional CM laws (tests/privacy.rs at d = 2).
#[allow(dead_code)]
pub mod plane;

/// `P(chi2_df(lambda) > x)` for the non-central chi-square (Poisson mixture of central ones).
pub fn noncentral_chi2_sf(x: f64, df: f64, lambda: f64) -> f64 {
    let mu = 0.5 * lambda;
    let jmax = (mu + 12.0 * mu.sqrt() + 50.0) as usize;
    (0..=jmax)
        .map(|j| {
            let log_w = -mu + j as f64 * mu.max(1e-300).ln() - ln_gamma(j as f64 + 1.0);
            log_w.exp() * chi_square_upper(df + 2.0 * j as f64, x)
        })
        .sum::<f64>()
        .min(1.0)
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
    weighted_cell_law(
        scores,
        &vec![1.0; scores.len()],
        max_score,
        eps_sampling,
        offsets,
    )
}

/// [`exact_cell_law`] on cells of unequal sizes: each cell's mass multiplied by its weight
/// (e.g. its area inside the domain, [`plane::DiscGrid`]) before normalising.
pub fn weighted_cell_law(
    scores: &[f64],
    weights: &[f64],
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
            .zip(weights)
            .map(|(l, w)| w * (-eps_sampling * (l - low)).exp())
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

/// Goodness of fit of the draws `xs` (in `[-radius, radius]`) to their exact law (`exact` over
/// `bins` bins, `cell_law` over the quadrature cells): chi-square, whose power against an
/// effect size `w = 0.15` at level `alpha` must be at least 0.9, and Kolmogorov–Smirnov, both
/// at level `alpha`.
pub fn assert_fits_exact_law(
    label: &str,
    xs: &[f64],
    exact: &[f64],
    cell_law: &[f64],
    radius: f64,
    bins: usize,
    alpha: f64,
) {
    let h = histogram(xs, radius, bins);
    let chi = chi_square(&h, exact);
    let p = chi_square_upper(chi.df, chi.statistic);
    let power = noncentral_chi2_sf(
        chi_square_quantile(chi.df, 1.0 - alpha),
        chi.df,
        xs.len() as f64 * 0.15f64.powi(2),
    );
    let d = ks_one(xs, cell_cdf(cell_law, radius));
    let ks_p = ks_p_value(d, xs.len() as f64);
    println!(
        "{label}: chi-square {:.2} on {} df, p = {p:.3} (power {power:.3} at level {alpha} against w = 0.15); KS D = {d:.4}, p = {ks_p:.3}",
        chi.statistic, chi.df
    );
    assert!(
        power >= 0.9,
        "the chi-square test is too weak: power {power}"
    );
    assert!(
        p >= alpha,
        "{label}: the draws disagree with the exact law (chi-square p = {p})"
    );
    assert!(
        ks_p >= alpha,
        "{label}: the draws disagree with the exact law (KS p = {ks_p})"
    );
}

/// The empirical binned privacy loss of draws on two neighbouring datasets: on every bin with at
/// least 50 draws on both sides, `|log(c_0 / c_1)| <= epsilon + 3 SE`; not vacuous: at least 4
/// such bins, and the largest ratio at least `epsilon / 4`. `exact` (the exact laws) is printed
/// beside the counts.
pub fn assert_binned_privacy_loss(
    draws: [&[f64]; 2],
    exact: [&[f64]; 2],
    radius: f64,
    bins: usize,
    epsilon: f64,
) {
    let (h0, h1) = (
        histogram(draws[0], radius, bins),
        histogram(draws[1], radius, bins),
    );
    assert_counts_privacy_loss([&h0, &h1], exact, epsilon, 4.0);
}

/// [`assert_binned_privacy_loss`] on draws already binned (`counts`, in the bins of `exact`),
/// the largest ratio at least `epsilon / vacuity`.
pub fn assert_counts_privacy_loss(
    counts: [&[f64]; 2],
    exact: [&[f64]; 2],
    epsilon: f64,
    vacuity: f64,
) {
    let (mut largest, mut checked): (f64, usize) = (0.0, 0);
    for (b, (&c0, &c1)) in counts[0].iter().zip(counts[1]).enumerate() {
        if c0 >= 50.0 && c1 >= 50.0 {
            let loss = (c0 / c1).ln();
            let se = (1.0 / c0 + 1.0 / c1).sqrt();
            println!(
                "bin {b:2}: counts {c0} / {c1}, log ratio {loss:+.3} (exact {:+.3}), allowed {:.3}",
                (exact[0][b] / exact[1][b]).ln(),
                epsilon + 3.0 * se
            );
            assert!(
                loss.abs() <= epsilon + 3.0 * se,
                "bin {b}: empirical privacy loss {loss} > eps + 3 SE"
            );
            largest = largest.max(loss.abs());
            checked += 1;
        }
    }
    println!("largest empirical |log ratio| {largest:.3} over {checked} bins");
    assert!(
        checked >= 4 && largest >= epsilon / vacuity,
        "vacuous empirical check: {checked} bins, largest {largest}"
    );
}

/// The rejection of a variant that samples at eps instead of eps/2: its draws `xs` fail the
/// correct law `exact` at level `rejection`, with power at least 0.999 computed from the exact
/// non-centrality against the variant's own law `exact_variant`, and fit their own law at
/// level `alpha` (so the rejection is the halving's doing, not the test's).
#[allow(clippy::too_many_arguments)]
pub fn assert_rejects_variant(
    label: &str,
    xs: &[f64],
    exact: &[f64],
    exact_variant: &[f64],
    radius: f64,
    bins: usize,
    rejection: f64,
    alpha: f64,
) {
    let h = histogram(xs, radius, bins);
    let against_correct = chi_square(&h, exact);
    let p = chi_square_upper(against_correct.df, against_correct.statistic);
    let lambda = noncentrality(
        &against_correct.groups,
        exact,
        exact_variant,
        xs.len() as f64,
    );
    let power = noncentral_chi2_sf(
        chi_square_quantile(against_correct.df, 1.0 - rejection),
        against_correct.df,
        lambda,
    );
    let against_own = chi_square(&h, exact_variant);
    let p_own = chi_square_upper(against_own.df, against_own.statistic);
    println!(
        "{label}: against the correct law chi-square {:.1} on {} df, p = {p:.2e} (exact non-centrality {lambda:.1}, power {power:.6} at level {rejection}); against its own exact law p = {p_own:.3}",
        against_correct.statistic, against_correct.df
    );
    assert!(
        power >= 0.999,
        "{label}: the rejection is not assured: power {power}"
    );
    assert!(
        p < rejection,
        "{label}: a variant sampling at eps was not rejected: p = {p}"
    );
    assert!(
        p_own >= alpha,
        "{label}: the variant's draws disagree with its own exact law: p = {p_own}"
    );
}
