//! Link-only crate: provides the BLAS/LAPACK symbols clarabel's PSD cones need, from the
//! system OpenBLAS (see `build.rs`). Crates that solve SDPs write `use sosdp_openblas as _;`
//! so that the library is linked into every binary and test.

unsafe extern "C" {
    fn openblas_set_num_threads(num_threads: std::ffi::c_int);
}

/// Restrict OpenBLAS to `threads` threads. The SDPs we solve have small dense blocks, so
/// OpenBLAS threading only adds overhead and competes with rayon; we call this with 1.
pub fn set_num_threads(threads: usize) {
    let t = threads.clamp(1, i32::MAX as usize) as std::ffi::c_int;
    // SAFETY: plain setter in OpenBLAS, callable at any time.
    unsafe { openblas_set_num_threads(t) }
}
