//! What the fast CM backend ([`crate::FastCm`]) keeps across evaluations: the warm-start
//! states, the cuts (affine minorants) from the duals of recent solves and of the compressed
//! program, and the certificates (feasible primals) of recent solves (MATH.md 4.9).
use crate::active_set::fold::ActiveSet;
use crate::active_set::warm::WarmPool;
use crate::cm::{Certificate, CertifiedMean, Cut};
use std::sync::{Arc, Mutex};

/// The memory of one backend instance (its clones start empty); every list keeps the newest
/// last and drops the oldest when full.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    /// Warm-start states.
    warm: WarmPool<ActiveSet>,
    /// Cuts from the duals of recent solves.
    cuts: Mutex<Vec<Cut>>,
    /// Cuts of the compressed program ([`crate::cm::compress`]): they certify NO answers and
    /// outer chord ends like the others, but never seed a warm start (their duals have rank at
    /// most 5).
    compressed_cuts: Mutex<Vec<Cut>>,
    /// Certificates of recent solves.
    certificates: Mutex<Vec<Certificate>>,
}

impl Memory {
    /// Forget everything (the next evaluation is cold).
    pub(crate) fn clear(&self) {
        self.warm.clear();
        lock(&self.cuts).clear();
        lock(&self.compressed_cuts).clear();
        lock(&self.certificates).clear();
    }

    /// The most recently kept warm-start state, if any.
    pub(crate) fn take_warm(&self) -> Option<ActiveSet> {
        self.warm.take()
    }

    /// Keep a warm-start state.
    pub(crate) fn keep_warm(&self, set: ActiveSet) {
        self.warm.keep(set);
    }

    /// Keep the cut of a solve, at most `most` of them.
    pub(crate) fn keep_cut(&self, cut: Cut, most: usize) {
        keep_newest(&self.cuts, cut, most);
    }

    /// Keep a cut of the compressed program, at most `most` of them.
    pub(crate) fn keep_compressed_cut(&self, cut: Cut, most: usize) {
        keep_newest(&self.compressed_cuts, cut, most);
    }

    /// Keep the certificate of a solve, at most `most` of them.
    pub(crate) fn keep_certificate(&self, certificate: Certificate, most: usize) {
        keep_newest(&self.certificates, certificate, most);
    }

    /// The kept certificates, oldest first.
    pub(crate) fn certificates(&self) -> Vec<Certificate> {
        lock(&self.certificates).clone()
    }

    /// The kept cut with the largest value at `theta` (the dual of a recent solve that is
    /// closest to optimal at `theta`) and that value (the largest lower bound the kept cuts
    /// give there).
    pub(crate) fn tightest_cut(&self, theta: &[f64]) -> Option<(Cut, f64)> {
        lock(&self.cuts)
            .iter()
            .map(|c| (c, c.value(theta)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, v)| (c.clone(), v))
    }

    /// The largest lower bound the kept cuts of the compressed program give at `theta`.
    pub(crate) fn compressed_bound(&self, theta: &[f64]) -> Option<f64> {
        lock(&self.compressed_cuts)
            .iter()
            .map(|c| c.value(theta))
            .max_by(f64::total_cmp)
    }

    /// The smallest certified upper bound below `level` at `theta` that the kept certificates
    /// give, or `None` ([`Certificate::upper_below`]). The certificates are asked newest first
    /// (the newest solve is usually nearest `theta`), each for a bound below the best so far:
    /// one that cannot beat it fails its first Schur test, so only the bounds that improve are
    /// bisected.
    pub(crate) fn memoised_upper(
        &self,
        cm: &CertifiedMean,
        theta: &[f64],
        level: f64,
    ) -> Option<f64> {
        lock(&self.certificates).iter().rev().fold(None, |best, c| {
            c.upper_below(
                theta,
                cm.centre(),
                cm.gamma(),
                cm.n() as f64,
                best.unwrap_or(level),
            )
            .or(best)
        })
    }

    /// Along the ray `x + s u`: the smallest certified outer end of `{CM <= level}` among the
    /// kept cuts of full solves, and the quadratic forms of that cut's dual.
    pub(crate) fn nearest_cut(
        &self,
        x: &[f64],
        u: &[f64],
        level: f64,
    ) -> Option<(f64, Arc<[f64]>)> {
        lock(&self.cuts)
            .iter()
            .filter_map(|c| c.ray_end(x, u, level).map(|s| (s, c)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(s, c)| (s, c.quad.clone()))
    }

    /// Along the ray `x + s u`, `s >= 0`: the smallest certified outer end of `{CM <= level}`
    /// among all kept cuts (of full solves and of the compressed program), at least 0.
    pub(crate) fn outer_end(&self, x: &[f64], u: &[f64], level: f64) -> Option<f64> {
        let cuts = lock(&self.cuts);
        let compressed = lock(&self.compressed_cuts);
        cuts.iter()
            .chain(compressed.iter())
            .filter_map(|c| c.ray_end(x, u, level))
            .min_by(f64::total_cmp)
            .map(|s| s.max(0.0))
    }
}

/// The list behind `kept`, also after a panic of another thread holding it.
fn lock<T>(kept: &Mutex<Vec<T>>) -> std::sync::MutexGuard<'_, Vec<T>> {
    kept.lock().unwrap_or_else(|e| e.into_inner())
}

/// Push `item` onto `kept`, dropping the oldest when there are `most`.
fn keep_newest<T>(kept: &Mutex<Vec<T>>, item: T, most: usize) {
    let mut kept = lock(kept);
    if kept.len() >= most && !kept.is_empty() {
        kept.remove(0);
    }
    if most > 0 {
        kept.push(item);
    }
}
