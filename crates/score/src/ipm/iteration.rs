//! The Mehrotra predictor-corrector loop: initial point, Newton steps, step lengths and
//! stopping rules.
use super::normal_equations::Normal;
use super::problem::{ConeVec, Problem, XVec, axpyv, dotv, sym};
use super::scaling::Scaling;
use super::{IpmSettings, IterationReport, Solution, Termination};
use crate::dense::quad_forms;
use nalgebra::DMatrix;

/// Primal iterate plus slacks and duals.
#[derive(Clone)]
pub(super) struct Iterate {
    pub(super) x: XVec,
    pub(super) s: ConeVec,
    pub(super) z: ConeVec,
}

/// Solve `problem` from the primal guess `(a0, t0)` (weights strictly inside their boxes).
pub fn solve(
    problem: &Problem,
    a0: &[f64],
    t0: &[f64],
    settings: &IpmSettings,
    mut progress: impl FnMut(&IterationReport) -> bool,
) -> Solution {
    let mut it = initial_point(problem, a0, t0, settings);
    let h = problem.h();
    let c = problem.c();
    let degree = problem.degree();
    let h_scale = 1.0 + h.max_abs();
    let c_scale = 1.0 + c.a.iter().chain(&c.t).fold(0.0f64, |m, x| m.max(x.abs()));
    let mut termination = Termination::MaxIterations;
    let mut iterations = 0;
    // The iterate with the smallest gap among those with small residuals: returned when
    // the method stalls (late Newton systems lose accuracy when the box duals span many
    // decades, which shows as a growing dual residual).
    let mut best: Option<(f64, Iterate)> = None;
    for iter in 0..=settings.max_iter {
        iterations = iter;
        let mut rp = problem.g(&it.x);
        rp.axpy(1.0, &it.s);
        rp.axpy(-1.0, &h);
        let gtz = problem.gt(&it.z);
        let rd = XVec {
            a: gtz.a.iter().zip(&c.a).map(|(x, y)| x + y).collect(),
            t: gtz.t.iter().zip(&c.t).map(|(x, y)| x + y).collect(),
        };
        let gap = it.s.dot(&it.z);
        let pobj = dotv(&c.a, &it.x.a) + dotv(&c.t, &it.x.t);
        let dobj = -h.dot(&it.z);
        let res_p = rp.max_abs() / h_scale;
        let res_d = rd.a.iter().chain(&rd.t).fold(0.0f64, |m, x| m.max(x.abs())) / c_scale;
        let report = IterationReport {
            iteration: iter,
            primal_objective: pobj,
            dual_objective: dobj,
            gap,
            primal_residual: res_p,
            dual_residual: res_d,
        };
        if !(gap.is_finite() && pobj.is_finite() && dobj.is_finite()) {
            termination = Termination::NumericalError;
            break;
        }
        let accurate = res_p <= settings.feas_tol && res_d <= settings.feas_tol;
        if accurate && gap <= settings.gap_tol {
            termination = Termination::Converged;
            break;
        }
        if progress(&report) {
            termination = Termination::Stopped;
            break;
        }
        if accurate && best.as_ref().is_none_or(|(g, _)| gap < *g) {
            best = Some((gap, it.clone()));
        }
        let stalled = best.is_some() && res_d > settings.stall_factor * settings.feas_tol;
        if iter == settings.max_iter || stalled {
            break;
        }
        let Some(step) = newton_step(problem, &it, &rp, &rd, gap / degree, settings) else {
            termination = Termination::NumericalError;
            break;
        };
        it = step;
    }
    if matches!(
        termination,
        Termination::MaxIterations | Termination::NumericalError
    ) && let Some((_, b)) = best
    {
        it = b;
        termination = Termination::Stalled;
    }
    let pobj = dotv(&c.a, &it.x.a) + dotv(&c.t, &it.x.t);
    let dobj = -h.dot(&it.z);
    Solution {
        a: it.x.a,
        extra: it.x.t,
        block_duals: it.z.blk,
        row_duals: it.z.row,
        primal_objective: pobj,
        dual_objective: dobj,
        iterations,
        termination,
    }
}

/// One Mehrotra predictor-corrector step.
pub(super) fn newton_step(
    problem: &Problem,
    it: &Iterate,
    rp: &ConeVec,
    rd: &XVec,
    mu: f64,
    settings: &IpmSettings,
) -> Option<Iterate> {
    let scaling = Scaling::new(&it.s, &it.z)?;
    let normal = Normal::new(problem, &scaling, &it.s, &it.z, settings)?;
    let lambda_sq = Scaling::jordan(&scaling.lambda, &scaling.lambda);
    // Direction for a complementarity right-hand side `rc` (scaled coordinates); `refine`:
    // iterative refinement of the Newton solve (see [`Normal::solve`]).
    let direction = |rc: &ConeVec, refine: bool| -> (XVec, ConeVec, ConeVec) {
        let q = scaling.lambda_solve(rc);
        let mut v = scaling.unscale(&q);
        v.axpy(1.0, rp);
        let gv = problem.gt(&scaling.wtw_inv(&v));
        let ra: Vec<f64> = rd.a.iter().zip(&gv.a).map(|(r, g)| -r - g).collect();
        let rt: Vec<f64> = rd.t.iter().zip(&gv.t).map(|(r, g)| -r - g).collect();
        let dx = if refine {
            normal.solve(&ra, &rt, settings)
        } else {
            normal.solve_once(&ra, &rt)
        };
        let gdx = problem.g(&dx);
        let mut w = gdx.clone();
        w.axpy(1.0, &v);
        let dz = scaling.wtw_inv(&w);
        let mut ds = gdx;
        ds.axpy(1.0, rp);
        let ds = ds.map(|_, _, x| -x, |_, m| -m);
        (dx, ds, dz)
    };
    let neg_lsq = lambda_sq.map(|_, _, x| -x, |_, m| -m);
    // The affine direction only sets the centring and the second-order term: solved without
    // iterative refinement (the iterates are the same, the solve cheaper).
    let (_, ds_a, dz_a) = direction(&neg_lsq, false);
    let (dsa, dza) = (scaling.scale_s(&ds_a), scaling.scale_z(&dz_a));
    let alpha_aff = scaling.max_step(&dza, scaling.max_step(&dsa, 1.0));
    let sigma = (1.0 - alpha_aff).powi(3).clamp(0.0, 1.0);
    let mut rc = neg_lsq;
    rc.axpy(-1.0, &Scaling::jordan(&dsa, &dza));
    let shift = sigma * mu;
    rc = rc.map(
        |_, _, x| x + shift,
        |_, m| m + DMatrix::identity(m.nrows(), m.ncols()) * shift,
    );
    let (dx, ds, dz) = direction(&rc, true);
    // Steps beyond 1 / step_fraction are cut to 1 anyway.
    let alpha_max = scaling.max_step(
        &scaling.scale_z(&dz),
        scaling.max_step(&scaling.scale_s(&ds), 1.0 / settings.step_fraction),
    );
    let alpha = (settings.step_fraction * alpha_max).min(1.0);
    if !(alpha > 0.0) {
        return None;
    }
    let mut next = Iterate {
        x: it.x.clone(),
        s: it.s.clone(),
        z: it.z.clone(),
    };
    axpyv(&mut next.x.a, alpha, &dx.a);
    axpyv(&mut next.x.t, alpha, &dx.t);
    next.s.axpy(alpha, &ds);
    next.z.axpy(alpha, &dz);
    Some(next)
}

/// Primal point from the guess, moved towards 0 into the cone when the guess is infeasible
/// ([`start_scale`]); slacks `h - G x`, shifted into the cone where needed; duals centred on
/// the slacks (`Z_b = y_b S_b^{-1}`) and, for the weights, chosen to satisfy the dual
/// equations exactly.
pub(super) fn initial_point(
    problem: &Problem,
    a0: &[f64],
    t0: &[f64],
    settings: &IpmSettings,
) -> Iterate {
    let n = problem.n();
    let h = problem.h();
    let mut x = XVec {
        a: a0.to_vec(),
        t: t0.to_vec(),
    };
    let mut g = problem.g(&x);
    let c = start_scale(&h, &g, settings.start_fraction);
    if c < 1.0 {
        x.a.iter_mut().for_each(|v| *v *= c);
        x.t.iter_mut().for_each(|v| *v *= c);
        g = problem.g(&x);
    }
    let mut s = h.clone();
    s.axpy(-1.0, &g);
    for (sj, r) in s.row.iter_mut().zip(&problem.rows) {
        let floor = 0.1 * (1.0 + r.h.abs());
        if *sj < floor {
            *sj = floor;
        }
    }
    for (sb, b) in s.blk.iter_mut().zip(&problem.blocks) {
        *sb = sym(sb.clone());
        let floor = 1e-2 * (1.0 + b.constant.amax());
        let min = sb.clone().symmetric_eigenvalues().min();
        if min < floor {
            let p = sb.nrows();
            *sb += DMatrix::identity(p, p) * (floor - min);
        }
    }
    let nb = problem.blocks.len().max(1) as f64;
    let cost_scale = problem.cost_a.abs().max(
        problem
            .cost_extra
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs())),
    );
    let mut blk = Vec::new();
    let mut q_total = vec![0.0; n];
    let mut target = 0.0;
    for (sb, b) in s.blk.iter().zip(&problem.blocks) {
        let inv = nalgebra::Cholesky::new(sb.clone())
            .map(|c| c.inverse())
            .unwrap_or_else(|| DMatrix::identity(sb.nrows(), sb.nrows()));
        let q = quad_forms(&b.points, &inv);
        let mean_q = q.iter().sum::<f64>() / n.max(1) as f64;
        let y = if problem.cost_a != 0.0 && mean_q > 0.0 {
            problem.cost_a.abs() / (mean_q * nb)
        } else {
            cost_scale.max(1e-12) / sb.nrows() as f64
        };
        for (t, qi) in q_total.iter_mut().zip(&q) {
            *t += b.sign * y * qi;
        }
        target += y;
        blk.push(sym(inv * y));
    }
    let mu_target = target / nb;
    let row: Vec<f64> = s.row.iter().map(|sj| mu_target / sj).collect();
    let row_sum: f64 = problem
        .rows
        .iter()
        .zip(&row)
        .map(|(r, z)| r.a_coeff * z)
        .sum();
    let mut lo = vec![0.0; n];
    let mut up = vec![0.0; n];
    for i in 0..n {
        // nu - mu = d makes the weight's dual equation exact; mu * nu = tau^2 balances them.
        let d = -(problem.cost_a + row_sum + q_total[i]);
        let tau = mu_target / (s.lo[i] * s.up[i]).sqrt();
        let mu = 0.5 * ((d * d + 4.0 * tau * tau).sqrt() - d);
        lo[i] = mu.max(1e-300);
        up[i] = (mu + d).max(1e-300);
    }
    let z = ConeVec { lo, up, row, blk };
    Iterate { x, s, z }
}

/// The factor `c` of the start `c x0` ([`IpmSettings::start_fraction`] `f`). `G` is linear, so
/// the slacks along the segment are `h - c G x0`. When every block's constant is positive
/// definite, every row's `h_j >= 0`, and `(G x0)_j < 0` on the rows with `h_j = 0`, the slacks
/// stay inside the cone for `0 < c < c_max`, with
/// `c_max = min(min_b 1 / lambda_max(L_b^{-1} G_b x0 L_b^{-T}), min_{j: (G x0)_j > 0} h_j / (G x0)_j)`
/// (`C_b = L_b L_b^T`); the boxes hold for every `c` in `(0, 1]` since `0 < a0 < u`. A guess
/// outside the cone (`c_max <= 1`) then starts at `c = f c_max`, strictly feasible with zero
/// primal residual, instead of with its slacks shifted into the cone; a feasible guess is kept
/// (`c = 1`), and so is every guess when `f = 0` or the constants are not strictly feasible.
fn start_scale(h: &ConeVec, g: &ConeVec, fraction: f64) -> f64 {
    if !(fraction > 0.0) {
        return 1.0;
    }
    let mut c_max = f64::INFINITY;
    for (&hj, &gj) in h.row.iter().zip(&g.row) {
        if hj < 0.0 || (hj == 0.0 && gj >= 0.0) {
            return 1.0;
        }
        if gj > 0.0 {
            c_max = c_max.min(hj / gj);
        }
    }
    for (hb, gb) in h.blk.iter().zip(&g.blk) {
        let Some(l_inv) =
            nalgebra::Cholesky::new(sym(hb.clone())).and_then(|f| f.l().try_inverse())
        else {
            return 1.0;
        };
        let largest = sym(&l_inv * gb * l_inv.transpose())
            .symmetric_eigenvalues()
            .max();
        if largest > 0.0 {
            c_max = c_max.min(1.0 / largest);
        }
    }
    if c_max <= 1.0 { fraction * c_max } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::{initial_point, solve, start_scale};
    use crate::ipm::{IpmSettings, LinearRow, Problem, Termination};
    use nalgebra::DMatrix;
    use rand::{RngExt, SeedableRng};
    use std::borrow::Cow;

    /// A packing program whose middle guess `a = 1/2` overfills its LMI `I - sum a_i w_i w_i^T`.
    fn overfilled() -> Problem<'static> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let points = DMatrix::from_fn(3, 40, |_, _| rng.random_range(-1.0..1.0));
        Problem::packing(DMatrix::identity(3, 3), Cow::Owned(points))
    }

    /// The primal residual `max |G x + s - h|` of the start.
    fn start_residual(problem: &Problem, settings: &IpmSettings) -> f64 {
        let a0 = vec![0.5; problem.n()];
        let it = initial_point(problem, &a0, &[], settings);
        let mut r = problem.g(&it.x);
        r.axpy(1.0, &it.s);
        r.axpy(-1.0, &problem.h());
        r.max_abs()
    }

    /// A guess beyond the feasible scale starts strictly feasible at `start_fraction` of it
    /// (zero primal residual; the weights use half of the LMI along their largest direction),
    /// and the solve reaches the optimum of the solve from the shifted guess (both end at an
    /// accurate iterate). Non-vacuous: the guess overfills the LMI, so keeping it
    /// (`start_fraction = 0`) leaves a primal residual.
    #[test]
    fn a_guess_beyond_the_feasible_scale_starts_feasible() {
        let problem = overfilled();
        let kept = IpmSettings::default();
        assert_eq!(kept.start_fraction, 0.0);
        let scaled = IpmSettings {
            start_fraction: 0.5,
            ..IpmSettings::default()
        };
        assert!(start_residual(&problem, &kept) > 1e-3);
        assert!(start_residual(&problem, &scaled) < 1e-12);
        let a0 = vec![0.5; problem.n()];
        let it = initial_point(&problem, &a0, &[], &scaled);
        let used = problem.g(&it.x).blk[0]
            .clone()
            .symmetric_eigenvalues()
            .max();
        assert!((used - scaled.start_fraction).abs() < 1e-9, "{used}");
        let a = solve(&problem, &a0, &[], &kept, |_| false);
        let b = solve(&problem, &a0, &[], &scaled, |_| false);
        for sol in [&a, &b] {
            assert!(matches!(
                sol.termination,
                Termination::Converged | Termination::Stalled
            ));
        }
        assert!((a.primal_objective - b.primal_objective).abs() < 1e-7);
    }

    /// `c` is the largest feasible scale times the fraction for an infeasible guess, and 1 (the
    /// guess kept) for a feasible one or when the constants are not strictly feasible.
    #[test]
    fn the_start_scale_follows_the_constants() {
        let problem = overfilled();
        let g = problem.g(&super::XVec {
            a: vec![0.5; problem.n()],
            t: vec![],
        });
        let h = problem.h();
        let largest = g.blk[0].clone().symmetric_eigenvalues().max();
        assert!(largest > 1.0);
        assert!((start_scale(&h, &g, 0.5) - 0.5 / largest).abs() < 1e-12);
        assert_eq!(start_scale(&h, &g, 0.0), 1.0);
        assert_eq!(
            start_scale(&h, &g.map(|_, _, v| v * 1e-3, |_, m| m * 1e-3), 0.5),
            1.0
        );
        // A guess 1.5 times inside its feasible scale is kept (moving it to half the scale
        // would give `c = 0.75`).
        let inside = 1.0 / (1.5 * largest);
        assert_eq!(
            start_scale(&h, &g.map(|_, _, v| v * inside, |_, m| m * inside), 0.5),
            1.0
        );
        let mut negative = problem.clone();
        negative.rows.push(LinearRow {
            h: -1.0,
            a_coeff: -1.0,
            extra: vec![],
        });
        let g = negative.g(&super::XVec {
            a: vec![0.5; negative.n()],
            t: vec![],
        });
        assert_eq!(start_scale(&negative.h(), &g, 0.5), 1.0);
    }
}
