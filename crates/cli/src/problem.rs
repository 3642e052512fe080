//! Arguments that define a CM score problem (MATH.md 2.1), shared by `sosdp score mean` and
//! `sosdp mechanism mean`: the data, the reference centre and `Gamma = G I`.
use crate::CliError;
use clap::Args;
use nalgebra::DMatrix;
use sosdp_learn::io::{Header, read_matrix, read_vector};
use sosdp_score::CertifiedMean;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct CmArgs {
    /// Data: a CSV file, one record of d comma-separated numbers per line (n x d); every line
    /// is a record unless --header is given.
    #[arg(long, value_name = "X.csv")]
    pub data: PathBuf,
    /// The first line of the --data file is a header (column names) and is skipped.
    #[arg(long)]
    pub header: bool,
    /// Reference centre c: one line of d comma-separated numbers (no header).
    #[arg(long, value_name = "c.csv")]
    pub center: PathBuf,
    /// Budget: Gamma = G * I, G > 0.
    #[arg(long, value_name = "G", allow_negative_numbers = true)]
    pub gamma: f64,
}

impl CmArgs {
    /// Validate `--gamma`, then read the data and the centre (checked to have one entry per
    /// column).
    pub fn read(&self) -> Result<(DMatrix<f64>, Vec<f64>), CliError> {
        if !(self.gamma.is_finite() && self.gamma > 0.0) {
            return Err(CliError::Invalid(format!(
                "--gamma must be positive and finite, got {}",
                self.gamma
            )));
        }
        let data = read_matrix(&self.data, Header::data(self.header))?;
        let centre = read_vector(&self.center)?;
        check_len("--center", centre.len(), data.ncols())?;
        Ok((data, centre))
    }

    /// The problem on `data` with the centre and `Gamma = G I`.
    pub fn problem(&self, data: &DMatrix<f64>, centre: &[f64]) -> Result<CertifiedMean, CliError> {
        let d = data.ncols();
        Ok(CertifiedMean::new(
            data,
            centre,
            &(DMatrix::identity(d, d) * self.gamma),
        )?)
    }

    /// Validate the settings, then read the files and build the problem.
    pub fn load(&self) -> Result<CertifiedMean, CliError> {
        let (data, centre) = self.read()?;
        self.problem(&data, &centre)
    }
}

/// A vector argument must have one entry per data column.
pub fn check_len(name: &str, len: usize, d: usize) -> Result<(), CliError> {
    if len != d {
        return Err(CliError::Invalid(format!(
            "{name} has {len} entries but the data have {d} columns"
        )));
    }
    Ok(())
}
