//! The accuracy and time targets of the private mean (issue 5; docs/calibration.md):
//! d = 10, n = 20000, eps = 1, R = 10, |mu| = 5, clean or with 5% corruption by an adversary
//! of MATH.md 6 at distance <= 5, over seeds. Prints one JSON line per fit with the error, the
//! time, the baselines' errors and whether every stage covered the truth.
//!
//! `cargo run --release -p sosdp-eval --example targets -- CASE FIRST_SEED SEEDS [N D]`
//! with `CASE` one of `clean`, `cluster`, `subtractive`, `scattered`.
use serde_json::json;
use sosdp_eval::calibration::{Case, measure};
use sosdp_eval::{
    Adversary, ClippedLaplaceMean, CoordinateMedian, EmpiricalMean, MeanEstimator, l2_error,
};
use sosdp_learn::Constants;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |k: usize, default: usize| {
        args.get(k)
            .map_or(default, |a| a.parse().expect("a number"))
    };
    let which = args.first().map_or("clean", String::as_str);
    let (first, seeds, n, d) = (
        num(1, 0) as u64,
        num(2, 1) as u64,
        num(3, 20000),
        num(4, 10),
    );
    let (corruption, adversary) = match which {
        "clean" => (0.0, Adversary::ScatteredOutliers { distance: 5.0 }),
        "cluster" => (
            0.05,
            Adversary::ShiftedCluster {
                distance: 5.0,
                axis: 0,
                spread: 0.1,
            },
        ),
        "subtractive" => (0.05, Adversary::Subtractive { axis: 0 }),
        "scattered" => (0.05, Adversary::ScatteredOutliers { distance: 5.0 }),
        other => panic!("unknown case {other}"),
    };
    let case = Case {
        label: which.into(),
        n,
        d,
        epsilon: 1.0,
        radius: 10.0,
        mean_norm: 5.0,
        corruption,
        adversary,
    };
    for seed in first..first + seeds {
        let stages = measure(&case, seed, &Constants::default()).expect("fit");
        let last = stages.last().expect("at least one stage");
        let data = case.sample(seed).data;
        let truth = case.mean();
        let baselines: [Box<dyn MeanEstimator>; 3] = [
            Box::new(EmpiricalMean),
            Box::new(CoordinateMedian),
            Box::new(ClippedLaplaceMean::for_prior(1.0, 10.0, n, d)),
        ];
        let errors: Vec<f64> = baselines
            .iter()
            .map(|b| l2_error(&b.estimate(&data, seed).expect("baseline"), &truth))
            .collect();
        println!(
            "{}",
            json!({
                "case": which, "seed": seed, "n": n, "d": d, "error": last.error, "seconds": last.seconds,
                "stages": stages.len(), "covered": stages.iter().all(|s| s.error <= s.bound),
                "stage_errors": stages.iter().map(|s| s.error).collect::<Vec<_>>(),
                "stage_bounds": stages.iter().map(|s| s.bound).collect::<Vec<_>>(),
                "empirical_mean": errors[0], "coordinate_median": errors[1], "clipped_laplace": errors[2],
            })
        );
    }
}
