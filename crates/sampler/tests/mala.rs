//! The MALA path (MATH.md 4.8) on synthetic quadratic scores with exact brackets (no solver):
//!
//! - exact invariance: the kernel tabulated on a 1-D grid (the grid as the state space,
//!   proposal mass `0.9 dx q(y | x)` on each grid point, the rest of the mass staying at `x`)
//!   satisfies detailed balance and `pi K = pi` to rounding; the same kernel with the
//!   acceptance `min(1, pi(y)/pi(x))` (no proposal ratio) violates both by orders of
//!   magnitude;
//! - the released law: many independent short chains against quadrature of the rounded
//!   target (1-D and 2-D, KS) and against the slice path (two-sample KS); a chain sampling at
//!   `1.3 eps` is rejected;
//! - the entry point `release` with [`SamplerKind::Mala`].
mod common;
use common::{ks_one_p, ks_two_p, numeric_cdf, rng};
use nalgebra::DMatrix;
use sosdp_sampler::mala::{self, MalaKernel, Surrogate};
use sosdp_sampler::reference::QuadraticScore;
use sosdp_sampler::slice::{self, SliceSettings};
use sosdp_sampler::target::Target;
use sosdp_sampler::{
    Ball, ConvexBody, Directions, Levels, LineMove, MalaSettings, MechanismSettings, SamplerKind,
    Start, release,
};
use std::ops::ControlFlow;

/// `s(theta) = min(n, sum_k a_k theta_k^2)`, evaluated exactly: the reference score with mode
/// 0 and curvatures `2 a_k`.
fn quadratic(a: &[f64], n: f64) -> QuadraticScore {
    QuadraticScore {
        mu: vec![0.0; a.len()],
        curvature: a.iter().map(|a| 2.0 * a).collect(),
        cap: n,
    }
}

const OFFSET: f64 = 0.3;
/// `eps'` of the target (the sampled density is `exp(-EPS l_i)`).
const EPS: f64 = 1.0;

fn target<'a>(
    oracle: &'a QuadraticScore,
    domain: &'a Ball,
    eps: f64,
) -> Target<'a, QuadraticScore, Ball> {
    Target::new(
        oracle,
        domain,
        Levels::with_offset(OFFSET),
        eps,
        Directions::Isotropic,
        LineMove::Shrinkage,
    )
}

/// The rounded target's unnormalised density at a point of the domain.
fn density(oracle: &QuadraticScore, theta: &[f64]) -> f64 {
    let levels = Levels::with_offset(OFFSET);
    (-EPS * levels.level(levels.index(oracle.score(theta)))).exp()
}

/// Largest relative violations of detailed balance and of stationarity of the kernel
/// tabulated on the grid, with acceptance `log_accept(x, i(x), y, i(y))`.
fn tabulated_violations(log_accept: impl Fn(f64, i64, f64, i64) -> f64) -> (f64, f64) {
    let oracle = quadratic(&[4.0], 30.0);
    let domain = Ball::new(vec![0.0], 2.0).unwrap();
    let t = target(&oracle, &domain, EPS);
    let kernel = kernel_1d();
    let dx = 0.005;
    // Grid points in the domain are the states; proposals to grid points outside it (and the
    // mass 1 - 0.9 sum dx q not put on grid points) stay at x.
    let states: Vec<f64> = (0..=1200)
        .map(|k| -3.0 + k as f64 * dx)
        .filter(|x| domain.contains(&[*x]).unwrap())
        .collect();
    let index: Vec<i64> = states
        .iter()
        .map(|x| t.index_by_evaluation(&[*x], t.top).unwrap())
        .collect();
    let pi: Vec<f64> = index
        .iter()
        .map(|&i| (-EPS * t.levels.level(i)).exp())
        .collect();
    let z: f64 = pi.iter().sum();
    let pi: Vec<f64> = pi.iter().map(|p| p / z).collect();
    // Normalised proposal density from the kernel's log density (constant -log sqrt(4 pi h C)).
    let c = kernel.surrogate.covariance()[(0, 0)];
    let norm = -(4.0 * std::f64::consts::PI * kernel.step * c).sqrt().ln();
    let m = states.len();
    let mut k = vec![vec![0.0; m]; m];
    for a in 0..m {
        let mut moved = 0.0;
        for b in 0..m {
            if a == b {
                continue;
            }
            let q =
                0.9 * dx * (kernel.log_proposal_density(&[states[a]], &[states[b]]) + norm).exp();
            k[a][b] = q * log_accept(states[a], index[a], states[b], index[b]).exp();
            moved += k[a][b];
        }
        assert!(moved <= 1.0, "row {a} is not substochastic: {moved}");
        k[a][a] = 1.0 - moved;
    }
    let mut balance: f64 = 0.0;
    let mut flow_scale: f64 = 0.0;
    for a in 0..m {
        for b in 0..m {
            let (f, g) = (pi[a] * k[a][b], pi[b] * k[b][a]);
            balance = balance.max((f - g).abs());
            flow_scale = flow_scale.max(f);
        }
    }
    let mut stationarity: f64 = 0.0;
    for b in 0..m {
        let pk: f64 = (0..m).map(|a| pi[a] * k[a][b]).sum();
        stationarity = stationarity.max((pk - pi[b]).abs() / pi[b]);
    }
    (balance / flow_scale, stationarity)
}

/// A frozen kernel with a deliberately poor surrogate (off-centre, too narrow): exactness must
/// not depend on it.
fn kernel_1d() -> MalaKernel {
    MalaKernel {
        surrogate: Surrogate::new(vec![0.15], DMatrix::from_element(1, 1, 0.05)).unwrap(),
        step: 0.4,
    }
}

#[test]
fn tabulated_kernel_is_exactly_reversible_and_a_broken_one_is_not() {
    let kernel = kernel_1d();
    let levels = Levels::with_offset(OFFSET);
    let (balance, stationarity) = tabulated_violations(|x, i, y, j| {
        kernel.log_acceptance(EPS, &levels, (&[x], i), (&[y], j))
    });
    assert!(
        balance < 1e-12 && stationarity < 1e-10,
        "detailed balance {balance:e}, stationarity {stationarity:e}"
    );
    // Without the proposal ratio (a Metropolis test for an asymmetric proposal).
    let (broken_balance, broken_stationarity) =
        tabulated_violations(|_, i, _, j| (-EPS * (levels.level(j) - levels.level(i))).min(0.0));
    assert!(
        broken_balance > 1e-3 && broken_stationarity > 1e-2,
        "broken variant: detailed balance {broken_balance:e}, stationarity \
         {broken_stationarity:e}"
    );
    eprintln!(
        "exact: balance {balance:e}, stationarity {stationarity:e}; without q ratio: \
         {broken_balance:e}, {broken_stationarity:e}"
    );
}

fn short_settings() -> MalaSettings {
    MalaSettings {
        burn_in: 40,
        adapt_steps: 40,
        steps: 60,
        slice_every: 10,
        target_acceptance: 0.55,
        shrinkage: 0.2,
    }
}

/// The last points of `chains` independent MALA chains from the origin (the mode) sampling
/// the rounded target with parameter `eps`.
fn mala_draws(
    oracle: &QuadraticScore,
    domain: &Ball,
    eps: f64,
    chains: u64,
    seed: u64,
) -> Vec<Vec<f64>> {
    let t = target(oracle, domain, eps);
    let start = vec![0.0; oracle.mu.len()];
    let start_index = t.levels.index(0.0);
    let mut accepted = 0;
    let draws = (0..chains)
        .map(|k| {
            let mut r = rng(seed * 1_000_000 + k);
            let (theta, record) = mala::sample(
                &t,
                &start,
                start_index,
                &short_settings(),
                &mut r,
                &mut |_| ControlFlow::Continue(()),
            )
            .unwrap();
            accepted += record.accepted;
            theta
        })
        .collect();
    // The chains move (not a requirement of exactness: a sanity check of the tuning).
    let rate = accepted as f64 / (chains as usize * short_settings().steps) as f64;
    assert!(rate > 0.2, "acceptance rate {rate}");
    draws
}

fn slice_draws(oracle: &QuadraticScore, domain: &Ball, chains: u64, seed: u64) -> Vec<Vec<f64>> {
    let t = target(oracle, domain, EPS);
    let start = vec![0.0; oracle.mu.len()];
    let settings = SliceSettings {
        iterations: 60,
        steps_per_iteration: 1,
    };
    (0..chains)
        .map(|k| {
            let mut r = rng(seed * 1_000_000 + k);
            slice::sample(
                &t,
                &start,
                t.levels.index(0.0),
                &settings,
                &mut r,
                &mut |_| ControlFlow::Continue(()),
            )
            .unwrap()
            .0
        })
        .collect()
}

#[test]
fn one_dimensional_mala_agrees_with_quadrature_and_the_slice_path() {
    let oracle = quadratic(&[4.0], 30.0);
    let domain = Ball::new(vec![0.0], 2.0).unwrap();
    let cdf = numeric_cdf(|x| density(&oracle, &[x]), -2.0, 2.0, 40000);
    // |theta|: density on [0, 2], the same shape folded.
    let abs_cdf = numeric_cdf(|x| density(&oracle, &[x]), 0.0, 2.0, 20000);
    let draws: Vec<f64> = mala_draws(&oracle, &domain, EPS, 3000, 1)
        .iter()
        .map(|t| t[0])
        .collect();
    let abs: Vec<f64> = draws.iter().map(|x| x.abs()).collect();
    let (p, p_abs) = (ks_one_p(&draws, &cdf), ks_one_p(&abs, &abs_cdf));
    assert!(p > 0.01 && p_abs > 0.01, "KS p = {p}, |theta| p = {p_abs}");
    let slice: Vec<f64> = slice_draws(&oracle, &domain, 3000, 2)
        .iter()
        .map(|t| t[0])
        .collect();
    let p_two = ks_two_p(&draws, &slice);
    assert!(p_two > 0.01, "MALA against slice: p = {p_two}");
    // Power: the same chains sampling at 1.3 eps are rejected.
    let wrong: Vec<f64> = mala_draws(&oracle, &domain, 1.3 * EPS, 3000, 3)
        .iter()
        .map(|t| t[0].abs())
        .collect();
    let p_wrong = ks_one_p(&wrong, &abs_cdf);
    assert!(p_wrong < 0.01, "1.3 eps not rejected: p = {p_wrong}");
    eprintln!("1-D: p = {p}, |theta| p = {p_abs}, against slice {p_two}, 1.3 eps {p_wrong:e}");
}

#[test]
fn two_dimensional_mala_agrees_with_quadrature_and_the_slice_path() {
    // Anisotropic: the level sets are ellipses {4 x^2 + y^2 <= t}, inside the domain (radius
    // 4) for t <= 16; the mass above 16 is below e^{-15}.
    let oracle = quadratic(&[4.0, 1.0], 30.0);
    let domain = Ball::new(vec![0.0, 0.0], 4.0).unwrap();
    let levels = Levels::with_offset(OFFSET);
    let q_of = |t: &[f64]| 4.0 * t[0] * t[0] + t[1] * t[1];
    // q = 4x^2 + y^2 has area element (pi / 2) dq: its density is exp(-eps l_{i(q)}).
    let q_density = |q: f64| (-EPS * levels.level(levels.index(q))).exp();
    let q_cdf = numeric_cdf(q_density, 0.0, 16.0, 64000);
    // The x-marginal: integrate the density over y.
    let x_density = |x: f64| {
        let (steps, lim) = (800, 4.0);
        let h = 2.0 * lim / steps as f64;
        (0..=steps)
            .map(|k| {
                let y = -lim + k as f64 * h;
                if x * x + y * y <= 16.0 {
                    density(&oracle, &[x, y]) * h
                } else {
                    0.0
                }
            })
            .sum::<f64>()
    };
    let x_cdf = numeric_cdf(x_density, -2.0, 2.0, 4000);
    let draws = mala_draws(&oracle, &domain, EPS, 2000, 4);
    let qs: Vec<f64> = draws.iter().map(|t| q_of(t)).collect();
    let xs: Vec<f64> = draws.iter().map(|t| t[0]).collect();
    let (p_q, p_x) = (ks_one_p(&qs, &q_cdf), ks_one_p(&xs, &x_cdf));
    assert!(p_q > 0.01 && p_x > 0.01, "KS p: q {p_q}, x {p_x}");
    let slice = slice_draws(&oracle, &domain, 2000, 5);
    let slice_q: Vec<f64> = slice.iter().map(|t| q_of(t)).collect();
    let slice_y: Vec<f64> = slice.iter().map(|t| t[1]).collect();
    let ys: Vec<f64> = draws.iter().map(|t| t[1]).collect();
    let (p_sq, p_sy) = (ks_two_p(&qs, &slice_q), ks_two_p(&ys, &slice_y));
    assert!(
        p_sq > 0.01 && p_sy > 0.01,
        "against slice: q {p_sq}, y {p_sy}"
    );
    let wrong: Vec<f64> = mala_draws(&oracle, &domain, 1.3 * EPS, 2000, 6)
        .iter()
        .map(|t| q_of(t))
        .collect();
    let p_wrong = ks_one_p(&wrong, &q_cdf);
    assert!(p_wrong < 0.01, "1.3 eps not rejected: p = {p_wrong}");
    eprintln!(
        "2-D: q p = {p_q}, x p = {p_x}, against slice q {p_sq}, y {p_sy}, 1.3 eps {p_wrong:e}"
    );
}

#[test]
fn release_runs_the_mala_path() {
    let oracle = quadratic(&[4.0, 1.0, 2.0], 30.0);
    let domain = Ball::new(vec![0.0; 3], 4.0).unwrap();
    let start = Start {
        theta: vec![0.0; 3],
        score_upper: 0.0,
    };
    let mut settings = MechanismSettings::new(2.0, 3).unwrap();
    settings.sampler = SamplerKind::Mala;
    let mut last = None;
    let r = release(&oracle, &domain, &start, &settings, &mut rng(7), &mut |p| {
        assert!(
            p.phase == "mala" || (p.phase == "rounding pilot" && last.is_none()),
            "{p:?}"
        );
        if p.phase == "mala" {
            last = Some((p.done, p.total));
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    assert!(domain.contains(&r.theta).unwrap());
    let rec = r.record.mala.as_ref().expect("a MALA record");
    assert!(r.record.slice.is_none() && r.record.layer_cake.is_none());
    let m = &settings.mala;
    assert_eq!(
        last,
        Some((
            m.burn_in + m.adapt_steps + m.steps,
            m.burn_in + m.adapt_steps + m.steps
        ))
    );
    assert_eq!(rec.steps, m.steps);
    assert!(rec.accepted > 0 && rec.accepted <= rec.steps);
    assert!(
        rec.acceptance_rate > 0.1 && rec.acceptance_rate < 1.0,
        "{rec:?}"
    );
    assert!(rec.step_size > 0.0 && rec.step_size <= 1.0);
    assert!(rec.evaluations > 0 && rec.evaluations <= r.record.oracle_calls.evaluations);
    assert!(rec.slice_iterations >= m.steps / m.slice_every);
    // The released point's level index is the one the chain kept (exact; hardening moves
    // the point by about 1e-6 of the radius, so at most one level).
    let levels = Levels::with_offset(r.record.level_offset);
    assert!((levels.index(oracle.score(&r.theta)) - rec.final_index).abs() <= 1);
    // Invalid MALA settings are refused before any oracle call.
    let mut bad = settings.clone();
    bad.mala.shrinkage = 0.0;
    assert!(
        release(&oracle, &domain, &start, &bad, &mut rng(8), &mut |_| {
            ControlFlow::Continue(())
        })
        .is_err()
    );
    bad.mala = MalaSettings {
        target_acceptance: 1.0,
        ..MalaSettings::for_dim(3)
    };
    assert!(
        release(&oracle, &domain, &start, &bad, &mut rng(8), &mut |_| {
            ControlFlow::Continue(())
        })
        .is_err()
    );
}
