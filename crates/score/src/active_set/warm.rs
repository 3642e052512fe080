//! Warm-start states kept across evaluations. A small pool rather than one slot, so that
//! concurrent queries (the sampler asks two at a time on two cores) each find a warm state
//! instead of one of them starting cold.
use std::sync::Mutex;

/// Largest number of states kept (the oldest goes first).
const POOL: usize = 4;

/// The most recent warm-start states (a few), newest last.
#[derive(Debug)]
pub struct WarmPool<T> {
    states: Mutex<Vec<T>>,
}

impl<T> Default for WarmPool<T> {
    fn default() -> Self {
        WarmPool::new()
    }
}

impl<T> WarmPool<T> {
    /// An empty pool.
    pub fn new() -> Self {
        WarmPool {
            states: Mutex::new(Vec::new()),
        }
    }

    /// The most recently kept state, if any.
    pub fn take(&self) -> Option<T> {
        self.states.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    /// Keep a state for a later evaluation.
    pub fn keep(&self, state: T) {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        states.push(state);
        if states.len() > POOL {
            states.remove(0);
        }
    }

    /// Forget every state.
    pub fn clear(&self) {
        self.states
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }
}
