//! The settings of the fast backends: accuracy, warm and cold starts, repair rounds and the
//! interior-point solves they run, every tolerance and budget with its default.
use crate::ipm::IpmSettings;
use sosdp_oracle::Refinement;

/// Settings of the fast backends ([`crate::FastCm`], [`crate::FastSp`]) and of the active-set
/// driver they share. Every field states its default; [`FastSettings::default`] gives them.
#[derive(Clone, Debug)]
pub struct FastSettings {
    /// Largest accepted bracket width `upper - lower`, in points (MATH.md 3.2's zeta).
    /// Default `1e-3`.
    pub accuracy: f64,
    /// Margin (in units of the weight's cost) beyond which a weight is folded or dropped
    /// between evaluations (warm start). Default 0.02.
    pub margin: f64,
    /// Margin used after the cold-start estimate from a subsample, whose dual is noisier.
    /// Default 0.25 (at large `D` a wider margin leaves thousands of weights free).
    pub cold_margin: f64,
    /// Size of the smallest subsample whose solution seeds the active set of a cold
    /// evaluation; 0 disables the cold-start estimate. Default 256.
    pub subsample: usize,
    /// Repair rounds before falling back to the reference backend (the last frees every
    /// weight). Default 12 (with fewer, hard refinement stages of the Gaussian learner fell
    /// back to clarabel, minutes per query).
    pub max_rounds: usize,
    /// Reuse the active set of the previous evaluation. Default true.
    pub warm_start: bool,
    /// How membership queries whose bracket contains the level are refined (MATH.md 4.5b).
    /// Default [`Refinement::default`].
    pub refinement: Refinement,
    /// Duality gap of a certified round's solve, as a share of `accuracy` (converted to
    /// objective units by the score's scale). Default 0.25.
    pub gap_share: f64,
    /// Interior-point settings of a certified round; its `gap_tol` is replaced by the one
    /// [`FastSettings::gap_share`] gives. Default [`IpmSettings::default`] (`feas_tol = 1e-9`,
    /// `max_iter = 80`).
    pub round: IpmSettings,
    /// A membership query's solve stops early once its bracket lies farther than
    /// `stop_margin * accuracy` from the level ... Default 10.
    pub stop_margin: f64,
    /// ... at an iterate whose primal and dual residuals are below `stop_residual`.
    /// Default `1e-7`.
    pub stop_residual: f64,
    /// The first round of a cold start is solved to a duality gap of this share of the
    /// estimated score (the subsample's removed weight, in points): its dual only classifies
    /// the weights for the next round. Default 0.05.
    pub loose_share: f64,
    /// Feasibility tolerance of that loose first round. Default `1e-7`.
    pub loose_feas_tol: f64,
    /// Interior-point settings of the cold start's subsample levels. Default:
    /// `gap_tol = 1e-3`, `feas_tol = 1e-6`, `max_iter = 60`, the others as
    /// [`IpmSettings::default`].
    pub subsample_round: IpmSettings,
    /// Ratio of consecutive subsample sizes in the cold start's cascade. Default 8.
    pub cascade: usize,
    /// Floor of the number of contradicted weights one repair round frees (twice the round's
    /// free weights, at least this; after a loose round exactly this). Default 256.
    pub min_repair: usize,
    /// Rounds after the first whose dual may re-derive all statuses (when it would at least
    /// halve the free set, or after a stalled solve). Default 2.
    pub late_rederive: usize,
    /// In a start's first accurate round, when the plain classification leaves more than
    /// `degenerate` times the unfolded budget unfolded (degenerate margins), the budget holds.
    /// Default 4.
    pub degenerate: usize,
    /// Constant part of the unfolded budget `2 removed + unfolded_slack` of an active set
    /// derived from an estimated dual. Default 256.
    pub unfolded_slack: usize,
    /// From this rank `m = sum_b p_b (p_b + 1) / 2` of the Newton system's low-rank part on
    /// (about `D = 45`), a cold set's unfolded budget is `removed + unfolded_slack` (above `m`
    /// free weights an iteration costs `m^2` per weight). Default 1024.
    pub tight_rank: usize,
    /// A cold set leaves at most `n / cold_free_divisor` weights free ... Default 16.
    pub cold_free_divisor: usize,
    /// ... but at least `cold_free_rank` times the rank `m` ... Default 4.
    pub cold_free_rank: usize,
    /// ... and at least `min_cold_free`. Default 4096.
    pub min_cold_free: usize,
    /// Cold margin of the fast anchor's active set ([`crate::FastCm::minimise`]), wider than
    /// `cold_margin`: the certified ball needs the interior solution that a larger free set
    /// gives (with the evaluations' margin its radius can come out 0 when the ball domain
    /// binds). Default 0.5.
    pub anchor_cold_margin: f64,
    /// Number of recent cuts (affine minorants of CM from the duals of its solves) the fast
    /// CM backend keeps for warm starts and certified outer chord ends. Default 64.
    pub kept_cuts: usize,
    /// Free weights are aggregated into groups of equal weight (MATH.md 4.10,
    /// [`crate::active_set::group`]) when a reduced problem has more than `aggregate_free` of
    /// them ... Default 256.
    pub aggregate_free: usize,
    /// ... and the rank `m = sum_b p_b (p_b + 1) / 2` of the Newton system's low-rank part is at
    /// least `aggregate_rank` (an iteration then costs `m^2` per free weight; below it the
    /// free weights are cheap). Default 512 (`D >= 31`).
    pub aggregate_rank: usize,
    /// Weights on each side of the margins' zero crossing that stay single when aggregating;
    /// the groups beyond them have `group_core`, `2 group_core`, ... members. Default 8.
    pub group_core: usize,
    /// Most aggregated rounds of one evaluation that may fail to certify before the rounds
    /// solve the free weights one by one; 0 disables aggregation. Default 4.
    pub grouped_rounds: usize,
    /// Number of recent solves' certificates (feasible primals) the fast CM backend keeps to
    /// answer membership questions YES without a solve (MATH.md 4.9,
    /// [`crate::cm::memo`]); 0 disables memoisation. Default 64.
    pub kept_certificates: usize,
    /// From this rank `m = sum_b p_b (p_b + 1) / 2` of the Newton system's low-rank part on, a
    /// warm guess whose fold is infeasible restarts cold; below it, the fold is unfolded. Default
    /// 512 (`D >= 31`): at `D = 10` unfolding was faster (clean fits 2.6-3.1 s against
    /// 4.2-5.6 s), while at `D = 50` a stage unfolded into repair rounds that failed and fell
    /// back to the reference backend.
    pub cold_guess_rank: usize,
    /// From that rank on, a warm guess whose rounds have not certified an answer after
    /// `guess_rounds` rounds restarts cold. Default 6 (the d = 50 stages certify most warm
    /// questions within 5 rounds, 4 of them grouped; left alone, the repairs of an undecided
    /// guess reached the round that frees every weight).
    pub guess_rounds: usize,
    /// A membership question whose warm guess (from the tightest kept cut) folds an infeasible
    /// set first tries to certify NO on the CM program compressed onto a subspace
    /// ([`crate::cm::compress`]) spanned by the `compress_rank` leading eigenvectors of that
    /// cut's dual and the displacements of the query; 0 disables the test. Default 2.
    pub compress_rank: usize,
    /// ... when the rank `m = sum_b p_b (p_b + 1) / 2` of the Newton system's low-rank part is
    /// at least `compress_from` (below it cold starts are cheap: at `D = 10` the test cost
    /// more than the cold starts it spared). Default 512 (`D >= 31`).
    pub compress_from: usize,
    /// Weights whose margin under the kept cut's dual exceeds `compress_margin` in absolute
    /// value start the compressed solve folded at their bound; a fold this overfills is
    /// unfolded, and the statuses the solve's dual contradicts are repaired
    /// (`compress_repairs`). Default 0.3. At 0.9, without repairs, about 10900 of the 50000
    /// weights of the d = 50 fit's last stage stayed free, mostly weights the solve's own dual
    /// then placed far from 0: 90 ms a compressed solve, against 17 ms at 0.3 with repairs
    /// (about 2500 free, the tight cluster).
    pub compress_margin: f64,
    /// The compressed solve stops once its objectives are this many points (of score) past the
    /// level on either side. Default 1.
    pub compress_stop: f64,
    /// Repair rounds of the compressed solve: the statuses its dual contradicts (margins in
    /// `k` dimensions, `k^2` flops a point) are freed, the most contradicted first and at most
    /// as many as a repair of the full program frees, and it is solved again, at most this
    /// many times. Default 3.
    pub compress_repairs: usize,
    /// When the statuses the compressed program gives fold an infeasible set, or its weights
    /// violate the full LMI so that they cannot answer YES, the most violated direction joins
    /// the subspace and the program is solved again, at most this many times
    /// ([`crate::cm::fast::FastCm`]). Default 3.
    pub relaxed_directions: usize,
    /// From rank `compress_from` on, every membership question near a kept cut is first put
    /// to the compressed program (NO from its cut, YES from its weights made feasible for the
    /// full LMI), and a warm guess whose fold is infeasible is replaced by the compressed
    /// dual's statuses, unless more than this share of the `n` weights would be free in it
    /// (their margins under the cut's dual within `compress_margin` of 0): there the compressed
    /// solve costs more than the warm full solve (20-40 ms at d = 50) it would replace. Default
    /// 0.5.
    pub compress_answer_free: f64,
    /// The fast CM backend certifies each round's lower end from the round's dual truncated
    /// to its eigenvalues above `cut_rank_tol` times the largest
    /// ([`crate::cm::CertifiedMean::truncated_cut`]), and from the whole dual only when that
    /// bracket leaves the question open. Default `1e-6` (rank 1-2 at `D = 50`).
    pub cut_rank_tol: f64,
    /// Interior-point settings of the compressed solve. Default `gap_tol = 1e-7` (0.005 points
    /// at n = 50000: a YES needs the compressed optimum's weights within a fraction of a point
    /// of it), `feas_tol = 1e-7`, `max_iter = 60`, the others as [`IpmSettings::default`].
    pub compress_round: IpmSettings,
}

impl Default for FastSettings {
    fn default() -> Self {
        FastSettings {
            accuracy: 1e-3,
            margin: 0.02,
            cold_margin: 0.25,
            subsample: 256,
            max_rounds: 12,
            warm_start: true,
            refinement: Refinement::default(),
            gap_share: 0.25,
            round: IpmSettings::default(),
            stop_margin: 10.0,
            stop_residual: 1e-7,
            loose_share: 0.05,
            loose_feas_tol: 1e-7,
            subsample_round: IpmSettings {
                gap_tol: 1e-3,
                feas_tol: 1e-6,
                max_iter: 60,
                ..IpmSettings::default()
            },
            cascade: 8,
            min_repair: 256,
            late_rederive: 2,
            degenerate: 4,
            unfolded_slack: 256,
            tight_rank: 1024,
            cold_free_divisor: 16,
            cold_free_rank: 4,
            min_cold_free: 4096,
            anchor_cold_margin: 0.5,
            kept_cuts: 64,
            aggregate_free: 256,
            aggregate_rank: 512,
            group_core: 8,
            grouped_rounds: 4,
            kept_certificates: 64,
            cold_guess_rank: 512,
            guess_rounds: 6,
            compress_rank: 2,
            compress_from: 512,
            compress_margin: 0.3,
            compress_stop: 1.0,
            compress_repairs: 3,
            relaxed_directions: 3,
            compress_answer_free: 0.5,
            cut_rank_tol: 1e-6,
            compress_round: IpmSettings {
                gap_tol: 1e-7,
                feas_tol: 1e-7,
                max_iter: 60,
                ..IpmSettings::default()
            },
        }
    }
}

impl FastSettings {
    /// The same settings with bracket width `accuracy`.
    pub fn with_accuracy(&self, accuracy: f64) -> Self {
        FastSettings {
            accuracy,
            ..self.clone()
        }
    }
}
