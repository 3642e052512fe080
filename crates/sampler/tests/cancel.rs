//! Cancelling a release from its progress callback: `ControlFlow::Break(())` on the k-th call
//! ends [`release`] with [`SamplerError::Cancelled`] and no further call, on every path
//! (slice, MALA, layer-cake), in the rounding pilot, in the counted chain and on the very last
//! call; a callback that always continues changes nothing.
mod common;
use common::rng;
use sosdp_sampler::reference::QuadraticScore;
use sosdp_sampler::{Ball, MechanismSettings, Release, SamplerError, SamplerKind, Start, release};
use std::ops::ControlFlow;

/// The release of `kind` on a quadratic score in `R^2`, whose callback breaks on its
/// `stop`-th call (never when `None`), and the number of calls it received.
fn run(kind: SamplerKind, stop: Option<usize>) -> (Result<Release, SamplerError>, usize) {
    let oracle = QuadraticScore {
        mu: vec![0.5, -0.5],
        curvature: vec![8.0, 2.0],
        cap: 40.0,
    };
    let domain = Ball::new(vec![0.0; 2], 4.0).unwrap();
    let start = Start {
        theta: vec![0.0; 2],
        score_upper: 40.0,
    };
    let mut settings = MechanismSettings::new(2.0, 2).unwrap();
    settings.sampler = kind;
    settings.layer_cake.samples = 20;
    let mut calls = 0;
    let out = release(
        &oracle,
        &domain,
        &start,
        &settings,
        &mut rng(3),
        &mut |_| {
            calls += 1;
            if Some(calls) == stop {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    (out, calls)
}

#[test]
fn break_stops_every_path_at_once() {
    for kind in [
        SamplerKind::Slice,
        SamplerKind::Mala,
        SamplerKind::LayerCake,
    ] {
        let (whole, total) = run(kind, None);
        let whole = whole.expect("a release when the callback always continues");
        // The rounding pilot has 20 d = 40 calls; the 41st is the path's first (the first
        // iteration of the counted chain, or the layer-cake's first rung).
        assert!(total >= 41, "{kind:?}: only {total} progress calls");
        for stop in [1, 5, 41, total] {
            let (out, calls) = run(kind, Some(stop));
            assert_eq!(
                out,
                Err(SamplerError::Cancelled),
                "{kind:?}, break on call {stop}"
            );
            assert_eq!(
                calls, stop,
                "{kind:?}: called again after the break on call {stop}"
            );
        }
        // Continuing is the same run: the same point and chain records.
        let (again, _) = run(kind, Some(total + 1));
        let again = again.unwrap();
        assert_eq!(again.theta, whole.theta, "{kind:?}");
        assert_eq!(again.record.slice, whole.record.slice, "{kind:?}");
        assert_eq!(again.record.mala, whole.record.mala, "{kind:?}");
        assert_eq!(again.record.layer_cake, whole.record.layer_cake, "{kind:?}");
    }
    assert!(
        SamplerError::Cancelled
            .to_string()
            .contains("nothing was released")
    );
}
