//! One module per subcommand, and what they share.
pub mod demo;
pub mod gaussian;
pub mod mean;
pub mod mechanism;
pub mod score;

use crate::CliError;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use sosdp_learn::io::{Header, read_matrix};
use sosdp_learn::{Estimate, Fit, Learner, Plan, Privacy};
use std::io::IsTerminal;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments every learner command takes.
#[derive(Debug, Args)]
pub struct LearnerArgs {
    /// Data: a CSV file, one record of d comma-separated numbers per line (n x d). Every line
    /// is a record (n is public: no line is skipped, an empty line is an error) unless
    /// --header is given.
    #[arg(long, value_name = "X.csv")]
    pub input: PathBuf,
    /// The first line of the --input file is a header (column names) and is skipped.
    #[arg(long)]
    pub header: bool,
    /// Privacy parameter eps > 0 (pure DP, delta = 0, except with --delta on `sosdp mean` and
    /// `sosdp gaussian`).
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    pub epsilon: f64,
    /// Fraction eta0 of the records an adversary may have replaced, in [0, 0.5) (below 0.25
    /// for covariance and gaussian: pairing records doubles it). The release's accuracy bound
    /// accounts for it; a plan where eta0 plus the mechanism's own score bound k*/n reaches 1/2
    /// is rejected before the data are read. The covariance's staged preconditioner (MATH 5.2)
    /// tolerates a corruption its plan states (`tolerated_pair_corruption`, of the pairs or of the
    /// centred records; about 0.85-1.9% of the records at d = 10 with n >= 50000, 1.4-3% at
    /// d = 2-5); above it, or when n is too small, the plan is refused before the data are read,
    /// with the number of records it would need.
    #[arg(
        long,
        value_name = "ETA",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub corruption: f64,
    /// Failure probability of the accuracy guarantee, in (0, 1).
    #[arg(
        long,
        value_name = "B",
        default_value_t = 0.05,
        allow_negative_numbers = true
    )]
    pub beta: f64,
    /// Seed (reproducible runs; omit for fresh OS randomness, as a published release should:
    /// a seeded release is not private, and a warning on stderr says so).
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// Write the JSON object to FILE instead of stdout (checked writable before the data are
    /// read).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write the fit's diagnostics (sampler records, oracle counts, timings) to FILE, as
    /// JSON under the key "non_private_diagnostics". They are computed from the data and are
    /// NOT covered by the privacy guarantee; the release itself never contains them.
    #[arg(long, value_name = "FILE")]
    pub diagnostics: Option<PathBuf>,
    /// How the CM stages sample their exponential mechanism: slice (Gibbs on levels, MATH.md
    /// 4.5) or mala (Langevin steps after a slice burn-in, 4.8). layer-cake (volumes, 4.4) is
    /// refused before the data are read: it can fail after them; use it in `sosdp mechanism`.
    #[arg(long, value_enum, default_value_t = mechanism::SamplerArg::Slice)]
    pub sampler: mechanism::SamplerArg,
    /// Threads the fit runs on (rayon). Default: all cores, or RAYON_NUM_THREADS when it is
    /// set. The release is the same for every number of threads (passes over many records are
    /// cut into fixed chunks, added in a fixed order); BLAS runs on one thread per call.
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
}

/// `--delta` of `sosdp mean` and `sosdp gaussian`.
#[derive(Debug, Args)]
pub struct DeltaArg {
    /// delta of (eps, delta)-DP, in [0, 1) (default 0: pure DP, which needs --radius). Without
    /// --radius, a delta > 0 lets the fit find the mean's ball privately (MATH.md 5.5 (a)): 15%
    /// of eps and all of delta go to stable histograms on the coordinates of a random rotation
    /// (bins 4 standard deviations wide, 4 sqrt(K) for `gaussian`; grid, threshold and split in
    /// the printed plan), the rest to the pure learner on the records centred by the ball's
    /// centre. When no histogram bin passes its threshold, the release has "estimate": null and
    /// a "refusal" reason. Use delta well below 1/n.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub delta: f64,
}

impl LearnerArgs {
    /// The shared settings of these arguments.
    pub fn privacy(&self) -> Privacy {
        let privacy = Privacy::new(self.epsilon)
            .corruption(self.corruption)
            .beta(self.beta)
            .sampler(self.sampler.kind());
        match self.seed {
            Some(seed) => privacy.seed(seed),
            None => privacy,
        }
    }
}

/// Run a learner command: validate the settings and check that `--out` can be written (no data
/// read), read the data (`--header` says whether the first line is a header), warn on stderr if
/// `--seed` is given, print an accepted plan's notes ([`Learner::plan_notes`]) on stderr, fit
/// with a progress spinner labelled `step` (stage or step number), then emit the release
/// ([`emit_fit`]). Progress lines read `step i/J phase done/total`: public counts only.
pub fn run_learner<L: Learner + Sync>(
    args: &LearnerArgs,
    step: &str,
    learner: &L,
) -> Result<(), CliError>
where
    L::Estimate: Send,
    L::Plan: Send,
{
    learner
        .validate()
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    for (option, path) in [("--out", &args.out), ("--diagnostics", &args.diagnostics)] {
        if let Some(path) = path {
            check_writable(option, path)?;
        }
    }
    let data = read_matrix(&args.input, Header::data(args.header))?;
    warn_if_seeded(args.seed);
    // The number of steps of the public plan, for "stage i/J" (a plan the fit would refuse is
    // refused by the fit itself, with its message, and has no notes).
    let (n, d) = (data.nrows(), data.ncols());
    let steps = learner.plan(n, d).map_or(0, |plan| {
        for note in learner.plan_notes(n, d) {
            eprintln!("note: {note}");
        }
        plan.steps()
    });
    let bar = progress_bar();
    let mut log = PlainProgress::default();
    // num_threads(0) is rayon's default: RAYON_NUM_THREADS, else the number of cores.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.map_or(0, usize::from))
        .build()
        .map_err(|e| CliError::Invalid(format!("cannot start the thread pool: {e}")))?;
    let fit = pool
        .install(|| {
            learner.fit_with_progress(&data, &mut |k, p| {
                let message = format!(
                    "{step} {}/{steps} {} {}/{}",
                    k + 1,
                    p.phase,
                    p.done,
                    p.total
                );
                if bar.is_hidden() && log.due(k, p.phase, p.done, p.total) {
                    eprintln!("{message}");
                }
                bar.set_message(message);
                ControlFlow::Continue(())
            })
        })
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    bar.finish_and_clear();
    emit_fit(args, &fit)
}

/// Check that the output file of `option` (`--out FILE`) can be written, before the data are
/// read (so that an unwritable path fails at once, not after a fit of minutes): an existing
/// file is opened for appending and left as it is; a missing one is created and removed again.
fn check_writable(option: &'static str, path: &Path) -> Result<(), CliError> {
    let fail = |source| CliError::Output {
        option,
        path: path.to_path_buf(),
        source,
    };
    let existed = path.symlink_metadata().is_ok();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(fail)?;
    if !existed {
        std::fs::remove_file(path).map_err(fail)?;
    }
    Ok(())
}

/// Say on stderr, in one line, that a fixed seed makes the release reproducible and voids its
/// privacy guarantee (MATH.md 7). Called once the release is about to be computed (settings
/// and data accepted), so an invalid input still ends with one line on stderr.
pub fn warn_if_seeded(seed: Option<u64>) {
    if let Some(seed) = seed {
        eprintln!(
            "warning: --seed {seed} fixes the randomness: the release is reproducible and NOT differentially private (MATH.md 7); omit --seed for a release you publish"
        );
    }
}

/// Plain progress lines for a stderr that is not a terminal (a log file, CI): for a phase of at
/// least [`PlainProgress::MIN_TOTAL`] iterations, one line when it starts and at each tenth of
/// its total (short phases stay silent). The lines carry the step and public iteration counts
/// only, never times (MATH.md 7: timings are diagnostics); whether a line appears depends on
/// the public plan alone.
#[derive(Default)]
struct PlainProgress {
    last: Option<(usize, &'static str, usize)>,
}

impl PlainProgress {
    /// The shortest phase (in iterations of the plan) that gets progress lines.
    const MIN_TOTAL: usize = 200;

    /// True when the phase is long enough and `(step, phase, done / total in tenths)` differs
    /// from the last line's.
    fn due(&mut self, step: usize, phase: &'static str, done: usize, total: usize) -> bool {
        if total < Self::MIN_TOTAL {
            return false;
        }
        let tenth = (10 * done).checked_div(total).unwrap_or(0);
        let key = (step, phase, tenth);
        let due = self.last != Some(key);
        self.last = Some(key);
        due
    }
}

/// A spinner with a message on stderr when stderr is a terminal (hidden otherwise).
pub fn progress_bar() -> ProgressBar {
    let bar = if std::io::stderr().is_terminal() {
        ProgressBar::new_spinner()
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Print a JSON object on stdout, or write it to `out`, the file of `option`.
pub fn emit(
    option: &'static str,
    out: &Option<PathBuf>,
    value: &serde_json::Value,
) -> Result<(), CliError> {
    emit_text(option, out, &value.to_string())
}

/// Print one line of JSON text on stdout, or write it to `out`, the file of `option`.
fn emit_text(option: &'static str, out: &Option<PathBuf>, text: &str) -> Result<(), CliError> {
    match out {
        Some(path) => {
            std::fs::write(path, format!("{text}\n")).map_err(|source| CliError::Output {
                option,
                path: path.clone(),
                source,
            })?
        }
        None => println!("{text}"),
    }
    Ok(())
}

/// Emit a fit: the public release as JSON on stdout or to `--out`, and, only with
/// `--diagnostics FILE`, the non-private diagnostics to that separate file under the key
/// `non_private_diagnostics`.
fn emit_fit<E: Estimate, P: Serialize>(
    args: &LearnerArgs,
    fit: &Fit<E, P>,
) -> Result<(), CliError> {
    let release = fit
        .release
        .to_json()
        .map_err(|e| CliError::Invalid(format!("cannot serialise the release: {e}")))?;
    emit_text("--out", &args.out, &release)?;
    if let Some(path) = &args.diagnostics {
        let diagnostics =
            serde_json::json!({ "non_private_diagnostics": fit.diagnostics.non_private() });
        emit("--diagnostics", &Some(path.clone()), &diagnostics)?;
    }
    Ok(())
}
