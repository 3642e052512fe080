//! The table of the staged preconditioner's operator-norm quantiles (MATH.md 5.2, step 3):
//! for unit-scale Frobenius noise on symmetric `d x d` matrices, the `y` with
//! `P(|N|_op > y) <= p`, computed as the plans compute it (fixed seed, see
//! `sosdp_learn::frobenius_noise`), next to the Frobenius radius's own quantile (the
//! Gamma(D, 1) quantile, what `|N|_op <= |N|_F` would give). No data is touched.
//!
//! `cargo run --release -p sosdp-eval --example noise_table`
use sosdp_learn::frobenius_noise::{QuantileSettings, operator_norm_quantile};
use sosdp_learn::special::{gamma_upper, upper_quantile};

fn main() {
    let settings = QuantileSettings::default();
    let ps = [1e-2, 1e-3, 1e-4];
    println!(
        "| d | D | {} |",
        ps.iter()
            .map(|p| format!("nu at p = {p} (Frobenius radius)"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|---|{}", "---|".repeat(ps.len()));
    for d in [2usize, 3, 5, 10, 20, 50] {
        let dim = (d * (d + 1) / 2) as f64;
        let cells: Vec<String> = ps
            .iter()
            .map(|&p| {
                format!(
                    "{:.2} ({:.2})",
                    operator_norm_quantile(d, p, &settings),
                    upper_quantile(p, |y| gamma_upper(dim, y))
                )
            })
            .collect();
        println!("| {d} | {} | {} |", dim, cells.join(" | "));
    }
}
