//! Stopping rules of the interior-point method.

/// Stopping rules.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Absolute duality gap `s^T z` at which to stop (objective units).
    pub gap_tol: f64,
    /// Relative primal and dual residuals at which to stop.
    pub feas_tol: f64,
    pub max_iter: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            gap_tol: 1e-9,
            feas_tol: 1e-9,
            max_iter: 80,
        }
    }
}
