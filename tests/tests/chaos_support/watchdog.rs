//! A watchdog on a plain thread. A deadlock on a synchronous lock blocks the tokio workers
//! themselves, so no tokio timeout can fire and the test would hang forever; this thread
//! still runs. On expiry it prints what it can (progress, the log tail, and every thread's
//! stack through gdb when installed), SIGKILLs the run's processes and exits the test binary.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use super::procs::PidLog;

/// Disarms the watchdog when dropped.
#[derive(Debug)]
pub struct Watchdog {
    done: Arc<AtomicBool>,
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::SeqCst);
    }
}

/// Starts the watchdog: after `limit`, unless disarmed, it reports and exits the process.
pub fn arm(
    limit: Duration,
    pids: Arc<PidLog>,
    describe: impl Fn() -> String + Send + 'static,
) -> Watchdog {
    let done = Arc::new(AtomicBool::new(false));
    let disarmed = done.clone();
    std::thread::spawn(move || {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if disarmed.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        // Straight to the stderr handle: the test harness captures `eprintln!` (in threads
        // spawned by the test too) and would drop it when the process exits.
        let mut report = format!(
            "chaos watchdog: the test did not finish within {limit:?}; {}\nlast log lines:\n",
            describe()
        );
        // Without the per-call failure lines, which would drown the rest.
        let log: Vec<String> = maitool_e2e::logs::lines()
            .into_iter()
            .filter(|l| !l.contains("tool reported a failure"))
            .collect();
        for line in log.iter().skip(log.len().saturating_sub(40)) {
            report.push_str(&format!("  {line}\n"));
        }
        report.push_str(&stacks());
        let _ = writeln!(std::io::stderr(), "{report}");
        for pid in pids.all() {
            let pid = Pid::from_raw(pid as i32);
            let _ = killpg(pid, Signal::SIGKILL);
            let _ = kill(pid, Signal::SIGKILL);
        }
        std::process::exit(101);
    });
    Watchdog { done }
}

/// The maitool frames of every thread of this process, from `gdb -batch` if it is installed.
/// gdb writes to a file, not a pipe: while attached it stops every thread of this process,
/// this one included, so nothing could drain a pipe and a long dump would block gdb forever.
fn stacks() -> String {
    let path = std::env::temp_dir().join(format!("maitool-chaos-{}.gdb", std::process::id()));
    let status = std::fs::File::create(&path).and_then(|file| {
        std::process::Command::new("gdb")
            .args(["-p", &std::process::id().to_string(), "-batch", "-ex"])
            .arg("thread apply all bt")
            .stdin(std::process::Stdio::null())
            .stdout(file)
            .stderr(std::process::Stdio::null())
            .status()
    });
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    match status {
        Ok(_) => {
            // Per thread, its innermost few maitool frames: where it is stuck.
            let mut frames = Vec::new();
            let mut kept = 0;
            for line in text.lines() {
                if line.starts_with("Thread ") {
                    frames.push(line.to_owned());
                    kept = 0;
                } else if line.starts_with('#') && line.contains("maitool") && kept < 6 {
                    frames.push(format!("  {}", line.chars().take(220).collect::<String>()));
                    kept += 1;
                }
            }
            format!("thread stacks (maitool frames):\n{}", frames.join("\n"))
        }
        Err(err) => format!("no thread stacks (gdb: {err}); attach a debugger to see them"),
    }
}
