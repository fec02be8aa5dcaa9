//! The `maitool` command line (feature `cli`).
//!
//! The binary's `main` is [`main`]; the code lives in the library so that the generic code the
//! command line and the library share is compiled once (see the feature's note in Cargo.toml).

mod args;
mod commands;
mod output;

use std::process::ExitCode;

use clap::Parser;

pub use args::Cli;

/// Exit status of a usage or configuration error.
pub const EXIT_USAGE: u8 = 2;
/// Exit status of a failed tool result.
pub const EXIT_FAILED: u8 = 1;
/// Exit status of `status`, `tools`, `plugins` or `definitions` answered by a one-shot host
/// that could not start every configured runner or MCP server (each is named on stderr; the
/// output shows what did start).
pub const EXIT_SOURCE_FAILED: u8 = 3;

/// Parses the process's arguments, runs the command on a Tokio runtime, and gives the exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(EXIT_USAGE)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    output::init_logging(&cli);
    // The host is I/O-bound: each call is a few microseconds of work between socket reads and
    // writes, so on one thread it saves the cross-thread wake-ups that dominate a call's latency
    // on a multi-thread runtime, at the same throughput on 2 vCPUs (the benchmark's
    // `invoke_p50_us` and `throughput_256_ratio` with `--host-runtime current` and `multi`).
    let mut builder = match cli.runtime {
        args::RuntimeFlavor::Current => tokio::runtime::Builder::new_current_thread(),
        args::RuntimeFlavor::Multi => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("maitool: cannot start the async runtime: {err}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let code = runtime.block_on(commands::run(cli));
    // Background tasks (listeners, readers) must not delay the exit.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}
