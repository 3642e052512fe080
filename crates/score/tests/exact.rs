//! Exact membership decisions (MATH.md 4.5b) on the fast CM backend: a bracket that contains
//! the level is refined until it excludes it, and the solver's value inside a bracket never
//! decides (the rule itself, with its floor and tie rule, is tested in `sosdp-oracle`).
mod common;

use common::{instance, random_theta, rng};
use sosdp_score::{FastCm, FastSettings, ScoreOracle};

/// Levels within `3e-4 .. 1e-6` points of the score (inside the first bracket's width, above
/// the floor `1e-10 n = 1e-7`): the fast backend, warm along the sequence and cold (a fresh
/// oracle without warm starts for every query), decides every query as the true score does,
/// refining most of them, with no tie. The true score is known to `2e-7` from a tight bracket
/// (points where the backend does not reach that are skipped; at least 6 of 10 must be used).
#[test]
fn decisions_near_a_level_are_exact_warm_and_cold() {
    let (n, d, g) = (1000, 3, 1.5);
    let cm = instance(41, n, d, g);
    let warm = FastCm::new(cm.clone());
    let cold = || {
        FastCm::new(cm.clone()).with_settings(FastSettings {
            warm_start: false,
            ..FastSettings::default()
        })
    };
    let mut r = rng(410);
    let (mut decided, mut refined, mut points) = (0, 0, 0);
    for _ in 0..10 {
        let theta = random_theta(&mut r, d, g, 0.5);
        let truth = cold().evaluate_to(&theta, None, 1e-7).unwrap().0;
        if truth.width() > 2e-7 {
            continue;
        }
        points += 1;
        for offset in [-3e-4, -3e-5, -3e-6, -1e-6, 1e-6, 3e-6, 3e-5, 3e-4] {
            let level = truth.score + offset;
            let (a, b) = (
                warm.decide(&theta, level).unwrap(),
                cold().decide(&theta, level).unwrap(),
            );
            for decision in [a, b] {
                assert_eq!(
                    decision.member,
                    offset > 0.0,
                    "score {truth:?}, level {level}: {decision:?}"
                );
                assert!(!decision.tie, "{decision:?}");
                refined += (decision.refinements > 0) as usize;
                decided += 1;
            }
        }
    }
    assert!(
        points >= 6 && decided == 16 * points,
        "{points} points, {decided} decisions"
    );
    println!("{refined} of {decided} decisions at {points} points refined");
    assert!(
        refined >= decided / 4,
        "only {refined} of {decided} decisions were refined: the levels are not near the score"
    );
}
