//! The short-circuit answerers of the fast CM evaluation ([`FastCm::evaluate_to`]): tried in
//! the order of [`ShortCircuit::ORDER`] before the start, the repair rounds and the clarabel
//! fallback, each may answer a query without a solve of the full program. Every answer is
//! certified on the full program, so it is the one any certified bracket gives.
//!
//! - [`screen`]: the screen of the CM program ([`crate::CertifiedMean::screen`]);
//! - [`cut`]: a kept cut certifying "score > level";
//! - [`memo`]: a kept certificate certifying "score <= level" (MATH.md 4.9);
//! - [`compressed`]: the program compressed around the tightest kept cut's dual
//!   ([`crate::cm::compress`]), which also gives the relaxed start.
pub(crate) mod compressed;
pub(crate) mod cut;
pub(crate) mod memo;
pub(crate) mod screen;

use crate::EvalStats;
use crate::cm::Cut;
use crate::cm::fast::FastCm;
use crate::ipm::Problem;
use sosdp_oracle::ScoreEval;
use std::cell::OnceCell;

/// A query of [`FastCm::evaluate_to`] at a `theta` in the domain, with what the answerers and
/// the start read. The tightest kept cut, the full program and whether to compress are
/// computed on first use, so an answer from the screen costs none of them.
pub(crate) struct Query<'q> {
    pub(crate) theta: &'q [f64],
    /// The level of a membership query ("score <= level?"); `None` for an evaluation.
    pub(crate) level: Option<f64>,
    /// The level of the question a YES is followed by at the same `theta`, if the caller
    /// says ([`sosdp_oracle::ScoreOracle::member_eval_then`]).
    pub(crate) next: Option<f64>,
    /// The bracket width asked for.
    pub(crate) accuracy: f64,
    fast: &'q FastCm,
    tightest: OnceCell<Option<(Cut, f64)>>,
    full: OnceCell<Problem<'q>>,
    relax: OnceCell<bool>,
}

impl<'q> Query<'q> {
    /// The query of `fast` at `theta`.
    pub(crate) fn new(
        fast: &'q FastCm,
        theta: &'q [f64],
        level: Option<f64>,
        next: Option<f64>,
        accuracy: f64,
    ) -> Self {
        Query {
            theta,
            level,
            next,
            accuracy,
            fast,
            tightest: OnceCell::new(),
            full: OnceCell::new(),
            relax: OnceCell::new(),
        }
    }

    /// The kept cut tightest at `theta` and its value there
    /// ([`crate::cm::memory::Memory::tightest_cut`]).
    pub(crate) fn tightest(&self) -> Option<&(Cut, f64)> {
        self.tightest
            .get_or_init(|| self.fast.memory.tightest_cut(self.theta))
            .as_ref()
    }

    /// The full packing program at `theta`.
    pub(crate) fn full(&self) -> &Problem<'q> {
        self.full.get_or_init(|| {
            self.fast
                .full_problem(self.fast.problem().b_matrix(self.theta))
        })
    }

    /// Whether the compressed program is tried around the tightest kept cut
    /// ([`FastCm::compresses_near`]).
    pub(crate) fn relax(&self) -> bool {
        *self
            .relax
            .get_or_init(|| self.fast.compresses_near(self.full(), self.tightest()))
    }
}

/// A step that may answer a query before the start and the repair rounds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ShortCircuit {
    Screen,
    KeptCut,
    Memo,
    Compressed,
}

impl ShortCircuit {
    /// The order in which the answerers are tried, cheapest first.
    pub(crate) const ORDER: [ShortCircuit; 4] = [
        ShortCircuit::Screen,
        ShortCircuit::KeptCut,
        ShortCircuit::Memo,
        ShortCircuit::Compressed,
    ];

    /// The answer of this step to `query` (with its [`EvalStats`]), if it has one.
    pub(crate) fn answer(self, fast: &FastCm, query: &Query) -> Option<(ScoreEval, EvalStats)> {
        match self {
            ShortCircuit::Screen => screen::answer(fast, query),
            ShortCircuit::KeptCut => cut::answer(fast, query),
            ShortCircuit::Memo => memo::answer(fast, query),
            ShortCircuit::Compressed => compressed::answer(fast, query),
        }
    }
}
