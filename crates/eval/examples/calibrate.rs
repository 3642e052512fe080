//! The calibration run of docs/calibration.md: fits the private mean on synthetic corrupted
//! Gaussians (d = 10, eps = 1, R = 10, |mu| = 5) and prints one JSON line per stage, then the
//! recommended constants.
//!
//! `cargo run --release -p sosdp-eval --example calibrate -- N SEEDS [SAFETY FLOOR_SCALE CORRUPTION_SLACK CASES]`
//! (`CASES`: which cases to run, a string of their initials `c`, `k`, `s`; default all).
use sosdp_eval::Adversary;
use sosdp_eval::calibration::{Case, measure, recommend};
use sosdp_learn::Constants;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize, default: f64| {
        args.get(k)
            .map_or(default, |a| a.parse().expect("a number"))
    };
    let n = arg(0, 4000.0) as usize;
    let seeds = arg(1, 2.0) as u64;
    let constants = Constants {
        safety: arg(2, 1.0),
        floor_scale: arg(3, 1.0),
        corruption_slack: arg(4, 1.0),
        ..Constants::default()
    };
    let only = args.get(5).cloned().unwrap_or_else(|| "cks".into());
    let base = |label: &str, corruption: f64, adversary: Adversary| Case {
        label: label.into(),
        n,
        d: 10,
        epsilon: 1.0,
        radius: 10.0,
        mean_norm: 5.0,
        corruption,
        adversary,
    };
    let cases = [
        base(
            "clean",
            0.0,
            Adversary::ShiftedCluster {
                distance: 5.0,
                axis: 0,
                spread: 0.1,
            },
        ),
        base(
            "cluster at 5 (5%)",
            0.05,
            Adversary::ShiftedCluster {
                distance: 5.0,
                axis: 0,
                spread: 0.1,
            },
        ),
        base("subtractive (5%)", 0.05, Adversary::Subtractive { axis: 0 }),
    ];
    let mut all = Vec::new();
    for (case, _) in cases
        .iter()
        .zip(["c", "k", "s"])
        .filter(|(_, i)| only.contains(*i))
    {
        for seed in 0..seeds {
            let m = measure(case, seed, &constants).expect("calibration fit");
            for s in &m {
                println!("{}", serde_json::to_string(s).expect("serialisable"));
            }
            all.extend(m);
        }
    }
    let rec = recommend(&all, constants.floor_scale, 1.5);
    println!("{}", serde_json::to_string(&rec).expect("serialisable"));
}
