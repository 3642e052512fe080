//! Make the system OpenBLAS available to the linker.
//!
//! clarabel's PSD cones call BLAS/LAPACK through Fortran symbols (`dsyevr_`, `dpotrf_`, ...).
//! We provide them by linking Debian's OpenBLAS (which bundles LAPACK). A new machine does not
//! have it: when the library is missing and we run as root on a system with `apt-get`, this
//! script installs `libopenblas-dev` (after `apt-get update`), so that the README's plain
//! `cargo` commands work on a fresh machine. Otherwise it stops with one clear message.
use std::path::Path;
use std::process::Command;

const LIB_DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/local/lib",
];

fn find_openblas() -> Option<&'static str> {
    LIB_DIRS
        .iter()
        .copied()
        .find(|dir| Path::new(dir).join("libopenblas.so").exists())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn apt(args: &[&str]) -> bool {
    Command::new("apt-get")
        .args(args)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOSDP_OPENBLAS_DIR");
    let dir = if let Ok(dir) = std::env::var("SOSDP_OPENBLAS_DIR") {
        Some(dir)
    } else if let Some(dir) = find_openblas() {
        Some(dir.to_string())
    } else if is_root() && Path::new("/usr/bin/apt-get").exists() {
        println!(
            "cargo:warning=libopenblas-dev was missing: installing it with apt-get (clarabel's PSD cones need LAPACK)"
        );
        let ok = apt(&["update", "-qq"]) && apt(&["install", "-y", "-qq", "libopenblas-dev"]);
        if !ok {
            panic!(
                "sosdp-openblas: `apt-get install libopenblas-dev` failed; install OpenBLAS by hand or set SOSDP_OPENBLAS_DIR"
            );
        }
        find_openblas().map(str::to_string)
    } else {
        None
    };
    match dir {
        Some(dir) => {
            println!("cargo:rustc-link-search=native={dir}");
            println!("cargo:rustc-link-lib=dylib=openblas");
        }
        None => panic!(
            "sosdp-openblas: libopenblas.so not found. Install it (Debian/Ubuntu: `apt-get install libopenblas-dev`) \
             or set SOSDP_OPENBLAS_DIR to the directory that holds libopenblas.so"
        ),
    }
}
