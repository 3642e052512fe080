//! A fit run from Python: the learner runs on a worker thread while the calling thread waits
//! with the GIL released, waking every [`TICK`] to forward progress to a Python callback and
//! to let Python handle signals. When Python raises (Ctrl-C gives `KeyboardInterrupt`, or the
//! callback raises), the fit is told to stop through its progress path (the learner's progress
//! callback answers `Break` at its next sampler iteration, and the fit ends with
//! `LearnError::Cancelled`) and the Python error is raised at once, without waiting for that
//! iteration to end: the worker owns its learner and records and finishes alone, discarding
//! everything. Nothing is released. Stopping is the caller's decision, never the data's.
use nalgebra::DMatrix;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use sosdp_learn::{Fit, LearnError, Learner, Progress};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

/// How often the waiting thread forwards progress and checks for signals.
pub const TICK: Duration = Duration::from_millis(100);

/// What the worker reports: the step of the plan and the sampler's progress within it.
type Report = (usize, Progress);

/// What a learner's fit returns.
pub type Fitted<L> = Result<Fit<<L as Learner>::Estimate, <L as Learner>::Plan>, LearnError>;

/// Fit `learner` on `data`, with the GIL released while it runs. `progress`, when given, is
/// called with the GIL held as `progress(step, steps, phase, done, total)` (`step` 1-based,
/// `steps` the plan's number of steps, which the caller planned) whenever the fit's progress changed since the last
/// tick. A Python error raised meanwhile (a signal handler's `KeyboardInterrupt`, the
/// callback's own exception) stops the fit and is returned.
pub fn fit<L>(
    py: Python<'_>,
    learner: L,
    data: DMatrix<f64>,
    steps: usize,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<Fitted<L>>
where
    L: Learner + Send + 'static,
    Fit<L::Estimate, L::Plan>: Send,
{
    let stop = Arc::new(AtomicBool::new(false));
    let latest: Arc<Mutex<Option<Report>>> = Arc::new(Mutex::new(None));
    let (sender, receiver) = mpsc::channel();
    let worker = {
        let (stop, latest) = (Arc::clone(&stop), Arc::clone(&latest));
        std::thread::Builder::new()
            .name("sosdp-fit".into())
            .spawn(move || {
                let result = learner.fit_with_progress(&data, &mut |step, p| {
                    if stop.load(Ordering::Relaxed) {
                        return ControlFlow::Break(());
                    }
                    *latest.lock().unwrap_or_else(|e| e.into_inner()) = Some((step, p));
                    ControlFlow::Continue(())
                });
                // After a cancel nobody listens any more: the result is dropped.
                let _ = sender.send(result);
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the fit's thread: {e}")))?
    };
    let receiver = Mutex::new(receiver);
    let mut shown: Option<Report> = None;
    loop {
        let received = py.detach(|| {
            let receiver = receiver.lock().unwrap_or_else(|e| e.into_inner());
            receiver.recv_timeout(TICK)
        });
        match received {
            Ok(result) => {
                let _ = worker.join();
                return Ok(result);
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // The worker ended without a result: it panicked.
                let message = match worker.join() {
                    Err(payload) => payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_default(),
                    Ok(()) => String::new(),
                };
                return Err(PyRuntimeError::new_err(format!(
                    "the fit's thread panicked: {message}"
                )));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        // Tell the worker to stop at its next iteration and raise `error` now.
        let stop_with = |error: PyErr| {
            stop.store(true, Ordering::Relaxed);
            Err(error)
        };
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
}
