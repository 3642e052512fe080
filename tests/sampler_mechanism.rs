//! The mechanism on a CM score (MATH.md 4.4, 4.5): in 1-D and 2-D the slice path, the
//! layer-cake path and exact quadrature of the target agree; releases on neighbouring
//! datasets have privacy loss within eps.
#[path = "../crates/sampler/tests/common/mod.rs"]
mod common;
use common::{ks_one_p, ks_two_p, rng};
use nalgebra::DMatrix;
use rand::rngs::StdRng;
use sosdp_eval::{Adversary, CorruptedSample};
use sosdp_oracle::Refinement;
use sosdp_sampler::levels::Levels;
use sosdp_sampler::target::Target;
use sosdp_sampler::{
    Ball, ChainSettings, ConvexBody, Directions, Ellipsoid, Intersection, LayerCakeSettings,
    LineMove, SliceSettings, layer_cake, slice,
};
use sosdp_score::{CertifiedMean, FastCm, ScoreError, ScoreEval, ScoreOracle};
use std::ops::ControlFlow;

const GAMMA: f64 = 1.25;

fn data(seed: u64, n: usize, d: usize) -> DMatrix<f64> {
    CorruptedSample::identity_covariance(
        &mut rng(seed),
        n,
        &vec![0.2; d],
        0.1,
        &Adversary::ShiftedCluster {
            distance: 3.0,
            axis: 0,
            spread: 0.1,
        },
    )
    .data
}

fn oracle(data: &DMatrix<f64>) -> FastCm {
    let d = data.ncols();
    FastCm::new(
        CertifiedMean::new(data, &vec![0.0; d], &(DMatrix::identity(d, d) * GAMMA)).unwrap(),
    )
}

fn domain(d: usize) -> Intersection {
    Intersection::new(vec![
        Box::new(Ball::new(vec![0.0; d], 1.0).unwrap()),
        Box::new(Ellipsoid::new(vec![0.0; d], &(DMatrix::identity(d, d) * GAMMA)).unwrap()),
    ])
    .unwrap()
}

const KAPPA: f64 = 0.37;

/// The target of [`Target`] on a grid: (points, normalised masses), by evaluating the score
/// at every grid point of the domain (cell volume constant).
struct Quadrature {
    points: Vec<Vec<f64>>,
    /// Normalised target mass of each cell.
    mass: Vec<f64>,
    /// Level index of each cell.
    index: Vec<i64>,
    /// Certified upper bound of the score of each cell's centre.
    upper: Vec<f64>,
}

fn quadrature(
    o: &FastCm,
    dom: &Intersection,
    levels: Levels,
    eps: f64,
    grid: &[Vec<f64>],
) -> Quadrature {
    let top = levels.index(o.max_score());
    let mut q = Quadrature {
        points: vec![],
        mass: vec![],
        index: vec![],
        upper: vec![],
    };
    for p in grid {
        if dom.contains(p).unwrap() {
            let e = o.evaluate(p).unwrap();
            let i = levels.index(e.score).min(top);
            q.points.push(p.clone());
            q.mass.push((-eps * levels.level(i)).exp());
            q.index.push(i);
            q.upper.push(e.upper);
        }
    }
    let total: f64 = q.mass.iter().sum();
    q.mass.iter_mut().for_each(|m| *m /= total);
    q
}

/// Marginal CDF of coordinate `k` under grid masses (cells of width `h` spread uniformly).
fn marginal_cdf(pts: &[Vec<f64>], mass: &[f64], k: usize, h: f64) -> impl Fn(f64) -> f64 {
    let cells: Vec<(f64, f64)> = pts.iter().zip(mass).map(|(p, m)| (p[k], *m)).collect();
    move |t: f64| {
        cells
            .iter()
            .map(|(x, m)| m * ((t - (x - 0.5 * h)) / h).clamp(0.0, 1.0))
            .sum()
    }
}

fn grid(d: usize, h: f64) -> Vec<Vec<f64>> {
    let k = (2.0 / h).round() as usize;
    let axis: Vec<f64> = (0..k).map(|i| -1.0 + (i as f64 + 0.5) * h).collect();
    if d == 1 {
        axis.iter().map(|&x| vec![x]).collect()
    } else {
        axis.iter()
            .flat_map(|&x| axis.iter().map(move |&y| vec![x, y]))
            .collect()
    }
}

/// `count` draws of the slice path from one long chain started at `start` (score at most
/// `s0`), keeping every `thin`-th iteration.
fn slice_draws<O: ScoreOracle + Sync>(
    target: &Target<O, Intersection>,
    start: &[f64],
    s0: f64,
    count: usize,
    thin: usize,
    r: &mut StdRng,
) -> Vec<Vec<f64>> {
    let settings = SliceSettings {
        iterations: thin,
        steps_per_iteration: 1,
    };
    let burn_in = SliceSettings {
        iterations: 20,
        steps_per_iteration: 1,
    };
    let (mut x, record) = slice::sample(
        target,
        start,
        target.levels.index(s0),
        &burn_in,
        r,
        &mut |_| ControlFlow::Continue(()),
    )
    .unwrap();
    let mut index = record.final_index;
    let mut out = Vec::new();
    for _ in 0..count {
        let (next, record) = slice::sample(target, &x, index, &settings, r, &mut |_| {
            ControlFlow::Continue(())
        })
        .unwrap();
        (x, index) = (next, record.final_index);
        out.push(x.clone());
    }
    out
}

/// Layer-cake releases with a light volume ladder (30 samples per rung).
fn layer_cake_draws(
    target: &Target<FastCm, Intersection>,
    start: &[f64],
    s0: f64,
    count: usize,
    r: &mut StdRng,
) -> Vec<Vec<f64>> {
    let settings = LayerCakeSettings {
        samples: 30,
        chain: ChainSettings {
            burn_in: 4,
            thin: 1,
        },
        final_steps: 3,
        ..LayerCakeSettings::default()
    };
    (0..count)
        .map(|_| {
            layer_cake::sample(target, start, s0, &settings, r, &mut |_| {
                ControlFlow::Continue(())
            })
            .unwrap()
            .0
        })
        .collect()
}

/// The lowest-scoring grid point (a start inside every level body) and its score bound.
fn grid_anchor(q: &Quadrature) -> (Vec<f64>, f64) {
    let k = (0..q.points.len())
        .min_by(|&a, &b| q.upper[a].total_cmp(&q.upper[b]))
        .unwrap();
    (q.points[k].clone(), q.upper[k])
}

fn check_agreement(d: usize, h: f64, slice_count: usize, cake_count: usize, seed: u64) {
    let y = data(seed, 40, d);
    let o = oracle(&y);
    let dom = domain(d);
    let levels = Levels::with_offset(KAPPA);
    let eps = 1.0; // eps' = eps / 2 for a user-facing eps = 2
    let q = quadrature(&o, &dom, levels, eps, &grid(d, h));
    let (start, s0) = grid_anchor(&q);
    let target = Target::new(
        &o,
        &dom,
        levels,
        eps,
        Directions::Isotropic,
        LineMove::PairedShrinkage,
    );
    let with_chords = Target::new(
        &o,
        &dom,
        levels,
        eps,
        Directions::Isotropic,
        LineMove::Chord { tol: 2e-3 },
    );
    let mut r = rng(seed + 10);
    let sliced = slice_draws(&target, &start, s0, slice_count, 2 * d, &mut r);
    let chorded = slice_draws(&with_chords, &start, s0, slice_count, 2 * d, &mut r);
    let caked = layer_cake_draws(&target, &start, s0, cake_count, &mut r);
    for k in 0..d {
        let cdf = marginal_cdf(&q.points, &q.mass, k, h);
        let a: Vec<f64> = sliced.iter().map(|x| x[k]).collect();
        let c: Vec<f64> = chorded.iter().map(|x| x[k]).collect();
        let b: Vec<f64> = caked.iter().map(|x| x[k]).collect();
        let (p_slice, p_chord, p_cake, p_two) = (
            ks_one_p(&a, &cdf),
            ks_one_p(&c, &cdf),
            ks_one_p(&b, &cdf),
            ks_two_p(&a, &b),
        );
        println!(
            "d = {d}, coordinate {k}: vs quadrature p = {p_slice:.3} (slice, paired shrinkage steps), {p_chord:.3} (slice, chord steps), {p_cake:.3} (layer-cake); slice vs layer-cake p = {p_two:.3}"
        );
        assert!(p_slice > 0.01 && p_chord > 0.01 && p_cake > 0.01 && p_two > 0.01);
    }
    // The layer-cake's level volumes (one release with a 300-sample ladder) against the
    // grid's, on every level carrying >= 1% of the mass.
    let settings = LayerCakeSettings {
        samples: 300,
        chain: ChainSettings {
            burn_in: 10,
            thin: 1,
        },
        ..LayerCakeSettings::default()
    };
    // One query at a time, so that the run is reproducible (paired queries on two threads
    // share the oracle's warm starts and cuts in an order that varies between runs).
    let serial = Target::new(
        &o,
        &dom,
        levels,
        eps,
        Directions::Isotropic,
        LineMove::Shrinkage,
    );
    let record = layer_cake::sample(
        &serial,
        &start,
        s0,
        &settings,
        &mut rng(seed + 20),
        &mut |_| ControlFlow::Continue(()),
    )
    .unwrap()
    .1;
    let m = record.truncation_index;
    let exact_log_v = |i: i64| (q.index.iter().filter(|&&j| j <= i).count() as f64).ln();
    let mut checked = 0;
    for &(i, lv) in &record.level_log_volumes {
        let weight: f64 = q
            .mass
            .iter()
            .zip(&q.index)
            .filter(|(_, j)| **j == i)
            .map(|(w, _)| w)
            .sum();
        if weight >= 0.01 && i < m {
            let ratio = (lv - (exact_log_v(i) - exact_log_v(m))).exp();
            println!(
                "d = {d}, level {i} (mass {weight:.3}): estimated / exact volume ratio {ratio:.3}"
            );
            assert!(
                (ratio - 1.0).abs() < 0.25,
                "level {i}: volume ratio {ratio}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 2, "too few levels checked ({checked})");
}

/// 1-D, n = 40 (10% outliers), eps = 2: 800 slice draws (a chain thinned by 2; a probe with
/// 2000 draws gave p = 0.99, 0.71, 0.37 at thinning 1, 3, 10), 200 layer-cake releases,
/// quadrature on a 1000-point grid. KS at level 0.01 detects CDF deviations above about
/// 0.06 (slice), 0.12 (layer-cake) and 0.13 (two-sample). (With 40 releases, p for the
/// layer-cake over 12 seeds spread from 0.001 to 0.83; at 400 releases, 0.48 and 0.45 on two
/// of them: the 0.001 was chance, not bias.) The layer-cake's level volumes
/// must match the grid's within 25% on every level with >= 1% of the mass.
#[test]
fn one_dimensional_paths_agree_with_quadrature() {
    check_agreement(1, 0.002, 800, 200, 1);
}

/// The same in 2-D on a 0.02 grid: 500 slice draws (thinned by 4), 30 layer-cake releases.
#[test]
fn two_dimensional_paths_agree_with_quadrature() {
    check_agreement(2, 0.02, 500, 30, 2);
}

/// Empirical privacy loss in 1-D: release histograms on two neighbouring datasets (the
/// leftmost record moved onto the outliers' side), eps = 1 (eps' = 1/2), fixed level offset,
/// 2500 slice draws each (chains thinned by 2), 20 bins. In every bin with >= 100 draws on
/// both sides, |log(c / c')| must stay below eps + 3 sqrt(1/c + 1/c') (three binomial
/// standard errors) and within that slack of the exact log ratio from quadrature. Not
/// vacuous: the exact largest |log ratio| must exceed eps / 4 and the observed one eps / 8.
#[test]
fn privacy_loss_on_neighbouring_datasets_is_within_epsilon() {
    let epsilon = 1.0;
    let y = data(3, 40, 1);
    let mut y2 = y.clone();
    let k = (0..y.nrows())
        .min_by(|&a, &b| y[(a, 0)].total_cmp(&y[(b, 0)]))
        .unwrap();
    y2[(k, 0)] = 3.0;
    let dom = domain(1);
    let levels = Levels::with_offset(KAPPA);
    let bins = 20;
    let bin_of = |x: f64| (((x + 1.0) / 2.0 * bins as f64) as usize).min(bins - 1);
    let (mut hist, mut exact) = (Vec::new(), Vec::new());
    for (seed, d) in [(21, &y), (22, &y2)] {
        let o = oracle(d);
        let q = quadrature(&o, &dom, levels, 0.5 * epsilon, &grid(1, 0.01));
        let target = Target::new(
            &o,
            &dom,
            levels,
            0.5 * epsilon,
            Directions::Isotropic,
            LineMove::Shrinkage,
        );
        let (start, s0) = grid_anchor(&q);
        let draws = slice_draws(&target, &start, s0, 2500, 2, &mut rng(seed));
        let mut h = vec![0.0f64; bins];
        draws.iter().for_each(|x| h[bin_of(x[0])] += 1.0);
        let mut e = vec![0.0f64; bins];
        q.points
            .iter()
            .zip(&q.mass)
            .for_each(|(p, m)| e[bin_of(p[0])] += m);
        hist.push(h);
        exact.push(e);
    }
    let (mut largest, mut largest_exact): (f64, f64) = (0.0, 0.0);
    for b in 0..bins {
        let (c1, c2) = (hist[0][b], hist[1][b]);
        let truth = (exact[0][b] / exact[1][b]).ln();
        largest_exact = largest_exact.max(truth.abs());
        if c1 >= 100.0 && c2 >= 100.0 {
            let loss = (c1 / c2).ln();
            let slack = 3.0 * (1.0 / c1 + 1.0 / c2).sqrt();
            println!(
                "bin {b}: counts {c1} / {c2}, log ratio {loss:.3}, exact {truth:.3}, slack {slack:.3}"
            );
            assert!(
                loss.abs() <= epsilon + slack,
                "bin {b}: privacy loss {loss} > {epsilon} + {slack}"
            );
            assert!(
                (loss - truth).abs() <= slack,
                "bin {b}: log ratio {loss} far from the exact {truth}"
            );
            largest = largest.max(loss.abs());
        }
    }
    println!("largest |log ratio|: observed {largest:.3}, exact {largest_exact:.3}");
    assert!(
        largest_exact <= epsilon + 1e-9,
        "the exact mechanism exceeds eps: {largest_exact}"
    );
    assert!(
        largest_exact > epsilon / 4.0 && largest > epsilon / 8.0,
        "the neighbours hardly differ: the test is vacuous"
    );
}

/// The entry point validates its settings before any oracle call, releases a hardened point
/// of the domain and records what ran.
#[test]
fn release_validates_and_records() {
    use sosdp_sampler::{MechanismSettings, SamplerError, SamplerKind, Start, release};
    assert!(matches!(
        MechanismSettings::new(0.0, 2),
        Err(SamplerError::EpsilonNotPositive(_))
    ));
    assert!(matches!(
        MechanismSettings::new(f64::NAN, 2),
        Err(SamplerError::EpsilonNotPositive(_))
    ));
    let y = data(4, 40, 2);
    let o = oracle(&y);
    let dom = domain(2);
    let mut settings = MechanismSettings::new(2.0, 2).unwrap();
    let outside = Start {
        theta: vec![2.0, 0.0],
        score_upper: 40.0,
    };
    assert!(matches!(
        release(&o, &dom, &outside, &settings, &mut rng(1), &mut |_| {
            ControlFlow::Continue(())
        }),
        Err(SamplerError::StartOutside(_))
    ));
    let start = Start {
        theta: vec![0.2, 0.2],
        score_upper: o.evaluate(&[0.2, 0.2]).unwrap().upper,
    };
    settings.line = LineMove::Chord { tol: 0.0 };
    assert!(matches!(
        release(&o, &dom, &start, &settings, &mut rng(1), &mut |_| {
            ControlFlow::Continue(())
        }),
        Err(SamplerError::InvalidSetting(_))
    ));
    for (kind, line) in [
        (SamplerKind::Slice, LineMove::Shrinkage),
        (SamplerKind::Slice, LineMove::Chord { tol: 2e-3 }),
        (SamplerKind::LayerCake, LineMove::Shrinkage),
    ] {
        settings.sampler = kind;
        settings.line = line;
        settings.layer_cake.samples = 20;
        let mut events = 0;
        let r = release(&o, &dom, &start, &settings, &mut rng(2), &mut |_| {
            events += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
        assert!(dom.contains(&r.theta).unwrap());
        let h = r.record.hardening_grid;
        assert!(
            r.theta
                .iter()
                .all(|x| ((x / h) - (x / h).round()).abs() < 1e-6),
            "not on the hardening grid: {:?}",
            r.theta
        );
        let calls = r.record.oracle_calls;
        assert!(
            events > 0
                && calls.evaluations + calls.memberships > 0
                && r.record.epsilon_sampling == 1.0
        );
        assert_eq!(calls.chords > 0, matches!(line, LineMove::Chord { .. }));
        assert_eq!(r.record.slice.is_some(), kind == SamplerKind::Slice);
        assert_eq!(
            r.record.layer_cake.is_some(),
            kind == SamplerKind::LayerCake
        );
    }
}

/// The level-index tests' target on `oracle`: levels offset by `KAPPA`, `eps' = 0.25`.
fn index_target<'a, O: ScoreOracle + Sync>(
    oracle: &'a O,
    dom: &'a Intersection,
) -> Target<'a, O, Intersection> {
    Target::new(
        oracle,
        dom,
        Levels::with_offset(KAPPA),
        0.25,
        Directions::Isotropic,
        LineMove::Shrinkage,
    )
}

/// `f(theta, score, upper)` for 60 points of `dom` (uniform in the cube of half-width 0.6,
/// those outside `dom` skipped), each with a level `upper` 0 to `above - 1` grid levels above
/// its index, all drawn from `rng(seed)`.
fn level_index_cases(
    o: &FastCm,
    dom: &Intersection,
    seed: u64,
    above: i64,
    mut f: impl FnMut(&[f64], f64, i64),
) {
    use rand::RngExt;
    let levels = Levels::with_offset(KAPPA);
    let d = o.dim();
    let mut r = rng(seed);
    let mut compared = 0;
    while compared < 60 {
        let theta: Vec<f64> = (0..d)
            .map(|_| 0.6 * (2.0 * r.random::<f64>() - 1.0))
            .collect();
        if !dom.contains(&theta).unwrap() {
            continue;
        }
        let score = o.evaluate(&theta).unwrap().score;
        let upper = levels.index(score) + r.random_range(0..above);
        f(&theta, score, upper);
        compared += 1;
    }
}

/// The membership descent (with its jumps over the levels a certified upper end decides),
/// one evaluation and the galloping search give the same level index, also for scores near a
/// level (decisions are exact), and the jumps save queries.
#[test]
fn level_index_by_descent_matches_evaluation() {
    use sosdp_sampler::counted::Counted;
    let x = data(11, 400, 3);
    let o = oracle(&x);
    let counted = Counted::new(&o);
    let dom = domain(3);
    let target = index_target(&counted, &dom);
    let levels = target.levels;
    let (mut compared, mut levels_descended, mut near) = (0, 0, 0);
    let descent_queries = std::cell::Cell::new(0);
    level_index_cases(&o, &dom, 12, 12, |theta, score, upper| {
        let exact = levels.index(score);
        let before = counted.calls().memberships;
        let by_descent = target.index_by_descent(theta, upper).unwrap();
        descent_queries.set(descent_queries.get() + counted.calls().memberships - before);
        let by_evaluation = target.index_by_evaluation(theta, upper).unwrap();
        let by_search = target.index_by_search(theta, upper).unwrap();
        assert_eq!(by_search, by_descent, "score {score}, upper {upper}");
        if (score - levels.level(exact)).abs() < 1e-2
            || (score - levels.level(exact - 1)).abs() < 1e-2
        {
            near += 1;
        }
        assert_eq!(by_descent, by_evaluation, "score {score}, upper {upper}");
        levels_descended += upper.min(target.top) - by_descent;
        compared += 1;
    });
    let (queries, by_search) = (descent_queries.get() as i64, counted.calls().memberships);
    // Without jumps the descent asks one query per level descended plus the final NO.
    assert!(
        queries < levels_descended + compared as i64,
        "{queries} queries for {levels_descended} levels ({near} near a level)"
    );
    assert_eq!(counted.calls().ties, 0);
    eprintln!("descent {queries} queries, all three ways {by_search}");
}

/// A backend whose membership brackets only decide their level (YES: the upper end is the
/// level; NO: the upper end is the maximum), as a solve stopped as soon as it decides: the
/// descent can then skip no level. With `fail_below`, its membership questions at levels
/// more than that many points below the score fail (the sampler's wrapper answers them from
/// the always-valid bracket, by the tie rule).
struct Deciding<'a> {
    oracle: &'a FastCm,
    fail_below: Option<f64>,
}

impl Deciding<'_> {
    fn clipped(&self, theta: &[f64], e: ScoreEval, level: f64) -> Result<ScoreEval, ScoreError> {
        if let Some(f) = self.fail_below
            && level < self.oracle.evaluate(theta)?.score - f
        {
            return Err(ScoreError::Solver("failing by design".into()));
        }
        Ok(if e.upper <= level {
            ScoreEval::bracketed(e.score, e.lower, level)
        } else if e.lower > level {
            ScoreEval::bracketed(e.score, e.lower, self.max_score())
        } else {
            e
        })
    }
}

impl ScoreOracle for Deciding<'_> {
    fn dim(&self) -> usize {
        self.oracle.dim()
    }
    fn max_score(&self) -> f64 {
        self.oracle.max_score()
    }
    fn backend(&self) -> &'static str {
        "deciding"
    }
    fn evaluate(&self, theta: &[f64]) -> Result<ScoreEval, ScoreError> {
        self.oracle.evaluate(theta)
    }
    fn refinement(&self) -> Refinement {
        self.oracle.refinement()
    }
    fn member_eval(&self, theta: &[f64], level: f64) -> Result<ScoreEval, ScoreError> {
        self.clipped(theta, self.oracle.member_eval(theta, level)?, level)
    }
    fn member_eval_to(
        &self,
        theta: &[f64],
        level: f64,
        accuracy: f64,
    ) -> Result<ScoreEval, ScoreError> {
        self.clipped(
            theta,
            self.oracle.member_eval_to(theta, level, accuracy)?,
            level,
        )
    }
}

/// The galloping search (`Target::index_by_search`, which finishes a descent that has not
/// ended within its budget) gives the descent's level index, also for scores near a level,
/// and asks fewer decisions than the descent when the index lies far below the level known
/// to hold the point and the brackets only decide their level. When the questions far below
/// the score fail (answered YES by the tie rule), the search still gives the index: it ends
/// by the descent at the first tie (without that, it returns the failed level).
#[test]
fn level_index_by_search_matches_descent() {
    use sosdp_sampler::counted::Counted;
    let x = data(11, 400, 3);
    let o = oracle(&x);
    let dom = domain(3);
    for fail_below in [None, Some(3.0)] {
        let deciding = Deciding {
            oracle: &o,
            fail_below,
        };
        let counted = Counted::new(&deciding);
        let target = index_target(&counted, &dom);
        let asked = || counted.calls().memberships;
        let (mut far, mut by_search_asked, mut by_descent_asked) = (0, 0, 0);
        level_index_cases(&o, &dom, 13, 60, |theta, score, upper| {
            let before = asked();
            let by_search = target.index_by_search(theta, upper).unwrap();
            let between = asked();
            let by_descent = target.index_by_descent(theta, upper).unwrap();
            by_search_asked += between - before;
            by_descent_asked += asked() - between;
            assert_eq!(
                by_search, by_descent,
                "score {score}, upper {upper}, failing below {fail_below:?}"
            );
            assert_eq!(by_descent, target.levels.index(score));
            far += usize::from(upper.min(target.top) - by_descent >= 16);
        });
        let calls = counted.calls();
        eprintln!(
            "failing below {fail_below:?}: search {by_search_asked}, descent {by_descent_asked}, \
             far {far}, failed {}",
            calls.failed
        );
        assert!(far >= 10, "only {far} indices 16 or more levels below");
        if fail_below.is_none() {
            assert_eq!(calls.ties, 0);
            assert!(
                by_search_asked < by_descent_asked,
                "the search asked {by_search_asked} decisions, the descent {by_descent_asked}"
            );
        } else {
            assert!(calls.failed >= 10, "only {} failed questions", calls.failed);
        }
    }
}
