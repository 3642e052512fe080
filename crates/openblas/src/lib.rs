//! Link-only crate: provides the BLAS/LAPACK symbols clarabel's PSD cones need, from the
//! system OpenBLAS (see `build.rs`). Crates that solve SDPs write `use sosdp_openblas as _;`
//! so that the library is linked into every binary and test.
//!
//! Threads: the SDP blocks are small and the solvers already run one solve per core with
//! rayon, so OpenBLAS threads only add overhead (and can change rounding between runs). The
//! `sosdp` binary calls [`set_num_threads`]`(1)` at its entry; a program using the library
//! should do the same, or set `OPENBLAS_NUM_THREADS=1` (this workspace's `.cargo/config.toml`
//! does so for `cargo run`, `cargo test` and `cargo bench`).

unsafe extern "C" {
    fn openblas_set_num_threads(num_threads: std::ffi::c_int);
}

/// Restrict OpenBLAS to `threads` threads (at least 1) for the rest of the process.
pub fn set_num_threads(threads: usize) {
    let t = threads.clamp(1, i32::MAX as usize) as std::ffi::c_int;
    // SAFETY: plain setter in OpenBLAS, callable at any time.
    unsafe { openblas_set_num_threads(t) }
}
