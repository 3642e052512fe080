//! Link the extension module with `-Bsymbolic` on ELF targets: its references to the BLAS and
//! LAPACK symbols it exports (the pure-Rust `sosdp-blas`) bind to its own definitions, so no
//! other BLAS loaded into the Python process (numpy's, scipy's) can interpose on them.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(
        os.as_str(),
        "linux" | "android" | "freebsd" | "netbsd" | "openbsd"
    ) {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    }
}
