//! `sosdp bench score`: time the fast CM backend against the clarabel reference on a
//! corrupted Gaussian instance, and print one JSON line.
//!
//! The instance builder and the theta generators are public so that the criterion benches
//! (`benches/oracle.rs`) measure exactly the same instances.
//!
//! Instance: `n` draws of `N(mu, I_D)` with `||mu|| = 1` in a random direction, 5% replaced
//! by a tight cluster (spread 0.1) at distance 4 along the first axis; centre `c` = the
//! coordinate-wise median; `Gamma = (1 + 0.2 + r^2) I` with `r = 0.5`. Thetas are drawn
//! uniformly in the ball of radius `2.5 sqrt(D / n) + 0.05` around the CM minimiser
//! (the anchor, computed by the fast backend), inside the CM domain.
use crate::CliError;
use clap::Args;
use nalgebra::{DMatrix, DVector};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use serde::Serialize;
use sosdp_eval::{Adversary, CorruptedSample};
use sosdp_score::{
    Anchor, Answer, CertifiedMean, ClarabelCm, FastCm, ScoreOracle, chord_by_bisection, minimise_cm,
};
use std::time::Instant;

/// Fraction of the records replaced by the adversary.
pub const CORRUPTION: f64 = 0.05;
/// Distance of the adversary's cluster (along axis 0).
pub const CLUSTER_DISTANCE: f64 = 4.0;
/// Spread of the adversary's cluster.
pub const CLUSTER_SPREAD: f64 = 0.1;
/// Radius `r` of the centre's accuracy: `Gamma = (1 + 0.2 + r^2) I`.
pub const CENTRE_RADIUS: f64 = 0.5;
/// A random-walk step, as a fraction of the theta ball's radius.
pub const WALK_STEP: f64 = 0.02;
/// Rejection-sampling attempts before giving up on drawing a theta inside the domain.
const MAX_ATTEMPTS: usize = 10_000;

#[derive(Debug, Args)]
pub struct ScoreBenchArgs {
    /// Number of records (n >= 2).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    n: i64,
    /// Dimension D >= 1.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    dim: i64,
    /// Number of random thetas (>= 1); also the number of timed random-walk steps.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    reps: i64,
    /// Seed of the instance and of the thetas.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Do not reset the fast backend between the random thetas (each evaluation is warm
    /// started from the previous, unrelated theta). The walk timing is warm regardless.
    #[arg(long)]
    warm: bool,
    /// Skip clarabel entirely: the reference evaluations and the reference anchor (their
    /// fields are null).
    #[arg(long)]
    skip_clarabel: bool,
    /// Also time K chords of the level body `{CM <= anchor score + chord_level}` through the
    /// anchor along random directions (the sampler's hit-and-run query), K >= 0.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    chords: i64,
    /// Level of the chord bodies above the anchor's score.
    #[arg(
        long,
        value_name = "L",
        default_value_t = 10.0,
        allow_negative_numbers = true
    )]
    chord_level: f64,
    /// Time the chords by bisection on membership (`chord_by_bisection`) instead of the fast
    /// backend's direct chord ends.
    #[arg(long)]
    bisect: bool,
    /// Tolerance of the chord ends along the line (theta units).
    #[arg(
        long,
        value_name = "T",
        default_value_t = 1e-4,
        allow_negative_numbers = true
    )]
    chord_tol: f64,
}

/// A benchmark instance: the CM problem and its anchor.
#[derive(Clone, Debug)]
pub struct ScoreInstance {
    /// The data, one record per row (`n x D`).
    pub data: DMatrix<f64>,
    /// The CM problem (centre = coordinate-wise median, `Gamma = (1.2 + r^2) I`).
    pub problem: CertifiedMean,
    /// The CM minimiser (fast backend, no ball domain).
    pub anchor: Anchor,
    /// Radius of the ball around the anchor the thetas are drawn from.
    pub radius: f64,
}

impl ScoreInstance {
    /// Build the instance of size `n x dim` from `seed` (computes the anchor: one SDP on the
    /// fast backend).
    pub fn new(n: usize, dim: usize, seed: u64) -> Result<Self, CliError> {
        if n < 2 {
            return Err(CliError::Invalid(format!(
                "--n must be at least 2, got {n}"
            )));
        }
        if dim < 1 {
            return Err(CliError::Invalid(format!(
                "--dim must be at least 1, got {dim}"
            )));
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let mean: Vec<f64> = unit_vector(&mut rng, dim);
        let adversary = Adversary::ShiftedCluster {
            distance: CLUSTER_DISTANCE,
            axis: 0,
            spread: CLUSTER_SPREAD,
        };
        let data =
            CorruptedSample::identity_covariance(&mut rng, n, &mean, CORRUPTION, &adversary).data;
        let centre: Vec<f64> = data
            .column_iter()
            .map(|c| median(c.iter().copied().collect()))
            .collect();
        let gamma = DMatrix::identity(dim, dim) * (1.0 + 0.2 + CENTRE_RADIUS * CENTRE_RADIUS);
        let problem = CertifiedMean::new(&data, &centre, &gamma)?;
        let anchor = FastCm::new(problem.clone()).minimise(None)?;
        let radius = 2.5 * (dim as f64 / n as f64).sqrt() + 0.05;
        Ok(ScoreInstance {
            data,
            problem,
            anchor,
            radius,
        })
    }

    /// `k` thetas uniform in the ball of radius [`Self::radius`] around the anchor, inside
    /// the CM domain (rejection sampling).
    pub fn ball_thetas(&self, k: usize, seed: u64) -> Result<Vec<Vec<f64>>, CliError> {
        let mut rng = StdRng::seed_from_u64(seed);
        let dim = self.problem.dim();
        let centre = DVector::from_column_slice(&self.anchor.theta);
        (0..k)
            .map(|_| {
                self.draw_in_domain(|| {
                    let r = self.radius * rng.random::<f64>().powf(1.0 / dim as f64);
                    &centre + DVector::from_vec(unit_vector(&mut rng, dim)) * r
                })
            })
            .collect()
    }

    /// A random walk of `steps` points starting at the anchor, each step of length
    /// `WALK_STEP * radius` in a random direction (redrawn when it leaves the CM domain).
    pub fn random_walk(&self, steps: usize, seed: u64) -> Result<Vec<Vec<f64>>, CliError> {
        let mut rng = StdRng::seed_from_u64(seed);
        let dim = self.problem.dim();
        let step = WALK_STEP * self.radius;
        let mut walk = Vec::with_capacity(steps);
        let mut current = self.anchor.theta.clone();
        for _ in 0..steps {
            walk.push(current.clone());
            let from = DVector::from_column_slice(&current);
            current = self
                .draw_in_domain(|| &from + DVector::from_vec(unit_vector(&mut rng, dim)) * step)?;
        }
        Ok(walk)
    }

    fn draw_in_domain(&self, mut draw: impl FnMut() -> DVector<f64>) -> Result<Vec<f64>, CliError> {
        for _ in 0..MAX_ATTEMPTS {
            let theta = draw();
            if self.problem.in_domain(theta.as_slice()) {
                return Ok(theta.as_slice().to_vec());
            }
        }
        Err(CliError::Invalid(format!(
            "no theta inside the CM domain after {MAX_ATTEMPTS} draws"
        )))
    }
}

/// Seed of the thetas, derived from the instance seed.
pub fn theta_seed(seed: u64) -> u64 {
    seed ^ 0x5eed_7e7a
}

/// Seed of the random walk, derived from the instance seed.
pub fn walk_seed(seed: u64) -> u64 {
    seed ^ 0x3a1c_3a1c
}

/// Seed of the chord directions, derived from the instance seed.
pub fn chord_seed(seed: u64) -> u64 {
    seed ^ 0xc40d_c40d
}

/// Timing of chords through the anchor (`--chords`).
#[derive(Debug, Serialize)]
struct ChordReport {
    chords: usize,
    bisect: bool,
    level: f64,
    tol: f64,
    chord_ms_median: f64,
    chord_ms_max: f64,
    /// Oracle solves per chord (median): membership queries, or direct chord-end solves.
    member_calls_median: f64,
    /// Total chord time over total solves.
    ms_per_member_call: f64,
    /// Chord length `hi - lo` (median).
    length_median: f64,
    /// Evaluations the fast backend handed to the reference backend during the chords.
    fallbacks: usize,
    /// Chord ends the fast backend's direct solve could not certify (found by bisection).
    bisected_ends: usize,
}

/// The output line. Field order is the printed order.
#[derive(Debug, Serialize)]
struct ScoreBenchReport {
    n: usize,
    dim: usize,
    fast_ms_median: f64,
    clarabel_ms_median: Option<f64>,
    max_abs_diff: Option<f64>,
    fast_warm_ms_median: Option<f64>,
    fast_ms_max: f64,
    clarabel_ms_max: Option<f64>,
    fast_fallbacks: usize,
    fast_iterations_median: f64,
    anchor_ms: f64,
    anchor_score: f64,
    /// The clarabel anchor's time and `|fast - clarabel|` of the two anchors' scores.
    clarabel_anchor_ms: Option<f64>,
    anchor_score_diff: Option<f64>,
    radius: f64,
    reps: usize,
    walk_steps: usize,
    seed: u64,
    warm: bool,
    chord: Option<ChordReport>,
}

/// `sosdp bench score`: print one JSON line.
pub fn run(args: &ScoreBenchArgs) -> Result<(), CliError> {
    if args.n < 2 {
        return Err(CliError::Invalid(format!(
            "--n must be at least 2, got {}",
            args.n
        )));
    }
    if args.dim < 1 {
        return Err(CliError::Invalid(format!(
            "--dim must be at least 1, got {}",
            args.dim
        )));
    }
    if args.reps < 1 {
        return Err(CliError::Invalid(format!(
            "--reps must be at least 1, got {}",
            args.reps
        )));
    }
    if args.chords < 0 {
        return Err(CliError::Invalid(format!(
            "--chords must be at least 0, got {}",
            args.chords
        )));
    }
    if !(args.chord_tol.is_finite() && args.chord_tol > 0.0) {
        return Err(CliError::Invalid(format!(
            "--chord-tol must be positive, got {}",
            args.chord_tol
        )));
    }
    if !(args.chord_level.is_finite() && args.chord_level > 0.0) {
        return Err(CliError::Invalid(format!(
            "--chord-level must be positive, got {}",
            args.chord_level
        )));
    }
    let (n, dim, reps) = (args.n as usize, args.dim as usize, args.reps as usize);

    let start = Instant::now();
    let instance = ScoreInstance::new(n, dim, args.seed)?;
    let anchor_ms = ms(start);
    let reference_anchor = if args.skip_clarabel {
        None
    } else {
        let t = Instant::now();
        let anchor = minimise_cm(&ClarabelCm::new(instance.problem.clone()), None)?;
        Some((
            ms(t),
            (anchor.eval.score - instance.anchor.eval.score).abs(),
        ))
    };
    let thetas = instance.ball_thetas(reps, theta_seed(args.seed))?;
    let fast = FastCm::new(instance.problem.clone());
    let clarabel = ClarabelCm::new(instance.problem.clone());

    let mut fast_ms = Vec::with_capacity(reps);
    let mut fast_iterations = Vec::with_capacity(reps);
    let mut clarabel_ms = Vec::with_capacity(reps);
    let mut max_abs_diff: f64 = 0.0;
    let mut fallbacks = 0;
    for theta in &thetas {
        if !args.warm {
            fast.reset();
        }
        let t = Instant::now();
        let (f, stats) = fast.evaluate_detailed(theta, None)?;
        fast_ms.push(ms(t));
        fast_iterations.push(stats.iterations as f64);
        if stats.answer == Answer::Fallback {
            fallbacks += 1;
        }
        if !args.skip_clarabel {
            let t = Instant::now();
            let c = clarabel.evaluate(theta)?;
            clarabel_ms.push(ms(t));
            max_abs_diff = max_abs_diff.max((f.score - c.score).abs());
        }
    }

    // Warm chain: the first step is cold, the others are warm started from the previous one.
    let walk_steps = reps + 1;
    let walk = instance.random_walk(walk_steps, walk_seed(args.seed))?;
    fast.reset();
    let mut warm_ms = Vec::with_capacity(reps);
    for (k, theta) in walk.iter().enumerate() {
        let t = Instant::now();
        fast.evaluate_detailed(theta, None)?;
        if k > 0 {
            warm_ms.push(ms(t));
        }
    }

    let chord = (args.chords > 0)
        .then(|| chords(&instance, &fast, args, chord_seed(args.seed)))
        .transpose()?;

    let report = ScoreBenchReport {
        n,
        dim,
        fast_ms_median: median(fast_ms.clone()),
        clarabel_ms_median: (!args.skip_clarabel).then(|| median(clarabel_ms.clone())),
        max_abs_diff: (!args.skip_clarabel).then_some(max_abs_diff),
        fast_warm_ms_median: (!warm_ms.is_empty()).then(|| median(warm_ms)),
        fast_ms_max: fast_ms.iter().copied().fold(0.0, f64::max),
        clarabel_ms_max: (!args.skip_clarabel)
            .then(|| clarabel_ms.iter().copied().fold(0.0, f64::max)),
        fast_fallbacks: fallbacks,
        fast_iterations_median: median(fast_iterations),
        anchor_ms,
        anchor_score: instance.anchor.eval.score,
        clarabel_anchor_ms: reference_anchor.map(|a| a.0),
        anchor_score_diff: reference_anchor.map(|a| a.1),
        radius: instance.radius,
        reps,
        walk_steps,
        seed: args.seed,
        warm: args.warm,
        chord,
    };
    let line = serde_json::to_string(&report)
        .map_err(|e| CliError::Invalid(format!("cannot encode the report: {e}")))?;
    println!("{line}");
    Ok(())
}

/// Time `count` chords of `{CM <= anchor score + level}` through the anchor along random
/// directions, each within the line's CM domain, one after the other on the same oracle (as
/// consecutive hit-and-run steps would).
fn chords(
    instance: &ScoreInstance,
    fast: &FastCm,
    args: &ScoreBenchArgs,
    seed: u64,
) -> Result<ChordReport, CliError> {
    let (count, tol) = (args.chords as usize, args.chord_tol);
    let mut rng = StdRng::seed_from_u64(seed);
    let x = &instance.anchor.theta;
    let level = instance.anchor.eval.score + args.chord_level;
    let (fallbacks_before, bisected_before) =
        (fast.answers(Answer::Fallback), fast.bisected_ends());
    let (mut times, mut calls, mut lengths) = (Vec::new(), Vec::new(), Vec::new());
    let mut total_ms = 0.0;
    for _ in 0..count {
        let u = unit_vector(&mut rng, x.len());
        let range = instance
            .problem
            .line_domain(x, &u)
            .ok_or_else(|| CliError::Invalid("the anchor lies outside the CM domain".into()))?;
        let t = Instant::now();
        let chord = if args.bisect {
            chord_by_bisection(fast, x, &u, level, range, tol)?
        } else {
            fast.chord(x, &u, level, range, tol)?
        };
        let elapsed = ms(t);
        total_ms += elapsed;
        times.push(elapsed);
        calls.push(chord.queries as f64);
        lengths.push(chord.hi - chord.lo);
    }
    let total_calls: f64 = calls.iter().sum();
    Ok(ChordReport {
        chords: count,
        bisect: args.bisect,
        level,
        tol,
        chord_ms_median: median(times.clone()),
        chord_ms_max: times.iter().copied().fold(0.0, f64::max),
        member_calls_median: median(calls),
        ms_per_member_call: total_ms / total_calls.max(1.0),
        length_median: median(lengths),
        fallbacks: fast.answers(Answer::Fallback) - fallbacks_before,
        bisected_ends: fast.bisected_ends() - bisected_before,
    })
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// A uniformly random unit vector in `R^dim`.
pub fn unit_vector(rng: &mut StdRng, dim: usize) -> Vec<f64> {
    loop {
        let g: Vec<f64> = (0..dim)
            .map(|_| -> f64 { StandardNormal.sample(&mut *rng) })
            .collect();
        let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 1e-12 {
            return g.iter().map(|x| x / norm).collect();
        }
    }
}

/// The median (mean of the two middle values for an even count); `NaN` when empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}
