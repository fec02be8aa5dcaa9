//! The `maitool` command line, as the benchmark's own executable: the host library built with
//! the benchmark's features (no `http`), under a name of its own so that building it never
//! replaces the `maitool` a user built. Its `main` is the `maitool` binary's.

/// The `maitool` binary's allocator (see `host/src/main.rs`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    maitool_host::cli::main()
}
