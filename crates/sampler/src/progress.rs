//! Progress reports of long runs.

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
