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

/// A query of [`FastCm::evaluate_to`] at a `theta` in the domain, with what the answerers and
/// the start read.
pub(crate) struct Query<'q> {
    pub(crate) theta: &'q [f64],
    /// The level of a membership query ("score <= level?"); `None` for an evaluation.
    pub(crate) level: Option<f64>,
    /// The bracket width asked for.
    pub(crate) accuracy: f64,
    /// The kept cut tightest at `theta` and its value there
    /// ([`crate::cm::memory::Memory::tightest_cut`]).
    pub(crate) tightest: Option<(Cut, f64)>,
    /// The full packing program at `theta`.
    pub(crate) full: Problem<'q>,
    /// The compressed program is tried around the tightest kept cut
    /// ([`FastCm::compresses_near`]).
    pub(crate) relax: bool,
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
