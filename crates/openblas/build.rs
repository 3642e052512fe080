//! Make the system OpenBLAS available to the linker.
//!
//! clarabel's PSD cones call BLAS/LAPACK through Fortran symbols (`dsyevr_`, `dpotrf_`, ...).
//! We provide them by linking the system OpenBLAS (which bundles LAPACK). The build only looks
//! for it: `scripts/install-blas.sh` installs it on Debian/Ubuntu (`libopenblas-dev`), or set
//! `SOSDP_OPENBLAS_DIR` to the directory that holds `libopenblas.so`.
use std::path::Path;

/// Where Debian, Ubuntu, Fedora and source installs put `libopenblas.so`.
const LIB_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOSDP_OPENBLAS_DIR");
    let dir = std::env::var("SOSDP_OPENBLAS_DIR").ok().or_else(|| {
        LIB_DIRS
            .iter()
            .find(|dir| Path::new(dir).join("libopenblas.so").exists())
            .map(|dir| dir.to_string())
    });
    match dir {
        Some(dir) => {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-lib=dylib=openblas");
        }
        None => panic!(
            "sosdp-openblas: libopenblas.so not found. Run `scripts/install-blas.sh` (Debian/Ubuntu: \
             `apt-get install libopenblas-dev`) or set SOSDP_OPENBLAS_DIR to the directory that holds \
             libopenblas.so"
        ),
    }
}
