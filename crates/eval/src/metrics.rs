//! Error metrics of MATH.md section 6.

/// `|a - b|_2`.
pub fn l2_error(estimate: &[f64], truth: &[f64]) -> f64 {
    estimate.iter().zip(truth).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt()
}

/// The `q`-quantile (`0 <= q <= 1`, linear interpolation) of `values`; NaN when empty.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (pos - lo as f64) * (v[hi] - v[lo])
}
