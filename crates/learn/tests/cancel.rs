//! Cancelling a fit from its progress callback (`Learner::fit_with_progress`): a callback that
//! returns `ControlFlow::Break(())` on its k-th call ends the fit with
//! `Err(LearnError::Cancelled)` and is not called again, whichever step it breaks in (a mean
//! stage; the Gaussian's covariance refinement and its mean step, through the covariance's
//! and the mean's own fits); no fallback turns the cancel into a release. A callback that
//! always continues gives the release `fit` gives with the same seed, bit for bit.
use nalgebra::DMatrix;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use sosdp_learn::{
    Fit, GaussianSettings, LearnError, Learner, Plan, Privacy, PrivateGaussian, PrivateMean,
};
use sosdp_sampler::SamplerError;
use std::ops::ControlFlow;

/// `n` records in R^2 around `(1, -2)`, coordinates scaled by 1.5 and 1 (seeded).
fn records(n: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = StdRng::seed_from_u64(seed);
    DMatrix::from_fn(n, 2, |_, k| {
        let z: f64 = StandardNormal.sample(&mut rng);
        [1.0 + 1.5 * z, -2.0 + z][k]
    })
}

/// A fit's outcome.
type Outcome<L> = Result<Fit<<L as Learner>::Estimate, <L as Learner>::Plan>, LearnError>;

/// The fit of `learner` on `data` whose callback breaks on its `stop`-th call (never when
/// `None`), and the step of every call it received.
fn run<L: Learner>(
    learner: &L,
    data: &DMatrix<f64>,
    stop: Option<usize>,
) -> (Outcome<L>, Vec<usize>) {
    let mut steps = Vec::new();
    let out = learner.fit_with_progress(data, &mut |step, _| {
        steps.push(step);
        if Some(steps.len()) == stop {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    (out, steps)
}

/// The public release as JSON (what the CLI prints).
fn json<L: Learner>(fit: &Fit<L::Estimate, L::Plan>) -> String {
    serde_json::to_string(&fit.release).expect("a release serialises")
}

/// Breaking on call `stop` ends the fit with `Cancelled` after exactly `stop` calls.
fn assert_cancelled<L: Learner>(learner: &L, data: &DMatrix<f64>, stop: usize) {
    let (out, steps) = run(learner, data, Some(stop));
    match out {
        Err(LearnError::Cancelled) => {}
        Err(e) => panic!("break on call {stop}: {e:?}, not Cancelled"),
        Ok(_) => panic!("break on call {stop}: a release"),
    }
    assert_eq!(
        steps.len(),
        stop,
        "called again after the break on call {stop}"
    );
}

const K: usize = 5;

#[test]
fn a_mean_fit_stops_on_break_and_continuing_changes_nothing() {
    let data = records(2000, 1);
    let learner = PrivateMean::new(Privacy::new(1.0).seed(3), 10.0);
    let (whole, steps) = run(&learner, &data, None);
    let whole = whole.expect("a release when the callback always continues");
    // Non-vacuous: the fit has a CM stage, and its chain reports many more than K times.
    assert!(steps.len() > 10 * K, "only {} progress calls", steps.len());
    assert_eq!(
        json::<PrivateMean>(&whole),
        json::<PrivateMean>(&learner.fit(&data).unwrap())
    );
    assert_cancelled(&learner, &data, K);
    // On the very last call: the chain is over, yet nothing is released.
    assert_cancelled(&learner, &data, steps.len());
}

#[test]
fn a_gaussian_fit_stops_on_break_in_every_step_and_continuing_changes_nothing() {
    let data = records(4000, 2);
    // One refinement stage keeps the fit short; the plan has a mean step (on pairs).
    let learner =
        PrivateGaussian::new(Privacy::new(2.0).seed(5), 10.0, 4.0).settings(GaussianSettings {
            refinement_stages: 1,
            ..Default::default()
        });
    let (whole, steps) = run(&learner, &data, None);
    let whole = whole.expect("a release when the callback always continues");
    assert!(steps.len() > 10 * K, "only {} progress calls", steps.len());
    assert_eq!(
        json::<PrivateGaussian>(&whole),
        json::<PrivateGaussian>(&learner.fit(&data).unwrap())
    );
    // The first call (the covariance's refinement), K, the first call of the last step (the
    // mean step's CM stage, after the covariance's fit) and the very last call.
    let plan = &whole.release.plan;
    let last_step = *steps.last().unwrap();
    let first_of_last = 1 + steps.iter().position(|&s| s == last_step).unwrap();
    assert!(plan.mean.is_some() && steps[0] < plan.covariance.steps());
    assert!(last_step >= plan.covariance.steps() && last_step < plan.steps());
    for stop in [1, K, first_of_last, steps.len()] {
        assert_cancelled(&learner, &data, stop);
    }
}

#[test]
fn a_sampler_cancel_is_a_learner_cancel() {
    assert_eq!(
        LearnError::from(SamplerError::Cancelled),
        LearnError::Cancelled
    );
    assert_eq!(
        LearnError::from(SamplerError::LadderTooLong(3)),
        LearnError::Sampler(SamplerError::LadderTooLong(3))
    );
    assert!(
        LearnError::Cancelled
            .to_string()
            .contains("nothing was released")
    );
}
