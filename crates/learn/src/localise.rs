//! Localisation without a prior (MATH.md 5.5 (a)): an `(eps_loc, delta)`-DP step that finds a
//! ball `B(c, r)` holding the mean of records from `N(mu, I)` (or `N(mu, Sigma)` with
//! `Sigma ⪯ s^2 I`, below), so that the pure learner can run with the prior `|mu - c| <= r`
//! instead of a user's `|mu| <= R`.
//!
//! **Mechanism.** Draw a uniformly random rotation `Q` (Haar, from the fit's randomness: public,
//! data-independent) and rotate every record, `y_i = Q x_i`. For each rotated coordinate `j`,
//! a *stable histogram* (Karwa-Vadhan 2018; the stability-based histogram of Vadhan 2017, "The
//! Complexity of Differential Privacy") on the data-independent grid of bins `[k w, (k + 1) w)`,
//! `k` an integer, `w` public:
//! 1. count the records of every occupied bin (integer counts; empty bins are never touched);
//! 2. add to every occupied bin's count independent discrete Laplace noise `Z`,
//!    `P(Z = z) = (1 - q) / (1 + q) q^|z|`, `q = exp(-eps_c / 2)` (scale `2 / eps_c`);
//! 3. keep the bins whose noisy count exceeds `T = 1 + 2 log(2 / delta_c) / eps_c`;
//! 4. release the index `k_j` of the kept bin with the largest noisy count (the lowest index on
//!    ties), or refuse when no bin is kept.
//!
//! The centre is `c = Q^T b` with `b_j = (k_j + 1/2) w`, the bins' centres: a function of
//! integers and of the public rotation, so no floating-point artefact of the noise reaches it.
//!
//! **Privacy of one coordinate.** Replacing one record moves it from bin `A` to bin `B`. Let `C`
//! be the bins occupied in both datasets and `p = P(1 + Z > T)` the probability that a bin of
//! count 1 passes. On `C` the counts differ by at most 1 in at most two bins, so their noisy
//! counts are `eps_c`-indistinguishable (`Z` has log-density slope `eps_c / 2`). A bin occupied
//! in only one dataset has count 1 there, and is kept with probability `p`; splitting any output
//! event on whether it contains such a bin gives, in the worst case (`A` in `C`, `B` occupied in
//! the neighbour only, one count on `C` changed),
//! `P[M(x) in S] <= e^{eps_c / 2} P[M(x') in S] + e^{eps_c / 2} p`. So the histogram, and its argmax (post-processing), is
//! `(eps_c, delta_c)`-DP when `e^{eps_c / 2} p <= delta_c`. With `a = eps_c / 2` and `k` the
//! least integer above `T - 1 = log(2 / delta_c) / a`, `p = P(Z >= k) = q^k / (1 + q) <
//! (delta_c / 2) / (1 + e^{-a})`, and `e^a / (1 + e^{-a}) <= 2` for `a <= log(1 + sqrt 3)`
//! (`eps_c <= 2`): the threshold `T` gives `e^a p <= delta_c`. The plan computes this exact
//! `e^a p` ([`LocalisationPlan::delta_bound_per_coordinate`]) and refuses settings where it
//! exceeds `delta_c` (per-coordinate eps above 2), before the data are read, as it refuses
//! per-coordinate eps below [`MIN_EPSILON_PER_COORDINATE`] (whose noise cannot be sampled).
//!
//! **Budget.** Basic composition over the `d` coordinates: `eps_c = eps_loc / d`,
//! `delta_c = delta / d`; the localisation is `(eps_loc, delta)`-DP, and a pure `eps_rest`-DP
//! learner given its ball makes the fit `(eps_loc + eps_rest, delta)`-DP.
//!
//! **Coverage** (with probability `1 - beta_loc`, `beta_loc / 3` for each event below). Of the
//! `n` records at most `eta0 n` were replaced; the others are draws of `N(mu, I)`, and
//! `y_ij ~ N(m_j, 1)`, `m = Q mu`.
//! - Tails: every draw has `|y_ij - m_j| <= t`, `P(|g| > t) = beta_loc / (3 n d)`.
//! - Mass: the bin holding `m_j` has Gaussian mass at least `p_0 = Phi(w) - 1/2` (the worst case
//!   is `m_j` on its edge), so by Hoeffding it holds at least `(p_0 - s) n - eta0 n` records,
//!   `s = sqrt(log(9 d / beta_loc) / (2 n))`, in every coordinate, and the two half-lines
//!   beyond `w / 2` from `m_j` (mass `1 - Phi(w/2)` each) hold at most `(1 - Phi(w/2) + s) n`
//!   clean draws (three Hoeffding events per coordinate).
//! - Noise: every occupied bin's noise has `|Z| < t_z`, `P(|Z| >= t_z) = 2 q^{t_z} / (1 + q) <=
//!   beta_loc / (3 n d)` (at most `n` occupied bins per coordinate).
//!
//! On these events, if `(p_0 - s - eta0) n - t_z > T` the bin of `m_j` is kept (its noisy count
//! is above the threshold), and the released bin's noisy count is at least its. Two arguments
//! then bound the released bin's centre `b_j` ([`Coverage`]); the plan uses the first whose
//! margin is positive:
//! - [`Coverage::NearestBins`]: every bin other than the bin of `m_j` and its nearer neighbour
//!   lies beyond `w / 2` from `m_j` on one side, so it holds at most `(1 - Phi(w/2) + s) n +
//!   eta0 n` records. If `(Phi(w) + Phi(w/2) - 3/2 - 2 s - 2 eta0) n > 2 t_z` no such bin can
//!   be released, so `|b_j - m_j| <= w` and `r = sqrt(d) w`.
//! - [`Coverage::CleanRecord`]: if `(p_0 - s - 2 eta0) n > 2 t_z` the released bin has more than
//!   `eta0 n` records, so it holds a clean draw: `|b_j - m_j| <= w / 2 + t` and
//!   `r = sqrt(d) (w / 2 + t)`.
//!
//! Either way `|c - mu| = |b - m| <= r` (the rotation is an isometry). The chosen argument's
//! smaller margin (with the threshold's), as a fraction of `n`, is
//! [`LocalisationPlan::coverage_margin`]: when it is not positive the plan cannot guarantee the
//! ball (the accuracy bound is then `null`). The corruption must stay below about `p_0 / 2`
//! (0.25 for `w = 4`), since a cluster of `eta0 n` records in a far bin can otherwise outweigh
//! the clean bin.
//!
//! **Scale.** For records from `N(mu, Sigma)` with `Sigma ⪯ s^2 I` (the Gaussian learner's
//! prior `Sigma ⪯ K I`, `s = sqrt(K)`), the plan takes bins of width `w s` and every length
//! above in units of `s`: `y_ij - m_j` has standard deviation `sigma_j <= s`, so its tails beyond
//! `t s`, the mass `Phi(w s / sigma_j) - 1/2 >= p_0` of the bin holding `m_j` and the mass
//! `1 - Phi(w s / (2 sigma_j)) <= 1 - Phi(w / 2)` beyond `w s / 2` all satisfy the bounds used
//! above, which hold verbatim (the histogram's privacy does not depend on the scale).
use crate::LearnError;
use crate::privacy::{Privacy, check_shares, seeded_rng};
use crate::release::{AccuracyBound, Diagnostics, Fit, Release, StageRelease};
use crate::special::{gamma_upper, upper_quantile};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{Distribution, Geometric, StandardNormal};
use serde::Serialize;
use std::collections::BTreeMap;

/// The localisation's settings (MATH.md 5.5 (a)); privacy never depends on them, only accuracy.
#[derive(Clone, Debug, PartialEq)]
pub struct LocaliseSettings {
    /// The share of eps the localisation spends (default 0.15: at d = 10, n = 20000, eps = 1 the
    /// smallest share of 0.05-0.3 whose plan guarantees the tighter ball `r = sqrt(d) w` with 5%
    /// corruption, and the ball at all with 10%; 0.1 plans 2-3% less error on clean data); the
    /// learner gets the rest.
    pub epsilon_share: f64,
    /// The bins' width `w`, in units of the bound `s` on the records' standard deviation (1 for
    /// the mean, `sqrt(K)` for the Gaussian; default 4).
    pub bin_width: f64,
    /// The share of `beta` of the localisation's coverage (default 0.25); the learner's accuracy
    /// bound gets the rest.
    pub beta_share: f64,
}

impl Default for LocaliseSettings {
    fn default() -> Self {
        LocaliseSettings {
            epsilon_share: 0.15,
            bin_width: 4.0,
            beta_share: 0.25,
        }
    }
}

impl LocaliseSettings {
    /// Check the shares (in `(0, 1)`) and the width (positive, finite).
    pub fn validate(&self) -> Result<(), LearnError> {
        check_shares(
            "the localisation",
            [
                ("epsilon_share", self.epsilon_share),
                ("beta_share", self.beta_share),
            ],
        )?;
        if !(self.bin_width.is_finite() && self.bin_width > 0.0) {
            return Err(LearnError::InvalidSetting(format!(
                "the localisation's bin width must be positive and finite, got {}",
                self.bin_width
            )));
        }
        Ok(())
    }

    /// Refuse `privacy` without `delta > 0` for `learner` (a localisation is `(eps, delta)`-DP).
    pub(crate) fn require_delta(privacy: &Privacy, learner: &str) -> Result<(), LearnError> {
        if privacy.delta > 0.0 {
            return Ok(());
        }
        Err(LearnError::InvalidSetting(format!(
            "{learner} without a prior radius needs delta > 0 (its localisation is (eps, delta)-DP, MATH.md 5.5 (a)): give delta > 0, or a prior radius R for the pure learner"
        )))
    }

    /// `eps_loc = epsilon_share * eps`, the localisation's eps.
    pub(crate) fn epsilon(&self, privacy: &Privacy) -> f64 {
        self.epsilon_share * privacy.epsilon
    }

    /// The pure learner's shared settings after the localisation: eps `eps - eps_loc`, no
    /// delta, beta `(1 - beta_share) beta`, the seed plus one.
    pub(crate) fn pure_privacy(&self, privacy: &Privacy) -> Privacy {
        Privacy {
            delta: 0.0,
            ..privacy.after_step(self.epsilon(privacy), self.beta_share, 1)
        }
    }

    /// The localisation's plan for `n` records in `R^d` whose standard deviation in every
    /// direction is at most `scale`, with `privacy`'s eps (its share), delta, corruption and
    /// beta (its share).
    pub fn plan(
        &self,
        privacy: &Privacy,
        n: usize,
        d: usize,
        scale: f64,
    ) -> Result<LocalisationPlan, LearnError> {
        LocalisationPlan::new(
            n,
            d,
            self.epsilon(privacy),
            privacy.delta,
            privacy.corruption,
            self.beta_share * privacy.beta,
            self.bin_width,
            scale,
        )
    }
}

/// The localisation's public plan: every number of it is computed from `(n, d, eps_loc, delta,
/// eta0, beta_loc, w, s)` before the data are read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LocalisationPlan {
    /// `eps_loc`, the localisation's eps.
    pub epsilon: f64,
    /// `delta`, all of the fit's delta (the learner after it is pure).
    pub delta: f64,
    /// `eps_c = eps_loc / d` of each rotated coordinate (basic composition).
    pub epsilon_per_coordinate: f64,
    /// `delta_c = delta / d` of each rotated coordinate (basic composition).
    pub delta_per_coordinate: f64,
    /// The bound `s` on the records' standard deviation in every direction that the plan
    /// assumes (`sqrt(K)` under `Sigma ⪯ K I`; 1 for the mean's identity covariance): the bins'
    /// width, the tail radius and the ball's radius below are in the records' units, `s` times
    /// their values in units of `s`.
    pub scale: f64,
    /// The bins' width `w s`.
    pub bin_width: f64,
    /// The discrete Laplace noise's scale `2 / eps_c` (`q = exp(-eps_c / 2)`).
    pub noise_scale: f64,
    /// `T = 1 + 2 log(2 / delta_c) / eps_c`: a bin is kept when its noisy count exceeds it.
    pub threshold: f64,
    /// The exact probability `P(1 + Z > T)` that a bin of count 1 is kept.
    pub singleton_pass_probability: f64,
    /// `e^{eps_c / 2}` times that: the exact delta of a coordinate, at most `delta_c`.
    pub delta_bound_per_coordinate: f64,
    /// `beta_loc`: the probability that the ball misses the mean under the assumptions.
    pub beta: f64,
    /// `t s`: every clean draw is within it of the mean in every rotated coordinate.
    pub tail_radius: f64,
    /// `t_z`: every occupied bin's noise is below it in absolute value.
    pub noise_bound: f64,
    /// The argument that bounds the released bin's distance to the mean (module docs): the
    /// first of the two whose margin is positive (else the second).
    pub coverage: Coverage,
    /// The coverage's smallest margin as a fraction of `n` (module docs): the ball is
    /// guaranteed to hold the mean (with probability `1 - beta_loc`) when it is positive.
    pub coverage_margin: f64,
    /// The radius `r` of the released ball `B(c, r)` that holds the mean: `sqrt(d) w s` or
    /// `sqrt(d) (w / 2 + t) s`, as the coverage argument gives.
    pub radius: f64,
}

/// How the plan bounds the distance of a released bin's centre to the mean (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Coverage {
    /// The released bin is the mean's bin or its nearer neighbour: within `w` of the mean.
    NearestBins,
    /// The released bin holds a clean draw: within `w / 2 + t` of the mean.
    CleanRecord,
}

/// How a localised learner's bounds begin to state the ball `|mu - c| <= r`
/// ([`LocalisationPlan::qualify`]; a scaled fit restates it in its units).
pub(crate) const BALL_PRIOR: &str = "|mu - c| <= r";

/// The smallest eps per coordinate a plan accepts: below it the success probability
/// `1 - exp(-eps_c / 2)` of the geometric draws ([`discrete_laplace`]) is lost to rounding.
pub const MIN_EPSILON_PER_COORDINATE: f64 = 1e-9;

/// `P(|g| > x)` for `g ~ N(0, 1)`.
fn normal_two_sided_tail(x: f64) -> f64 {
    gamma_upper(0.5, 0.5 * x * x)
}

impl LocalisationPlan {
    /// The plan for `n` records in `R^d` with `eps_loc`, `delta > 0`, corruption `eta0` and
    /// `beta_loc`, bins of width `w = bin_width` in units of `scale` (the bound `s` on the
    /// records' standard deviation in every direction); refused when a coordinate's exact delta
    /// would exceed `delta_c` (only for `eps_c` above about 2).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        n: usize,
        d: usize,
        epsilon: f64,
        delta: f64,
        eta0: f64,
        beta: f64,
        bin_width: f64,
        scale: f64,
    ) -> Result<Self, LearnError> {
        let (nf, df) = (n as f64, d as f64);
        let eps_c = epsilon / df;
        let delta_c = delta / df;
        if !(scale.is_finite() && scale > 0.0 && (bin_width * scale).is_finite()) {
            return Err(LearnError::InvalidSetting(format!(
                "the localisation's scale must be positive and finite (with the bins' width {bin_width} times it), got {scale}"
            )));
        }
        let a = 0.5 * eps_c;
        let q = (-a).exp();
        let threshold = 1.0 + 2.0 * (2.0 / delta_c).ln() / eps_c;
        // A count-1 bin is kept when Z > T - 1, i.e. Z >= k, k the least integer above T - 1.
        let k = (threshold - 1.0).floor() + 1.0;
        let singleton_pass_probability = (k * q.ln()).exp() / (1.0 + q);
        let delta_bound_per_coordinate = a.exp() * singleton_pass_probability;
        if !(eps_c >= MIN_EPSILON_PER_COORDINATE) {
            return Err(LearnError::InvalidSetting(format!(
                "the localisation's eps per coordinate, {eps_c} (eps share / d), is below \
                 {MIN_EPSILON_PER_COORDINATE}: its geometric noise cannot be sampled in double precision"
            )));
        }
        if !(delta_bound_per_coordinate <= delta_c) {
            return Err(LearnError::InvalidSetting(format!(
                "the localisation's eps per coordinate, {eps_c} (eps share / d), is above what the \
                 stable histogram's threshold covers (about 2): lower the localisation's eps share"
            )));
        }
        let each = beta / 3.0;
        let tail_radius = upper_quantile(each / (nf * df), normal_two_sided_tail);
        let p0 = 0.5 * (1.0 - normal_two_sided_tail(bin_width));
        let s = ((9.0 * df / beta).ln() / (2.0 * nf)).sqrt();
        // The least integer t_z with 2 q^t_z / (1 + q) <= beta_loc / (3 n d).
        let noise_bound = ((2.0 * nf * df / (each * (1.0 + q))).ln() / a).ceil();
        let kept = p0 - s - eta0 - (noise_bound + threshold) / nf;
        let far_mass = 0.5 * normal_two_sided_tail(0.5 * bin_width);
        let nearest = kept.min(p0 - far_mass - 2.0 * s - 2.0 * eta0 - 2.0 * noise_bound / nf);
        let clean = kept.min(p0 - s - 2.0 * eta0 - 2.0 * noise_bound / nf);
        let (coverage, coverage_margin, per_coordinate) = if nearest > 0.0 {
            (Coverage::NearestBins, nearest, bin_width)
        } else {
            (Coverage::CleanRecord, clean, 0.5 * bin_width + tail_radius)
        };
        Ok(LocalisationPlan {
            epsilon,
            delta,
            epsilon_per_coordinate: eps_c,
            delta_per_coordinate: delta_c,
            scale,
            bin_width: bin_width * scale,
            noise_scale: 1.0 / a,
            threshold,
            singleton_pass_probability,
            delta_bound_per_coordinate,
            beta,
            tail_radius: tail_radius * scale,
            noise_bound,
            coverage,
            coverage_margin,
            radius: df.sqrt() * per_coordinate * scale,
        })
    }

    /// The prior `|mu - c| <= r` the localised learner's accuracy bounds assume.
    fn prior(&self) -> String {
        format!(
            "{BALL_PRIOR} = {} for the localisation's centre c (probability 1 - {}: its coverage margin {} > 0 needs the corruption below about half the clean bin's mass)",
            self.radius, self.beta, self.coverage_margin
        )
    }

    /// A pure learner's accuracy bound, planned with the prior radius `r` around `c`, as the
    /// localised fit's: the prior `|mu| <= r` ([`Privacy::mean_prior_assumption`]) replaced by
    /// the localisation's ball, the probability `1 - beta` of the whole fit (the localisation's
    /// `beta_loc` and the pure learner's rest), and `null` when the coverage margin is not
    /// positive. A bound that does not assume the prior (the covariance's on pairs) keeps its
    /// value and assumptions, with the probability `1 - beta`.
    pub(crate) fn qualify(&self, bound: AccuracyBound, privacy: &Privacy) -> AccuracyBound {
        let pure_prior = Privacy::mean_prior_assumption(self.radius);
        if !bound.assumptions.contains(&pure_prior) {
            // A bound that does not rest on the mean's prior (the covariance's on pairs) keeps
            // its value; only its probability widens to the whole fit's.
            return AccuracyBound {
                probability: 1.0 - privacy.beta,
                ..bound
            };
        }
        let assumptions = bound
            .assumptions
            .into_iter()
            .map(|a| if a == pure_prior { self.prior() } else { a })
            .collect();
        let unavailable = (self.coverage_margin <= 0.0).then(|| {
            format!(
                "the localisation cannot guarantee that its ball holds the mean: its coverage margin is {} (not positive) with n records, corruption {} and eps_loc {}",
                self.coverage_margin, privacy.corruption, self.epsilon
            )
        });
        AccuracyBound {
            bound: bound.bound.filter(|_| unavailable.is_none()),
            probability: 1.0 - privacy.beta,
            assumptions,
            unavailable: unavailable.or(bound.unavailable),
            ..bound
        }
    }

    /// `q = exp(-eps_c / 2)`, the discrete Laplace noise's ratio.
    fn ratio(&self) -> f64 {
        (-0.5 * self.epsilon_per_coordinate).exp()
    }
}

/// A uniformly random rotation of `R^d` (Haar measure): the `Q` of the QR decomposition of a
/// standard Gaussian matrix, with the signs of `R`'s diagonal moved into `Q`.
pub fn random_rotation<R: Rng + ?Sized>(d: usize, rng: &mut R) -> DMatrix<f64> {
    let g = DMatrix::from_fn(d, d, |_, _| StandardNormal.sample(rng));
    let qr = g.qr();
    let r = qr.r();
    let mut q = qr.q();
    for (j, mut column) in q.column_iter_mut().enumerate() {
        if r[(j, j)] < 0.0 {
            column.neg_mut();
        }
    }
    q
}

/// One draw of the discrete Laplace law `P(Z = z) = (1 - q) / (1 + q) q^|z|`: the difference of
/// two independent geometric counts of failures with success probability `1 - q` (rand_distr's
/// `Geometric`: Bringmann-Friedrich 2013, exact up to the rounding of its uniform draws).
pub fn discrete_laplace<R: Rng + ?Sized>(q: f64, rng: &mut R) -> i64 {
    let geometric = Geometric::new(1.0 - q).expect("a success probability in (0, 1]");
    let (g1, g2) = (geometric.sample(rng), geometric.sample(rng));
    g1 as i64 - g2 as i64
}

/// The bin `floor(y / w)` of a rotated coordinate `y` (saturating: a coordinate beyond the
/// range of `i64` bins, or infinite after the rotation of an extreme record, falls in an end
/// bin, so no finite record can make the step fail).
pub fn bin_index(y: f64, w: f64) -> i64 {
    (y / w).floor() as i64
}

/// The stable histogram of one coordinate (module docs): the kept bin with the largest noisy
/// count (the lowest on ties), or `None` when no bin is kept. `counts` maps each occupied bin to
/// its count; noise is drawn in the bins' order, so a seeded fit is reproducible.
pub fn stable_argmax<R: Rng + ?Sized>(
    counts: &BTreeMap<i64, u64>,
    q: f64,
    threshold: f64,
    rng: &mut R,
) -> Option<i64> {
    let mut best: Option<(i64, i64)> = None;
    for (&bin, &count) in counts {
        let noisy = count as i64 + discrete_laplace(q, rng);
        if noisy as f64 > threshold && best.is_none_or(|(_, top)| noisy > top) {
            best = Some((bin, noisy));
        }
    }
    best.map(|(bin, _)| bin)
}

/// `Q x` for one record, formed as `s Q (x / s)` with `s` its largest absolute entry, so that
/// no intermediate overflows (an entry of the product may still be infinite: [`bin_index`]).
fn rotate(rotation: &DMatrix<f64>, x: DVector<f64>) -> DVector<f64> {
    let s = x.amax();
    if s == 0.0 {
        return x;
    }
    rotation * (x / s) * s
}

/// Run the localisation on `data` (one record per row) with the public `plan`: the centre `c`
/// of the ball `B(c, plan.radius)`, or `None` when some coordinate keeps no bin (the fit then
/// releases no estimate).
pub fn localise<R: Rng + ?Sized>(
    data: &DMatrix<f64>,
    plan: &LocalisationPlan,
    rng: &mut R,
) -> Option<DVector<f64>> {
    let d = data.ncols();
    let rotation = random_rotation(d, rng);
    let mut counts = vec![BTreeMap::<i64, u64>::new(); d];
    for row in data.row_iter() {
        let y = rotate(&rotation, row.transpose());
        for (histogram, value) in counts.iter_mut().zip(y.iter()) {
            *histogram
                .entry(bin_index(*value, plan.bin_width))
                .or_default() += 1;
        }
    }
    let q = plan.ratio();
    let mut centres = DVector::zeros(d);
    for (j, histogram) in counts.iter().enumerate() {
        let bin = stable_argmax(histogram, q, plan.threshold, rng)?;
        centres[j] = (bin as f64 + 0.5) * plan.bin_width;
    }
    Some(rotation.transpose() * centres)
}

/// What a localised learner's pure part returns on the records shifted by `-c`, given `c`: the
/// estimate in the records' frame, the stage releases, the pure learner's accuracy bounds
/// (qualified by [`LocalisationPlan::qualify`] in the release) and the diagnostics.
pub(crate) type PureFit<E> = (E, Vec<StageRelease>, Vec<AccuracyBound>, Diagnostics);

/// The fit of a localised learner (MATH.md 5.5 (a)) with the public `plan` (whose localisation
/// is `localisation`): the localisation with the fit's seeded randomness, then `pure` on the
/// data given the released centre `c` (its seed is the fit's plus one:
/// [`LocaliseSettings::pure_privacy`]). The release's stage releases are `c`, then the pure
/// part's; its accuracy bounds are the pure part's, qualified by the localisation. When some
/// coordinate keeps no bin, the release has no estimate, the reason in
/// `refusal` and nothing else computed from the data.
pub(crate) fn fit_localised<E, P>(
    data: &DMatrix<f64>,
    privacy: &Privacy,
    plan: P,
    localisation: impl Fn(&P) -> &LocalisationPlan,
    pure: impl FnOnce(&P, &DMatrix<f64>, &DVector<f64>) -> Result<PureFit<E>, LearnError>,
) -> Result<Fit<Option<E>, P>, LearnError> {
    let mut rng = seeded_rng(privacy.seed)?;
    let clock = std::time::Instant::now();
    let loc = localisation(&plan);
    let epsilon = loc.epsilon;
    let (estimate, stage_releases, accuracy, mut diagnostics, refusal) = match localise(
        data, loc, &mut rng,
    ) {
        None => {
            let reason = format!(
                "no estimate: in some rotated coordinate no histogram bin (width {}) kept a noisy count above the threshold {} (too few records concentrated in one bin)",
                loc.bin_width, loc.threshold
            );
            let diagnostics = Diagnostics::default();
            (None, Vec::new(), Vec::new(), diagnostics, Some(reason))
        }
        Some(centre) => {
            let (estimate, releases, accuracy, diagnostics) = pure(&plan, data, &centre)?;
            let accuracy = accuracy
                .into_iter()
                .map(|bound| loc.qualify(bound, privacy))
                .collect();
            let mut stage_releases = vec![StageRelease {
                step: "localisation centre".into(),
                release: centre.as_slice().to_vec(),
            }];
            stage_releases.extend(releases);
            (Some(estimate), stage_releases, accuracy, diagnostics, None)
        }
    };
    diagnostics.elapsed_s = clock.elapsed().as_secs_f64();
    let release = Release::localised(
        estimate,
        privacy,
        epsilon,
        plan,
        stage_releases,
        accuracy,
        refusal,
    );
    Ok(Fit {
        release,
        diagnostics,
    })
}

/// The records (rows of `data`) shifted by `-centre`: finite for finite records, since a
/// localisation's centre is at most `sqrt(d) w s 2^63` from the origin (the bins' indices
/// saturate), far inside the range of doubles.
pub fn shift_rows(mut data: DMatrix<f64>, centre: &DVector<f64>) -> DMatrix<f64> {
    for mut row in data.row_iter_mut() {
        row -= centre.transpose();
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::StdRng;
    use std::collections::HashMap;

    /// `P(Z >= k)` for the discrete Laplace law of ratio `q`, by summing its mass function
    /// (independent of the closed form in the plan).
    fn upper_tail(q: f64, k: i64) -> f64 {
        let norm = (1.0 - q) / (1.0 + q);
        (k..k + 400_000)
            .map(|z| norm * q.powi(z.unsigned_abs() as i32))
            .sum()
    }

    /// The exact delta of a coordinate with `threshold`: `e^{eps_c / 2} P(1 + Z > threshold)`.
    fn exact_delta(eps_c: f64, threshold: f64) -> f64 {
        let k = (threshold - 1.0).floor() as i64 + 1;
        (0.5 * eps_c).exp() * upper_tail((-0.5 * eps_c).exp(), k)
    }

    /// The threshold `1 + 2 log(2 / delta_c) / eps_c` keeps a bin of count 1 with probability
    /// (summed from the mass function) equal to the plan's, and its exact delta
    /// `e^{eps_c / 2} p` is at most `delta_c` for per-coordinate eps up to 2; threshold 0 (or
    /// no threshold) fails the same check by orders of magnitude. Per-coordinate eps above 2, or
    /// too small to sample, is refused.
    #[test]
    fn the_threshold_bounds_a_singleton_bins_release_by_delta() {
        for d in [1, 10, 50] {
            for eps_loc in [0.01, 0.1, 1.0, 2.0 * d as f64] {
                for delta in [1e-3, 1e-6, 1e-9] {
                    let plan = LocalisationPlan::new(1000, d, eps_loc, delta, 0.0, 0.01, 4.0, 1.0)
                        .expect("eps_c <= 2");
                    let exact = exact_delta(plan.epsilon_per_coordinate, plan.threshold);
                    assert!(
                        (exact - plan.delta_bound_per_coordinate).abs() <= 1e-6 * exact,
                        "{exact} vs {}",
                        plan.delta_bound_per_coordinate
                    );
                    assert!(exact <= plan.delta_per_coordinate, "{d} {eps_loc} {delta}");
                    assert!(exact_delta(plan.epsilon_per_coordinate, 0.0) > 100.0 * delta);
                }
            }
        }
        // Above eps_c = 2 the threshold no longer covers delta_c: the plan refuses.
        let err = LocalisationPlan::new(1000, 1, 5.0, 1e-6, 0.0, 0.01, 4.0, 1.0).unwrap_err();
        assert!(err.to_string().contains("eps per coordinate"), "{err}");
        // Far below, the geometric draws would lose their success probability to rounding.
        let err = LocalisationPlan::new(1000, 10, 1e-9, 1e-6, 0.0, 0.01, 4.0, 1.0).unwrap_err();
        assert!(err.to_string().contains("cannot be sampled"), "{err}");
    }

    /// The released bin's law on neighbouring histograms (one record moved to the adjacent bin,
    /// to a new far bin, and a lone record moved far): its hockey-stick divergence
    /// `sum_o max(0, P_x(o) - e^eps_c P_x'(o))`, in both directions, is at most `delta_c` plus
    /// the Monte Carlo error (4 standard errors at 1e5 draws). Without a threshold the lone
    /// record's bin is released about 60% of the time and the same check fails.
    #[test]
    fn neighbouring_histograms_release_bins_with_delta_close_laws() {
        let (eps_c, delta_c) = (1.0, 0.02);
        let plan = LocalisationPlan::new(1000, 1, eps_c, delta_c, 0.0, 0.01, 4.0, 1.0).unwrap();
        let q = plan.ratio();
        let trials = 100_000;
        let law = |counts: &[(i64, u64)], threshold: f64, seed: u64| {
            let histogram: BTreeMap<i64, u64> = counts.iter().copied().collect();
            let mut rng = StdRng::seed_from_u64(seed);
            let mut seen = HashMap::<Option<i64>, f64>::new();
            for _ in 0..trials {
                *seen
                    .entry(stable_argmax(&histogram, q, threshold, &mut rng))
                    .or_default() += 1.0 / trials as f64;
            }
            seen
        };
        let divergence = |p: &HashMap<Option<i64>, f64>, p2: &HashMap<Option<i64>, f64>| {
            p.iter()
                .map(|(o, &mass)| (mass - eps_c.exp() * p2.get(o).copied().unwrap_or(0.0)).max(0.0))
                .sum::<f64>()
        };
        let slack = 4.0 * (delta_c / trials as f64).sqrt();
        type Counts<'a> = &'a [(i64, u64)];
        let pairs: [(Counts, Counts); 3] = [
            (&[(0, 12), (1, 9)], &[(0, 11), (1, 10)]),
            (&[(0, 12), (1, 9)], &[(0, 11), (1, 9), (40, 1)]),
            (&[(0, 1)], &[(40, 1)]),
        ];
        for (k, (x, x2)) in pairs.iter().enumerate() {
            let (p, p2) = (
                law(x, plan.threshold, 2 * k as u64),
                law(x2, plan.threshold, 99),
            );
            for (a, b) in [(&p, &p2), (&p2, &p)] {
                assert!(divergence(a, b) <= delta_c + slack, "pair {k}: {a:?} {b:?}");
            }
        }
        let (lone, moved) = (law(&[(0, 1)], 0.0, 5), law(&[(40, 1)], 0.0, 6));
        assert!(divergence(&lone, &moved) > 0.5, "{lone:?} {moved:?}");
    }

    /// The rotation is orthogonal, and extreme records (up to the largest double) fall in end
    /// bins instead of failing.
    #[test]
    fn rotations_are_orthogonal_and_extreme_records_land_in_bins() {
        let mut rng = StdRng::seed_from_u64(1);
        let q = random_rotation(6, &mut rng);
        assert!((q.transpose() * &q - DMatrix::identity(6, 6)).amax() < 1e-12);
        let y = rotate(&q, DVector::from_element(6, f64::MAX));
        let bins: Vec<i64> = y.iter().map(|v| bin_index(*v, 4.0)).collect();
        assert!(
            bins.iter()
                .all(|b| *b == i64::MAX || *b == i64::MIN || b.abs() > 1 << 60)
        );
        assert_eq!(bin_index(-0.5, 4.0), -1);
        assert_eq!(bin_index(4.0, 4.0), 1);
    }
}
