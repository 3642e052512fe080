//! With the `openblas` feature, make the system OpenBLAS available to the linker; with the
//! default `faer` feature, nothing to link (the crate exports the symbols itself).
//!
//! `scripts/install-blas.sh` installs OpenBLAS on Debian/Ubuntu (`libopenblas-dev`), or set
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
    if std::env::var_os("CARGO_FEATURE_OPENBLAS").is_none() {
        return;
    }
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
            "sosdp-blas (feature `openblas`): libopenblas.so not found. Run `scripts/install-blas.sh` \
             (Debian/Ubuntu: `apt-get install libopenblas-dev`), set SOSDP_OPENBLAS_DIR to the \
             directory that holds libopenblas.so, or build without the `openblas` feature (the \
             default pure-Rust BLAS needs no system library)"
        ),
    }
}
