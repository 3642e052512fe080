//! The private, robust mean (MATH.md 5.1) of a CSV file through the library API:
//! `PrivateMean::new(Privacy::new(eps).corruption(eta).seed(s), R).fit(&data)`, then the estimate, the
//! public per-stage plan (eps, radius, mechanism: CM with Gamma = G I and its score bound, or
//! additive with its noise scale; accuracy bound), the stage
//! centres and releases, and the elapsed time.
//!
//! ```sh
//! cargo run --release --example private_mean_csv                         # synthetic data
//! cargo run --release --example private_mean_csv -- X.csv [--header] --epsilon 1 --radius 10 [--corruption 0.05] [--seed 1]
//! cargo run --release --example private_mean_csv -- --write-sample X.csv # only write the synthetic CSV
//! ```
//!
//! The CSV is read with the library's reader (`sosdp::io::read_matrix`: comma-separated
//! numbers, one record per line; with `--header` the first line is a header and is skipped; the
//! synthetic sample has one). Without a path the example writes a
//! synthetic corrupted dataset to a temporary file and uses it: n = 4000 records of
//! N(mu, I_3), mu = (1, -2, 0.5), with 5% replaced by a tight cluster at distance 5 along the
//! first axis (then the corruption bound defaults to 0.05 and the error against mu is printed).
//! About 6 s in release.
//!
//! On the synthetic sample the example fixes a seed (1, or `--seed`) so that runs are
//! reproducible. On your CSV it uses fresh OS randomness unless `--seed` is given (a seeded
//! release is reproducible and not private: never publish one).
use rand::SeedableRng;
use rand::rngs::StdRng;
use sosdp::eval::synthetic::CorruptedSample;
use sosdp::eval::{Adversary, l2_error};
use sosdp::{Learner, Privacy, PrivateMean, StageMechanism};
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const SAMPLE_MEAN: [f64; 3] = [1.0, -2.0, 0.5];
const SAMPLE_N: usize = 4000;
const SAMPLE_CORRUPTION: f64 = 0.05;

struct Args {
    path: Option<PathBuf>,
    write_sample: Option<PathBuf>,
    epsilon: f64,
    radius: f64,
    corruption: Option<f64>,
    seed: Option<u64>,
    header: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        path: None,
        write_sample: None,
        epsilon: 1.0,
        radius: 10.0,
        corruption: None,
        seed: None,
        header: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        let number = |name: &str, v: String| {
            v.parse::<f64>()
                .map_err(|_| format!("{name}: '{v}' is not a number"))
        };
        match a.as_str() {
            "--epsilon" => args.epsilon = number("--epsilon", value("--epsilon")?)?,
            "--radius" => args.radius = number("--radius", value("--radius")?)?,
            "--corruption" => args.corruption = Some(number("--corruption", value("--corruption")?)?),
            "--seed" => {
                let v = value("--seed")?;
                args.seed = Some(v.parse().map_err(|_| format!("--seed: '{v}' is not a non-negative integer"))?);
            }
            "--header" => args.header = true,
            "--write-sample" => args.write_sample = Some(PathBuf::from(value("--write-sample")?)),
            "-h" | "--help" => {
                return Err("usage: private_mean_csv [X.csv [--header]] [--epsilon E] [--radius R] [--corruption ETA] [--seed S] | --write-sample FILE".into())
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            path if args.path.is_none() => args.path = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument {extra}")),
        }
    }
    Ok(args)
}

/// The synthetic corrupted dataset, written as CSV with a header row.
fn write_sample(path: &Path) -> std::io::Result<()> {
    let mut rng = StdRng::seed_from_u64(2023);
    let adversary = Adversary::ShiftedCluster {
        distance: 5.0,
        axis: 0,
        spread: 0.1,
    };
    let sample = CorruptedSample::identity_covariance(
        &mut rng,
        SAMPLE_N,
        &SAMPLE_MEAN,
        SAMPLE_CORRUPTION,
        &adversary,
    );
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "x1,x2,x3")?;
    for row in sample.data.row_iter() {
        let fields: Vec<String> = row.iter().map(|v| format!("{v:.6}")).collect();
        writeln!(out, "{}", fields.join(","))?;
    }
    out.flush()
}

fn rounded(v: &[f64]) -> Vec<f64> {
    v.iter().map(|x| (x * 1e4).round() / 1e4).collect()
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    if let Some(path) = &args.write_sample {
        write_sample(path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!(
            "wrote {SAMPLE_N} records of N({SAMPLE_MEAN:?}, I_3), {:.0}% in a cluster at distance 5, to {}",
            100.0 * SAMPLE_CORRUPTION,
            path.display()
        );
        return Ok(());
    }
    let (path, synthetic) = match &args.path {
        Some(p) => (p.clone(), false),
        None => {
            let p =
                std::env::temp_dir().join(format!("sosdp_private_mean_{}.csv", std::process::id()));
            write_sample(&p).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            println!(
                "no CSV given: wrote the synthetic sample ({SAMPLE_N} records of N({SAMPLE_MEAN:?}, I_3), 5% corrupted) to {}",
                p.display()
            );
            (p, true)
        }
    };
    let corruption = args
        .corruption
        .unwrap_or(if synthetic { SAMPLE_CORRUPTION } else { 0.0 });

    let data = sosdp::io::read_matrix(&path, sosdp::io::Header::data(synthetic || args.header))
        .map_err(|e| e.to_string())?;
    if synthetic {
        let _ = std::fs::remove_file(&path);
    }
    let (n, d) = data.shape();
    println!("data    : {n} records in R^{d} from {}", path.display());
    let seed = args.seed.or(synthetic.then_some(1));
    println!(
        "learner : eps = {} (pure DP, delta = 0), |mu| <= R = {}, corruption bound {corruption}, {}",
        args.epsilon,
        args.radius,
        match seed {
            Some(s) => format!("seed {s} (reproducible, NOT private)"),
            None => "OS randomness".into(),
        }
    );

    let privacy = Privacy::new(args.epsilon).corruption(corruption);
    let privacy = match seed {
        Some(s) => privacy.seed(s),
        None => privacy,
    };
    let learner = PrivateMean::new(privacy, args.radius);
    // The plan is public: it depends on (n, d, eps, R, corruption, beta) only, not on the data.
    let plan = learner.plan(n, d).map_err(|e| e.to_string())?;
    println!(
        "plan    : {} stage(s), final accuracy bound {:.4}",
        plan.stages.len(),
        plan.accuracy()
    );

    let mut current = usize::MAX;
    let fit = learner
        .fit_with_progress(&data, &mut |stage, _| {
            if stage != current {
                current = stage;
                eprintln!("  running stage {} of {}", stage + 1, plan.stages.len());
            }
            ControlFlow::Continue(())
        })
        .map_err(|e| e.to_string())?;

    println!();
    let release = &fit.release;
    println!("estimate: {:?}", rounded(release.estimate.as_slice()));
    if synthetic {
        println!(
            "error   : |mu_hat - mu| = {:.4} (mu = {SAMPLE_MEAN:?})",
            l2_error(release.estimate.as_slice(), &SAMPLE_MEAN)
        );
    }
    println!();
    println!("per-stage plan (public) and releases:");
    println!(
        "  {:>5} {:>7} {:>8} {:>28} {:>9}   centre -> release",
        "stage", "eps", "radius", "mechanism", "accuracy"
    );
    let centres = std::iter::once(vec![0.0; release.estimate.len()])
        .chain(release.stage_releases.iter().map(|r| r.release.clone()));
    for (j, ((s, r), centre)) in release
        .plan
        .stages
        .iter()
        .zip(&release.stage_releases)
        .zip(centres)
        .enumerate()
    {
        println!(
            "  {:>5} {:>7.4} {:>8.4} {:>28} {:>9.4}   {:?} -> {:?}",
            j + 1,
            s.epsilon,
            s.radius,
            match s.mechanism {
                StageMechanism::Cm {
                    gamma, score_bound, ..
                } => format!("CM, Gamma {gamma:.3} I, k* {score_bound:.1}"),
                StageMechanism::Additive { noise_scale, .. } => {
                    format!("additive, noise scale {noise_scale:.2e}")
                }
            },
            s.accuracy,
            rounded(&centre),
            rounded(&r.release)
        );
    }
    let spent: f64 = release.plan.stages.iter().map(|s| s.epsilon).sum();
    println!(
        "eps     : {spent} spent of {} (sum over stages), delta = {}",
        release.epsilon, release.delta
    );
    println!("time    : {:.1} s (not private)", fit.diagnostics.elapsed_s);
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
