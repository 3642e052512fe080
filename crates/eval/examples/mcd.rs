//! FastMCD ([`sosdp_eval::FastMcd`], default settings) on a CSV file, as one JSON object on
//! stdout: `location`, `covariance` (reweighted), `raw_location`, `raw_covariance`,
//! `raw_support` and `support` (0-based rows, increasing). The Rust side of
//! `scripts/check_mcd.py`, the cross-check against scikit-learn's `MinCovDet`.
//!
//!     cargo run --release -p sosdp-eval --example mcd -- DATA.csv [SEED] [--header]
//!
//! `SEED` defaults to 0; `--header` skips the first line.
use sosdp_eval::FastMcd;
use sosdp_learn::io::{Header, read_matrix};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let header = Header::data(args.iter().any(|a| a == "--header"));
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let path = positional
        .first()
        .ok_or("usage: mcd DATA.csv [SEED] [--header]")?;
    let seed: u64 = positional.get(1).map_or(Ok(0), |s| s.parse())?;
    let data = read_matrix(path.as_ref(), header)?;
    let fit = FastMcd::default().fit(&data, seed)?;
    let rows = |m: &nalgebra::DMatrix<f64>| -> Vec<Vec<f64>> {
        m.row_iter().map(|r| r.iter().copied().collect()).collect()
    };
    let out = serde_json::json!({
        "location": fit.location,
        "covariance": rows(&fit.covariance),
        "raw_location": fit.raw_location,
        "raw_covariance": rows(&fit.raw_covariance),
        "raw_support": fit.raw_support,
        "support": fit.support,
    });
    println!("{out}");
    Ok(())
}
