//! Progress reports of long runs, and the caller's way to stop one.
//!
//! A progress callback returns [`ControlFlow`]: `Continue(())` lets the run go on,
//! `Break(())` stops it at once, before its next membership question or iteration, with
//! [`SamplerError::Cancelled`]; nothing is released. Cancelling is the caller's decision
//! (e.g. a user's Ctrl-C), never the data's: it does not weaken MATH.md 7 (every
//! data-dependent path after the data are read ends in a release), and no fallback of the
//! sampler answers it (a cancel is never turned into a release).
use crate::error::SamplerError;
use std::ops::ControlFlow;

/// Progress of a long run, for a callback (the CLI draws it with indicatif).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// What is running, e.g. a phase name of the sampler.
    pub phase: &'static str,
    /// Steps done so far.
    pub done: usize,
    /// 0 when the total is not known in advance.
    pub total: usize,
}

/// Hand `p` to `progress`; its `Break` is [`SamplerError::Cancelled`], for `?` (the run stops
/// before its next step).
pub(crate) fn report(
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
    p: Progress,
) -> Result<(), SamplerError> {
    match progress(p) {
        ControlFlow::Continue(()) => Ok(()),
        ControlFlow::Break(()) => Err(SamplerError::Cancelled),
    }
}
