//! Snapped additive releases (MATH.md 4.6): the snapping mechanism of Mironov 2012 for the
//! numbers an additive mechanism releases (the mean's additive stages, the clipped-Laplace
//! baseline).
//!
//! An additive release `y = f + z` (`f` a statistic of bounded records, `z` noise of scale `s`)
//! is published as `clamp_[lo, hi](Lambda round(y / Lambda))` coordinate by coordinate, with
//! `Lambda` the smallest power of two at least `s` ([`grid`]) and `[lo, hi]` a public box whose
//! ends are grid points. Every released number is then a multiple of `Lambda`: the low-order
//! bits of `y`, through which the floating-point artefacts of a noise sampler reveal `f`
//! (Mironov's attack on the textbook Laplace mechanism, which works already at d = 1), are
//! zero. Rounding moves a coordinate by at most `Lambda / 2 <= s` and the release by at most
//! `Lambda sqrt(D) / 2` ([`rounding_bound`], added to the stage's accuracy); the clamp never
//! moves it away from a truth inside the box.
//!
//! Privacy cost: Mironov's Theorem 1 (Laplace noise of scale `s`, sensitivity `Delta`, box
//! half-width `B`, `s < B < 2^46 s`) bounds the snapped mechanism's privacy loss by
//! `Delta / s + 2^-49 B / s = eps (1 + 2^-49 B / Delta)`. [`epsilon_excess`] is that relative
//! excess; for the mean's stages `B / Delta` is about `n / 2`, so it stays below `1e-6` up to
//! `n = 1e9`. His theorem is proved for one-dimensional Laplace noise; here it is applied
//! coordinate-wise to norm noise, as the design's accounting (MATH.md 4.6) states.

/// The snapping grid of noise of scale `scale > 0`: the smallest power of two `>= scale`.
pub fn grid(scale: f64) -> f64 {
    assert!(
        scale > 0.0 && scale.is_finite(),
        "a noise scale must be positive and finite, got {scale}"
    );
    let mut g = 2f64.powi(scale.log2().ceil() as i32);
    // log2 rounds: step to the exact smallest power of two >= scale.
    while g < scale {
        g *= 2.0;
    }
    while g / 2.0 >= scale {
        g /= 2.0;
    }
    g
}

/// `Lambda sqrt(D) / 2`: how far (l2) snapping can move a release of `dim` coordinates.
pub fn rounding_bound(grid: f64, dim: usize) -> f64 {
    0.5 * grid * (dim as f64).sqrt()
}

/// Mironov's validity range of snapping noise of scale `scale` into a box of half-width
/// `half_width`: `scale < half_width < 2^46 scale`.
pub fn in_validity_range(scale: f64, half_width: f64) -> bool {
    scale < half_width && half_width < 2f64.powi(46) * scale
}

/// The largest relative privacy excess ([`epsilon_excess`]) a planned snapped release may
/// carry: a stage whose excess would reach it is not planned (MATH.md 4.6).
pub const MAX_EPSILON_EXCESS: f64 = 1e-6;

/// The relative privacy excess `2^-49 B / Delta` of snapping with a box of half-width
/// `half_width` around a statistic of sensitivity `sensitivity` (Mironov 2012, Theorem 1).
pub fn epsilon_excess(half_width: f64, sensitivity: f64) -> f64 {
    2f64.powi(-49) * half_width / sensitivity
}

/// Snap `values` in place: round each to the grid `grid Z`, then clamp it into
/// `[centre_i - half_width, centre_i + half_width]` widened outwards to grid points (the box is
/// public when `centre` and `half_width` are). Non-finite values cannot occur for finite noise;
/// should one arise it is clamped like any other (NaN to the box's lower end).
pub fn snap(values: &mut [f64], centre: &[f64], half_width: f64, grid: f64) {
    assert_eq!(values.len(), centre.len(), "a box per coordinate");
    for (v, c) in values.iter_mut().zip(centre) {
        let lo = grid * ((c - half_width) / grid).floor();
        let hi = grid * ((c + half_width) / grid).ceil();
        let rounded = grid * (*v / grid).round();
        *v = if rounded >= lo { rounded.min(hi) } else { lo };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bits of `x / grid`'s fraction: zero for a multiple of a power of two.
    fn on_grid(x: f64, grid: f64) -> bool {
        let q = x / grid;
        q == q.round() && (q * grid) == x
    }

    #[test]
    fn grid_is_the_smallest_power_of_two_above_the_scale() {
        for scale in [1e-9, 3e-7, 0.1, 0.25, 0.26, 1.0, 1.5, 1e6] {
            let g = grid(scale);
            assert!(g >= scale && g / 2.0 < scale, "{scale}: {g}");
            assert_eq!(g.log2().fract(), 0.0, "a power of two");
        }
        assert_eq!(grid(0.25), 0.25);
    }

    #[test]
    fn snapped_values_have_no_bits_below_the_grid_and_stay_in_the_box() {
        let centre = [0.123456789, -3.3, 1e3];
        let g = grid(7.3e-4);
        let mut hits = 0;
        for k in 0..2000 {
            let t = k as f64 * 0.37;
            let mut v = [
                centre[0] + t.sin() * 0.2,
                centre[1] + t.cos() * 5.0,
                centre[2] + (t * 1.3).sin(),
            ];
            let raw = v;
            snap(&mut v, &centre, 1.0, g);
            for ((x, r), c) in v.iter().zip(&raw).zip(&centre) {
                assert!(on_grid(*x, g), "{x} is not a multiple of {g}");
                assert!(*x >= c - 1.0 - g && *x <= c + 1.0 + g, "outside the box");
                if (r - c).abs() < 1.0 - g {
                    assert!((x - r).abs() <= g / 2.0, "rounding moved {r} to {x}");
                    hits += 1;
                }
            }
        }
        assert!(hits > 2000, "the test must see unclamped values ({hits})");
        // Non-vacuity: the raw sums of a noise sampler are not on the grid.
        assert!(!on_grid(centre[0] + 0.2 * 0.37f64.sin(), g));
    }

    #[test]
    fn the_privacy_excess_is_negligible_for_the_means_stages() {
        // Box half-width r + grid, sensitivity 2 (r + spread) / n: B / Delta < n / 2 + 1.
        let n = 1e9;
        assert!(epsilon_excess(10.0, 2.0 * 10.0 / n) < 1e-6);
        assert!(
            epsilon_excess(10.0, 2.0 * 10.0 / 1e11) > 1e-6,
            "the bound can fail"
        );
    }
}
