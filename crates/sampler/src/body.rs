//! Convex bodies seen through chords (MATH.md 4.3): the only access hit-and-run needs.
//!
//! A body answers two questions: is `x` inside, and for `x` inside and a direction `u`, the
//! interval `[lo, hi]` (with `lo <= 0 <= hi`) of steps `s` such that `x + s u` is inside.
//! Parameter domains ([`Domain`]) are data-independent bodies with a known centre and radius;
//! the level bodies of a score ([`crate::level_body`]) are intersections of a domain with a
//! sublevel set and answer through the score oracle.
use crate::error::SamplerError;
use nalgebra::{Cholesky, DMatrix, DVector, Dyn};

/// A convex body in `R^dim`.
pub trait ConvexBody {
    /// The dimension `dim` of the space the body lives in.
    fn dim(&self) -> usize;
    /// Is `x` in the body?
    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError>;
    /// The steps `[lo, hi]` (`lo <= 0 <= hi`) with `x + s u` in the body, for `x` in it.
    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError>;
    /// A step `s` uniform on the chord through `x` along `u` (the hit-and-run move), with
    /// `uniform` a source of Uniform(0, 1) draws. By default: the chord, then one draw on it.
    fn line_step(
        &self,
        x: &[f64],
        u: &[f64],
        uniform: &mut dyn FnMut() -> f64,
    ) -> Result<f64, SamplerError> {
        step_on_chord(self, x, u, uniform)
    }
}

/// The chord through `x` along `u`, then a uniform draw on it.
pub fn step_on_chord<B: ConvexBody + ?Sized>(
    body: &B,
    x: &[f64],
    u: &[f64],
    uniform: &mut dyn FnMut() -> f64,
) -> Result<f64, SamplerError> {
    let (lo, hi) = body.chord(x, u)?;
    Ok(lo + (hi - lo) * uniform())
}

/// A data-independent parameter domain `Theta`: a bounded convex body with a centre inside it
/// and a radius `r` with `Theta ⊆ B(centre, r)`.
pub trait Domain: ConvexBody {
    /// A point inside the domain, the centre of its enclosing ball.
    fn centre(&self) -> &[f64];
    /// A radius `r` with `Theta ⊆ B(centre, r)`.
    fn radius(&self) -> f64;
    /// `log vol(Theta)` when known in closed form.
    fn log_volume(&self) -> Option<f64> {
        None
    }
}

/// `log` of the volume of the unit ball in `R^d`: `(d/2) log pi - log Gamma(d/2 + 1)`.
pub fn log_unit_ball_volume(d: usize) -> f64 {
    0.5 * d as f64 * std::f64::consts::PI.ln() - ln_gamma(0.5 * d as f64 + 1.0)
}

/// `log Gamma(x)` for `x = k/2 > 0` (exact recursion from `Gamma(1) = 1`, `Gamma(1/2) = sqrt(pi)`).
fn ln_gamma(x: f64) -> f64 {
    let (mut value, mut y) = if (x - x.round()).abs() < 1e-9 {
        (0.0, 1.0)
    } else {
        (0.5 * std::f64::consts::PI.ln(), 0.5)
    };
    while y < x - 1e-9 {
        value += y.ln();
        y += 1.0;
    }
    value
}

fn check(what: &'static str, v: &[f64], dim: usize) -> Result<(), SamplerError> {
    if v.len() != dim {
        return Err(SamplerError::DimensionMismatch {
            what,
            expected: dim,
            got: v.len(),
        });
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(SamplerError::NonFinite(what));
    }
    Ok(())
}

/// Steps `s` with `a s^2 + 2 b s + c <= 0` (`a > 0`, `c <= 0` at an inside point).
fn quadratic_chord(a: f64, b: f64, c: f64) -> (f64, f64) {
    if !(a > 0.0) {
        return (0.0, 0.0);
    }
    let root = (b * b - a * c).max(0.0).sqrt();
    // Stable roots: (-b ± root) / a, with the cancelling one computed as c / (-b ∓ root).
    let (lo, hi) = if b >= 0.0 {
        ((-b - root) / a, c / (-b - root))
    } else {
        (c / (-b + root), (-b + root) / a)
    };
    let (lo, hi) = (
        if lo.is_finite() { lo } else { 0.0 },
        if hi.is_finite() { hi } else { 0.0 },
    );
    (lo.min(0.0), hi.max(0.0))
}

/// The Euclidean ball `B(centre, radius)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ball {
    centre: Vec<f64>,
    radius: f64,
}

impl Ball {
    /// The ball `B(centre, radius)`; an error for an empty or non-finite centre or a radius
    /// that is not positive and finite.
    pub fn new(centre: Vec<f64>, radius: f64) -> Result<Self, SamplerError> {
        if centre.is_empty() {
            return Err(SamplerError::InvalidSetting(
                "the ball needs a dimension >= 1".into(),
            ));
        }
        check("the ball centre", &centre, centre.len())?;
        if !(radius.is_finite() && radius > 0.0) {
            return Err(SamplerError::InvalidSetting(format!(
                "the ball radius must be positive and finite, got {radius}"
            )));
        }
        Ok(Ball { centre, radius })
    }
}

impl ConvexBody for Ball {
    fn dim(&self) -> usize {
        self.centre.len()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        check("the point", x, self.dim())?;
        Ok(x.iter()
            .zip(&self.centre)
            .map(|(a, c)| (a - c).powi(2))
            .sum::<f64>()
            <= self.radius * self.radius)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        check("the point", x, self.dim())?;
        check("the direction", u, self.dim())?;
        let w: Vec<f64> = x.iter().zip(&self.centre).map(|(a, c)| a - c).collect();
        let a = u.iter().map(|v| v * v).sum::<f64>();
        let b = w.iter().zip(u).map(|(p, q)| p * q).sum::<f64>();
        let c = w.iter().map(|v| v * v).sum::<f64>() - self.radius * self.radius;
        Ok(quadratic_chord(a, b, c))
    }
}

impl Domain for Ball {
    fn centre(&self) -> &[f64] {
        &self.centre
    }

    fn radius(&self) -> f64 {
        self.radius
    }

    fn log_volume(&self) -> Option<f64> {
        Some(log_unit_ball_volume(self.dim()) + self.dim() as f64 * self.radius.ln())
    }
}

/// The ellipsoid `{x : (x - c)^T A^{-1} (x - c) <= 1}` for `A` symmetric positive definite
/// (the CM domain is the one with `A = Gamma`, MATH.md 2.1).
#[derive(Clone, Debug)]
pub struct Ellipsoid {
    centre: Vec<f64>,
    chol: Cholesky<f64, Dyn>,
    radius: f64,
    log_det: f64,
}

impl Ellipsoid {
    /// The ellipsoid with centre `c = centre` and shape `A = shape`; an error unless `A` is a
    /// finite symmetric positive definite `d x d` matrix, `d = centre.len() >= 1`.
    pub fn new(centre: Vec<f64>, shape: &DMatrix<f64>) -> Result<Self, SamplerError> {
        let d = centre.len();
        check("the ellipsoid centre", &centre, d)?;
        if d == 0 || shape.shape() != (d, d) || shape.iter().any(|x| !x.is_finite()) {
            return Err(SamplerError::InvalidSetting(
                "the ellipsoid's shape must be a finite d x d matrix".into(),
            ));
        }
        let chol = Cholesky::new(shape.clone()).ok_or_else(|| {
            SamplerError::InvalidSetting("the ellipsoid's shape must be positive definite".into())
        })?;
        let largest = shape.clone().symmetric_eigenvalues().max();
        let log_det = 2.0 * chol.l().diagonal().iter().map(|x| x.ln()).sum::<f64>();
        Ok(Ellipsoid {
            centre,
            chol,
            radius: largest.sqrt(),
            log_det,
        })
    }

    fn whiten(&self, v: DVector<f64>) -> DVector<f64> {
        self.chol
            .l()
            .solve_lower_triangular(&v)
            .expect("Cholesky factor is invertible")
    }
}

impl ConvexBody for Ellipsoid {
    fn dim(&self) -> usize {
        self.centre.len()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        check("the point", x, self.dim())?;
        let w =
            self.whiten(DVector::from_column_slice(x) - DVector::from_column_slice(&self.centre));
        Ok(w.norm_squared() <= 1.0)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        check("the point", x, self.dim())?;
        check("the direction", u, self.dim())?;
        let w =
            self.whiten(DVector::from_column_slice(x) - DVector::from_column_slice(&self.centre));
        let v = self.whiten(DVector::from_column_slice(u));
        Ok(quadratic_chord(
            v.norm_squared(),
            w.dot(&v),
            w.norm_squared() - 1.0,
        ))
    }
}

impl Domain for Ellipsoid {
    fn centre(&self) -> &[f64] {
        &self.centre
    }

    fn radius(&self) -> f64 {
        self.radius
    }

    fn log_volume(&self) -> Option<f64> {
        Some(log_unit_ball_volume(self.dim()) + 0.5 * self.log_det)
    }
}

/// The axis-aligned box `prod_k [lower_k, upper_k]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Cuboid {
    lower: Vec<f64>,
    upper: Vec<f64>,
    centre: Vec<f64>,
}

impl Cuboid {
    /// The box with corners `lower` and `upper`; an error unless `lower_k < upper_k` in every
    /// coordinate (at least one).
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self, SamplerError> {
        check("the box's lower corner", &lower, lower.len())?;
        check("the box's upper corner", &upper, lower.len())?;
        if lower.is_empty() || lower.iter().zip(&upper).any(|(l, u)| !(u > l)) {
            return Err(SamplerError::InvalidSetting(
                "the box needs lower < upper in every coordinate".into(),
            ));
        }
        let centre = lower
            .iter()
            .zip(&upper)
            .map(|(l, u)| 0.5 * (l + u))
            .collect();
        Ok(Cuboid {
            lower,
            upper,
            centre,
        })
    }
}

impl ConvexBody for Cuboid {
    fn dim(&self) -> usize {
        self.lower.len()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        check("the point", x, self.dim())?;
        Ok(x.iter()
            .zip(self.lower.iter().zip(&self.upper))
            .all(|(v, (l, u))| *l <= *v && *v <= *u))
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        check("the point", x, self.dim())?;
        check("the direction", u, self.dim())?;
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for k in 0..self.dim() {
            if u[k] != 0.0 {
                let (a, b) = ((self.lower[k] - x[k]) / u[k], (self.upper[k] - x[k]) / u[k]);
                lo = lo.max(a.min(b));
                hi = hi.min(a.max(b));
            }
        }
        Ok((lo.min(0.0), hi.max(0.0)))
    }
}

impl Domain for Cuboid {
    fn centre(&self) -> &[f64] {
        &self.centre
    }

    fn radius(&self) -> f64 {
        self.lower
            .iter()
            .zip(&self.upper)
            .map(|(l, u)| (0.5 * (u - l)).powi(2))
            .sum::<f64>()
            .sqrt()
    }

    fn log_volume(&self) -> Option<f64> {
        Some(
            self.lower
                .iter()
                .zip(&self.upper)
                .map(|(l, u)| (u - l).ln())
                .sum(),
        )
    }
}

/// The standard simplex `{x >= 0, sum x <= 1}` in `R^d`, volume `1/d!`.
#[derive(Clone, Debug, PartialEq)]
pub struct Simplex {
    centre: Vec<f64>,
}

impl Simplex {
    /// The standard simplex in `R^dim`; an error for `dim = 0`.
    pub fn new(dim: usize) -> Result<Self, SamplerError> {
        if dim == 0 {
            return Err(SamplerError::InvalidSetting(
                "the simplex needs a dimension >= 1".into(),
            ));
        }
        Ok(Simplex {
            centre: vec![1.0 / (dim as f64 + 1.0); dim],
        })
    }
}

impl ConvexBody for Simplex {
    fn dim(&self) -> usize {
        self.centre.len()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        check("the point", x, self.dim())?;
        Ok(x.iter().all(|v| *v >= 0.0) && x.iter().sum::<f64>() <= 1.0)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        check("the point", x, self.dim())?;
        check("the direction", u, self.dim())?;
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        // Half-spaces x_k >= 0 and sum x <= 1, each g + s h <= 0 with g <= 0 inside.
        let mut cut = |g: f64, h: f64| {
            if h > 0.0 {
                hi = hi.min(-g / h);
            } else if h < 0.0 {
                lo = lo.max(-g / h);
            }
        };
        for k in 0..x.len() {
            cut(-x[k], -u[k]);
        }
        cut(x.iter().sum::<f64>() - 1.0, u.iter().sum());
        Ok((lo.min(0.0), hi.max(0.0)))
    }
}

impl Domain for Simplex {
    fn centre(&self) -> &[f64] {
        &self.centre
    }

    fn radius(&self) -> f64 {
        1.0
    }

    fn log_volume(&self) -> Option<f64> {
        Some(-(1..=self.dim()).map(|k| (k as f64).ln()).sum::<f64>())
    }
}

/// The intersection of data-independent domains; its centre and radius are the first one's
/// (the first domain's centre must lie in all of them).
pub struct Intersection {
    parts: Vec<Box<dyn Domain + Send + Sync>>,
}

impl Intersection {
    /// The intersection of `parts` (at least one, all of the same dimension, the first one's
    /// centre inside every one).
    pub fn new(parts: Vec<Box<dyn Domain + Send + Sync>>) -> Result<Self, SamplerError> {
        let first = parts
            .first()
            .ok_or_else(|| SamplerError::InvalidSetting("an intersection of no bodies".into()))?;
        let d = first.dim();
        for p in &parts {
            if p.dim() != d {
                return Err(SamplerError::DimensionMismatch {
                    what: "a body of the intersection",
                    expected: d,
                    got: p.dim(),
                });
            }
            if !p.contains(first.centre())? {
                return Err(SamplerError::InvalidSetting(
                    "the first domain's centre must lie in every domain of the intersection".into(),
                ));
            }
        }
        Ok(Intersection { parts })
    }
}

impl ConvexBody for Intersection {
    fn dim(&self) -> usize {
        self.parts[0].dim()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        for p in &self.parts {
            if !p.contains(x)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        for p in &self.parts {
            let (a, b) = p.chord(x, u)?;
            lo = lo.max(a);
            hi = hi.min(b);
        }
        Ok((lo.min(0.0), hi.max(0.0)))
    }
}

impl Domain for Intersection {
    fn centre(&self) -> &[f64] {
        self.parts[0].centre()
    }

    fn radius(&self) -> f64 {
        self.parts[0].radius()
    }
}

/// The spectrahedron `{S : lower I ⪯ S ⪯ upper I}` of symmetric `d x d` matrices, in `svec`
/// coordinates (MATH.md section 0 and 5.2). Chords are generalised eigenvalue problems: with
/// `X - lower I = L L^T` and `M = L^{-1} U L^{-T}`, `X + s U - lower I ⪰ 0` iff `1 + s mu >= 0`
/// for every eigenvalue `mu` of `M`; the upper side is the same with `upper I - X`.
#[derive(Clone, Debug, PartialEq)]
pub struct Spectrahedron {
    side: usize,
    lower: f64,
    upper: f64,
    centre: Vec<f64>,
}

impl Spectrahedron {
    /// The spectrahedron of `side x side` matrices between `lower I` and `upper I`; an error
    /// unless `side >= 1` and `lower < upper` are finite.
    pub fn new(side: usize, lower: f64, upper: f64) -> Result<Self, SamplerError> {
        if side == 0 || !(lower.is_finite() && upper.is_finite() && lower < upper) {
            return Err(SamplerError::InvalidSetting(format!(
                "the spectrahedron needs d >= 1 and finite lower < upper, got d = {side}, [{lower}, {upper}]"
            )));
        }
        let mid = 0.5 * (lower + upper);
        let centre = sosdp_oracle::svec::svec(side, |i, j| if i == j { mid } else { 0.0 });
        Ok(Spectrahedron {
            side,
            lower,
            upper,
            centre,
        })
    }

    /// The symmetric matrix with `svec` `v`.
    pub fn matrix(&self, v: &[f64]) -> DMatrix<f64> {
        DMatrix::from_row_slice(
            self.side,
            self.side,
            &sosdp_oracle::svec::smat(self.side, v),
        )
    }

    /// Extreme eigenvalues of `L^{-1} U L^{-T}` for `gap = L L^T ≻ 0`, or `None` if `gap` is
    /// not positive definite.
    fn generalised_range(gap: DMatrix<f64>, u: &DMatrix<f64>) -> Option<(f64, f64)> {
        let chol = Cholesky::new(gap)?;
        let l = chol.l();
        let left = l.solve_lower_triangular(u)?;
        let m = l.solve_lower_triangular(&left.transpose())?;
        let ev = (0.5 * (&m + m.transpose())).symmetric_eigenvalues();
        Some((ev.min(), ev.max()))
    }
}

impl ConvexBody for Spectrahedron {
    fn dim(&self) -> usize {
        self.centre.len()
    }

    fn contains(&self, x: &[f64]) -> Result<bool, SamplerError> {
        check("the point", x, self.dim())?;
        let ev = self.matrix(x).symmetric_eigenvalues();
        Ok(ev.min() >= self.lower && ev.max() <= self.upper)
    }

    fn chord(&self, x: &[f64], u: &[f64]) -> Result<(f64, f64), SamplerError> {
        check("the point", x, self.dim())?;
        check("the direction", u, self.dim())?;
        let (xm, um) = (self.matrix(x), self.matrix(u));
        let eye = DMatrix::<f64>::identity(self.side, self.side);
        let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
        // X + s U - lower I ⪰ 0: 1 + s mu >= 0.
        if let Some((min, max)) = Self::generalised_range(&xm - &eye * self.lower, &um) {
            if max > 0.0 {
                lo = lo.max(-1.0 / max);
            }
            if min < 0.0 {
                hi = hi.min(-1.0 / min);
            }
        } else {
            return Ok((0.0, 0.0));
        }
        // upper I - X - s U ⪰ 0: 1 - s mu >= 0.
        if let Some((min, max)) = Self::generalised_range(&eye * self.upper - &xm, &um) {
            if max > 0.0 {
                hi = hi.min(1.0 / max);
            }
            if min < 0.0 {
                lo = lo.max(1.0 / min);
            }
        } else {
            return Ok((0.0, 0.0));
        }
        Ok((lo.min(0.0), hi.max(0.0)))
    }
}

impl Domain for Spectrahedron {
    fn centre(&self) -> &[f64] {
        &self.centre
    }

    fn radius(&self) -> f64 {
        // ||S - mid I||_F <= sqrt(d) (upper - lower) / 2 on the spectrahedron.
        (self.side as f64).sqrt() * 0.5 * (self.upper - self.lower)
    }
}
