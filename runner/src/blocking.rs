//! Blocking work on the runtime's blocking pool, so that it never stalls the runner.
//!
//! The runner serves every call, its health checks and its logs from one async runtime (one
//! thread by default). Code that does not yield — a busy loop, `std::thread::sleep`, blocking
//! I/O, a heavy computation — holds that thread: concurrent calls stall, health checks go
//! unanswered, and the host restarts the runner. Such code belongs on the blocking pool.

use crate::log_forward;

/// Runs `work` on tokio's blocking pool and waits for it without holding the runner's
/// thread; its log records keep the calling plugin's tag. A panic in `work` resumes in the
/// caller, where the runner reports it like any handler panic.
///
/// The pool grows as needed (up to tokio's default of 512 threads). `work` runs to the end
/// even if the caller stops waiting: a blocking closure cannot be interrupted.
///
/// Call it from inside the runner's runtime (a handler or a lifecycle hook).
///
/// ```no_run
/// # async fn demo() {
/// let digest = maitool_runner::run_blocking(|| {
///     // CPU-bound or blocking work: it does not delay the runner's other calls.
///     (0..50_000_000u64).fold(0u64, |acc, n| acc.wrapping_add(n * n))
/// })
/// .await;
/// # let _ = digest;
/// # }
/// ```
pub async fn run_blocking<F, R>(work: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let plugin = log_forward::current_plugin();
    let task = tokio::task::spawn_blocking(move || log_forward::on_thread_for(plugin, work));
    match task.await {
        Ok(value) => value,
        Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
        // Only a runtime shutting down cancels a blocking task: the runner is stopping.
        Err(err) => panic!("blocking task did not finish: {err}"),
    }
}
