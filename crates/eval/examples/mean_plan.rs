//! The private mean's public plan with and without additive stages (MATH.md 5.1), eps = 1,
//! R = 10, beta = 0.05: the mechanism of each stage (A additive, C CM) and the final planned
//! accuracy, for a grid of dimensions, sample sizes and declared corruptions. No data is
//! touched.
//!
//! `cargo run --release -p sosdp-eval --example mean_plan`
use sosdp_learn::{Learner, MeanSettings, Privacy, PrivateMean, Schedule, StageMechanism};

fn plan(d: usize, n: usize, eta: f64, additive_stages: bool) -> Option<Schedule> {
    PrivateMean::new(Privacy::new(1.0).corruption(eta), 10.0)
        .settings(MeanSettings {
            additive_stages,
            ..MeanSettings::default()
        })
        .plan(n, d)
        .ok()
}

fn describe(plan: &Option<Schedule>) -> String {
    plan.as_ref().map_or("refused".into(), |p| {
        let kinds: String = p
            .stages
            .iter()
            .map(|s| match s.mechanism {
                StageMechanism::Cm { .. } => 'C',
                StageMechanism::Additive { .. } => 'A',
            })
            .collect();
        format!("{:.3} ({kinds})", p.accuracy())
    })
}

fn main() {
    println!("| d | n | corruption | CM stages only | with additive stages |");
    println!("|---|---|---|---|---|");
    for (d, n) in [
        (2usize, 2_000usize),
        (5, 2_000),
        (5, 4_000),
        (10, 20_000),
        (50, 50_000),
        (100, 100_000),
    ] {
        for eta in [0.0, 0.05] {
            println!(
                "| {d} | {n} | {eta} | {} | {} |",
                describe(&plan(d, n, eta, false)),
                describe(&plan(d, n, eta, true))
            );
        }
    }
}
