//! `sosdp mechanism mean`: the exponential mechanism of one CM stage (MATH.md 1, 4), for
//! experts. Domain `Theta = B(c, R) ∩ {||theta - c||^2 <= G}` (the ball inside the CM domain),
//! score CM(X', c, G I) on the fast backend, anchor = the CM minimiser over `Theta`, where `X'`
//! are the records projected onto the public ball `B(c, R + rho_n)`,
//! `rho_n = sqrt(d) + sqrt(2 log(4 n / 0.05))` (the learners' projection at beta = 0.05, MATH.md
//! 5.1), so that no record can make a solve fail. Prints `K` independent releases as JSON lines
//! `{"theta": [...]}` (with `--record`, also what ran, under `non_private_record`).
//! `R` and `G` are limited as the private mean's stages are (`R <= 3000`, `G <= 1 + 3000^2`,
//! [`sosdp_learn::Constants`]), checked before the data are read.
//! Each release is `eps`-DP on its own; `K` releases together are `K eps`-DP — unless
//! `--seed` fixes the randomness, which voids the guarantee (a warning on stderr says so).
use crate::CliError;
use crate::problem::CmArgs;
use clap::{Args, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use serde_json::json;
use sosdp_sampler::{
    Ball, DirectionSetting, Ellipsoid, Intersection, MechanismSettings, SamplerKind, Start, release,
};
use sosdp_score::{BallDomain, FastCm};
use std::io::IsTerminal;
use std::ops::ControlFlow;

#[derive(Debug, Subcommand)]
pub enum MechanismCommand {
    /// One stage of the private mean: releases of the CM mechanism over a ball.
    Mean(MeanArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum SamplerArg {
    /// Volumes and level selection (MATH.md 4.4).
    LayerCake,
    /// Gibbs sampling on (level, theta) (MATH.md 4.5).
    Slice,
    /// Metropolis-adjusted Langevin steps on the same rounded target, after a slice burn-in
    /// (MATH.md 4.8).
    Mala,
}

impl SamplerArg {
    /// The sampling path this names.
    pub fn kind(self) -> SamplerKind {
        match self {
            SamplerArg::LayerCake => SamplerKind::LayerCake,
            SamplerArg::Slice => SamplerKind::Slice,
            SamplerArg::Mala => SamplerKind::Mala,
        }
    }
}

#[derive(Debug, Args)]
pub struct MeanArgs {
    #[command(flatten)]
    problem: CmArgs,
    /// Radius R > 0 of the domain ball around the centre.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: f64,
    /// Privacy parameter eps > 0 of each release (pure DP).
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// Number of independent releases K >= 1.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 1,
        allow_negative_numbers = true
    )]
    draws: i64,
    /// Seed of the sampler's randomness (reproducible runs; omit for fresh OS randomness, as a
    /// published release should: seeded releases are not private, and a warning on stderr says
    /// so).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Sampling path.
    #[arg(long, value_enum, default_value_t = SamplerArg::Slice)]
    sampler: SamplerArg,
    /// Counted Gibbs iterations of the slice path (default 40 d).
    #[arg(long, value_name = "N")]
    iterations: Option<usize>,
    /// Pilot iterations that fix the rounded directions before the counted ones (default
    /// 20 d; 0: isotropic directions, no pilot).
    #[arg(long, value_name = "N")]
    pilot: Option<usize>,
    /// Uniform samples per rung of the layer-cake volume ladder (default 100).
    #[arg(long, value_name = "N")]
    rung_samples: Option<usize>,
    /// Also print the record of each release (levels, chains, volumes, oracle calls, time)
    /// under the key "non_private_record": it is computed from the data and not private.
    #[arg(long)]
    record: bool,
}

pub fn run(command: &MechanismCommand) -> Result<(), CliError> {
    match command {
        MechanismCommand::Mean(args) => mean(args),
    }
}

fn settings(args: &MeanArgs, dim: usize) -> Result<MechanismSettings, CliError> {
    let mut s = MechanismSettings::new(args.epsilon, dim)
        .map_err(|e| CliError::Invalid(format!("--epsilon: {e}")))?;
    s.sampler = args.sampler.kind();
    if let Some(n) = args.iterations {
        s.slice.iterations = n;
    }
    match args.pilot {
        Some(0) => s.directions = DirectionSetting::Isotropic,
        Some(pilot) => s.directions = DirectionSetting::Rounded { pilot },
        None => {}
    }
    if let Some(n) = args.rung_samples {
        s.layer_cake.samples = n;
    }
    Ok(s)
}

fn mean(args: &MeanArgs) -> Result<(), CliError> {
    if !(args.radius.is_finite() && args.radius > 0.0) {
        return Err(CliError::Invalid(format!(
            "--radius must be positive and finite, got {}",
            args.radius
        )));
    }
    if args.draws < 1 {
        return Err(CliError::Invalid(format!(
            "--draws must be at least 1, got {}",
            args.draws
        )));
    }
    let max_radius = sosdp_learn::Constants::default().max_radius;
    if args.radius > max_radius || args.problem.gamma > 1.0 + max_radius * max_radius {
        return Err(CliError::Invalid(format!(
            "--radius {} or --gamma {} is beyond the largest the solves resolve (R <= {max_radius}, G <= 1 + R^2)",
            args.radius, args.problem.gamma
        )));
    }
    // Settings are validated before the data are read.
    settings(args, 1)?;
    let (data, centre) = args.problem.read()?;
    let spread = sosdp_learn::projection::clean_radius(data.nrows(), data.ncols(), 0.25 * 0.05);
    let problem = args.problem.problem(
        &sosdp_learn::projection::project_rows(&data, &centre, args.radius + spread),
        &centre,
    )?;
    let settings = settings(args, problem.dim())?;
    let centre: Vec<f64> = problem.centre().iter().copied().collect();
    let domain = Intersection::new(vec![
        Box::new(
            Ball::new(centre.clone(), args.radius).map_err(|e| CliError::Invalid(e.to_string()))?,
        ),
        Box::new(
            Ellipsoid::new(centre.clone(), problem.gamma())
                .map_err(|e| CliError::Invalid(e.to_string()))?,
        ),
    ])
    .map_err(|e| CliError::Invalid(e.to_string()))?;
    let oracle = FastCm::new(problem);
    // Slice and MALA chains start at the public centre (MATH.md 4.7b); the layer-cake path
    // (an experiment) needs the anchor's score to end its volume ladder.
    let start = match settings.sampler {
        SamplerKind::LayerCake => {
            let anchor = oracle.minimise(Some(&BallDomain {
                centre,
                radius: args.radius,
            }))?;
            Start {
                theta: anchor.theta,
                score_upper: anchor.eval.upper,
            }
        }
        SamplerKind::Slice | SamplerKind::Mala => Start {
            score_upper: sosdp_score::ScoreOracle::max_score(&oracle),
            theta: centre,
        },
    };
    super::warn_if_seeded(args.seed);
    // Draw k's randomness: from `--seed` (an experiment), or from a 256-bit key drawn from the
    // OS with k in its last 8 bytes (every draw with a full-width seed).
    let key: [u8; 32] = match args.seed {
        Some(_) => [0; 32],
        None => sosdp_learn::privacy::seeded_rng(None)
            .map_err(|e| CliError::Invalid(e.to_string()))?
            .random(),
    };
    let draw_rng = |k: u64| match args.seed {
        Some(s) => StdRng::seed_from_u64(s.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(k)),
        None => {
            let mut seed = key;
            for (byte, x) in seed[24..].iter_mut().zip(k.to_le_bytes()) {
                *byte ^= x;
            }
            StdRng::from_seed(seed)
        }
    };
    let bar = progress_bar(&settings, args.draws as u64);
    let releases: Vec<_> = (0..args.draws as u64)
        .into_par_iter()
        .map(|k| {
            let mut rng = draw_rng(k);
            let oracle = oracle.clone();
            release(&oracle, &domain, &start, &settings, &mut rng, &mut |p| {
                if p.phase == "slice" {
                    bar.inc(1);
                } else {
                    bar.set_message(format!("{} {}", p.phase, p.done));
                    bar.tick();
                }
                ControlFlow::Continue(())
            })
        })
        .collect();
    bar.finish_and_clear();
    for r in releases {
        let r = r.map_err(|e| CliError::Invalid(format!("the mechanism failed: {e}")))?;
        let line = if args.record {
            json!({"theta": r.theta, "non_private_record": r.record})
        } else {
            json!({"theta": r.theta})
        };
        println!("{line}");
    }
    Ok(())
}

/// A bar on stderr when it is a terminal (hidden otherwise): slice iterations over all draws,
/// or a spinner with the layer-cake's phase.
fn progress_bar(settings: &MechanismSettings, draws: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    match settings.sampler {
        SamplerKind::Slice => {
            let bar = ProgressBar::new(draws * settings.slice.iterations as u64);
            bar.set_style(
                ProgressStyle::with_template("[{bar:40}] {pos}/{len} slice iterations")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        }
        SamplerKind::LayerCake | SamplerKind::Mala => {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar
        }
    }
}
