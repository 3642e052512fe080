//! Output hardening (MATH.md 4.6): floating-point artefacts of a continuous sampler can leak
//! through the low-order bits of the output. Add uniform noise of width `h`, snap to the grid
//! `h Z^d` and, if the grid point left `Theta`, pull it back along the segment to the
//! domain's (data-independent) centre. The last step is a function of the grid point only, so
//! the output carries no more information than the snapped point.
use crate::body::Domain;
use crate::error::SamplerError;
use rand::{Rng, RngExt};

/// Harden `theta` in place with grid step `h > 0`.
pub fn harden<D: Domain + ?Sized, R: Rng + ?Sized>(
    theta: &mut [f64],
    domain: &D,
    h: f64,
    rng: &mut R,
) -> Result<(), SamplerError> {
    if !(h > 0.0 && h.is_finite()) {
        return Err(SamplerError::InvalidSetting(format!(
            "the hardening grid must be positive, got {h}"
        )));
    }
    for x in theta.iter_mut() {
        let noisy = *x + h * (rng.random::<f64>() - 0.5);
        *x = h * (noisy / h).round();
    }
    if !domain.contains(theta)? {
        let c = domain.centre();
        let u: Vec<f64> = theta.iter().zip(c).map(|(t, c)| t - c).collect();
        let (_, hi) = domain.chord(c, &u)?;
        // Slightly inside the boundary, so that rounding keeps the point in Theta.
        let t = (hi * (1.0 - 1e-12)).min(1.0);
        for (x, (ci, ui)) in theta.iter_mut().zip(c.iter().zip(&u)) {
            *x = ci + t * ui;
        }
    }
    Ok(())
}
