//! The fast backend against the clarabel reference (MATH.md 3.2): agreement of certified
//! scores, weak membership with early stopping, chords, and parallel batches.
mod common;

use common::{instance, normal_vec, random_theta, rng};
use sosdp_score::{
    Answer, ClarabelCm, EvalStats, FastCm, FastSettings, ScoreOracle, Start, chord_by_bisection,
    evaluate_batch,
};

/// Agreement within 1e-6 n (issue target) on random instances and thetas at all depths of the
/// domain, cold and along a warm chain; both brackets must overlap.
#[test]
fn fast_agrees_with_clarabel() {
    let mut checked = 0;
    let mut interior = 0;
    for (seed, n, d) in [(1u64, 1000usize, 2usize), (2, 1000, 4), (3, 1200, 6)] {
        let g = 1.5;
        let cm = instance(seed, n, d, g);
        let fast = FastCm::new(cm.clone());
        let reference = ClarabelCm::new(cm);
        let mut r = rng(100 + seed);
        for k in 0..8 {
            if k % 2 == 0 {
                fast.reset();
            }
            let theta = random_theta(&mut r, d, g, 0.1 + 0.85 * (k as f64) / 8.0);
            let (a, stats) = fast.evaluate_detailed(&theta, None).unwrap();
            assert!(
                stats.answer != Answer::Fallback && stats.iterations > 0,
                "the fast path must answer: {stats:?}"
            );
            let b = reference.evaluate(&theta).unwrap();
            assert!(
                (a.score - b.score).abs() <= 1e-6 * n as f64,
                "n {n} d {d} theta {theta:?}: fast {a:?} clarabel {b:?}"
            );
            assert!(
                a.lower <= b.upper + 1e-9 && b.lower <= a.upper + 1e-9,
                "brackets disjoint: {a:?} {b:?}"
            );
            assert!(a.width() <= 1e-3);
            checked += 1;
            if a.score > 1.0 && a.score < n as f64 - 1.0 {
                interior += 1;
            }
        }
    }
    assert_eq!(checked, 24);
    assert!(
        interior >= 16,
        "too few interior scores ({interior}) for the test to mean anything"
    );
}

/// Outside the CM domain both backends report the "infinite" value n.
#[test]
fn fast_reports_outside_domain() {
    let cm = instance(4, 400, 3, 1.2);
    let fast = FastCm::new(cm);
    let e = fast.evaluate(&[2.0, 0.0, 0.0]).unwrap();
    assert!(!e.in_domain);
    assert_eq!(e.score, 400.0);
    assert!(fast.evaluate(&[f64::NAN, 0.0, 0.0]).is_err());
    assert!(fast.evaluate(&[0.0, 0.0]).is_err());
}

/// On the domain's boundary (where the score is `n` and the LMI is singular) both backends
/// answer from the bottom-eigenvector certificate, within the accuracy of `n`.
#[test]
fn boundary_is_certified_by_both_backends() {
    let (n, d, g) = (500, 3, 1.2);
    let cm = instance(8, n, d, g);
    let fast = FastCm::new(cm.clone());
    let reference = ClarabelCm::new(cm.clone());
    let mut r = rng(88);
    for _ in 0..4 {
        let u = random_theta(&mut r, d, g, 1.0);
        let (_, hi) = cm.line_domain(&vec![0.0; d], &u).unwrap();
        let theta: Vec<f64> = u.iter().map(|x| x * hi * (1.0 - 1e-12)).collect();
        for e in [
            fast.evaluate(&theta).unwrap(),
            reference.evaluate(&theta).unwrap(),
        ] {
            assert!(e.in_domain && e.lower >= n as f64 - 1e-3, "{e:?}");
        }
    }
}

/// Early-stopped membership answers match the full bracket whenever the score is more than
/// the accuracy away from the level.
#[test]
fn membership_matches_full_evaluation() {
    let (n, d, g) = (1000, 4, 1.5);
    let cm = instance(5, n, d, g);
    let fast = FastCm::new(cm.clone());
    let reference = ClarabelCm::new(cm);
    let mut r = rng(55);
    let mut decided = 0;
    for k in 0..6 {
        let theta = random_theta(&mut r, d, g, 0.2 + 0.1 * k as f64);
        let s = reference.evaluate(&theta).unwrap().score;
        for offset in [-5.0, -0.5, -0.01, 0.01, 0.5, 5.0] {
            let level = s + offset;
            let answer = fast.member(&theta, level).unwrap();
            assert_eq!(answer, offset > 0.0, "score {s}, level {level}");
            decided += 1;
        }
    }
    assert_eq!(decided, 36);
}

/// A membership question followed by the question one point lower (the sampler's level
/// descent, [`FastCm::evaluate_then`]): the answer at the level is the reference's, and after
/// a YES the bracket also decides the next level, YES or NO, as the reference does. Non-vacuous:
/// the same questions without the next level, on a fresh backend, leave it undecided in some
/// cases (the solve stops as soon as the level alone is decided).
#[test]
fn a_yes_followed_by_the_next_level_decides_both() {
    let (n, d, g) = (2000, 6, 1.3);
    let cm = instance(11, n, d, g);
    let reference = ClarabelCm::new(cm.clone());
    let mut r = rng(110);
    let mut open_without = 0;
    for _ in 0..6 {
        let theta = random_theta(&mut r, d, g, 0.4);
        let s = reference.evaluate(&theta).unwrap().score;
        for (level, next) in [(s + 0.6, s - 0.4), (s + 0.7, s + 0.3)] {
            let (eval, stats) = FastCm::new(cm.clone())
                .evaluate_then(&theta, level, next)
                .unwrap();
            assert_ne!(stats.answer, Answer::Fallback);
            assert!(
                eval.upper <= level && eval.lower <= s + 1e-6,
                "{s}: {eval:?}"
            );
            let decides = |e: &sosdp_score::ScoreEval| e.upper <= next || e.lower > next;
            assert!(
                decides(&eval),
                "next level {next} open in {eval:?} (score {s})"
            );
            assert_eq!(eval.upper <= next, next > s, "{s}: {eval:?}");
            let (alone, _) = FastCm::new(cm.clone())
                .evaluate_detailed(&theta, Some(level))
                .unwrap();
            open_without += !decides(&alone) as usize;
        }
    }
    assert!(
        open_without >= 1,
        "every question alone decided the next level too"
    );
}

/// The membership question "score <= s + offset" at `far` (reference score `s`): answered
/// without the fallback, as the reference answers it, by a bracket holding `s`.
fn answer_far_query(fast: &FastCm, far: &[f64], s: f64, offset: f64) -> EvalStats {
    let (eval, stats) = fast.evaluate_detailed(far, Some(s + offset)).unwrap();
    assert!(stats.answer != Answer::Fallback, "{stats:?}");
    assert_eq!(
        eval.upper <= s + offset,
        offset > 0.0,
        "score {s}, level {}: {eval:?}",
        s + offset
    );
    assert!(
        eval.lower <= s + 1e-6 && s <= eval.upper + 1e-6,
        "score {s} outside {eval:?}"
    );
    stats
}

/// Membership far outside the level body the warm state comes from (the sampler's stepping
/// out along a new direction): in some queries the warm guess is far off (given up for a cold
/// start, or repaired by freeing most weights), and every answer still matches the reference
/// score.
#[test]
fn far_queries_after_a_warm_solve_are_answered_right() {
    let (n, d, g) = (2000, 6, 1.3);
    let cm = instance(14, n, d, g);
    let fast = FastCm::new(cm.clone());
    let reference = ClarabelCm::new(cm);
    let mut r = rng(140);
    let inside = random_theta(&mut r, d, g, 0.05);
    let mut far_off = 0;
    for _ in 0..6 {
        let far = random_theta(&mut r, d, g, 0.9);
        let s = reference.evaluate(&far).unwrap().score;
        for offset in [-20.0, 20.0] {
            // Warm state from the inside point, then the far query.
            fast.evaluate(&inside).unwrap();
            let stats = answer_far_query(&fast, &far, s, offset);
            far_off += (stats.restarted_cold || 2 * stats.free > n) as usize;
        }
    }
    assert!(
        far_off >= 1,
        "no query of 12 restarted cold or freed most weights: the warm guesses were not far off"
    );
}

/// Far queries from the warm state of the antipode, with the cold-restart rules applied at
/// every rank (`large_rank = 0`, without the compressed program): a warm guess whose first
/// dual contradicts more statuses than one repair frees restarts cold with `far_off_restarts`
/// and is repaired without it, and both answer every query as the reference score does.
/// Non-vacuous: with the rule some queries restart cold, without it fewer (the `guess_rounds`
/// rule alone); a flag that did not reach the rule fails the last assertion.
#[test]
fn far_off_guesses_restarted_or_repaired_give_the_same_answers() {
    let (n, d, g) = (20000, 6, 1.3);
    let cm = instance(14, n, d, g);
    let reference = ClarabelCm::new(cm.clone());
    let mut restarts = Vec::new();
    for far_off_restarts in [true, false] {
        let mut settings = FastSettings {
            large_rank: 0,
            ..FastSettings::default()
        };
        settings.repair.far_off_restarts = far_off_restarts;
        // No compressed answers or relaxed starts: every far query starts from the guess.
        settings.compress.compress_rank = 0;
        // A repair frees at most twice the free weights (not at least 256), so that a first
        // dual at these small sizes can contradict more than one repair frees.
        settings.repair.min_repair = 1;
        let fast = FastCm::new(cm.clone()).with_settings(settings);
        let mut r = rng(140);
        let mut restarted = 0;
        for _ in 0..6 {
            // Warm state from the far point's antipode, then the far query.
            let far = random_theta(&mut r, d, g, 0.9);
            let opposite: Vec<f64> = far.iter().map(|x| -x).collect();
            let s = reference.evaluate(&far).unwrap().score;
            for offset in [-20.0, 20.0] {
                fast.evaluate(&opposite).unwrap();
                restarted += answer_far_query(&fast, &far, s, offset).restarted_cold as usize;
            }
        }
        restarts.push(restarted);
    }
    assert!(
        restarts[0] >= 1 && restarts[1] < restarts[0],
        "cold restarts with and without the far-off rule: {restarts:?}"
    );
}

/// Chord endpoints: just inside has score <= level (+ accuracy), just outside has score
/// > level (- accuracy), checked with the reference backend.
#[test]
fn chords_bracket_the_level_set() {
    let (n, d, g) = (800, 3, 1.5);
    let cm = instance(6, n, d, g);
    let fast = FastCm::new(cm.clone());
    let reference = ClarabelCm::new(cm.clone());
    let mut r = rng(66);
    let x = vec![0.0; d];
    let level = reference.evaluate(&x).unwrap().score + 30.0;
    let tol = 1e-4;
    for _ in 0..4 {
        let u: Vec<f64> = {
            let v = normal_vec(&mut r, d);
            let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
            v.iter().map(|a| a / norm).collect()
        };
        let range = cm.line_domain(&x, &u).unwrap();
        let c = fast.chord(&x, &u, level, range, tol).unwrap();
        assert!(c.lo < 0.0 && c.hi > 0.0 && c.queries > 2);
        for (end, limit) in [(c.hi, range.1), (c.lo, range.0)] {
            let dir = end.signum();
            let inside: Vec<f64> = x
                .iter()
                .zip(&u)
                .map(|(a, b)| a + (end - dir * 2.0 * tol) * b)
                .collect();
            assert!(reference.evaluate(&inside).unwrap().score <= level + 1e-3);
            if (end - limit).abs() > tol {
                let outside: Vec<f64> = x
                    .iter()
                    .zip(&u)
                    .map(|(a, b)| a + (end + dir * 2.0 * tol) * b)
                    .collect();
                assert!(reference.evaluate(&outside).unwrap().score > level - 1e-3);
            }
        }
    }
}

/// The outer ends the fast backend answers from its kept cuts contain the chord (bisection on
/// the reference backend's membership), for points and directions after a few evaluations
/// (which keep the cuts), in 1-D and 3-D; and some end is actually bounded.
#[test]
fn outer_ends_contain_the_chord() {
    let mut bounded = 0;
    for (d, seed) in [(1, 31), (3, 32)] {
        let (n, g) = (400, 1.5);
        let cm = instance(seed, n, d, g);
        let fast = FastCm::new(cm.clone());
        let reference = ClarabelCm::new(cm.clone());
        let mut r = rng(seed + 100);
        let x = vec![0.0; d];
        let level = reference.evaluate(&x).unwrap().score + 10.0;
        for k in 0..12 {
            let y = random_theta(&mut r, d, g, 0.6);
            fast.member(&y, level).unwrap();
            let u: Vec<f64> = {
                let v = normal_vec(&mut r, d);
                let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
                v.iter().map(|a| a / norm).collect()
            };
            let (lo, hi) = fast.outer_ends(&x, &u, level);
            let range = cm.line_domain(&x, &u).unwrap();
            let c = chord_by_bisection(&reference, &x, &u, level, range, 1e-6).unwrap();
            if let Some(hi) = hi {
                assert!(
                    hi >= c.hi - 1e-5,
                    "k {k}, d {d}: outer end {hi} inside the chord's end {}",
                    c.hi
                );
                bounded += 1;
            }
            if let Some(lo) = lo {
                assert!(
                    lo <= c.lo + 1e-5,
                    "k {k}, d {d}: outer end {lo} inside the chord's end {}",
                    c.lo
                );
                bounded += 1;
            }
        }
    }
    assert!(bounded >= 10, "too few bounded ends ({bounded})");
}

/// The direct chord ends (one program per end, certified on both sides) agree with
/// bisection on the reference backend's membership within the tolerance, along a chain of
/// chords through moving points (as hit-and-run uses them), with no end left to bisection and
/// no fallback.
#[test]
fn direct_chords_agree_with_bisection() {
    for (seed, n, d, g) in [(9u64, 1000usize, 3usize, 1.5), (10, 1500, 5, 1.6)] {
        let cm = instance(seed, n, d, g);
        let fast = FastCm::new(cm.clone());
        let reference = ClarabelCm::new(cm.clone());
        let mut r = rng(90 + seed);
        let mut x = vec![0.0; d];
        let level = reference.evaluate(&x).unwrap().score + 20.0;
        let tol = 1e-4;
        for step in 0..5 {
            let u: Vec<f64> = {
                let v = normal_vec(&mut r, d);
                let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
                v.iter().map(|a| a / norm).collect()
            };
            let range = cm.line_domain(&x, &u).unwrap();
            let direct = fast.chord(&x, &u, level, range, tol).unwrap();
            let bisected = chord_by_bisection(&reference, &x, &u, level, range, tol).unwrap();
            assert!(direct.lo < 0.0 && direct.hi > 0.0, "{direct:?}");
            assert!(
                direct.queries < bisected.queries,
                "{direct:?} vs {bisected:?}"
            );
            for (a, b) in [(direct.lo, bisected.lo), (direct.hi, bisected.hi)] {
                assert!(
                    (a - b).abs() <= 2.0 * tol,
                    "seed {seed} step {step}: direct {direct:?} bisection {bisected:?}"
                );
            }
            // The next chord goes through a point of this one.
            let s = direct.lo + (0.2 + 0.15 * step as f64) * (direct.hi - direct.lo);
            x = x.iter().zip(&u).map(|(a, b)| a + s * b).collect();
        }
        assert_eq!(
            fast.bisected_ends(),
            0,
            "every end must be certified by its own program"
        );
        assert_eq!(fast.answers(Answer::Fallback), 0);
    }
}

/// A point near the domain's boundary (0.97 of the way along a random direction, `Gamma = g I`)
/// and the bottom eigenvector `e` of `B` there: the dual direction `e e^T` of
/// `CertifiedMean::eigen_bound`, whose cut is large near that point.
fn binding_direction(
    cm: &sosdp_score::cm::CertifiedMean,
    r: &mut rand::rngs::StdRng,
    g: f64,
) -> (Vec<f64>, nalgebra::DVector<f64>) {
    let dir = random_theta(r, cm.dim(), g, 1.0);
    let norm = dir.iter().map(|a| a * a).sum::<f64>().sqrt();
    let at: Vec<f64> = dir.iter().map(|a| a * 0.97 * g.sqrt() / norm).collect();
    let eig = cm.b_matrix(&at).symmetric_eigen();
    let e = eig.eigenvectors.column(eig.eigenvalues.imin()).into_owned();
    (at, e)
}

/// Truncated cuts (`CertifiedMean::truncated_cut`) on duals shaped like an interior-point
/// iterate's: a dual direction that binds (the bottom eigenvector of `B` near the boundary)
/// plus a small full-rank component. With tolerance 0 the truncated cut is the whole dual's
/// cut; with `1e-3` it keeps the binding direction alone (non-vacuity: components were
/// dropped) and is still below clarabel's score at the point and elsewhere.
#[test]
fn truncated_cuts_bound_the_score_from_below() {
    let (n, d, g) = (600, 3, 1.5);
    let cm = instance(14, n, d, g);
    let reference = ClarabelCm::new(cm.clone());
    let mut r = rng(140);
    let mut binding = 0;
    for _ in 0..4 {
        let (at, e) = binding_direction(&cm, &mut r, g);
        let noise =
            nalgebra::DMatrix::from_fn(d + 1, d + 1, |_, _| 1e-5 * normal_vec(&mut r, 1)[0]);
        let y = &e * e.transpose() + &noise * noise.transpose();
        let whole = cm.cut(&y, &at);
        let same = cm.truncated_cut(&y, &at, 0.0);
        assert!((same.value(&at) - whole.value(&at)).abs() < 1e-6 * n as f64);
        let truncated = cm.truncated_cut(&y, &at, 1e-3);
        let kept = truncated.dual.as_ref().clone().symmetric_eigen();
        let rank = kept.eigenvalues.iter().filter(|&&l| l > 1e-12).count();
        assert_eq!(rank, 1, "the truncation must drop the small components");
        for k in 0..4 {
            let theta = if k == 0 {
                at.clone()
            } else {
                random_theta(&mut r, d, g, 0.95)
            };
            let s = reference.evaluate(&theta).unwrap();
            assert!(
                truncated.value(&theta) <= s.upper + 1e-6 * n as f64,
                "truncated cut {} above the score {s:?}",
                truncated.value(&theta)
            );
        }
        binding += (truncated.value(&at) > 0.5 * n as f64) as usize;
    }
    assert!(binding >= 2, "too few truncated cuts bind ({binding})");
}

/// Cuts are lower bounds of CM everywhere (weak duality with one dual matrix), and at the
/// point they are made for they give the certified lower bound.
#[test]
fn cuts_bound_the_score_from_below() {
    let (n, d, g) = (600, 3, 1.5);
    let cm = instance(12, n, d, g);
    let reference = ClarabelCm::new(cm.clone());
    let mut r = rng(120);
    let mut tight = 0;
    for _ in 0..4 {
        let (at, e) = binding_direction(&cm, &mut r, g);
        let y = &e * e.transpose();
        let cut = cm.cut(&y, &at);
        assert!((cut.value(&at).max(0.0) - cm.lower_bound(&at, &y)).abs() < 1e-9);
        assert!(
            cut.value(&at) > 0.5 * n as f64,
            "the test needs a cut that binds: {}",
            cut.value(&at)
        );
        for k in 0..5 {
            // Random points, and points on the ray towards `at` where the cut binds.
            let theta = if k % 2 == 0 {
                random_theta(&mut r, d, g, 0.95)
            } else {
                at.iter().map(|a| a * (0.9 + 0.03 * k as f64)).collect()
            };
            let s = reference.evaluate(&theta).unwrap();
            assert!(
                cut.value(&theta) <= s.upper + 1e-9,
                "cut {} above the score {s:?}",
                cut.value(&theta)
            );
            if cut.value(&theta) > 1.0 {
                tight += 1;
            }
        }
    }
    assert!(
        tight >= 2,
        "too few points where a cut is positive ({tight})"
    );
}

/// The fast anchor agrees with the clarabel anchor (score within the accuracy), without and
/// with a binding ball domain, answers on the fast path, and its certified ball lies in the
/// next level (checked with the reference backend on its boundary).
#[test]
fn fast_anchor_agrees_with_clarabel() {
    use sosdp_score::{BallDomain, minimise_cm};
    for (seed, n, d, g) in [(13u64, 1000usize, 3usize, 1.5), (14, 1500, 6, 1.6)] {
        let cm = instance(seed, n, d, g);
        let fast = FastCm::new(cm.clone());
        let reference = ClarabelCm::new(cm.clone());
        let free = minimise_cm(&reference, None).unwrap();
        let free_score = free.eval.score;
        // A ball that excludes the unconstrained minimiser.
        let mut centre = free.theta.clone();
        centre[0] -= 0.3;
        let ball = BallDomain {
            centre,
            radius: 0.2,
        };
        for (domain, expected) in [
            (None, free),
            (Some(&ball), minimise_cm(&reference, Some(&ball)).unwrap()),
        ] {
            let anchor = fast.minimise(domain).unwrap();
            assert!(
                (anchor.eval.score - expected.eval.score).abs() <= 1e-3,
                "n {n} d {d}: fast {anchor:?} clarabel {expected:?}"
            );
            assert!(
                anchor.eval.width() <= 1e-3 && anchor.radius > 0.0,
                "{anchor:?}"
            );
            if let Some(b) = domain {
                let dist = anchor
                    .theta
                    .iter()
                    .zip(&b.centre)
                    .map(|(t, c)| (t - c).powi(2))
                    .sum::<f64>()
                    .sqrt();
                assert!(dist <= b.radius + 1e-12, "outside the ball: {dist}");
                assert!(expected.eval.score > free_score + 1.0, "the ball must bind");
            }
            let mut r = rng(130 + seed);
            for _ in 0..3 {
                let u = random_theta(&mut r, d, g, 1.0);
                let norm = u.iter().map(|a| a * a).sum::<f64>().sqrt();
                let theta: Vec<f64> = anchor
                    .theta
                    .iter()
                    .zip(&u)
                    .map(|(a, b)| a + anchor.radius * b / norm)
                    .collect();
                assert!(
                    reference.evaluate(&theta).unwrap().score <= anchor.eval.upper + 1.0 + 1e-6
                );
            }
        }
        assert_eq!(fast.answers(Answer::Fallback), 0);
    }
}

/// A parallel batch returns the same certified scores as sequential evaluation.
#[test]
fn batch_matches_sequential() {
    let (n, d, g) = (600, 3, 1.5);
    let cm = instance(7, n, d, g);
    let fast = FastCm::new(cm);
    let mut r = rng(77);
    let thetas: Vec<Vec<f64>> = (0..6)
        .map(|k| random_theta(&mut r, d, g, 0.15 * (k + 1) as f64))
        .collect();
    let batch = evaluate_batch(&fast, &thetas);
    for (theta, b) in thetas.iter().zip(batch) {
        let b = b.unwrap();
        let s = fast.evaluate(theta).unwrap();
        assert!((b.score - s.score).abs() <= 1e-3, "{b:?} vs {s:?}");
    }
}

/// SP on the fast backend agrees with clarabel within 1e-6 n at matrices near and far from
/// the covariance (cold and warm), with overlapping brackets.
#[test]
fn fast_sp_agrees_with_clarabel() {
    use common::{random_spd, small_data};
    use sosdp_score::{ClarabelSp, FastSp, Spectral};
    let mut interior = 0;
    for (seed, n, d) in [(11u64, 800usize, 2usize), (12, 1000, 4)] {
        let mut r = rng(seed);
        let data = small_data(&mut r, n, d);
        let sp = Spectral::new(&data, 2.0 + 2.0 * d as f64, 0.3).unwrap();
        let fast = FastSp::new(sp.clone());
        let reference = ClarabelSp::new(sp);
        for k in 0..6 {
            let (lo, hi) = [(0.8, 1.3), (0.5, 2.0), (0.3, 4.0)][k % 3];
            let s = random_spd(&mut r, d, lo, hi);
            let theta = Spectral::theta_of(&s);
            let (a, stats) = fast.evaluate_detailed(&theta, None).unwrap();
            assert!(
                stats.answer != Answer::Fallback,
                "the fast path must answer: {stats:?}"
            );
            let b = reference.evaluate(&theta).unwrap();
            assert!(
                (a.score - b.score).abs() <= 1e-6 * n as f64,
                "n {n} d {d}: fast {a:?} clarabel {b:?}"
            );
            assert!(
                a.lower <= b.upper + 1e-9 && b.lower <= a.upper + 1e-9,
                "brackets disjoint: {a:?} {b:?}"
            );
            if a.score > 1.0 && a.score < fast.max_score() - 1.0 {
                interior += 1;
            }
        }
    }
    assert!(interior >= 6, "too few interior scores ({interior})");
}

/// Aggregated rounds (MATH.md 4.10) on instances with a tight cluster, with aggregation forced
/// at small sizes: the certified scores agree with clarabel, and grouped rounds certified a good
/// share of the evaluations (the accepted round was grouped).
#[test]
fn aggregated_rounds_agree_with_clarabel() {
    use sosdp_score::{AggregateSettings, CompressSettings, FastSettings};
    // `large_rank = 0` also turns on the compressed program, whose answers would bracket the
    // evaluations near kept cuts instead of the grouped rounds under test: off.
    let settings = FastSettings {
        large_rank: 0,
        aggregate: AggregateSettings {
            aggregate_free: 16,
            group_core: 2,
            ..AggregateSettings::default()
        },
        compress: CompressSettings {
            compress_rank: 0,
            ..CompressSettings::default()
        },
        ..FastSettings::default()
    };
    let (mut checked, mut grouped) = (0, 0);
    for (seed, n, d) in [(11u64, 1500usize, 2usize), (12, 2000, 4)] {
        let data = common::small_data(&mut rng(seed), n, d);
        let g = 2.0;
        let cm = sosdp_score::CertifiedMean::new(
            &data,
            &vec![0.0; d],
            &(nalgebra::DMatrix::identity(d, d) * g),
        )
        .unwrap();
        let fast = FastCm::new(cm.clone()).with_settings(settings.clone());
        let reference = ClarabelCm::new(cm);
        let mut r = rng(200 + seed);
        for k in 0..10 {
            let theta = random_theta(&mut r, d, g, 0.2 + 0.6 * (k as f64) / 10.0);
            let (a, stats) = fast.evaluate_detailed(&theta, None).unwrap();
            assert!(stats.answer != Answer::Fallback, "{stats:?}");
            let b = reference.evaluate(&theta).unwrap();
            assert!(
                (a.score - b.score).abs() <= 1e-6 * n as f64,
                "n {n} d {d}: fast {a:?} clarabel {b:?} ({stats:?})"
            );
            assert!(a.lower <= b.upper + 1e-9 && b.lower <= a.upper + 1e-9);
            assert!(a.width() <= 1e-3);
            checked += 1;
            if stats.groups > 0 {
                grouped += 1;
            }
        }
    }
    assert_eq!(checked, 20);
    // Non-vacuity: grouped rounds certify some evaluations (5 of 20 with OpenBLAS, 4 with the
    // faer BLAS, whose rounding moves one round's acceptance; a grouping that never certifies
    // gives 0).
    assert!(
        grouped >= 3,
        "only {grouped} of 20 evaluations certified by a grouped round"
    );
}

/// A variant of the fast CM backend's Newton systems (`vary` edits the settings of every
/// interior-point round) gives the same certified scores as the default and as clarabel, in
/// about the same number of interior-point iterations (a wrong product would break the Newton
/// directions: no convergence, or a fallback).
fn newton_variant_agrees(vary: impl Fn(&mut sosdp_score::ipm::IpmSettings)) {
    use sosdp_score::FastSettings;
    let default = FastSettings::default();
    let mut variant = FastSettings::default();
    for ipm in [
        &mut variant.round,
        &mut variant.cold.subsample_round,
        &mut variant.compress.compress_round,
    ] {
        vary(ipm);
    }
    let (n, d, g) = (3000usize, 5usize, 1.5);
    let cm = instance(21, n, d, g);
    let fast_variant = FastCm::new(cm.clone()).with_settings(variant);
    let fast_default = FastCm::new(cm.clone()).with_settings(default);
    let reference = ClarabelCm::new(cm);
    let mut r = rng(321);
    let (mut it_variant, mut it_default) = (0, 0);
    for k in 0..6 {
        let theta = random_theta(&mut r, d, g, 0.2 + 0.7 * (k as f64) / 6.0);
        let (a, sa) = fast_variant.evaluate_detailed(&theta, None).unwrap();
        let (b, sb) = fast_default.evaluate_detailed(&theta, None).unwrap();
        assert!(
            sa.answer != Answer::Fallback && sb.answer != Answer::Fallback,
            "{sa:?} {sb:?}"
        );
        let c = reference.evaluate(&theta).unwrap();
        for e in [&a, &b] {
            assert!(
                (e.score - c.score).abs() <= 1e-6 * n as f64,
                "{e:?} vs {c:?}"
            );
            assert!(e.width() <= 1e-3);
        }
        it_variant += sa.iterations;
        it_default += sb.iterations;
    }
    assert!(
        it_variant.abs_diff(it_default) * 5 <= it_default,
        "iterations: variant {it_variant}, default {it_default}"
    );
}

/// Newton systems formed in two column halves on two threads (`IpmSettings::split_flops = 0`:
/// every Woodbury system is split) agree ([`newton_variant_agrees`]).
#[test]
fn split_newton_systems_agree() {
    newton_variant_agrees(|ipm| ipm.split_flops = 0.0);
}

/// Newton systems never stored whole (`IpmSettings::stored_entries = 0`: the Woodbury factor
/// `Fs` and the dense weight block are applied through the scaled points, `I + Fs Fs^T`
/// accumulated in blocks of `stream_columns = 7` columns) agree ([`newton_variant_agrees`]).
#[test]
fn streamed_newton_systems_agree() {
    newton_variant_agrees(|ipm| {
        ipm.stored_entries = 0;
        ipm.stream_columns = 7;
    });
}

/// What [`compressed_questions`] saw: compressed NO and YES answers, relaxed starts,
/// compressed evaluations.
struct CompressedPaths {
    no: usize,
    yes: usize,
    relaxed_starts: usize,
    evaluations: usize,
}

/// Membership questions and evaluations with the compressed program made active at a small
/// size (`large_rank = 0`) on top of `base`. Queries alternate between
/// a point inside and far points, at levels within a few points of the reference score on both
/// sides; every answer must match clarabel's score and every bracket must contain it, and every
/// evaluation at the inside point must be at most `1e-3` wide.
fn compressed_questions(base: sosdp_score::FastSettings) -> CompressedPaths {
    use sosdp_score::{AggregateSettings, CompressSettings, FastSettings};
    let settings = FastSettings {
        large_rank: 0,
        compress: CompressSettings {
            compress_answer_free: 1.0,
            ..base.compress
        },
        aggregate: AggregateSettings {
            aggregate_free: 16,
            group_core: 2,
            ..base.aggregate
        },
        ..base
    };
    let (n, d, g) = (3000, 6, 1.3);
    let cm = instance(31, n, d, g);
    let fast = FastCm::new(cm.clone()).with_settings(settings);
    let reference = ClarabelCm::new(cm);
    let mut r = rng(310);
    let inside = random_theta(&mut r, d, g, 0.05);
    let inside_score = reference.evaluate(&inside).unwrap().score;
    let mut paths = CompressedPaths {
        no: 0,
        yes: 0,
        relaxed_starts: 0,
        evaluations: 0,
    };
    for k in 0..8 {
        let far = random_theta(&mut r, d, g, 0.3 + 0.6 * (k as f64) / 8.0);
        let s = reference.evaluate(&far).unwrap().score;
        for offset in [-3.0, -0.5, 0.5, 3.0] {
            let (eval, stats) = fast.evaluate_detailed(&inside, None).unwrap();
            assert!(
                eval.width() <= 1e-3 + 1e-12
                    && eval.lower <= inside_score + 1e-6 * n as f64
                    && inside_score <= eval.upper + 1e-6 * n as f64,
                "score {inside_score} outside {eval:?} ({stats:?})"
            );
            paths.evaluations += (stats.answer == Answer::Compressed) as usize;
            let level = s + offset;
            let (eval, stats) = fast.evaluate_detailed(&far, Some(level)).unwrap();
            assert!(stats.answer != Answer::Fallback, "{stats:?}");
            assert_eq!(
                eval.upper <= level,
                offset > 0.0,
                "score {s}, level {level}: {eval:?} ({stats:?})"
            );
            assert!(
                eval.lower <= s + 1e-6 * n as f64 && s <= eval.upper + 1e-6 * n as f64,
                "score {s} outside {eval:?}"
            );
            paths.relaxed_starts += (stats.start == Start::Relaxed) as usize;
            if stats.answer == Answer::Compressed {
                paths.yes += (eval.upper <= level) as usize;
                paths.no += (eval.lower > level) as usize;
            }
        }
    }
    assert_eq!(
        fast.answers(Answer::Compressed),
        paths.yes + paths.no + paths.evaluations
    );
    eprintln!(
        "32 questions: {} compressed NO, {} compressed YES, {} relaxed starts; {} of 32 \
         evaluations compressed",
        paths.no, paths.yes, paths.relaxed_starts, paths.evaluations
    );
    paths
}

/// The compressed program's uses in a membership question (`crate::cm::compress`), checked
/// against clarabel by [`compressed_questions`]: it answers NO from its cut and YES from its
/// weights made feasible for the full LMI, brackets evaluations, and otherwise a warm guess
/// whose fold is infeasible is replaced by the statuses of the compressed dual at the query.
/// Each path must have been taken (non-vacuity). With the default repairs of the compressed
/// active set the compressed answers settle every question here, so the relaxed starts are
/// exercised with the compressed solve's statuses left as the kept cut gives them (no repairs,
/// the wide band of earlier builds), where some of its answers fail. Trusting the compressed
/// weights without the full LMI's repair fails the bracket assertion.
#[test]
fn compressed_answers_and_relaxed_starts_are_right() {
    use sosdp_score::{CompressSettings, FastSettings};
    let repaired = compressed_questions(FastSettings::default());
    assert!(repaired.no >= 1, "the compressed program certified no NO");
    assert!(repaired.yes >= 1, "the compressed program certified no YES");
    assert!(
        repaired.evaluations >= 1,
        "the compressed program bracketed no evaluation"
    );
    let unrepaired = compressed_questions(FastSettings {
        compress: CompressSettings {
            compress_repairs: 0,
            compress_margin: 0.9,
            ..CompressSettings::default()
        },
        ..FastSettings::default()
    });
    assert!(
        unrepaired.relaxed_starts >= 1,
        "no warm guess came from the compressed program"
    );
}

/// `evaluate_within` (the sampler's level index by evaluation, `Target::index_accuracy`): a
/// bracket at most the asked width that contains clarabel's score, from the centre out towards
/// the domain's boundary. Non-vacuity: some brackets stop wider than the backend's own accuracy
/// `1e-3` (the rounds stop earlier); asked for `0` the backend's own accuracy holds.
#[test]
fn coarse_evaluations_are_certified_brackets() {
    let (n, d, g) = (3000, 5, 1.4);
    let cm = instance(41, n, d, g);
    let fast = FastCm::new(cm.clone());
    let reference = ClarabelCm::new(cm);
    let mut r = rng(410);
    let mut coarse = 0;
    for k in 0..10 {
        let theta = random_theta(&mut r, d, g, 0.1 + 0.8 * (k as f64) / 10.0);
        let s = reference.evaluate(&theta).unwrap().score;
        for accuracy in [0.0, 0.1, 0.5] {
            let e = fast.evaluate_within(&theta, accuracy).unwrap();
            assert!(
                e.width() <= accuracy.max(1e-3) + 1e-12,
                "width {} asked {accuracy}",
                e.width()
            );
            assert!(
                e.lower <= s + 1e-6 * n as f64 && s <= e.upper + 1e-6 * n as f64,
                "score {s} outside {e:?} (asked {accuracy})"
            );
            coarse += (e.width() > 2e-3) as usize;
        }
    }
    assert!(
        coarse >= 1,
        "no bracket stopped wider than the backend's accuracy"
    );
}

/// The screen gives up only queries its eigenvector bound cannot decide: whenever it returns
/// nothing, that bound ([`sosdp_score::CertifiedMean::eigen_bound`], one pass over the points)
/// is neither above the level nor within the accuracy of `n`. Its Cholesky tests (of
/// `L(theta, 1)` and of `B(theta) - delta I`) skip the eigenpair and the pass, so a `delta` too
/// small would give up decisions the bound makes: a twentieth of the right one (or 0) fails
/// this test; half of it does not (in these queries the bound lies well below the ceiling the
/// `delta` is set from). Queries from the centre to the domain's boundary, levels from 0 to
/// `n` and just below the bound; non-vacuous: the bound decides some of them (answered by the
/// screen) and not others.
#[test]
fn the_screen_gives_up_only_what_its_bound_cannot_decide() {
    let (n, d, g) = (800, 4, 1.3);
    let cm = instance(12, n, d, g);
    let nf = n as f64;
    let accuracy = 1e-3;
    let mut r = rng(121);
    let (mut answered, mut given_up) = (0, 0);
    for k in 0..60 {
        // Every third direction along the cluster's axis, where the scatter is largest.
        let u = if k % 3 == 0 {
            let mut u = vec![0.0; d];
            u[0] = if k % 2 == 0 { 1.0 } else { -1.0 };
            u
        } else {
            random_theta(&mut r, d, g, 1.0)
        };
        let (_, hi) = cm.line_domain(&vec![0.0; d], &u).unwrap();
        let depth = [0.2, 0.6, 0.9, 0.99, 0.999, 1.0 - 1e-6][k % 6];
        let theta: Vec<f64> = u.iter().map(|x| x * hi * depth).collect();
        let bound = cm.eigen_bound(&theta);
        let fixed = [0.0, 0.05 * nf, 0.3 * nf, 0.7 * nf, 0.95 * nf, 0.999 * nf];
        // Levels just below the bound, where it decides and a skip must not happen.
        let near = [bound * 0.98, bound - 0.5].map(|l| l.max(0.0));
        for level in fixed.into_iter().chain(near) {
            match cm.screen(&theta, accuracy, Some(level)) {
                Some(eval) => {
                    assert!(
                        eval.lower > level || eval.upper <= level,
                        "{eval:?} at {level}"
                    );
                    answered += 1;
                }
                None => {
                    assert!(
                        bound <= level && bound < nf - accuracy,
                        "given up at depth {depth}, level {level}: bound {bound}"
                    );
                    given_up += 1;
                }
            }
        }
    }
    assert!(
        answered > 10 && given_up > 10,
        "{answered} answered, {given_up} given up"
    );
}
