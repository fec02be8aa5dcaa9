//! Process hygiene: every process the benchmark starts, directly or through the host, ends
//! with it, even on a panic or a global timeout.
//!
//! The benchmark makes itself a child subreaper, so a grandchild whose parent died is
//! re-parented to it instead of to init, and stays findable by walking `/proc` from our pid.
//! [`kill_descendants`] then ends the whole tree; [`ReapGuard`] runs it on drop.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// Keeps orphaned descendants in our tree (see the module documentation).
pub fn become_subreaper() {
    if let Err(err) = nix::sys::prctl::set_child_subreaper(true) {
        tracing::warn!("cannot become a child subreaper ({err}); orphans may escape the cleanup");
    }
}

/// Kills every descendant on drop.
#[derive(Debug)]
pub struct ReapGuard;

impl Drop for ReapGuard {
    fn drop(&mut self) {
        let killed = kill_descendants();
        if killed > 0 {
            tracing::debug!(killed, "killed leftover descendant processes");
        }
    }
}

/// The pids of every live descendant of this process.
pub fn descendants() -> Vec<i32> {
    descendants_of(std::process::id() as i32)
}

fn descendants_of(root: i32) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some((ppid, state)) = parent_and_state(pid)
            && state != 'Z'
        {
            children.entry(ppid).or_default().push(pid);
        }
    }
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).map(Vec::as_slice).unwrap_or_default() {
            if seen.insert(child) {
                found.push(child);
                stack.push(child);
            }
        }
    }
    found
}

/// The parent pid and state letter from `/proc/PID/stat` (the command name may hold spaces
/// and parentheses, so fields are read after its last `)`).
fn parent_and_state(pid: i32) -> Option<(i32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state))
}

/// SIGKILLs every descendant, reaps what it can, and returns how many it signalled.
pub fn kill_descendants() -> usize {
    let mut killed = 0;
    // A dying parent may spawn nothing more, but a supervisor could be mid-restart: repeat
    // until the tree is empty (bounded).
    for _ in 0..20 {
        let pids = descendants();
        if pids.is_empty() {
            break;
        }
        for &pid in &pids {
            if kill(Pid::from_raw(pid), Signal::SIGKILL).is_ok() {
                killed += 1;
            }
        }
        reap_zombies();
        std::thread::sleep(Duration::from_millis(10));
    }
    reap_zombies();
    killed
}

/// Collects exited children (ours, or orphans re-parented to us) without blocking.
fn reap_zombies() {
    while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
        if status == nix::sys::wait::WaitStatus::StillAlive {
            break;
        }
    }
}

/// A child process killed (and reaped) when dropped.
#[derive(Debug)]
pub struct ChildGuard {
    child: Child,
    what: String,
}

impl ChildGuard {
    /// Spawns `command`, described as `what` in errors.
    pub fn spawn(mut command: Command, what: &str) -> anyhow::Result<ChildGuard> {
        let child = command.spawn().map_err(|err| {
            anyhow::anyhow!("cannot start {what} ({:?}): {err}", command.get_program())
        })?;
        Ok(ChildGuard {
            child,
            what: what.to_owned(),
        })
    }

    /// The child's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Fails if the child has already exited (so a wait loop stops early with a reason).
    pub fn check_alive(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait() {
            Ok(Some(status)) => anyhow::bail!("{} exited early: {status}", self.what),
            Ok(None) => Ok(()),
            Err(err) => anyhow::bail!("cannot check {}: {err}", self.what),
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Resident memory (`VmRSS`) of a process, in KiB.
pub fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|err| anyhow::anyhow!("cannot read /proc/{pid}/status: {err}"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| anyhow::anyhow!("no VmRSS in /proc/{pid}/status"))
}

/// The direct children of `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&child| {
            parent_and_state(child).is_some_and(|(ppid, state)| ppid == pid as i32 && state != 'Z')
        })
        .map(|child| child as u32)
        .collect()
}

/// Polls `condition` every `step` until it holds or `limit` passes; the error names `what`.
pub fn wait_for(
    what: &str,
    limit: Duration,
    step: Duration,
    mut condition: impl FnMut() -> anyhow::Result<bool>,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + limit;
    loop {
        if condition()? {
            return Ok(());
        }
        if Instant::now() >= deadline {
            anyhow::bail!("timed out after {limit:?} waiting for {what}");
        }
        std::thread::sleep(step);
    }
}

/// Waits until `path` exists.
pub fn wait_for_path(path: &Path, limit: Duration) -> anyhow::Result<()> {
    wait_for(
        &format!("{} to appear", path.display()),
        limit,
        Duration::from_millis(5),
        || Ok(path.exists()),
    )
}

/// CPU time a process has used so far, summed over its threads (`/proc/PID/task/*/schedstat`,
/// nanosecond resolution; a thread that already exited is not counted).
pub fn cpu_time(pid: u32) -> Duration {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Duration::ZERO;
    };
    let nanos: u64 = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(nanos)
}

/// Measures the CPU time two processes spend while `work` runs.
#[derive(Debug, Default, Clone, Copy)]
pub struct CpuMeter {
    /// CPU time of the first process.
    pub first: Duration,
    /// CPU time of the second process.
    pub second: Duration,
}

impl CpuMeter {
    /// Adds the CPU time `first` and `second` used between now and when `work` finishes.
    pub async fn measure<T>(
        &mut self,
        first: u32,
        second: u32,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        let (a, b) = (cpu_time(first), cpu_time(second));
        let outcome = work.await;
        self.first += cpu_time(first).saturating_sub(a);
        self.second += cpu_time(second).saturating_sub(b);
        outcome
    }
}

#[cfg(test)]
mod tests;
