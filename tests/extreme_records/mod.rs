//! Shared by the localised and scaled learners' "every finite input ends in a release" tests
//! (MATH.md 7; tests/localise.rs, tests/scale.rs): the inputs, and the check on a Gaussian
//! release's estimate.
use nalgebra::DMatrix;
use rand::rngs::StdRng;
use sosdp::learn::GaussianEstimate;

/// `n` standard Gaussian records in R^2 (drawn from `rng`) whose first five rows hold the largest doubles, `±1e300` and the smallest positive double (negated in the
/// second column), and `n` identical records `(1e6, -1e6)`.
pub fn extreme_and_identical(rng: &mut StdRng, n: usize) -> [DMatrix<f64>; 2] {
    let mut extreme = DMatrix::from_fn(n, 2, |_, _| {
        rand_distr::Distribution::<f64>::sample(&rand_distr::StandardNormal, rng)
    });
    for (i, v) in [f64::MAX, -f64::MAX, 1e300, -1e300, f64::MIN_POSITIVE]
        .iter()
        .enumerate()
    {
        extreme[(i, 0)] = *v;
        extreme[(i, 1)] = -*v;
    }
    let identical = DMatrix::from_fn(n, 2, |_, j| if j == 0 { 1e6 } else { -1e6 });
    [extreme, identical]
}

/// A release's estimate, when there is one, has a finite mean and covariance.
pub fn assert_finite(estimate: Option<&GaussianEstimate>) {
    if let Some(e) = estimate {
        assert!(
            e.mean
                .iter()
                .chain(e.covariance.iter())
                .all(|v| v.is_finite()),
            "{e:?}"
        );
    }
}
