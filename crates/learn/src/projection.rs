//! Per-record projection onto public regions (MATH.md 5.1, 7).
//!
//! Before any score sees the data, every record is projected onto a ball whose centre and
//! radius are public (functions of the prior, the plan and earlier releases only). The map is
//! record-wise, so datasets that differ in one record still differ in at most one record
//! (privacy is unchanged); it moves only records outside the ball, and towards the clean ones
//! (robustness is unchanged); and it bounds every number the solvers see by the public
//! parameters, so that no finite input, however extreme, can make a solve fail after the data
//! are read (whether an error occurs would itself be a data-dependent output).
//!
//! The radii hold the clean records with probability `1 - beta_p`: for `g ~ N(0, I_d)`,
//! `P[|g| > sqrt(d) + t] <= exp(-t^2 / 2)` (Gaussian concentration of the 1-Lipschitz norm
//! around its mean, which is at most `sqrt(d)`), so over `n` records
//! `|g_i| <= sqrt(d) + sqrt(2 log(n / beta_p))` for all `i` with probability `1 - beta_p`
//! ([`clean_radius`]).
//!
//! The arithmetic never overflows: the difference to the centre is formed from halves
//! (`x/2 - c/2` is finite for finite `x`, `c`) and the norm is scaled by the largest entry.
use nalgebra::DMatrix;

/// `sqrt(d) + sqrt(2 log(n / beta_p))`: with probability `1 - beta_p`, all of `n` draws of
/// `N(0, I_d)` have norm at most this.
pub fn clean_radius(n: usize, d: usize, beta_p: f64) -> f64 {
    (d as f64).sqrt() + (2.0 * (n.max(1) as f64 / beta_p).ln()).sqrt()
}

/// Project `x` onto the closed ball `B(centre, radius)` in place (Euclidean projection:
/// points inside stay, points outside move along the segment to the centre onto the sphere).
pub fn project_onto_ball(x: &mut [f64], centre: &[f64], radius: f64) {
    debug_assert_eq!(x.len(), centre.len());
    // Halves: finite whatever the (finite) inputs.
    let half: Vec<f64> = x
        .iter()
        .zip(centre)
        .map(|(a, c)| 0.5 * a - 0.5 * c)
        .collect();
    let scale = half.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if scale == 0.0 {
        return;
    }
    // |x - c| = 2 |half| = 2 scale |half / scale|, with |half / scale| in [1, sqrt(d)].
    let unit_norm = half.iter().map(|v| (v / scale).powi(2)).sum::<f64>().sqrt();
    let half_radius = 0.5 * radius;
    if scale * unit_norm <= half_radius {
        return;
    }
    // x = c + radius * (half / |half|), each factor bounded.
    for ((xi, ci), hi) in x.iter_mut().zip(centre).zip(&half) {
        *xi = ci + radius * ((hi / scale) / unit_norm);
    }
}

/// Every row of `data` projected onto `B(centre, radius)`.
pub fn project_rows(data: &DMatrix<f64>, centre: &[f64], radius: f64) -> DMatrix<f64> {
    let mut out = data.clone();
    let mut row = vec![0.0; data.ncols()];
    for i in 0..data.nrows() {
        for (k, v) in row.iter_mut().enumerate() {
            *v = data[(i, k)];
        }
        project_onto_ball(&mut row, centre, radius);
        for (k, v) in row.iter().enumerate() {
            out[(i, k)] = *v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(v: &[f64]) -> f64 {
        v.iter().map(|x| x * x).sum::<f64>().sqrt()
    }

    /// Inside points stay; outside points land on the sphere along the ray from the centre;
    /// extreme finite values (up to the largest double, of both signs) give finite points on
    /// the sphere.
    #[test]
    fn projection_is_the_euclidean_projection_and_never_overflows() {
        let c = [1.0, -2.0, 0.5];
        let mut inside = [1.5, -2.0, 0.0];
        project_onto_ball(&mut inside, &c, 1.0);
        assert_eq!(inside, [1.5, -2.0, 0.0]);
        let mut out = [4.0, 2.0, 0.5];
        project_onto_ball(&mut out, &c, 2.0);
        let diff: Vec<f64> = out.iter().zip(&c).map(|(a, b)| a - b).collect();
        assert!((norm(&diff) - 2.0).abs() < 1e-12);
        // Direction kept: (3, 4, 0) / 5.
        assert!(
            (diff[0] - 1.2).abs() < 1e-12 && (diff[1] - 1.6).abs() < 1e-12 && diff[2].abs() < 1e-12
        );
        for extreme in [
            [f64::MAX, -f64::MAX, 0.0],
            [1e300, 1e200, -1e300],
            [-f64::MAX, -f64::MAX, -f64::MAX],
            [1e-310, 0.0, 0.0],
        ] {
            let mut x = extreme;
            project_onto_ball(&mut x, &c, 3.0);
            assert!(x.iter().all(|v| v.is_finite()), "{extreme:?} -> {x:?}");
            let diff: Vec<f64> = x.iter().zip(&c).map(|(a, b)| a - b).collect();
            assert!(norm(&diff) <= 3.0 * (1.0 + 1e-12), "{extreme:?} -> {x:?}");
        }
    }

    /// The clean radius holds all of `n` standard Gaussian draws with probability at least
    /// `1 - beta`: over 200 datasets of n = 500 in d = 4 at beta = 0.1, at most about 20
    /// (binomial mean 20 at the bound, usually far fewer) may have a draw outside; the test
    /// allows 40 (a binomial(200, 0.1) exceeds 40 with probability below 1e-5).
    #[test]
    fn clean_radius_holds_the_clean_records() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, StandardNormal};
        let (n, d, beta) = (500, 4, 0.1);
        let r = clean_radius(n, d, beta);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let mut failures = 0;
        for _ in 0..200 {
            let worst = (0..n)
                .map(|_| {
                    (0..d)
                        .map(|_| {
                            let g: f64 = StandardNormal.sample(&mut rng);
                            g * g
                        })
                        .sum::<f64>()
                        .sqrt()
                })
                .fold(0.0, f64::max);
            failures += usize::from(worst > r);
        }
        assert!(
            failures <= 40,
            "{failures} of 200 datasets had a record outside {r}"
        );
        // Non-vacuity: the radius is not absurdly large (a radius of sqrt(d) fails often).
        assert!(r < (d as f64).sqrt() + 5.0);
    }
}
