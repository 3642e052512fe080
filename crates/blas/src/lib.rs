//! The BLAS/LAPACK routines that clarabel's PSD cones and sosdp's dense kernels call, behind one
//! switch.
//!
//! clarabel (feature `sdp`) and `sosdp-score`'s dense kernels call Fortran symbols (`dgemm_`,
//! `dsyevr_`, `dpotrf_`, ...) through the `blas` and `lapack` crates. This crate provides them:
//!
//! - feature `faer` (default): the symbols are exported by this crate, implemented in pure Rust
//!   on [faer](https://docs.rs/faer) ([`exports`]). No system library is linked; the routines
//!   run on the calling thread.
//! - feature `openblas`: the system OpenBLAS is linked instead (`scripts/install-blas.sh`
//!   installs it) and the faer exports are compiled out, so the two never meet in one link.
//!
//! Crates that call BLAS/LAPACK write `use sosdp_blas as _;` so that the provider is linked into
//! every binary and test. [`BACKEND`] names the provider a build uses.

#[cfg(all(feature = "faer", not(feature = "openblas")))]
pub mod exports;

#[cfg(not(any(feature = "faer", feature = "openblas")))]
compile_error!("sosdp-blas needs a provider: the feature `faer` (default) or `openblas`");

/// The BLAS/LAPACK provider of this build: `"faer"` (pure Rust) or `"openblas"` (the system
/// library).
pub const BACKEND: &str = if cfg!(feature = "openblas") {
    "openblas"
} else {
    "faer"
};

#[cfg(feature = "openblas")]
unsafe extern "C" {
    fn openblas_set_num_threads(num_threads: std::ffi::c_int);
}

/// Restrict BLAS to `threads` threads (at least 1) for the rest of the process.
///
/// The SDP blocks are small and the solvers already run one solve per core with rayon, so BLAS
/// threads only add overhead (and can change rounding between runs). With OpenBLAS this calls
/// `openblas_set_num_threads` (the `sosdp` binary calls it with 1 at its entry; a program using
/// the library should do the same, or set `OPENBLAS_NUM_THREADS=1`). The faer exports always run
/// on the calling thread, so there it has nothing to restrict.
pub fn set_num_threads(threads: usize) {
    #[cfg(feature = "openblas")]
    {
        let t = threads.clamp(1, i32::MAX as usize) as std::ffi::c_int;
        // SAFETY: plain setter in OpenBLAS, callable at any time.
        unsafe { openblas_set_num_threads(t) }
    }
    #[cfg(not(feature = "openblas"))]
    let _ = threads;
}
