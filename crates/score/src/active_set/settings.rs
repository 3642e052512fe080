//! The settings of the fast backends: accuracy, warm and cold starts, repair rounds and the
//! interior-point solves they run, every tolerance and budget with its default.
//!
//! The settings are grouped by what they steer ([`ColdStartSettings`], [`RepairSettings`],
//! [`AggregateSettings`], [`CompressSettings`], [`MemorySettings`]). A field's doc says what it
//! means; its default value, with the measurement behind it, is written once, in its struct's
//! `Default` impl (e.g. [`RepairSettings::default`]).
use crate::ipm::IpmSettings;
use sosdp_oracle::Refinement;

/// Settings of the fast backends ([`crate::FastCm`], [`crate::FastSp`]) and of the active-set
/// driver they share. Defaults in [`FastSettings::default`] and in the groups' `Default` impls.
///
/// The rank `m = sum_b p_b (p_b + 1) / 2` of the Newton system's low-rank part (an iteration
/// costs `m^2` per free weight) separates cheap problems from expensive ones: from
/// [`FastSettings::large_rank`] on, warm guesses that are far off or stay undecided restart
/// cold, free weights are aggregated and the compressed program is tried; from
/// [`ColdStartSettings::tight_rank`] on, cold sets get the tighter unfolded budget.
#[derive(Clone, Debug, PartialEq)]
pub struct FastSettings {
    /// Largest accepted bracket width `upper - lower`, in points (MATH.md 3.2's zeta).
    pub accuracy: f64,
    /// Reuse the active set of the previous evaluation.
    pub warm_start: bool,
    /// Margin (in units of the weight's cost) beyond which a weight is folded or dropped
    /// between evaluations (warm start) and when a round's dual classifies the weights.
    pub margin: f64,
    /// How membership queries whose bracket contains the level are refined (MATH.md 4.5b).
    pub refinement: Refinement,
    /// Duality gap of a certified round's solve, as a share of `accuracy` (converted to
    /// objective units by the score's scale).
    pub gap_share: f64,
    /// Interior-point settings of a certified round; its `gap_tol` is replaced by the one
    /// [`FastSettings::gap_share`] gives.
    pub round: IpmSettings,
    /// A membership query's solve stops early once its bracket lies farther than
    /// `stop_margin * accuracy` from the level ...
    pub stop_margin: f64,
    /// ... at an iterate whose primal and dual residuals are below `stop_residual`.
    pub stop_residual: f64,
    /// The fast CM backend certifies each round's lower end from the round's dual truncated
    /// to its eigenvalues above `cut_rank_tol` times the largest
    /// ([`crate::cm::CertifiedMean::truncated_cut`]), and from the whole dual only when that
    /// bracket leaves the question open.
    pub cut_rank_tol: f64,
    /// From this rank `m` of the Newton system's low-rank part on (below it the free weights
    /// are cheap and repairs cheaper than a cold start): a warm guess whose first round
    /// contradicts more statuses than one repair frees, or whose rounds have not certified an
    /// answer after [`RepairSettings::guess_rounds`] rounds, restarts cold; free weights are
    /// aggregated ([`AggregateSettings`]); and a membership question near a kept cut is first
    /// put to the compressed program ([`CompressSettings`]).
    pub large_rank: usize,
    /// The cold start: subsample cascade, loose first round, unfolded budget.
    pub cold: ColdStartSettings,
    /// The repair rounds of an evaluation.
    pub repair: RepairSettings,
    /// Aggregation of free weights into groups of equal weight (MATH.md 4.10).
    pub aggregate: AggregateSettings,
    /// The CM program compressed onto a subspace ([`crate::cm::compress`], MATH.md 4.9).
    pub compress: CompressSettings,
    /// What the fast CM backend keeps between evaluations.
    pub memory: MemorySettings,
}

impl Default for FastSettings {
    fn default() -> Self {
        FastSettings {
            accuracy: 1e-3,
            warm_start: true,
            margin: 0.02,
            refinement: Refinement::default(),
            gap_share: 0.25,
            round: IpmSettings::default(),
            stop_margin: 10.0,
            stop_residual: 1e-7,
            // Rank 1-2 at `D = 50`.
            cut_rank_tol: 1e-6,
            // `D >= 31`. At `D = 10` the compressed test cost more than the cold starts it
            // spared.
            large_rank: 512,
            cold: ColdStartSettings::default(),
            repair: RepairSettings::default(),
            aggregate: AggregateSettings::default(),
            compress: CompressSettings::default(),
            memory: MemorySettings::default(),
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

/// The cold start: the active set estimated from a cascade of subsamples, its loose first
/// round and its unfolded budget. Defaults in [`ColdStartSettings::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct ColdStartSettings {
    /// Margin used after the cold-start estimate from a subsample, whose dual is noisier.
    pub cold_margin: f64,
    /// Cold margin of the fast anchor's active set ([`crate::FastCm::minimise`]), wider than
    /// `cold_margin`: the certified ball needs the interior solution that a larger free set
    /// gives (with the evaluations' margin its radius can come out 0 when the ball domain
    /// binds).
    pub anchor_cold_margin: f64,
    /// Size of the smallest subsample whose solution seeds the active set of a cold
    /// evaluation; 0 disables the cold-start estimate.
    pub subsample: usize,
    /// Ratio of consecutive subsample sizes in the cold start's cascade.
    pub cascade: usize,
    /// Interior-point settings of the cold start's subsample levels.
    pub subsample_round: IpmSettings,
    /// The first round of a cold start is solved to a duality gap of this share of the
    /// estimated score (the subsample's removed weight, in points): its dual only classifies
    /// the weights for the next round.
    pub loose_share: f64,
    /// Feasibility tolerance of that loose first round.
    pub loose_feas_tol: f64,
    /// Constant part of the unfolded budget `2 removed + unfolded_slack` of an active set
    /// derived from an estimated dual.
    pub unfolded_slack: usize,
    /// From this rank `m` of the Newton system's low-rank part on, a cold set's unfolded
    /// budget is `removed + unfolded_slack` (above `m` free weights an iteration costs `m^2`
    /// per weight).
    pub tight_rank: usize,
    /// In a start's first accurate round, when the plain classification leaves more than
    /// `degenerate` times the unfolded budget unfolded (degenerate margins), the budget holds.
    pub degenerate: usize,
    /// A cold set leaves at most `n / cold_free_divisor` weights free ...
    pub cold_free_divisor: usize,
    /// ... but at least `cold_free_rank` times the rank `m` ...
    pub cold_free_rank: usize,
    /// ... and at least `min_cold_free`.
    pub min_cold_free: usize,
}

impl Default for ColdStartSettings {
    fn default() -> Self {
        ColdStartSettings {
            // At large `D` a wider margin leaves thousands of weights free.
            cold_margin: 0.25,
            anchor_cold_margin: 0.5,
            subsample: 256,
            cascade: 8,
            subsample_round: IpmSettings {
                gap_tol: 1e-3,
                feas_tol: 1e-6,
                max_iter: 60,
                ..IpmSettings::default()
            },
            loose_share: 0.05,
            loose_feas_tol: 1e-7,
            unfolded_slack: 256,
            // About `D = 45`.
            tight_rank: 1024,
            degenerate: 4,
            cold_free_divisor: 16,
            cold_free_rank: 4,
            min_cold_free: 4096,
        }
    }
}

/// The repair rounds of an evaluation. Defaults in [`RepairSettings::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct RepairSettings {
    /// Repair rounds before falling back to the reference backend (the last frees every
    /// weight).
    pub max_rounds: usize,
    /// Floor of the number of contradicted weights one repair round frees (twice the round's
    /// free weights, at least this; after a loose round exactly this).
    pub min_repair: usize,
    /// Rounds after the first whose dual may re-derive all statuses (when it would at least
    /// halve the free set, or after a stalled solve).
    pub late_rederive: usize,
    /// From [`FastSettings::large_rank`] on, a warm guess whose rounds have not certified an
    /// answer after `guess_rounds` rounds restarts cold.
    pub guess_rounds: usize,
    /// From [`FastSettings::large_rank`] on, a warm guess whose first dual contradicts more
    /// statuses than one repair frees restarts cold (`true`, the default) or is repaired like
    /// any other (`false`; the `guess_rounds` rule still applies). The covariance's lifted
    /// refinement repairs them (`sosdp_learn::CovarianceSettings::refinement_score`).
    pub far_off_restarts: bool,
}

impl Default for RepairSettings {
    fn default() -> Self {
        RepairSettings {
            // With fewer, hard refinement stages of the Gaussian learner fell back to
            // clarabel, minutes per query.
            max_rounds: 12,
            min_repair: 256,
            late_rederive: 2,
            // The d = 50 stages certify most warm questions within 5 rounds, 4 of them
            // grouped; left alone, the repairs of an undecided guess reached the round that
            // frees every weight.
            guess_rounds: 6,
            // The mean keeps it: on the d = 50 stage-4 replay, four times the repair budget
            // before a restart did not pay (docs/performance.md, section 6).
            far_off_restarts: true,
        }
    }
}

/// Aggregation of free weights into groups of equal weight (MATH.md 4.10,
/// [`crate::active_set::group`]), from rank [`FastSettings::large_rank`] on (an iteration then
/// costs `m^2` per free weight). Defaults in [`AggregateSettings::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateSettings {
    /// Free weights are aggregated when a reduced problem has more than `aggregate_free` of
    /// them.
    pub aggregate_free: usize,
    /// Weights on each side of the margins' zero crossing that stay single when aggregating;
    /// the groups beyond them have `group_core`, `2 group_core`, ... members.
    pub group_core: usize,
    /// Most aggregated rounds of one evaluation that may fail to certify before the rounds
    /// solve the free weights one by one; 0 disables aggregation.
    pub grouped_rounds: usize,
}

impl Default for AggregateSettings {
    fn default() -> Self {
        AggregateSettings {
            aggregate_free: 256,
            group_core: 8,
            grouped_rounds: 4,
        }
    }
}

/// The CM program compressed onto a subspace ([`crate::cm::compress`], MATH.md 4.9), tried
/// from rank [`FastSettings::large_rank`] on. Defaults in [`CompressSettings::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct CompressSettings {
    /// A membership question whose warm guess (from the tightest kept cut) folds an infeasible
    /// set first tries to certify NO on the CM program compressed onto a subspace spanned by
    /// the `compress_rank` leading eigenvectors of that cut's dual and the displacements of the
    /// query; 0 disables the test.
    pub compress_rank: usize,
    /// Weights whose margin under the kept cut's dual exceeds `compress_margin` in absolute
    /// value start the compressed solve folded at their bound; a fold this overfills is
    /// unfolded, and the statuses the solve's dual contradicts are repaired
    /// (`compress_repairs`).
    pub compress_margin: f64,
    /// The compressed solve stops once its objectives are this many points (of score) past the
    /// level on either side.
    pub compress_stop: f64,
    /// Repair rounds of the compressed solve: the statuses its dual contradicts (margins in
    /// `k` dimensions, `k^2` flops a point) are freed, the most contradicted first and at most
    /// as many as a repair of the full program frees, and it is solved again, at most this
    /// many times.
    pub compress_repairs: usize,
    /// When the statuses the compressed program gives fold an infeasible set, or its weights
    /// violate the full LMI so that they cannot answer YES, the most violated direction joins
    /// the subspace and the program is solved again, at most this many times
    /// ([`crate::cm::fast::FastCm`]).
    pub relaxed_directions: usize,
    /// Every membership question near a kept cut is first put to the compressed program (NO
    /// from its cut, YES from its weights made feasible for the full LMI), and a warm guess
    /// whose fold is infeasible is replaced by the compressed dual's statuses, unless more
    /// than this share of the `n` weights would be free in it (their margins under the cut's
    /// dual within `compress_margin` of 0): there the compressed solve costs more than the
    /// warm full solve it would replace.
    pub compress_answer_free: f64,
    /// Interior-point settings of the compressed solve.
    pub compress_round: IpmSettings,
    /// The compressed program's free weights are aggregated like the full program's
    /// ([`AggregateSettings::aggregate_free`], [`AggregateSettings::group_core`]; MATH.md
    /// 4.10) when more than this share of the `n` weights start free in it (margins under the
    /// kept cut's dual within `compress_margin` of 0); 1 (the default) never. Its cut and its
    /// repaired weights are certified on the full program either way. The covariance's lifted
    /// refinement sets it (`sosdp_learn::CovarianceSettings::refinement_score`).
    pub aggregate_share: f64,
    /// A compressed program that [`Self::aggregate_share`] leaves single is still aggregated
    /// when more than `wide_free` of its weights are free, with `wide_core` single weights on
    /// each side of the margins' zero crossing ([`crate::active_set::group::Grouping`]); 0 (the
    /// default) never. The covariance's lifted refinement sets it
    /// (`sosdp_learn::CovarianceSettings::refinement_score`).
    pub wide_core: usize,
    /// See [`Self::wide_core`].
    pub wide_free: usize,
}

impl Default for CompressSettings {
    fn default() -> Self {
        CompressSettings {
            compress_rank: 2,
            // At 0.9, without repairs, about 10900 of the 50000 weights of the d = 50 fit's
            // last stage stayed free, mostly weights the solve's own dual then placed far from
            // 0: 90 ms a compressed solve, against 17 ms at 0.3 with repairs (about 2500 free,
            // the tight cluster).
            compress_margin: 0.3,
            compress_stop: 1.0,
            compress_repairs: 3,
            relaxed_directions: 3,
            // Above it the compressed solve costs more than the warm full solve (20-40 ms at
            // d = 50).
            compress_answer_free: 0.5,
            compress_round: IpmSettings {
                // 0.005 points at n = 50000: a YES needs the compressed optimum's weights
                // within a fraction of a point of it.
                gap_tol: 1e-7,
                feas_tol: 1e-7,
                max_iter: 60,
                ..IpmSettings::default()
            },
            // Never: on the d = 50 cluster mean grouped solves left a third of the compressed
            // questions open (302 of 791, against 1 of 1232 single) and its third stage ran
            // slower with them.
            aggregate_share: 1.0,
            wide_core: 0,
            wide_free: 1024,
        }
    }
}

/// What the fast CM backend keeps between evaluations. Defaults in
/// [`MemorySettings::default`].
#[derive(Clone, Debug, PartialEq)]
pub struct MemorySettings {
    /// Number of recent cuts (affine minorants of CM from the duals of its solves) kept for
    /// warm starts and certified outer chord ends.
    pub kept_cuts: usize,
    /// Number of recent solves' certificates (feasible primals) kept to answer membership
    /// questions YES without a solve (MATH.md 4.9, [`crate::cm::memo`]); 0 disables
    /// memoisation.
    pub kept_certificates: usize,
}

impl Default for MemorySettings {
    fn default() -> Self {
        MemorySettings {
            kept_cuts: 64,
            kept_certificates: 64,
        }
    }
}
