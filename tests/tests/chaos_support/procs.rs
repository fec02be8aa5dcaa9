//! Process checks through `/proc`: every pid the test saw, and what is left after shutdown.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// Every process id the test saw a runner or server use.
#[derive(Debug, Default)]
pub struct PidLog {
    pids: Mutex<BTreeSet<u32>>,
}

impl PidLog {
    /// Records pids.
    pub fn record(&self, pids: impl IntoIterator<Item = u32>) {
        let mut set = self.pids.lock().unwrap_or_else(|e| e.into_inner());
        set.extend(pids);
    }

    /// The pids recorded.
    pub fn all(&self) -> BTreeSet<u32> {
        self.pids.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// One line of `/proc/PID/stat`, the fields that matter here.
#[derive(Debug, Clone)]
pub struct ProcInfo {
    /// Process id.
    pub pid: u32,
    /// State letter (`Z` for a zombie nobody reaped).
    pub state: char,
    /// Parent pid.
    pub ppid: u32,
    /// Process group.
    pub pgrp: u32,
    /// Command line, for the report.
    pub cmdline: String,
}

impl std::fmt::Display for ProcInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pid {} state {} ppid {} pgrp {}: {}",
            self.pid, self.state, self.ppid, self.pgrp, self.cmdline
        )
    }
}

/// Reads `/proc/PID`; `None` once the process is gone.
pub fn proc_info(pid: u32) -> Option<ProcInfo> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|bytes| String::from_utf8_lossy(&bytes).replace('\0', " "))
        .unwrap_or_default();
    Some(ProcInfo {
        pid,
        state,
        ppid,
        pgrp,
        cmdline: cmdline.trim().to_owned(),
    })
}

/// Every process left of this test: children of this process, and example binaries whose pid
/// or process group (runners and stdio servers lead their own) was recorded. The name check
/// keeps an unrelated process that reused a recorded pid out of the list.
pub fn leftovers(recorded: &BTreeSet<u32>) -> Vec<ProcInfo> {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(proc_info)
        .filter(|p| {
            let ours = recorded.contains(&p.pid) || recorded.contains(&p.pgrp);
            p.pid != me && (p.ppid == me || (ours && p.cmdline.contains("maitool-example")))
        })
        .collect()
}
