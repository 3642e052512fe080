//! `sosdp bench accuracy`: error against n of the private mean (MATH.md 5.1) and of every
//! baseline of MATH.md 6 on the same data: for each n and repetition one dataset of `n` draws
//! of `N(mu, I_d)`, `|mu| = --mean-norm`, with a fraction `--corruption` replaced by the
//! chosen adversary, and every method run on it. With `--delta D > 0` the sum-of-squares mean
//! is the localised one (no prior radius, MATH.md 5.5 (a)), beside its approximate-DP peer
//! without a prior (the localised clipped Laplace mean); the other methods keep `--radius`.
use super::{
    Progress, Rows, corruption_fraction, method_series, positive, positive_list, publish, read_rows,
};
use crate::CliError;
use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};
use sosdp_eval::calibration::Case;
use sosdp_eval::plot::{Figure, SeriesLabelPosition};
use sosdp_eval::{
    Adversary, ClippedLaplaceMean, CoinPressMean, CoordinateMedian, EmpiricalMean, FilterMean,
    LocalisedClippedMean, MeanEstimator, l2_error, quantile,
};
use sosdp_learn::{LearnError, Learner, LocalisedMean, Privacy, PrivateMean};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// The adversaries of MATH.md 6 for the mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AdversaryName {
    /// No corruption (the learners still assume the --corruption bound).
    None,
    /// (a) A tight cluster at --distance along the first axis.
    Cluster,
    /// (b) The records with the largest first coordinate moved to the mean of the rest.
    Subtractive,
    /// (c) Outliers scattered at --distance/2 to --distance around the mean.
    Scattered,
    /// (e) Draws of a second mixture component at --distance, labelled clean.
    Mixture,
}

impl AdversaryName {
    fn adversary(self, distance: f64) -> Adversary {
        match self {
            AdversaryName::None | AdversaryName::Scattered => {
                Adversary::ScatteredOutliers { distance }
            }
            AdversaryName::Cluster => Adversary::ShiftedCluster {
                distance,
                axis: 0,
                spread: 0.1,
            },
            AdversaryName::Subtractive => Adversary::Subtractive { axis: 0 },
            AdversaryName::Mixture => Adversary::MixtureNoise { distance },
        }
    }
}

#[derive(Debug, Args)]
pub struct AccuracyArgs {
    /// Dimension.
    #[arg(long, value_name = "D")]
    dim: usize,
    /// Sample sizes, comma-separated.
    #[arg(long, value_name = "N1,N2,..", value_delimiter = ',')]
    ns: Vec<usize>,
    /// Privacy parameter of the private methods (pure eps-DP; CoinPress gets rho = eps^2 / 2 zCDP).
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// Corrupted fraction, in [0, 0.5); also the corruption bound given to the robust methods.
    #[arg(
        long,
        value_name = "ETA",
        default_value_t = 0.05,
        allow_negative_numbers = true
    )]
    corruption: f64,
    /// The adversary of MATH.md 6.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = AdversaryName::Cluster)]
    adversary: AdversaryName,
    /// Distance of the adversary's points from the mean (cluster, scattered, mixture).
    #[arg(
        long,
        value_name = "T",
        default_value_t = 5.0,
        allow_negative_numbers = true
    )]
    distance: f64,
    /// delta > 0: the SoS mean without a prior radius, (eps, delta)-DP (MATH.md 5.5 (a)),
    /// beside the localised clipped Laplace mean (the same localisation, then a clipped mean);
    /// --radius then goes to the other private methods only (e.g. a generous 1e4 for CoinPress).
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    delta: f64,
    /// Prior radius R (|mu| <= R) given to the private methods (but the localised ones).
    #[arg(
        long,
        value_name = "R",
        default_value_t = 10.0,
        allow_negative_numbers = true
    )]
    radius: f64,
    /// Norm of the true mean (at most R).
    #[arg(
        long,
        value_name = "M",
        default_value_t = 5.0,
        allow_negative_numbers = true
    )]
    mean_norm: f64,
    /// Repetitions per n (new data each time).
    #[arg(long, value_name = "K", default_value_t = 3)]
    reps: usize,
    /// Output folder: accuracy.csv, accuracy.png, accuracy.svg, accuracy.md.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Base seed; repetition r at size n uses seed + n + r.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Run nothing: redraw the plot and the summary from DIR/accuracy.csv of an earlier run
    /// (pass that run's settings; they only label the outputs).
    #[arg(long)]
    replot: bool,
}

/// One CSV row: one method on one dataset.
#[derive(Debug, Serialize, Deserialize)]
struct Row {
    method: String,
    privacy: String,
    dim: usize,
    n: usize,
    rep: usize,
    seed: u64,
    error: f64,
    seconds: f64,
    /// "ok", or the error that stopped this method on this dataset.
    status: String,
}

pub fn run(args: &AccuracyArgs) -> Result<(), CliError> {
    positive_list("ns", &args.ns)?;
    positive("epsilon", args.epsilon)?;
    positive("radius", args.radius)?;
    positive("distance", args.distance)?;
    if args.dim == 0 || args.reps == 0 {
        return Err(CliError::Invalid(format!(
            "--dim and --reps must be at least 1, got {} and {}",
            args.dim, args.reps
        )));
    }
    corruption_fraction(args.corruption)?;
    if !(args.mean_norm.is_finite() && (0.0..=args.radius).contains(&args.mean_norm)) {
        return Err(CliError::Invalid(format!(
            "--mean-norm must be in [0, R = {}], got {}",
            args.radius, args.mean_norm
        )));
    }
    if args.replot {
        return report(args, &read_rows(&args.out.join("accuracy.csv"))?);
    }
    // The plans check every setting, --delta included (Privacy::validate).
    for &n in &args.ns {
        sos_plan(args, n).map_err(|e| CliError::Invalid(format!("n = {n}: {e}")))?;
    }

    let mut rows = Rows::create(&args.out, "accuracy.csv")?;
    let mut bar = Progress::new(args.ns.len() * args.reps * methods(args, 2).len());
    for &n in &args.ns {
        let methods = methods(args, n);
        for rep in 0..args.reps {
            let seed = args.seed + n as u64 + rep as u64;
            let case = Case {
                label: String::new(),
                n,
                d: args.dim,
                epsilon: args.epsilon,
                radius: args.radius,
                mean_norm: args.mean_norm,
                corruption: if args.adversary == AdversaryName::None {
                    0.0
                } else {
                    args.corruption
                },
                adversary: args.adversary.adversary(args.distance),
            };
            let (data, truth) = (case.sample(seed).data, case.mean());
            for method in &methods {
                bar.set_message(format!("n = {n}, rep {rep}: {}", method.name()));
                let start = Instant::now();
                let result = method.estimate(&data, seed);
                let seconds = start.elapsed().as_secs_f64();
                let (error, status) = match result {
                    Ok(estimate) => (l2_error(&estimate, &truth), "ok".to_string()),
                    Err(e) => (f64::NAN, e.to_string()),
                };
                let row = Row {
                    method: method.name(),
                    privacy: method.guarantee().to_string(),
                    dim: args.dim,
                    n,
                    rep,
                    seed,
                    error,
                    seconds,
                    status,
                };
                rows.push(row)?;
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    report(args, &rows.rows)
}

/// Write the plot and the summary of `rows` into the output folder, and print the summary.
fn report(args: &AccuracyArgs, rows: &[Row]) -> Result<(), CliError> {
    let series = method_series(
        rows.iter()
            .filter(|r| r.status == "ok")
            .map(|r| (r.method.as_str(), r.privacy.as_str(), r.n as f64, r.error)),
    );
    let figure = Figure {
        title: match args.adversary {
            AdversaryName::None => format!(
                "l2 error against n (d = {}, eps = {}, clean)",
                args.dim, args.epsilon
            ),
            a => format!(
                "l2 error against n (d = {}, eps = {}, {}% {})",
                args.dim,
                args.epsilon,
                100.0 * args.corruption,
                format!("{a:?}").to_lowercase()
            ),
        },
        x_label: "records n".into(),
        y_label: "l2 error of the mean".into(),
        legend: SeriesLabelPosition::LowerLeft,
    };
    publish(
        &args.out,
        "accuracy",
        &figure,
        &series,
        &summary(args, rows),
    )
}

/// The shared settings of the sum-of-squares mean.
fn sos_privacy(args: &AccuracyArgs) -> Privacy {
    Privacy::new(args.epsilon)
        .delta(args.delta)
        .corruption(args.corruption)
}

/// The sum-of-squares mean's plan for `n` records (checked before any run): the localised
/// one with `--delta`, else the pure one with `--radius`.
fn sos_plan(args: &AccuracyArgs, n: usize) -> Result<(), LearnError> {
    if args.delta > 0.0 {
        LocalisedMean::new(sos_privacy(args))
            .plan(n, args.dim)
            .map(|_| ())
    } else {
        PrivateMean::new(sos_privacy(args), args.radius)
            .plan(n, args.dim)
            .map(|_| ())
    }
}

/// sosdp and the baselines of MATH.md 6 for `n` records; with `--delta`, the localised
/// sum-of-squares mean and its approximate-DP peer first.
fn methods(args: &AccuracyArgs, n: usize) -> Vec<Box<dyn MeanEstimator>> {
    let sosdp: Vec<Box<dyn MeanEstimator>> = if args.delta > 0.0 {
        vec![
            Box::new(LocalisedMean::new(sos_privacy(args))),
            Box::new(LocalisedClippedMean {
                epsilon: args.epsilon,
                delta: args.delta,
            }),
        ]
    } else {
        vec![Box::new(PrivateMean::new(sos_privacy(args), args.radius))]
    };
    sosdp
        .into_iter()
        .chain::<Vec<Box<dyn MeanEstimator>>>(vec![
            Box::new(EmpiricalMean),
            Box::new(ClippedLaplaceMean::for_prior(
                args.epsilon,
                args.radius,
                n,
                args.dim,
            )),
            Box::new(CoordinateMedian),
            Box::new(CoinPressMean::matching_pure(args.epsilon, args.radius)),
            Box::new(FilterMean::new(args.corruption.max(0.01))),
        ])
        .collect()
}

/// The markdown table: per method and n, the median and largest error and the median time.
fn summary(args: &AccuracyArgs, rows: &[Row]) -> String {
    let adversary = format!("{:?}", args.adversary).to_lowercase();
    let corruption = if args.adversary == AdversaryName::None {
        "clean data".to_string()
    } else {
        format!(
            "{}% corrupted by `{adversary}` at distance {}",
            100.0 * args.corruption,
            args.distance
        )
    };
    let mut out = format!(
        "Accuracy, d = {}, eps = {}{delta}, {corruption}, R = {}{localised}, |mu| = {}, {} repetitions; robust methods assume corruption {} \
         (`sosdp bench accuracy --dim {} --ns {} --epsilon {}{delta_flag} --corruption {} --adversary {adversary} --distance {} --radius {} --mean-norm {} --reps {}`)\n\n",
        args.dim,
        args.epsilon,
        args.radius,
        args.mean_norm,
        args.reps,
        args.corruption,
        args.dim,
        args.ns
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
        args.epsilon,
        args.corruption,
        args.distance,
        args.radius,
        args.mean_norm,
        args.reps,
        delta = if args.delta > 0.0 {
            format!(", delta = {}", args.delta)
        } else {
            String::new()
        },
        localised = if args.delta > 0.0 {
            " (not given to the localised methods)"
        } else {
            ""
        },
        delta_flag = if args.delta > 0.0 {
            format!(" --delta {}", args.delta)
        } else {
            String::new()
        },
    );
    out.push_str("| method | privacy | n | median error | max error | median s | failed |\n|---|---|---|---|---|---|---|\n");
    let mut methods: Vec<&str> = Vec::new();
    for r in rows {
        if !methods.contains(&r.method.as_str()) {
            methods.push(&r.method);
        }
    }
    for method in methods {
        for &n in &args.ns {
            let here: Vec<&Row> = rows
                .iter()
                .filter(|r| r.method == method && r.n == n)
                .collect();
            let Some(first) = here.first() else { continue };
            let ok: Vec<&&Row> = here.iter().filter(|r| r.status == "ok").collect();
            let errors: Vec<f64> = ok.iter().map(|r| r.error).collect();
            let times: Vec<f64> = ok.iter().map(|r| r.seconds).collect();
            let max = errors.iter().copied().fold(f64::NAN, f64::max);
            let _ = writeln!(
                out,
                "| {method} | {} | {n} | {:.3} | {max:.3} | {:.2} | {} |",
                first.privacy,
                quantile(&errors, 0.5),
                quantile(&times, 0.5),
                here.len() - ok.len()
            );
        }
    }
    out
}
