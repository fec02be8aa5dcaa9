//! `maitool`: run the tool host, or talk to a running one.

/// glibc's malloc and free were 10-15 % of the host's CPU per plugin call under a few hundred
/// calls in flight (fastbin consolidation included); on mimalloc the host's CPU per call fell
/// from 6.1-7.7 to 4.7-5.8 us in the benchmark (docs/BENCHMARKS.md). Set here, in the binary,
/// so that an engine embedding the host library keeps its own allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    maitool_host::cli::main()
}
