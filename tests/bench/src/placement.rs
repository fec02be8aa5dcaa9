//! Where the two processes of a latency measurement run: both on one vCPU, or one on each.
//!
//! A sequential round trip costs 6–10 µs when both processes share a vCPU (the wake-up is a
//! context switch) and, when they are on two, anything from 9 to 70 µs depending on the machine
//! (the wake-up crosses vCPUs, which on these VMs means waking an idle one). Left to itself the scheduler picks either, and keeps
//! its pick for a while, so the floor's rounds could run on one placement and maitool's on the
//! other: the p50 ratio then read 0.2 or 6 for the same code. Each latency round therefore
//! pins the benchmark's threads and its peer's, the same way for the floor and for maitool,
//! and the ratios compare like with like.

use std::fmt;

use anyhow::{Context, Result, bail};
use nix::sched::{CpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;

/// The two placements every latency round is measured in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Both processes on the same vCPU.
    OneCpu,
    /// The benchmark on one vCPU, its peer on another.
    TwoCpus,
}

impl Placement {
    /// Both placements, in the order they are measured.
    pub const ALL: [Placement; 2] = [Placement::OneCpu, Placement::TwoCpus];

    /// The suffix of this placement's JSON keys.
    pub fn key(self) -> &'static str {
        match self {
            Placement::OneCpu => "one_cpu",
            Placement::TwoCpus => "two_cpus",
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Placement::OneCpu => "both on one vCPU",
            Placement::TwoCpus => "one vCPU each",
        })
    }
}

/// The vCPUs this process may run on, read once at start.
#[derive(Debug, Clone)]
pub struct Cpus {
    allowed: CpuSet,
    first: usize,
    /// `None` on a machine (or under a mask) with one vCPU.
    second: Option<usize>,
}

impl Cpus {
    /// The vCPUs of this thread's affinity mask.
    pub fn of_this_process() -> Result<Cpus> {
        let allowed = sched_getaffinity(Pid::from_raw(0)).context("reading the CPU affinity")?;
        let mut ids = (0..CpuSet::count()).filter(|&cpu| allowed.is_set(cpu).unwrap_or(false));
        let Some(first) = ids.next() else {
            bail!("this process may run on no vCPU at all");
        };
        Ok(Cpus {
            allowed,
            first,
            second: ids.next(),
        })
    }

    /// The placements this machine allows: both, or only [`Placement::OneCpu`] with one vCPU.
    pub fn placements(&self) -> Vec<Placement> {
        Placement::ALL
            .into_iter()
            .filter(|&placement| placement == Placement::OneCpu || self.second.is_some())
            .collect()
    }

    /// Pins every thread of `me` (this process) to the first vCPU and every thread of `peer`
    /// to the vCPU `placement` gives it, until the guard drops, which lets all of them run
    /// anywhere again. All threads, not only the calling one: a multi-thread host runs its
    /// tasks on workers, and a runner may answer from any of its threads.
    pub fn pin(&self, placement: Placement, me: u32, peer: u32) -> Result<Pinned> {
        let peer_cpu = match placement {
            Placement::OneCpu => self.first,
            Placement::TwoCpus => self.second.context("one vCPU each needs two vCPUs")?,
        };
        let pinned = Pinned {
            processes: [me, peer],
            allowed: self.allowed,
        };
        set_process(me, &only(self.first)?)?;
        set_process(peer, &only(peer_cpu)?)?;
        Ok(pinned)
    }
}

/// Undoes a [`Cpus::pin`] on drop.
#[derive(Debug)]
pub struct Pinned {
    processes: [u32; 2],
    allowed: CpuSet,
}

impl Drop for Pinned {
    fn drop(&mut self) {
        for pid in self.processes {
            if let Err(err) = set_process(pid, &self.allowed) {
                tracing::warn!("cannot restore the CPU affinity after a latency round: {err:#}");
            }
        }
    }
}

fn only(cpu: usize) -> Result<CpuSet> {
    let mut set = CpuSet::new();
    set.set(cpu).context("a vCPU number out of range")?;
    Ok(set)
}

/// Sets the affinity of one thread.
fn set_thread(tid: i32, set: &CpuSet) -> Result<()> {
    sched_setaffinity(Pid::from_raw(tid), set).with_context(|| format!("pinning thread {tid}"))
}

/// Sets the affinity of every thread of `pid`: the mask is per thread, and a runner's work
/// may run on any of its threads.
fn set_process(pid: u32, set: &CpuSet) -> Result<()> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .with_context(|| format!("listing the threads of process {pid}"))?;
    for task in tasks.flatten() {
        if let Some(tid) = task.file_name().to_str().and_then(|name| name.parse().ok()) {
            // A thread may exit between the listing and the call; the others still count.
            if let Err(err) = set_thread(tid, set) {
                tracing::debug!("{err:#}");
            }
        }
    }
    Ok(())
}
