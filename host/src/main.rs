//! `maitool`: run the tool host, or talk to a running one.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
