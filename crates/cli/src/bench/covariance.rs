//! `sosdp bench covariance`: covariance (and Gaussian) accuracy against n of sosdp and the
//! baselines of MATH.md 6 on the same data. For each n and repetition one dataset of `n` draws
//! of `N(mu, Sigma)`, `Sigma = Q diag(geometric over [1, cond]) Q^T` with a random rotation
//! `Q`, `|mu| = --mean-norm`, a fraction `--corruption` replaced by the chosen adversary; then
//! on it:
//! - sosdp: `PrivateGaussian` (`--learner gaussian`) or `PrivateCovariance`
//!   (`--learner covariance`), pure eps-DP;
//! - CoinPress covariance (`rho = eps^2 / 2` zCDP, a weaker guarantee than pure eps-DP) on the
//!   paired records, with the authors' `|Z|` quirk; in gaussian mode it gets `3/4` of `rho`
//!   and CoinPress's mean the other `1/4`, run on the records whitened by the CoinPress
//!   covariance (`mu_hat = Sigma_hat^{1/2} theta_hat`);
//! - the empirical (sample) covariance and mean, not private;
//! - FastMCD with reweighting (`sosdp_eval::mcd`, default settings: support
//!   `h = floor((n + d + 1) / 2)`, 500 starts), the robust non-private reference: covariance
//!   and mean.
//!
//! The plot dashes the non-private methods and labels them "(non-private)".
//!
//! Errors (MATH.md 6): `|Sigma^{-1/2} S Sigma^{-1/2} - I|_F` and `_op`, and the Mahalanobis
//! mean error `|Sigma^{-1/2} (mu_hat - mu)|` where a mean is estimated.
use super::{
    Progress, Rows, corruption_fraction, method_series, positive, positive_list, publish, read_rows,
};
use crate::CliError;
use clap::{Args, ValueEnum};
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};
use sosdp_eval::plot::{Figure, SeriesLabelPosition};
use sosdp_eval::{
    CoinPressCovariance, CoinPressMean, CovarianceAdversary, CovarianceEstimator,
    EmpiricalCovariance, EmpiricalMean, FastMcd, MeanEstimator, covariance_sample_with,
    frobenius_error, mahalanobis_error, quantile, spectral_error,
};
use sosdp_learn::symmetric::spd_power;
use sosdp_learn::{Learner as _, Privacy, PrivateCovariance, PrivateGaussian};
use std::fmt::Write as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::time::Instant;

/// The covariance adversaries of MATH.md 6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum AdversaryName {
    /// No corruption (the learners still assume the --corruption bound).
    None,
    /// Far outliers: mu + 15 sqrt(lambda_min) v_min + N(0, 0.01 I), all on one side of the
    /// thinnest direction v_min of Sigma.
    Far,
    /// A tight cluster 6 Mahalanobis units out: mu + 6 sqrt(lambda_min) v_min + N(0, 0.01^2 I).
    Cluster,
    /// (d) Records along the empirical least-variance direction with its variance inflated 10x.
    Inflated,
    /// (b) The records farthest out along the thinnest direction v_min (largest
    /// |<x - mu, v_min>|) moved to mu: the variance along v_min shrinks (to 0.72 lambda_min at
    /// 5%).
    Subtractive,
}

impl AdversaryName {
    fn adversary(self) -> CovarianceAdversary {
        match self {
            AdversaryName::None | AdversaryName::Far => CovarianceAdversary::far(),
            AdversaryName::Cluster => CovarianceAdversary::cluster(),
            AdversaryName::Inflated => CovarianceAdversary::inflated(),
            AdversaryName::Subtractive => CovarianceAdversary::Subtractive,
        }
    }

    fn label(self) -> &'static str {
        match self {
            AdversaryName::None => "none",
            AdversaryName::Far => "far",
            AdversaryName::Cluster => "cluster",
            AdversaryName::Inflated => "inflated",
            AdversaryName::Subtractive => "subtractive",
        }
    }
}

/// Which sosdp learner is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Learner {
    /// PrivateGaussian: covariance and mean (the mean error is reported too).
    Gaussian,
    /// PrivateCovariance: the covariance only.
    Covariance,
}

#[derive(Debug, Args)]
pub struct CovarianceArgs {
    /// Dimension.
    #[arg(long, value_name = "D")]
    dim: usize,
    /// Sample sizes (records, before pairing), comma-separated.
    #[arg(long, value_name = "N1,N2,..", value_delimiter = ',', required = true)]
    ns: Vec<usize>,
    /// Privacy parameter: sosdp is pure eps-DP; CoinPress gets rho = eps^2 / 2 zCDP (weaker).
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// The prior I ⪯ Sigma ⪯ K I given to sosdp and CoinPress.
    #[arg(
        long,
        value_name = "K",
        default_value_t = 100.0,
        allow_negative_numbers = true
    )]
    kappa: f64,
    /// Condition number of the true Sigma (eigenvalues geometric over [1, cond]); at most K.
    #[arg(
        long,
        value_name = "C",
        default_value_t = 50.0,
        allow_negative_numbers = true
    )]
    cond: f64,
    /// Prior radius R (|mu| <= R) given to the mean steps (gaussian mode).
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
    /// Corrupted fraction, in [0, 0.5); also the corruption bound given to sosdp.
    #[arg(
        long,
        value_name = "ETA",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    corruption: f64,
    /// The adversary that replaces the corrupted records.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = AdversaryName::None)]
    adversary: AdversaryName,
    /// The sosdp learner to measure.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = Learner::Gaussian)]
    learner: Learner,
    /// Steps T of CoinPress covariance (budget split [1/4, 3/4] at T = 2, the authors' demo).
    #[arg(long, value_name = "T", default_value_t = CoinPressCovariance::DEFAULT_STEPS)]
    coinpress_steps: usize,
    /// Repetitions per n (new data each time).
    #[arg(long, value_name = "REPS", default_value_t = 3)]
    reps: usize,
    /// Output folder: covariance.csv, covariance.png, covariance.svg, covariance.md.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Base seed; repetition r at size n uses seed + n + r (data and every method).
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Run nothing: redraw the plot and the summary from DIR/covariance.csv of an earlier run
    /// (pass that run's settings; they only label the outputs).
    #[arg(long)]
    replot: bool,
}

/// One CSV row: one method on one dataset. Errors are NaN where the method failed or does not
/// estimate that quantity (the mean in covariance mode, for instance).
#[derive(Debug, Serialize, Deserialize)]
struct Row {
    method: String,
    privacy: String,
    dim: usize,
    n: usize,
    rep: usize,
    seed: u64,
    /// `|Sigma^{-1/2} S Sigma^{-1/2} - I|_F`.
    frobenius: f64,
    /// `|Sigma^{-1/2} S Sigma^{-1/2} - I|_op`.
    operator: f64,
    /// `|Sigma^{-1/2} (mu_hat - mu)|_2`.
    mahalanobis: f64,
    seconds: f64,
    /// "ok", or the error that stopped this method on this dataset.
    status: String,
}

/// What a method returns: the covariance and, when estimated, the mean.
type Estimate = (DMatrix<f64>, Option<Vec<f64>>);

/// A method run on one dataset with a seed; an error is its message.
type RunFn = Box<dyn Fn(&DMatrix<f64>, u64) -> Result<Estimate, String>>;

/// One method on one dataset.
struct Method {
    name: String,
    privacy: String,
    run: RunFn,
}

/// sosdp and the baselines for these settings.
fn methods(args: &CovarianceArgs) -> Vec<Method> {
    let (eps, kappa, radius, eta) = (args.epsilon, args.kappa, args.radius, args.corruption);
    let rho = eps * eps / 2.0;
    let sosdp = match args.learner {
        Learner::Gaussian => Method {
            name: format!("sosdp PrivateGaussian (eps = {eps})"),
            privacy: format!("pure eps = {eps}"),
            run: Box::new(move |data, seed| {
                let privacy = Privacy::new(eps).corruption(eta).seed(seed);
                let fit = PrivateGaussian::new(privacy, radius, kappa)
                    .fit(data)
                    .map_err(|e| e.to_string())?;
                let estimate = fit.release.estimate;
                Ok((estimate.covariance, Some(estimate.mean.as_slice().to_vec())))
            }),
        },
        Learner::Covariance => Method {
            name: format!("sosdp PrivateCovariance (eps = {eps})"),
            privacy: format!("pure eps = {eps}"),
            run: Box::new(move |data, seed| {
                let privacy = Privacy::new(eps).corruption(eta).seed(seed);
                let fit = PrivateCovariance::new(privacy, kappa)
                    .fit(data)
                    .map_err(|e| e.to_string())?;
                Ok((fit.release.estimate, None))
            }),
        },
    };
    let steps = args.coinpress_steps;
    let coinpress = match args.learner {
        Learner::Covariance => {
            let cp = CoinPressCovariance::new(rho, kappa).with_steps(steps);
            Method {
                name: cp.name(),
                privacy: format!("zCDP rho = {rho} (= eps^2/2)"),
                run: Box::new(move |data, seed| {
                    Ok((cp.fit(data, seed).map_err(|e| e.to_string())?, None))
                }),
            }
        }
        Learner::Gaussian => {
            let cp = CoinPressCovariance::new(0.75 * rho, kappa).with_steps(steps);
            let mean = CoinPressMean::new(0.25 * rho, radius);
            Method {
                name: format!("{} + CoinPress mean (whitened)", cp.name()),
                privacy: format!("zCDP rho = {rho} (= eps^2/2; 3/4 covariance, 1/4 mean)"),
                run: Box::new(move |data, seed| {
                    let sigma = cp.fit(data, seed).map_err(|e| e.to_string())?;
                    // Whiten by the (private) CoinPress covariance: theta = Sigma_hat^{-1/2} mu
                    // has |theta| <= |mu| <= R when Sigma_hat ⪰ I, as Sigma is.
                    let whitened = data * spd_power(&sigma, -0.5);
                    let theta = mean
                        .estimate(&whitened, seed.wrapping_add(1))
                        .map_err(|e| e.to_string())?;
                    let mu = spd_power(&sigma, 0.5) * nalgebra::DVector::from_vec(theta);
                    Ok((sigma, Some(mu.iter().copied().collect())))
                }),
            }
        }
    };
    let empirical = Method {
        name: "empirical covariance and mean".into(),
        privacy: "none".into(),
        run: Box::new(|data, seed| {
            let sigma = EmpiricalCovariance
                .estimate(data, seed)
                .map_err(|e| e.to_string())?;
            let mu = EmpiricalMean
                .estimate(data, seed)
                .map_err(|e| e.to_string())?;
            Ok((sigma, Some(mu)))
        }),
    };
    let mcd = FastMcd::default();
    let robust = Method {
        name: mcd.name(),
        privacy: "none".into(),
        run: Box::new(move |data, seed| {
            let fit = mcd.fit(data, seed).map_err(|e| e.to_string())?;
            Ok((fit.covariance, Some(fit.location)))
        }),
    };
    vec![sosdp, coinpress, empirical, robust]
}

fn check(args: &CovarianceArgs) -> Result<(), CliError> {
    positive_list("ns", &args.ns)?;
    positive("epsilon", args.epsilon)?;
    positive("radius", args.radius)?;
    if args.dim == 0 || args.reps == 0 {
        return Err(CliError::Invalid(format!(
            "--dim and --reps must be at least 1, got {} and {}",
            args.dim, args.reps
        )));
    }
    if !(args.kappa.is_finite() && args.kappa >= 1.0) {
        return Err(CliError::Invalid(format!(
            "--kappa must be finite and at least 1, got {}",
            args.kappa
        )));
    }
    if !(args.cond.is_finite() && args.cond >= 1.0 && args.cond <= args.kappa) {
        return Err(CliError::Invalid(format!(
            "--cond must lie in [1, K = {}] (the prior I ⪯ Sigma ⪯ K I must hold), got {}",
            args.kappa, args.cond
        )));
    }
    corruption_fraction(args.corruption)?;
    if !(args.mean_norm.is_finite() && (0.0..=args.radius).contains(&args.mean_norm)) {
        return Err(CliError::Invalid(format!(
            "--mean-norm must be in [0, R = {}], got {}",
            args.radius, args.mean_norm
        )));
    }
    if !(1..=CoinPressCovariance::MAX_STEPS).contains(&args.coinpress_steps) {
        return Err(CliError::Invalid(format!(
            "--coinpress-steps must lie in [1, {}], got {}",
            CoinPressCovariance::MAX_STEPS,
            args.coinpress_steps
        )));
    }
    Ok(())
}

pub fn run(args: &CovarianceArgs) -> Result<(), CliError> {
    check(args)?;
    if args.replot {
        return report(args, &read_rows(&args.out.join("covariance.csv"))?);
    }
    if args.adversary != AdversaryName::None && args.corruption == 0.0 {
        eprintln!(
            "note: --corruption is 0, so the {} adversary replaces no record",
            args.adversary.label()
        );
    }
    let eta = if args.adversary == AdversaryName::None {
        0.0
    } else {
        args.corruption
    };
    let methods = methods(args);
    let mut rows = Rows::create(&args.out, "covariance.csv")?;
    let mut bar = Progress::new(args.ns.len() * args.reps * methods.len());
    for &n in &args.ns {
        for rep in 0..args.reps {
            let seed = args.seed + n as u64 + rep as u64;
            let mut rng = StdRng::seed_from_u64(seed);
            let sample = covariance_sample_with(
                &mut rng,
                n,
                args.dim,
                args.mean_norm,
                args.cond,
                eta,
                &args.adversary.adversary(),
            );
            for method in &methods {
                bar.set_message(format!("n = {n}, rep {rep}: {}", method.name));
                let start = Instant::now();
                let result = catch_unwind(AssertUnwindSafe(|| (method.run)(&sample.data, seed)))
                    .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_message(&*panic))));
                let seconds = start.elapsed().as_secs_f64();
                let (frobenius, operator, mahalanobis, status) = match result {
                    Ok((sigma_hat, mu_hat)) => {
                        let (f, o) = if sigma_hat.iter().all(|v| v.is_finite()) {
                            (
                                frobenius_error(&sigma_hat, &sample.covariance),
                                spectral_error(&sigma_hat, &sample.covariance),
                            )
                        } else {
                            (f64::NAN, f64::NAN)
                        };
                        let m = mu_hat.map_or(f64::NAN, |mu| {
                            mahalanobis_error(&mu, &sample.mean, &sample.covariance)
                        });
                        (f, o, m, "ok".to_string())
                    }
                    Err(e) => (f64::NAN, f64::NAN, f64::NAN, e),
                };
                rows.push(Row {
                    method: method.name.clone(),
                    privacy: method.privacy.clone(),
                    dim: args.dim,
                    n,
                    rep,
                    seed,
                    frobenius,
                    operator,
                    mahalanobis,
                    seconds,
                    status,
                })?;
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    report(args, &rows.rows)
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The data and corruption in words.
fn setting(args: &CovarianceArgs) -> String {
    match args.adversary {
        AdversaryName::None => "clean data".to_string(),
        a => format!("{}% corrupted by `{}`", 100.0 * args.corruption, a.label()),
    }
}

/// Write the plot and the summary of `rows` into the output folder, and print the summary.
fn report(args: &CovarianceArgs, rows: &[Row]) -> Result<(), CliError> {
    let series = method_series(
        rows.iter()
            .filter(|r| r.status == "ok" && r.frobenius.is_finite())
            .map(|r| {
                (
                    r.method.as_str(),
                    r.privacy.as_str(),
                    r.n as f64,
                    r.frobenius,
                )
            }),
    );
    let figure = Figure {
        title: format!(
            "Frobenius error against n (d = {}, eps = {}, cond = {}, K = {}, {})",
            args.dim,
            args.epsilon,
            args.cond,
            args.kappa,
            setting(args)
        ),
        x_label: "records n".into(),
        y_label: "|Sigma^-1/2 S Sigma^-1/2 - I|_F".into(),
        legend: SeriesLabelPosition::LowerLeft,
    };
    publish(
        &args.out,
        "covariance",
        &figure,
        &series,
        &summary(args, rows),
    )
}

/// The markdown table: per method and n, the median (and largest) errors and the median time.
fn summary(args: &CovarianceArgs, rows: &[Row]) -> String {
    let learner = match args.learner {
        Learner::Gaussian => "gaussian",
        Learner::Covariance => "covariance",
    };
    let mut out = format!(
        "Covariance accuracy, d = {}, eps = {}, Sigma with cond {} (prior K = {}), |mu| = {} (R = {}), {}, repetitions per n: {}; \
         sosdp assumes corruption {}; CoinPress is rho = eps^2/2 zCDP (weaker than pure eps-DP), runs on the pairs \
         (y_2i - y_2i-1)/sqrt2, T = {} steps, and copies the authors' psd_proj_symm, which returns |Z|; \
         the empirical covariance and FastMCD (reweighted, support h = floor((n + d + 1)/2), the robust \
         reference) are not private \
         (`sosdp bench covariance --dim {} --ns {} --epsilon {} --kappa {} --cond {} --radius {} --mean-norm {} --corruption {} \
         --adversary {} --learner {learner} --coinpress-steps {} --reps {} --seed {}`)\n\n",
        args.dim,
        args.epsilon,
        args.cond,
        args.kappa,
        args.mean_norm,
        args.radius,
        setting(args),
        args.reps,
        args.corruption,
        args.coinpress_steps,
        args.dim,
        args.ns
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
        args.epsilon,
        args.kappa,
        args.cond,
        args.radius,
        args.mean_norm,
        args.corruption,
        args.adversary.label(),
        args.coinpress_steps,
        args.reps,
        args.seed,
    );
    out.push_str(
        "| method | privacy | n | median Frobenius | max Frobenius | median operator | median Mahalanobis mean | median s | failed |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    let mut methods: Vec<&str> = Vec::new();
    for r in rows {
        if !methods.contains(&r.method.as_str()) {
            methods.push(&r.method);
        }
    }
    let median = |v: &[f64]| {
        let finite: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        quantile(&finite, 0.5)
    };
    // A `|` inside a cell (as in "|Z|") would end it.
    let cell = |text: &str| text.replace('|', "\\|");
    for method in methods {
        for &n in &args.ns {
            let here: Vec<&Row> = rows
                .iter()
                .filter(|r| r.method == method && r.n == n)
                .collect();
            let Some(first) = here.first() else { continue };
            let ok: Vec<&&Row> = here.iter().filter(|r| r.status == "ok").collect();
            let pick = |f: fn(&Row) -> f64| ok.iter().map(|r| f(r)).collect::<Vec<f64>>();
            let frobenius = pick(|r| r.frobenius);
            let max = frobenius
                .iter()
                .copied()
                .filter(|x| x.is_finite())
                .fold(f64::NAN, f64::max);
            let mahalanobis = median(&pick(|r| r.mahalanobis));
            let mahalanobis = if mahalanobis.is_finite() {
                format!("{mahalanobis:.3}")
            } else {
                "-".into()
            };
            let _ = writeln!(
                out,
                "| {} | {} | {n} | {:.3} | {max:.3} | {:.3} | {mahalanobis} | {:.2} | {} |",
                cell(method),
                cell(&first.privacy),
                median(&frobenius),
                median(&pick(|r| r.operator)),
                median(&pick(|r| r.seconds)),
                here.len() - ok.len()
            );
        }
    }
    let failures: Vec<&Row> = rows.iter().filter(|r| r.status != "ok").collect();
    if !failures.is_empty() {
        out.push_str("\nFailed runs:\n\n");
        for r in failures {
            let _ = writeln!(
                out,
                "- {} at n = {}, rep {}: {}",
                r.method, r.n, r.rep, r.status
            );
        }
    }
    out
}
