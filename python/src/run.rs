//! A fit run from Python: the learner runs on a worker thread while the calling thread waits
//! with the GIL released, waking every [`TICK`] to forward progress to a Python callback and
//! to let Python handle signals. When Python raises (Ctrl-C gives `KeyboardInterrupt`, or the
//! callback raises), the fit is told to stop through its progress path (the learner's progress
//! callback answers `Break` at its next iteration), its thread is joined, and the Python error
//! is raised: nothing is released. Stopping is the caller's decision, never the data's.
use nalgebra::DMatrix;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use sosdp_learn::{Fit, LearnError, Learner, Plan, Progress};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

/// How often the waiting thread forwards progress and checks for signals.
pub const TICK: Duration = Duration::from_millis(100);

/// What the worker reports: the step of the plan and the sampler's progress within it.
type Report = (usize, Progress);

/// What a learner's fit returns.
pub type Fitted<L> = Result<Fit<<L as Learner>::Estimate, <L as Learner>::Plan>, LearnError>;

/// What a wait for the worker found.
enum Waited<T> {
    /// Its result.
    Done(T),
    /// Nothing yet.
    Running,
    /// It ended without a result (it panicked).
    Gone,
}

/// Fit `learner` on `data`, with the GIL released while it runs. `progress`, when given, is
/// called with the GIL held as `progress(step, steps, phase, done, total)` (`step` 1-based,
/// `steps` the plan's number of steps) whenever the fit's progress changed since the last
/// tick. A Python error raised meanwhile (a signal handler's `KeyboardInterrupt`, the
/// callback's own exception) stops the fit and is returned.
pub fn fit<L>(
    py: Python<'_>,
    learner: &L,
    data: &DMatrix<f64>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Fitted<L>>
where
    L: Learner + Sync,
    Fit<L::Estimate, L::Plan>: Send,
{
    let steps = learner
        .plan(data.nrows(), data.ncols())
        .map_or(0, |plan| plan.steps());
    let stop = AtomicBool::new(false);
    let latest: Mutex<Option<Report>> = Mutex::new(None);
    let (sender, receiver) = mpsc::channel();
    let receiver = Mutex::new(receiver);
    std::thread::scope(|scope| {
        let (stop, latest) = (&stop, &latest);
        scope.spawn(move || {
            let result = learner.fit_with_progress(data, &mut |step, p| {
                if stop.load(Ordering::Relaxed) {
                    return ControlFlow::Break(());
                }
                *latest.lock().unwrap_or_else(|e| e.into_inner()) = Some((step, p));
                ControlFlow::Continue(())
            });
            // The receiver outlives the scope; a send fails only if it is gone.
            let _ = sender.send(result);
        });
        // Wait for the worker's result, with the GIL released.
        let wait = |timeout: Option<Duration>| {
            py.detach(|| {
                let receiver = receiver.lock().unwrap_or_else(|e| e.into_inner());
                match timeout {
                    Some(t) => match receiver.recv_timeout(t) {
                        Ok(result) => Waited::Done(result),
                        Err(mpsc::RecvTimeoutError::Timeout) => Waited::Running,
                        Err(mpsc::RecvTimeoutError::Disconnected) => Waited::Gone,
                    },
                    None => receiver.recv().map_or(Waited::Gone, Waited::Done),
                }
            })
        };
        // Stop the running worker at its next iteration, wait for it, and raise `error`.
        let stop_with = |error: PyErr| {
            stop.store(true, Ordering::Relaxed);
            wait(None);
            Err(error)
        };
        let mut shown: Option<Report> = None;
        loop {
            match wait(Some(TICK)) {
                Waited::Done(result) => return Ok(result),
                // The worker panicked; the scope raises its panic when it ends.
                Waited::Gone => {
                    return Err(PyRuntimeError::new_err("the fit's worker thread panicked"));
                }
                Waited::Running => {}
            }
            if let Some(callback) = progress {
                let now = *latest.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((step, p)) = now.filter(|_| now != shown) {
                    shown = now;
                    if let Err(e) = callback.call1((step + 1, steps, p.phase, p.done, p.total)) {
                        return stop_with(e);
                    }
                }
            }
            if let Err(e) = py.check_signals() {
                return stop_with(e);
            }
        }
    })
}
