//! `sosdp covariance` and `sosdp gaussian`: the private covariance (MATH.md 5.2, 5.3) and the
//! Gaussian learner (5.4) of a CSV file. Each prints its public release as one JSON object (to
//! FILE with `--out`): `{"estimate": ..., "epsilon": E, "delta": D, "plan": {...},
//! "stage_releases": [...], "accuracy": [...], "guarantee": "..."}`, where the estimate is the
//! covariance (rows) or `{"mean": [...], "covariance": [[...]]}`. `--diagnostics FILE` writes
//! the non-private diagnostics to a separate file. `sosdp gaussian --delta D --kappa K` without
//! `--radius` localises the mean first (MATH.md 5.5 (a)); `--delta D` without `--radius` and
//! `--kappa` also finds the covariance's scale privately first, assuming its condition number
//! is at most `--condition C` (default 1000); `sosdp covariance --condition C` does the same and
//! stays pure. A refused localisation prints `"estimate": null` with a `"refusal"` reason (exit
//! status 0: a refusal is a release).
use super::{DeltaArg, LearnerArgs, run_learner};
use crate::CliError;
use clap::{Args, ValueEnum};
use sosdp_learn::{
    Centring, CovarianceSettings, DEFAULT_CONDITION, GaussianSettings, LocalisedGaussian,
    PreconditionerPoints, PrivateCovariance, PrivateGaussian, ScaledCovariance, ScaledGaussian,
};

/// Arguments shared by both commands.
#[derive(Debug, Args)]
pub struct CommonArgs {
    #[command(flatten)]
    learner: LearnerArgs,
    /// Prior I ⪯ Sigma ⪯ K I on the covariance, K >= 1 (the accuracy bounds assume it; default
    /// 100). `sosdp gaussian --delta` without --radius takes it, or --condition in its place.
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    kappa: Option<f64>,
    /// Bound C >= 1 on the covariance's condition number lambda_max / lambda_min, in place of
    /// --kappa's units (without --radius and --kappa; `sosdp gaussian` also needs --delta D >
    /// 0, `sosdp covariance` stays pure). The fit first finds the covariance's scale privately
    /// (MATH.md 5.5 (a'): 5% of eps, an exponential mechanism for an upper quantile of the
    /// pairs' squared distances on a public log2 grid), which gives a unit u with u I ⪯ Sigma ⪯
    /// K u I for a K printed in the plan (about 4 C at d = 5, 6.3 C at d = 10, with n = 100000
    /// and eps = 2); then it runs as with --kappa K on the records divided by sqrt(u). The
    /// accuracy bounds assume the condition number is at most C: it is not found privately.
    /// For `sosdp gaussian --delta D > 0` without --radius and --kappa, C defaults to 1000 (a
    /// note on stderr says so).
    #[arg(long, value_name = "C", allow_negative_numbers = true, conflicts_with_all = ["kappa", "radius"])]
    condition: Option<f64>,
}

impl CommonArgs {
    /// `--kappa`, or its default 100.
    fn kappa(&self) -> f64 {
        self.kappa.unwrap_or(DEFAULT_KAPPA)
    }
}

/// The prior `K` when `--kappa` is not given (with a prior radius, or for `sosdp covariance`).
const DEFAULT_KAPPA: f64 = 100.0;

/// The arguments of `sosdp covariance`.
#[derive(Debug, Args)]
pub struct CovarianceArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// With a prior bound R > 0 on the norm of the mean: centre the refinement (MATH 5.3b), a
    /// mean released in the current frame (1/8 of eps) centres the records and the later
    /// refinement stages run on the n records instead of n/2 pairs. Without it, pairs.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: Option<f64>,
    #[command(flatten)]
    preconditioner: PreconditionerArg,
}

/// `--preconditioner`: [`PreconditionerPoints`].
#[derive(Debug, Args)]
pub struct PreconditionerArg {
    /// Where the preconditioner releases its second moment when the refinement is centred (a
    /// prior radius is given): `planned` plans on pairs and on records centred in every stage by
    /// a mean released in its frame, and keeps the smaller planned covariance error, before the
    /// data are read; `pairs`; `records`. Without the centred refinement: pairs [default:
    /// planned].
    #[arg(long, value_enum, value_name = "POINTS")]
    preconditioner: Option<PointsArg>,
}

impl PreconditionerArg {
    fn points(&self) -> PreconditionerPoints {
        self.preconditioner
            .map_or(PreconditionerPoints::default(), |p| match p {
                PointsArg::Planned => PreconditionerPoints::Planned,
                PointsArg::Pairs => PreconditionerPoints::Pairs,
                PointsArg::Records => PreconditionerPoints::Records,
            })
    }
}

/// The values of `--preconditioner`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum PointsArg {
    /// The smaller planned covariance error of the two.
    Planned,
    /// Always on pairs.
    Pairs,
    /// On centred records.
    Records,
}

/// The arguments of `sosdp gaussian`.
#[derive(Debug, Args)]
pub struct GaussianArgs {
    #[command(flatten)]
    common: CommonArgs,
    /// Prior bound R > 0 on the norm of the mean (the accuracy bounds assume |mu| <= R). The
    /// fit is then pure, and refuses --delta D > 0 before the data are read. Optional with
    /// --delta D > 0 and --kappa or --condition.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    radius: Option<f64>,
    #[command(flatten)]
    delta: DeltaArg,
    /// Whether the covariance's refinement is centred by the mean (MATH 5.3b): `planned`
    /// keeps the smaller planned covariance error of the two, before the data are read
    /// [default: planned, the library's `GaussianSettings` default].
    #[arg(long, value_enum)]
    centring: Option<CentringArg>,
    #[command(flatten)]
    preconditioner: PreconditionerArg,
}

/// `--centring`: [`Centring`].
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CentringArg {
    /// The plan's choice (the smaller planned covariance error).
    Planned,
    /// Always centred.
    Always,
    /// Always on pairs, the mean last.
    Never,
}

impl From<CentringArg> for Centring {
    fn from(c: CentringArg) -> Self {
        match c {
            CentringArg::Planned => Centring::Planned,
            CentringArg::Always => Centring::Always,
            CentringArg::Never => Centring::Never,
        }
    }
}

/// Run `sosdp covariance`: with `--condition`, after the scale.
pub fn run_covariance(args: &CovarianceArgs) -> Result<(), CliError> {
    let a = &args.common;
    if let Some(condition) = a.condition {
        let learner = ScaledCovariance::new(a.learner.privacy(), condition);
        return run_learner(&a.learner, "step", &learner);
    }
    let learner =
        PrivateCovariance::new(a.learner.privacy(), a.kappa()).settings(CovarianceSettings {
            preconditioner_points: args.preconditioner.points(),
            ..Default::default()
        });
    let learner = match args.radius {
        Some(radius) => learner.centred(radius),
        None => learner,
    };
    run_learner(&a.learner, "step", &learner)
}

/// Run `sosdp gaussian`: the pure Gaussian with `--radius`, the localised one without it, and
/// the scaled one with `--condition`.
pub fn run_gaussian(args: &GaussianArgs) -> Result<(), CliError> {
    let a = &args.common;
    let privacy = a.learner.privacy().delta(args.delta.delta);
    let defaults = GaussianSettings::default();
    let settings = GaussianSettings {
        centring: args.centring.map_or(defaults.centring, Into::into),
        preconditioner_points: args.preconditioner.points(),
        ..defaults
    };
    match (args.radius, a.kappa, a.condition) {
        (Some(radius), _, _) => {
            let learner = PrivateGaussian::new(privacy, radius, a.kappa()).settings(settings);
            run_learner(&a.learner, "step", &learner)
        }
        (None, _, _) if args.delta.delta == 0.0 => Err(CliError::Invalid(
            "sosdp gaussian needs a prior --radius R (pure DP), or --delta D > 0 with --kappa K or --condition C to localise the mean privately without one (MATH.md 5.5 (a))".into(),
        )),
        (None, None, condition) => {
            let condition = condition.unwrap_or_else(|| {
                eprintln!(
                    "note: no --kappa or --condition: the fit assumes the covariance's condition number is at most C = {DEFAULT_CONDITION} (--condition C) and finds its scale privately"
                );
                DEFAULT_CONDITION
            });
            let learner = ScaledGaussian::new(privacy, condition).settings(settings);
            run_learner(&a.learner, "step", &learner)
        }
        (None, Some(kappa), _) => {
            let learner = LocalisedGaussian::new(privacy, kappa).settings(settings);
            run_learner(&a.learner, "step", &learner)
        }
    }
}
