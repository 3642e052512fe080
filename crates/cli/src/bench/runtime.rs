//! `sosdp bench runtime`: time of one private-mean fit (MATH.md 5.1), of CoinPress's mean on
//! the same data, and of one cold score evaluation (the fast CM backend, 3.2) against the
//! dimension.
//!
//! The fit runs on `n` draws of `N(mu, I_d)`, `|mu| = 5`, with a fraction `--corruption`
//! replaced by a tight cluster at distance 5 (adversary (a) of MATH.md 6), at `--epsilon`,
//! prior radius 10 and the same corruption bound; `n` is `--n`, or `--n-per-dim` times `d`
//! capped at `--max-n` (so that every dimension has the records its CM stages need). CoinPress
//! (rho = eps^2 / 2 zCDP, the same R) runs on the same data. The score evaluation is the
//! instance of `sosdp bench score` (its own seeded data of size `n x d`), evaluated cold at one
//! random theta near its minimiser. Each repetition draws new data.
//!
//! Each fit row names its plan's stage mechanisms (`plan`: e.g. `additive+cm+cm`, fixed by
//! `(n, d)` before the data are read). Where the plan has no CM stage (at a small `n` for the
//! dimension, one additive stage), the fit is a pass over the records, not the mechanism whose
//! cost this harness measures: such dimensions are listed but left out of the fit's growth
//! exponent.
use super::{
    Progress, Rows, ScoreInstance, corruption_fraction, positive, positive_list, publish, read_rows,
};
use crate::CliError;
use clap::Args;
use serde::{Deserialize, Serialize};
use sosdp_eval::calibration::Case;
use sosdp_eval::plot::{Figure, Series, SeriesLabelPosition, growth_exponent};
use sosdp_eval::{Adversary, CoinPressMean, MeanEstimator, l2_error, quantile};
use sosdp_learn::{Learner, Privacy, PrivateMean, Schedule, StageMechanism};
use sosdp_score::{FastCm, ScoreOracle};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

/// Prior radius of the fits (`|mu| <= R`).
const RADIUS: f64 = 10.0;
/// Norm of the true mean of the fits.
const MEAN_NORM: f64 = 5.0;
/// Distance of the adversary's cluster.
const CLUSTER_DISTANCE: f64 = 5.0;

const FIT: &str = "private-mean fit";
const COINPRESS: &str = "CoinPress mean (zCDP)";
const SCORE: &str = "cold score evaluation (fast backend)";

#[derive(Debug, Args)]
pub struct RuntimeArgs {
    /// Dimensions, comma-separated.
    #[arg(
        long,
        value_name = "D1,D2,..",
        value_delimiter = ',',
        default_value = "2,5,10,20,50"
    )]
    dims: Vec<usize>,
    /// Number of records, the same at every dimension (or give --n-per-dim).
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "n_per_dim",
        required_unless_present = "n_per_dim"
    )]
    n: Option<usize>,
    /// Records per dimension: n = K d at dimension d, capped at --max-n.
    #[arg(long, value_name = "K")]
    n_per_dim: Option<usize>,
    /// The cap of --n-per-dim.
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_n: usize,
    /// Repetitions per dimension (new data each time).
    #[arg(long, value_name = "K", default_value_t = 3)]
    reps: usize,
    /// Output folder: runtime.csv, runtime.png, runtime.svg, runtime.md.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Privacy parameter of the fits.
    #[arg(
        long,
        value_name = "E",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    epsilon: f64,
    /// Corrupted fraction of the fit data, also the fits' corruption bound, in [0, 0.5).
    #[arg(
        long,
        value_name = "ETA",
        default_value_t = 0.05,
        allow_negative_numbers = true
    )]
    corruption: f64,
    /// Time fits only up to this dimension (score evaluations run for every dimension).
    #[arg(long, value_name = "D")]
    max_fit_dim: Option<usize>,
    /// Base seed; repetition r of dimension d uses seed + 1000 d + r.
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Run nothing: redraw the plot and the summary from DIR/runtime.csv of an earlier run
    /// (pass that run's settings; they only label the outputs).
    #[arg(long)]
    replot: bool,
}

/// One CSV row.
#[derive(Debug, Serialize, Deserialize)]
struct Row {
    kind: String,
    dim: usize,
    n: usize,
    rep: usize,
    seed: u64,
    seconds: f64,
    /// l2 error of the fit (empty for score evaluations).
    error: Option<f64>,
    /// "ok", or the error that stopped this measurement.
    status: String,
    /// The fit's planned stage mechanisms joined by `+` (`additive`, `cm`); empty for score
    /// evaluations and in CSV files written before this column existed.
    #[serde(default)]
    plan: String,
}

impl RuntimeArgs {
    /// The number of records at dimension `d`.
    fn n(&self, d: usize) -> usize {
        match (self.n, self.n_per_dim) {
            (Some(n), _) => n,
            (None, Some(k)) => (k * d).min(self.max_n),
            (None, None) => unreachable!("clap requires --n or --n-per-dim"),
        }
    }

    /// The records per dimension, as the plot and the table say it.
    fn n_label(&self) -> String {
        match self.n_per_dim {
            Some(k) => format!("n = {k} d (at most {})", self.max_n),
            None => format!("n = {}", self.n(1)),
        }
    }

    /// The records' option as the command line gives it.
    fn n_flag(&self) -> String {
        match self.n_per_dim {
            Some(k) => format!("--n-per-dim {k} --max-n {}", self.max_n),
            None => format!("--n {}", self.n(1)),
        }
    }
}

pub fn run(args: &RuntimeArgs) -> Result<(), CliError> {
    positive_list("dims", &args.dims)?;
    positive("epsilon", args.epsilon)?;
    if args.dims.iter().any(|&d| args.n(d) < 2) || args.reps == 0 {
        return Err(CliError::Invalid(format!(
            "every dimension needs at least 2 records (--n, --n-per-dim) and --reps at least 1, got {} and {}",
            args.n_flag(),
            args.reps
        )));
    }
    corruption_fraction(args.corruption)?;
    if args.replot {
        return report(args, &read_rows(&args.out.join("runtime.csv"))?);
    }
    let fits = |d: usize| args.max_fit_dim.is_none_or(|m| d <= m);
    // Every fit's plan, checked before anything runs; its stage kinds label the fit's rows.
    let plans = args
        .dims
        .iter()
        .filter(|&&d| fits(d))
        .map(|&d| {
            learner(args)
                .plan(args.n(d), d)
                .map(|plan| (d, stage_kinds(&plan)))
                .map_err(|e| CliError::Invalid(format!("d = {d}, n = {}: {e}", args.n(d))))
        })
        .collect::<Result<std::collections::BTreeMap<usize, String>, CliError>>()?;

    let mut rows = Rows::create(&args.out, "runtime.csv")?;
    let total = args
        .dims
        .iter()
        .map(|&d| if fits(d) { 3 } else { 1 })
        .sum::<usize>()
        * args.reps;
    let mut bar = Progress::new(total);
    for &d in &args.dims {
        for rep in 0..args.reps {
            let seed = args.seed + 1000 * d as u64 + rep as u64;
            if let Some(plan) = plans.get(&d) {
                bar.set_message(format!("fits d = {d}, rep {rep}"));
                for row in fits_on_one_sample(args, d, rep, seed, plan) {
                    rows.push(row)?;
                    bar.inc(1);
                }
            }
            bar.set_message(format!("score d = {d}, rep {rep}"));
            let row = score(args.n(d), d, rep, seed);
            rows.push(row)?;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    report(args, &rows.rows)
}

/// Write the plot and the summary of `rows` into the output folder, and print the summary.
fn report(args: &RuntimeArgs, rows: &[Row]) -> Result<(), CliError> {
    let ok = |kind: &'static str| {
        rows.iter()
            .filter(move |r| r.kind == kind && r.status == "ok")
    };
    let mut series = [FIT, COINPRESS, SCORE].map(|kind| Series {
        label: kind.into(),
        points: ok(kind).map(|r| (r.dim as f64, r.seconds)).collect(),
        dashed: false,
    });
    // Fits whose plan has no CM stage: shown, but not in the fit's exponent.
    let additive_only: Vec<usize> = args
        .dims
        .iter()
        .copied()
        .filter(|&d| ok(FIT).any(|r| r.dim == d && !r.plan.is_empty() && !r.plan.contains("cm")))
        .collect();
    let fit_errors: Vec<(&str, usize, f64)> = rows
        .iter()
        .filter(|r| r.status == "ok")
        .filter_map(|r| r.error.map(|e| (r.kind.as_str(), r.dim, e)))
        .collect();
    let summary = summary(args, &series, &fit_errors, rows, &additive_only);
    for s in &mut series {
        s.label = match growth_exponent(&exponent_points(s, &additive_only)) {
            Some(a) => format!("{}: time ~ d^{a:.2}", s.label),
            None => s.label.clone(),
        };
    }
    let figure = Figure {
        title: format!(
            "sosdp runtime against dimension ({}, eps = {}, {}% corrupted)",
            args.n_label(),
            args.epsilon,
            100.0 * args.corruption
        ),
        x_label: "dimension d".into(),
        y_label: "seconds".into(),
        legend: SeriesLabelPosition::UpperLeft,
    };
    publish(&args.out, "runtime", &figure, &series, &summary)
}

/// The medians of `series` that enter its growth exponent: for the fit, only dimensions whose
/// plan has a CM stage.
fn exponent_points(series: &Series, additive_only: &[usize]) -> Vec<(f64, f64)> {
    series
        .medians()
        .into_iter()
        .filter(|(d, _)| series.label != FIT || !additive_only.contains(&(*d as usize)))
        .collect()
}

/// A plan's stage mechanisms, joined by `+`.
fn stage_kinds(plan: &Schedule) -> String {
    plan.stages
        .iter()
        .map(|s| match s.mechanism {
            StageMechanism::Additive { .. } => "additive",
            StageMechanism::Cm { .. } => "cm",
        })
        .collect::<Vec<_>>()
        .join("+")
}

fn learner(args: &RuntimeArgs) -> PrivateMean {
    PrivateMean::new(
        Privacy::new(args.epsilon).corruption(args.corruption),
        RADIUS,
    )
}

/// The private-mean fit and CoinPress's mean on one sample of dimension `d`.
fn fits_on_one_sample(args: &RuntimeArgs, d: usize, rep: usize, seed: u64, plan: &str) -> [Row; 2] {
    let adversary = Adversary::ShiftedCluster {
        distance: CLUSTER_DISTANCE,
        axis: 0,
        spread: 0.1,
    };
    let n = args.n(d);
    let case = Case {
        label: String::new(),
        n,
        d,
        epsilon: args.epsilon,
        radius: RADIUS,
        mean_norm: MEAN_NORM,
        corruption: args.corruption,
        adversary,
    };
    let data = case.sample(seed).data;
    let row = |kind: &str, plan: &str, estimator: &dyn MeanEstimator| {
        let start = Instant::now();
        let result = estimator.estimate(&data, seed);
        let seconds = start.elapsed().as_secs_f64();
        let (error, status) = match result {
            Ok(estimate) => (Some(l2_error(&estimate, &case.mean())), "ok".into()),
            Err(e) => (None, e.to_string()),
        };
        Row {
            kind: kind.into(),
            dim: d,
            n,
            rep,
            seed,
            seconds,
            error,
            plan: plan.to_string(),
            status,
        }
    };
    [
        row(FIT, plan, &learner(args)),
        row(
            COINPRESS,
            "",
            &CoinPressMean::matching_pure(args.epsilon, RADIUS),
        ),
    ]
}

fn score(n: usize, d: usize, rep: usize, seed: u64) -> Row {
    let timed = || -> Result<f64, CliError> {
        let instance = ScoreInstance::new(n, d, seed)?;
        let theta = instance.ball_thetas(1, super::theta_seed(seed))?.remove(0);
        let oracle = FastCm::new(instance.problem.clone());
        let start = Instant::now();
        oracle.evaluate(&theta)?;
        Ok(start.elapsed().as_secs_f64())
    };
    let (seconds, status) = match timed() {
        Ok(s) => (s, "ok".into()),
        Err(e) => (f64::NAN, e.to_string()),
    };
    Row {
        kind: SCORE.into(),
        dim: d,
        n,
        rep,
        seed,
        seconds,
        error: None,
        plan: String::new(),
        status,
    }
}

/// The markdown table: median and largest time per (kind, d), the fits' median error and plan,
/// and the growth exponents (the private fit's over the dimensions whose plan has a CM stage).
fn summary(
    args: &RuntimeArgs,
    series: &[Series; 3],
    fit_errors: &[(&str, usize, f64)],
    rows: &[Row],
    additive_only: &[usize],
) -> String {
    let mut out = format!(
        "Runtime, {}, eps = {}, corruption {} (`sosdp bench runtime --dims {} {} --reps {} --epsilon {} --corruption {}{}`)\n\n",
        args.n_label(),
        args.epsilon,
        args.corruption,
        args.dims
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
        args.n_flag(),
        args.reps,
        args.epsilon,
        args.corruption,
        args.max_fit_dim
            .map_or(String::new(), |m| format!(" --max-fit-dim {m}")),
    );
    out.push_str(
        "| what | d | n | runs | median s | max s | median l2 error | plan |\n|---|---|---|---|---|---|---|---|\n",
    );
    for s in series {
        for &d in &args.dims {
            let times: Vec<f64> = s
                .points
                .iter()
                .filter(|p| p.0 == d as f64)
                .map(|p| p.1)
                .collect();
            if times.is_empty() {
                continue;
            }
            let errors: Vec<f64> = fit_errors
                .iter()
                .filter(|e| e.1 == d && e.0 == s.label)
                .map(|e| e.2)
                .collect();
            let error = if errors.is_empty() {
                "".into()
            } else {
                format!("{:.3}", quantile(&errors, 0.5))
            };
            let max = times.iter().copied().fold(0.0, f64::max);
            let plan = rows
                .iter()
                .find(|r| r.kind == s.label && r.dim == d && r.status == "ok")
                .map_or("", |r| r.plan.as_str());
            let _ = writeln!(
                out,
                "| {} | {d} | {} | {} | {:.3} | {max:.3} | {error} | {plan} |",
                s.label,
                args.n(d),
                times.len(),
                quantile(&times, 0.5)
            );
        }
    }
    for s in series {
        if let Some(a) = growth_exponent(&exponent_points(s, additive_only)) {
            let _ = writeln!(
                out,
                "\n{}: fitted growth exponent {a:.2} (least squares on log median time against log d).",
                s.label
            );
        }
    }
    if !additive_only.is_empty() {
        let _ = writeln!(
            out,
            "\nPrivate fits at d = {} have no CM stage at their n (additive stages only: one pass over the records, accuracy near the prior), so they are left out of the fit's exponent.",
            additive_only
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    out
}
