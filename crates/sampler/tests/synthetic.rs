//! Level bodies of a synthetic score (no solver): the quadratic `s(theta) = min(n, c |theta|^2)`
//! with exact brackets, whose level sets are balls of radius `sqrt(k / c)`. Chords of a level
//! body through its centre match that radius, and hit-and-run with each line move is uniform
//! on it (KS test of a coordinate marginal against its exact CDF, fixed seeds, p > 0.01; the
//! same test against a radius 15% too large gives p < 1e-5).
mod common;
use common::{ks_one_p, rng};
use sosdp_oracle::{ScoreError, ScoreEval, ScoreOracle};
use sosdp_sampler::level_body::LevelBody;
use sosdp_sampler::{Ball, ChainSettings, ConvexBody, Directions, LineMove};

/// `s(theta) = min(n, c |theta|^2)`, evaluated exactly.
struct Quadratic {
    dim: usize,
    c: f64,
    n: f64,
}

impl ScoreOracle for Quadratic {
    fn dim(&self) -> usize {
        self.dim
    }

    fn max_score(&self) -> f64 {
        self.n
    }

    fn backend(&self) -> &'static str {
        "quadratic"
    }

    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        let s = (self.c * theta.iter().map(|x| x * x).sum::<f64>()).min(self.n);
        Ok(ScoreEval::bracketed(s, s, s))
    }
}

const ORACLE: Quadratic = Quadratic {
    dim: 2,
    c: 4.0,
    n: 100.0,
};
const LEVEL: f64 = 1.0;

/// Radius of the level set `{c |theta|^2 <= LEVEL}`.
fn radius() -> f64 {
    (LEVEL / ORACLE.c).sqrt()
}

fn domain() -> Ball {
    Ball::new(vec![0.0; ORACLE.dim], 2.0).unwrap()
}

#[test]
fn chords_through_the_centre_have_the_level_set_radius() {
    let domain = domain();
    let tol = 1e-4;
    let body = LevelBody::new(&ORACLE, &domain, LEVEL, 0.1, LineMove::Chord { tol });
    let (lo, hi) = body.chord(&[0.0, 0.0], &[0.6, 0.8]).unwrap();
    let r = radius();
    assert!(
        (lo + r).abs() < 2.0 * tol && (hi - r).abs() < 2.0 * tol,
        "({lo}, {hi}) against radius {r}"
    );
    assert!(body.contains(&[0.0, 0.9 * r]).unwrap());
    assert!(!body.contains(&[0.0, 1.1 * r]).unwrap());
}

#[test]
fn hit_and_run_is_uniform_on_a_level_body() {
    let domain = domain();
    let r = radius();
    // Marginal of a uniform point of the disc of radius r: P(x <= t) for t in [-r, r].
    let cdf = |t: f64| {
        let t = (t / r).clamp(-1.0, 1.0);
        0.5 + (t * (1.0 - t * t).sqrt() + t.asin()) / std::f64::consts::PI
    };
    for (seed, line) in [
        (1, LineMove::Shrinkage),
        (2, LineMove::PairedShrinkage),
        (3, LineMove::Chord { tol: 1e-3 }),
    ] {
        let body = LevelBody::new(&ORACLE, &domain, LEVEL, 0.1, line);
        let xs: Vec<f64> = sosdp_sampler::hit_and_run::uniform_samples(
            &body,
            &Directions::Isotropic,
            &[0.0, 0.0],
            2000,
            &ChainSettings {
                burn_in: 100,
                thin: 6,
            },
            &mut rng(seed),
        )
        .unwrap()
        .into_iter()
        .map(|x| x[0])
        .collect();
        let p = ks_one_p(&xs, cdf);
        assert!(p > 0.01, "{line:?}: KS p = {p}");
    }
}
