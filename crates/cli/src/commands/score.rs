//! `sosdp score mean|spectral`: evaluate one score with its certified bracket, for auditing a
//! release and cross-checking implementations. Prints one JSON object on stdout.
use crate::CliError;
use crate::problem::{CmArgs, check_len};
use clap::{Args, Subcommand};
use serde_json::json;
use sosdp_learn::io::{Header, read_matrix, read_vector};
use sosdp_score::{ClarabelCm, ClarabelSp, ScoreEval, ScoreOracle, Spectral};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum ScoreCommand {
    /// The certified-mean score CM(theta) of MATH.md 2.1, with Gamma = G * I.
    Mean(MeanArgs),
    /// The spectral score SP(S) of MATH.md 2.2.
    Spectral(SpectralArgs),
}

#[derive(Debug, Args)]
pub struct MeanArgs {
    #[command(flatten)]
    problem: CmArgs,
    /// The candidate theta: one line of d comma-separated numbers (no header).
    #[arg(long, value_name = "t.csv")]
    theta: PathBuf,
}

#[derive(Debug, Args)]
pub struct SpectralArgs {
    /// Centred data: a CSV file, one record of d comma-separated numbers per line (n x d);
    /// every line is a record unless --header is given.
    #[arg(long, value_name = "X.csv")]
    data: PathBuf,
    /// The first line of the --data file is a header (column names) and is skipped.
    #[arg(long)]
    header: bool,
    /// The candidate covariance S: d lines of d comma-separated numbers (no header), symmetric
    /// positive definite.
    #[arg(long, value_name = "S.csv")]
    matrix: PathBuf,
    /// Leverage cap lambda > 0.
    #[arg(long, value_name = "L", allow_negative_numbers = true)]
    lambda: f64,
    /// Width gamma in (0, 1).
    #[arg(long, value_name = "W", allow_negative_numbers = true)]
    width: f64,
}

pub fn run(command: &ScoreCommand) -> Result<(), CliError> {
    let (eval, backend) = match command {
        ScoreCommand::Mean(args) => mean(args)?,
        ScoreCommand::Spectral(args) => spectral(args)?,
    };
    let out = json!({
        "score": eval.score,
        "lower": eval.lower,
        "upper": eval.upper,
        "in_domain": eval.in_domain,
        "backend": backend,
    });
    println!("{out}");
    Ok(())
}

fn mean(args: &MeanArgs) -> Result<(ScoreEval, &'static str), CliError> {
    let problem = args.problem.load()?;
    let theta = read_vector(&args.theta)?;
    check_len("--theta", theta.len(), problem.dim())?;
    let oracle = ClarabelCm::new(problem);
    Ok((oracle.evaluate(&theta)?, oracle.backend()))
}

fn spectral(args: &SpectralArgs) -> Result<(ScoreEval, &'static str), CliError> {
    if !(args.width > 0.0 && args.width < 1.0) {
        return Err(CliError::Invalid(format!(
            "--width must lie in (0, 1), got {}",
            args.width
        )));
    }
    if !(args.lambda.is_finite() && args.lambda > 0.0) {
        return Err(CliError::Invalid(format!(
            "--lambda must be positive and finite, got {}",
            args.lambda
        )));
    }
    let data = read_matrix(&args.data, Header::data(args.header))?;
    let s = read_matrix(&args.matrix, Header::Never)?;
    let d = data.ncols();
    if s.shape() != (d, d) {
        return Err(CliError::Invalid(format!(
            "--matrix is {}x{} but the data have {d} columns (expected {d}x{d})",
            s.nrows(),
            s.ncols()
        )));
    }
    if (&s - s.transpose()).amax() > 1e-9 * s.amax().max(1.0) {
        return Err(CliError::Invalid("--matrix is not symmetric".into()));
    }
    let oracle = ClarabelSp::new(Spectral::new(&data, args.lambda, args.width)?);
    Ok((oracle.evaluate(&Spectral::theta_of(&s))?, oracle.backend()))
}
