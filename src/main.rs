//! The `sosdp` command-line tool (feature `cli`).
fn main() -> std::process::ExitCode {
    // The SDPs have small dense blocks: BLAS threads (OpenBLAS's, with the `openblas` feature)
    // only add overhead and compete with rayon.
    sosdp::set_blas_threads(1);
    sosdp_cli::main()
}
