fn main() -> std::process::ExitCode {
    sosdp_cli::main()
}
