//! `maitool`: run the tool host, or talk to a running one.

/// Every plugin call allocates and frees its frames and payloads, and under a few hundred calls
/// in flight glibc's malloc and free (fastbin consolidation included) are a visible share of
/// the host's CPU per call, the benchmark's `invoke_256_host_cpu_us`; mimalloc's thread-local
/// free lists cost less. Set here, in the binary, so that an engine embedding the host library
/// keeps its own allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    maitool_host::cli::main()
}
