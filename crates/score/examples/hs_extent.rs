//! What the HS score's fourth-moment certificate removes (MATH.md 5.2b), at d = 2: records
//! from `N(0, diag(1, 0.05))` (a frame with a thin axis), a fraction `eta` of them moved to
//! `+-r` along the thin axis. An additive stage (MATH.md 5.2) releases the clipped second
//! moment, whose thin-axis entry grows by about `eta min(r^2, lambda)`; an HS stage releases a
//! point of a level set, whose thin-axis extent at the corruption's own level (`eta n + 10`
//! records) is printed for the worst `r` tried, with the certificate (C = 4) and without it
//! (C = 1e6). Solver values (clarabel), not certified brackets; seeds fixed.
//!
//! `cargo run --release -p sosdp-score --example hs_extent`
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_score::{HsSettings, Hypercontractive};

fn main() {
    let (n, thin, band) = (1000usize, 0.05f64, 0.02);
    let radii2 = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0];
    println!(
        "| lambda | eta | additive: thin-axis second moment (worst r) | HS, C = 4: largest thin-axis S at level eta n + 10 (worst r) | HS, C = 1e6 (no certificate) |"
    );
    println!("|---|---|---|---|---|");
    let data_for = |eta: f64, r2: f64| {
        let mut rng = StdRng::seed_from_u64(2);
        let mut m = DMatrix::zeros(n, 2);
        for i in 0..n {
            let a: f64 = StandardNormal.sample(&mut rng);
            let b: f64 = StandardNormal.sample(&mut rng);
            m[(i, 0)] = a;
            m[(i, 1)] = b * thin.sqrt();
        }
        let bad = (eta * n as f64).round() as usize;
        for i in 0..bad {
            m[(i, 0)] = 0.0;
            m[(i, 1)] = r2.sqrt() * if i % 2 == 0 { 1.0 } else { -1.0 };
        }
        (m, bad)
    };
    for lambda in [9.2f64, 23.2] {
        let clean = {
            let (data, _) = data_for(0.0, 1.0);
            extent(&data, lambda, band, 4.0, 10.0)
        };
        let plain = additive(&data_for(0.0, 1.0).0, lambda);
        println!("| {lambda} | 0 | {plain:.3} | {clean:.3} (level 10) | - |");
        for eta in [0.01, 0.02, 0.05, 0.1] {
            let mut worst = [(0.0f64, 0.0f64); 3];
            let tried = radii2.iter().copied().filter(|&r2| r2 < lambda);
            for r2 in tried.chain([lambda]) {
                let (data, bad) = data_for(eta, r2);
                let level = bad as f64 + 10.0;
                let values = [
                    additive(&data, lambda),
                    extent(&data, lambda, band, 4.0, level),
                    extent(&data, lambda, band, 1e6, level),
                ];
                for (w, v) in worst.iter_mut().zip(values) {
                    if v > w.0 {
                        *w = (v, r2);
                    }
                }
            }
            println!(
                "| {lambda} | {eta} | {:.3} (r^2 = {}) | {:.3} (r^2 = {}) | {:.3} (r^2 = {}) |",
                worst[0].0, worst[0].1, worst[1].0, worst[1].1, worst[2].0, worst[2].1
            );
        }
    }
}

/// The clipped second moment's thin-axis entry, `(1/n) sum x_2^2 min(1, lambda / |x|^2)`.
fn additive(data: &DMatrix<f64>, lambda: f64) -> f64 {
    data.row_iter()
        .map(|r| {
            let norm2 = r[0] * r[0] + r[1] * r[1];
            r[1] * r[1] * (lambda / norm2).min(1.0)
        })
        .sum::<f64>()
        / data.nrows() as f64
}

/// The largest thin-axis entry of `S` with `HS(S) <= level`.
fn extent(data: &DMatrix<f64>, lambda: f64, band: f64, constant: f64, level: f64) -> f64 {
    let settings = HsSettings {
        constant,
        ..HsSettings::default()
    };
    let hs = Hypercontractive::new(data, lambda, band, settings).expect("valid data");
    hs.extent(&[0.0, 1.0], level, 1.0, 1e-8).expect("solved").0
}
