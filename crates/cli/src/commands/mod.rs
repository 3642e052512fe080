//! One module per subcommand, and what they share.
pub mod demo;
pub mod gaussian;
pub mod mean;
pub mod mechanism;
pub mod score;

use crate::CliError;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

/// A spinner with a message on stderr when stderr is a terminal (hidden otherwise).
pub fn progress_bar() -> ProgressBar {
    let bar = if std::io::stderr().is_terminal() { ProgressBar::new_spinner() } else { ProgressBar::hidden() };
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} {spinner} {msg}").unwrap_or_else(|_| ProgressStyle::default_spinner()));
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// Print a JSON object on stdout, or write it to `out`.
pub fn emit(out: &Option<PathBuf>, value: &serde_json::Value) -> Result<(), CliError> {
    match out {
        Some(path) => std::fs::write(path, format!("{value}\n"))?,
        None => println!("{value}"),
    }
    Ok(())
}
