//! Chords of a level body through a point: the step interval along a line and the points on
//! the line (MATH.md 4.5b).

/// The interval `[lo, hi]` of steps `s` (with `lo <= 0 <= hi`) such that `x + s u` is in the
/// level body, each end within `tol` of where the decisions of [`decide`](crate::decide) change.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Chord {
    /// The lower end (a step `<= 0`).
    pub lo: f64,
    /// The upper end (a step `>= 0`).
    pub hi: f64,
    /// Oracle solves spent: membership queries, or direct chord-end solves of a backend.
    pub queries: usize,
}

/// The point `x + s u` of the line through `x` along `u` at step `s`.
pub fn on_line(x: &[f64], u: &[f64], s: f64) -> Vec<f64> {
    x.iter().zip(u).map(|(a, b)| a + s * b).collect()
}
