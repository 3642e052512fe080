//! The level index by evaluation with a coarse bracket (`MechanismSettings::index_accuracy`):
//! the levels inside the bracket are decided exactly, so a release is bit-identical whether
//! the evaluations run to the backend's own accuracy (`1e-3`) or stop at 0.1 or 0.9 points.
//! The MALA path finds the level index of every proposal by evaluation (the slice path's
//! index is a descent of membership decisions, then a search of them, and asks none).
//! Non-vacuity: with the coarse brackets some level indices straddled a level and were
//! settled by membership decisions, and the index by evaluation was used at all. Taking the
//! bracket's upper level without deciding the straddled ones changes the release (seed 5).
mod common;

use common::{cluster_instance, short_release_with};
use sosdp_sampler::{MechanismSettings, SamplerKind};
use sosdp_score::FastCm;

#[test]
fn coarse_index_evaluations_give_the_same_release() {
    let mut straddled = 0;
    let mut evaluations = 0;
    for (seed, n, d, gamma) in [(5u64, 1500usize, 3usize, 1.6), (6, 2000, 4, 1.5)] {
        let cm = cluster_instance(seed, n, d, gamma);
        let releases: Vec<_> = [0.0, 0.1, 0.9]
            .into_iter()
            .map(|index_accuracy| {
                let settings = MechanismSettings {
                    index_accuracy,
                    sampler: SamplerKind::Mala,
                    ..MechanismSettings::new(1.0, d).unwrap()
                };
                short_release_with(&FastCm::new(cm.clone()), d, gamma, settings)
            })
            .collect();
        for r in &releases[1..] {
            assert_eq!(r.theta, releases[0].theta, "seed {seed}");
            assert!(r.record.mala.is_some());
            assert_eq!(r.record.mala, releases[0].record.mala, "seed {seed}");
            straddled += r.record.oracle_calls.straddled_indices;
            evaluations += r.record.oracle_calls.evaluations;
        }
    }
    assert!(evaluations >= 1, "no level index came from an evaluation");
    eprintln!("{evaluations} evaluations, {straddled} straddled");
    assert!(straddled >= 1, "no coarse bracket straddled a level");
}
