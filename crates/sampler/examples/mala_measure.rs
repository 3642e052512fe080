//! Oracle calls per effectively independent sample and time to stationarity of the slice and
//! MALA paths on a rounded quadratic score (docs/sampler.md, "MALA (MATH.md 4.8)"):
//!
//! ```text
//! s(theta) = min(n, s0 + (n/2) |theta - mu|^2),  n = 50000, s0 = 300, eps = 1 (eps' = 1/2),
//! ```
//!
//! on the unit ball, exact brackets, a fixed level offset. The target is close to
//! `N(mu, I / (eps' n))`; the statistic is `r = eps' n |theta - mu|^2` (about chi-square with
//! d degrees of freedom) and the level index.
//!
//! `cargo run --release -p sosdp-sampler --example mala_measure -- [d ...]`
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp_oracle::{ScoreError, ScoreEval, ScoreOracle};
use sosdp_sampler::counted::Counted;
use sosdp_sampler::mala::{self, MalaSettings, MalaState};
use sosdp_sampler::target::Target;
use sosdp_sampler::{Ball, Directions, Levels, LineMove};
use std::ops::ControlFlow;

const N: f64 = 50000.0;
const S0: f64 = 300.0;
const EPS: f64 = 0.5;

struct Quadratic {
    mu: Vec<f64>,
}

impl ScoreOracle for Quadratic {
    fn dim(&self) -> usize {
        self.mu.len()
    }
    fn max_score(&self) -> f64 {
        N
    }
    fn backend(&self) -> &'static str {
        "quadratic"
    }
    fn convex(&self) -> bool {
        true
    }
    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        let r2: f64 = theta
            .iter()
            .zip(&self.mu)
            .map(|(a, b)| (a - b).powi(2))
            .sum();
        let s = (S0 + 0.5 * N * r2).min(N);
        Ok(ScoreEval::bracketed(s, s, s))
    }
}

fn calls(c: &Counted<Quadratic>) -> usize {
    let k = c.calls();
    k.evaluations + k.memberships + k.chord_queries
}

/// Integrated autocorrelation time with Sokal's automatic window (c = 5).
fn iat(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
    let mut tau = 1.0;
    for lag in 1..n / 2 {
        let c = (0..n - lag)
            .map(|i| (xs[i] - mean) * (xs[i + lag] - mean))
            .sum::<f64>()
            / (n as f64 * var);
        tau += 2.0 * c;
        if lag as f64 >= 5.0 * tau {
            break;
        }
    }
    tau
}

fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q) as usize]
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let dims: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("dimensions"))
        .collect();
    let dims = if dims.is_empty() { vec![10, 50] } else { dims };
    for d in dims {
        let mut mu = vec![0.0; d];
        mu[0] = 0.05;
        let oracle = Quadratic { mu: mu.clone() };
        let counted = Counted::new(&oracle);
        let domain = Ball::new(vec![0.0; d], 1.0).unwrap();
        let levels = Levels::with_offset(0.37);
        let target = Target::new(
            &counted,
            &domain,
            levels,
            EPS,
            Directions::Isotropic,
            LineMove::Shrinkage,
        );
        let stat = |s: &MalaState| {
            EPS * N
                * s.theta
                    .iter()
                    .zip(&mu)
                    .map(|(a, b)| (a - b).powi(2))
                    .sum::<f64>()
        };
        let start_index = levels.index(S0);
        let mut rng = StdRng::seed_from_u64(d as u64);
        // Slice: transient from the mode, then a long stationary run.
        let slice_len = 400 * d;
        let chains = 8;
        let mut slice_runs = Vec::new();
        let c0 = calls(&counted);
        for _ in 0..chains {
            let mut state = MalaState {
                theta: mu.clone(),
                index: target.index_below(&mu, start_index).unwrap(),
            };
            let mut run = Vec::with_capacity(slice_len);
            for _ in 0..slice_len {
                mala::slice_iteration(&target, &mut state, &mut rng).unwrap();
                run.push((stat(&state), state.index as f64));
            }
            slice_runs.push(run);
        }
        let slice_calls = (calls(&counted) - c0) as f64 / (chains * slice_len) as f64;
        let stationary: Vec<f64> = slice_runs
            .iter()
            .flat_map(|r| r[slice_len / 2..].iter().map(|p| p.0))
            .collect();
        let q10 = quantile(&stationary, 0.1);
        let (qlo, qhi) = (quantile(&stationary, 0.05), quantile(&stationary, 0.95));
        let mut hit: Vec<f64> = slice_runs
            .iter()
            .map(|r| r.iter().position(|p| p.0 >= q10).unwrap_or(slice_len) as f64)
            .collect();
        let slice_hit = median(&mut hit);
        let tau_r: Vec<f64> = slice_runs
            .iter()
            .map(|r| iat(&r[slice_len / 2..].iter().map(|p| p.0).collect::<Vec<_>>()))
            .collect();
        let tau_i: Vec<f64> = slice_runs
            .iter()
            .map(|r| iat(&r[slice_len / 2..].iter().map(|p| p.1).collect::<Vec<_>>()))
            .collect();
        let (st_r, st_i) = (
            tau_r.iter().sum::<f64>() / chains as f64,
            tau_i.iter().sum::<f64>() / chains as f64,
        );
        println!(
            "d = {d}: stationary r: 5%/10%/95% quantiles {qlo:.1}/{q10:.1}/{qhi:.1}, mean {:.1}",
            stationary.iter().sum::<f64>() / stationary.len() as f64
        );
        println!(
            "  slice: {slice_calls:.2} calls/iteration, IAT(r) {st_r:.1}, IAT(index) {st_i:.1} \
             iterations -> {:.0} calls per effective sample (r), {:.0} (index); \
             median iterations from the mode to r >= q10: {slice_hit}",
            st_r * slice_calls,
            st_i * slice_calls
        );
        // MALA with the default settings: the frozen chain's IAT and its transient from the
        // mode (the kernel prepared by the default burn-in and adaptation).
        for settings in [MalaSettings::for_dim(d), {
            let mut s = MalaSettings::for_dim(d);
            s.shrinkage = std::env::var("SHRINK").map_or(1.0, |v| v.parse().unwrap());
            s
        }] {
            let long = 200 * d;
            let mut runs = Vec::new();
            let mut hits = Vec::new();
            let (mut prep_calls, mut chain_calls, mut acc, mut h) = (0, 0, 0.0, 0.0);
            for _ in 0..chains {
                let c0 = calls(&counted);
                let (mut state, kernel, record) =
                    mala::prepare(&target, &mu, start_index, &settings, &mut rng, &mut |_| {
                        ControlFlow::Continue(())
                    })
                    .unwrap();
                prep_calls += calls(&counted) - c0;
                h += record.step_size;
                let c1 = calls(&counted);
                let mut run = Vec::with_capacity(long);
                let mut accepted = 0;
                for t in 0..long {
                    if kernel.step(&target, &mut state, &mut rng).unwrap().0
                        == mala::StepOutcome::Accepted
                    {
                        accepted += 1;
                    }
                    if (t + 1) % settings.slice_every == 0 {
                        mala::slice_iteration(&target, &mut state, &mut rng).unwrap();
                    }
                    run.push((stat(&state), state.index as f64));
                }
                chain_calls += calls(&counted) - c1;
                acc += accepted as f64 / long as f64;
                runs.push(run);
                // Transient of the frozen chain from the mode.
                let mut state = MalaState {
                    theta: mu.clone(),
                    index: target.index_below(&mu, start_index).unwrap(),
                };
                let mut first = long;
                for t in 0..long {
                    kernel.step(&target, &mut state, &mut rng).unwrap();
                    if (t + 1) % settings.slice_every == 0 {
                        mala::slice_iteration(&target, &mut state, &mut rng).unwrap();
                    }
                    if stat(&state) >= q10 {
                        first = t;
                        break;
                    }
                }
                hits.push(first as f64);
            }
            let per_step = chain_calls as f64 / (chains * long) as f64;
            let tr = runs
                .iter()
                .map(|r| iat(&r.iter().map(|p| p.0).collect::<Vec<_>>()))
                .sum::<f64>()
                / chains as f64;
            let ti = runs
                .iter()
                .map(|r| iat(&r.iter().map(|p| p.1).collect::<Vec<_>>()))
                .sum::<f64>()
                / chains as f64;
            let mean_r = runs.iter().flat_map(|r| r.iter().map(|p| p.0)).sum::<f64>()
                / (chains * long) as f64;
            println!(
                "  mala (burn_in {}, adapt {}, shrinkage {}): h {:.3}, acceptance {:.2}, {per_step:.2} calls/step, \
                 IAT(r) {tr:.1}, IAT(index) {ti:.1} steps -> {:.0} calls per effective sample (r), \
                 {:.0} (index); mean r {mean_r:.1}; burn-in + adaptation {:.0} calls; \
                 median steps from the mode to r >= q10: {}",
                settings.burn_in,
                settings.adapt_steps,
                settings.shrinkage,
                h / chains as f64,
                acc / chains as f64,
                tr * per_step,
                ti * per_step,
                prep_calls as f64 / chains as f64,
                median(&mut hits)
            );
        }
    }
}
